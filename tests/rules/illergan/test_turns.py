"""The turn economy of an Illergan fight (I-L241-265) and the per-turn defences (I-L542-553).

Each turn a combatant has 1 major action, 1 minor action and 1 skill use (I-L241); a new turn starts
with the initiative of the next turn. Refusals are one sentence and append nothing.
"""

from __future__ import annotations

import msgspec
import pytest
from harness import Table
from helpers import refused

from cristal_events.rulesets.illergan import fights as F
from cristal_events.rulesets.illergan import heroes as H
from cristal_events.rulesets.illergan.character import Choices
from cristal_events.rulesets.illergan.content import example_pack

THOR = dict(Fo=4, Dex=50, Vit=60, Vol=40, Mana=10, E=8, Cha=30, Sav=30, Dep=5, Agilité=40, Adresse=60)
LYSA = dict(Fo=2, Dex=45, Vit=40, Vol=55, Mana=60, E=12, Cha=35, Sav=50, Dep=5, Agilité=50, Adresse=40)
GOB = dict(Fo=2, Dex=20, Vol=10, Vit=20, Adresse=45)


@pytest.fixture
def camp():
    c = Table(name="Tours", ruleset="illergan", seed=5)
    c.execute(H.LoadPack(name="example", data=msgspec.to_builtins(example_pack())))
    c.execute(H.CreateHero(character="thor", choices=Choices(name="Thor", race="Humain", class_name="Guerrier",
                                                             heritage="Enfant des rues", skills=("Blocage",)),
                           characteristics=THOR, pv=40, pm=0, rn=10, gift_face=3))
    c.execute(H.CreateHero(character="lysa", choices=Choices(name="Lysa", race="Elfe", class_name="Mage",
                                                             heritage="Apprenti d'académie", magics=("Yarlysy",)),
                           characteristics=LYSA, pv=30, pm=60, rn=0, gift_face=5,
                           spells=("Embrasement", "Ardeur", "Bouclier de braise")))  # learned spells only (I-L17)
    c.execute(H.CreateCreature(character="gob", name="Gobelin", characteristics=GOB, pv=200))
    c.execute(H.Carry(character="thor", item="Épée longue", qty=1))  # equip takes what is carried (I-L47-48)
    c.execute(H.Equip(character="thor", slot="weapon", item="Épée longue"))
    c.execute(F.StartFight(fight="gue", participants=("thor", "lysa", "gob")))
    c.execute(F.RollInitiative(fight="gue"), faces=[50, 50, 50])  # thor 140, lysa 150, gob 80: all act
    return c




def turn(camp, who):
    return camp.state().rules.fights["gue"].turns[who]


def attack(who="thor", target="gob", **kw):
    return F.Attack(fight="gue", attacker=who, target=target, **kw)


def test_one_attack_per_turn_then_a_new_turn_with_the_next_initiative(camp):
    camp.execute(attack(hands=2), faces=[90])  # a miss still spends the major action (I-L260-261)
    refused(camp, attack(hands=2), "Thor: No major action is left this turn (I-L241).", faces=[10])
    assert turn(camp, "thor").budget.major == 0
    camp.execute(F.RollInitiative(fight="gue"), faces=[50, 50, 50])
    assert turn(camp, "thor").budget == F.combat.TurnBudget()  # 1 major, 1 minor, 1 skill again
    camp.execute(attack(hands=2), faces=[90])


def test_forgoing_the_major_action_gives_two_more_minor_actions(camp):
    camp.execute(F.TakeAction(fight="gue", character="thor", action="forgo_major"))  # I-L243
    assert (turn(camp, "thor").budget.major, turn(camp, "thor").budget.minor) == (0, 3)
    for what in ("se relever", "ramasser une arme", "boire une potion"):  # I-L250, I-L251, I-L249
        camp.execute(F.TakeAction(fight="gue", character="thor", action="minor", what=what))
    refused(camp, F.TakeAction(fight="gue", character="thor", action="minor"),
            "Thor: No minor action is left this turn (I-L241).")
    refused(camp, attack(hands=2), "Thor: No major action is left this turn (I-L241).", faces=[10])


def test_a_second_skill_takes_the_minor_action(camp):
    camp.execute(F.TakeAction(fight="gue", character="lysa", action="skill", what="Médecine"))
    camp.execute(F.TakeAction(fight="gue", character="lysa", action="skill", what="Pistage"))  # I-L248
    assert (turn(camp, "lysa").budget.skill, turn(camp, "lysa").budget.minor) == (0, 0)
    refused(camp, F.TakeAction(fight="gue", character="lysa", action="skill"),
            "Lysa: No minor action is left this turn (I-L241).")


def cast(spell, action="major", **kw):
    return F.CastSpell(caster="lysa", spell=spell, cast_level=1, fight="gue", action=action, **kw)


def test_amelioration_as_minor_forbids_a_magic_attack_as_major(camp):
    refused(camp, cast("Embrasement", "minor"), "Lysa: Only an amélioration spell can be cast as a minor action (I-L253).",
            faces=[50])
    camp.execute(cast("Ardeur", "minor"), faces=[50])
    refused(camp, cast("Embrasement"),
            "Lysa: No magic attack as the major action after an amélioration spell as the minor action (I-L262).",
            faces=[50])


def test_an_extra_major_action_allows_a_second_magic_attack(camp):
    camp.execute(cast("Embrasement"), faces=[50])
    refused(camp, cast("Embrasement", "extra_major"), "Lysa: No extra major action is left this turn (I-L241).",
            faces=[50])
    refused(camp, F.TakeAction(fight="gue", character="lysa", action="extra_major"),
            "An extra major action needs the object, spell or skill that gives it (I-L265).")
    camp.execute(F.TakeAction(fight="gue", character="lysa", action="extra_major", what="Potion de célérité"))
    ev = camp.execute(cast("Embrasement", "extra_major"), faces=[50])[0].event  # I-L265
    assert (ev.action, ev.turn_after.budget.magic_attacks) == ("extra_major", 2)


def test_knocked_down_loses_this_major_action_or_the_next_one(camp):
    camp.execute(F.TakeAction(fight="gue", character="gob", action="knocked_down", what="chute"))  # I-L416
    refused(camp, attack("gob", "thor"), "Gobelin: No major action is left this turn (I-L241).", faces=[10])
    camp.execute(F.TakeAction(fight="gue", character="gob", action="knocked_down"))
    assert turn(camp, "gob").owed_major == 1
    camp.execute(F.RollInitiative(fight="gue"), faces=[50, 50, 50])
    assert turn(camp, "gob").budget.major == 0 and turn(camp, "gob").budget.minor == 1  # I-L244


def test_nobody_acts_after_50_or_less(camp):
    camp.execute(F.RollInitiative(fight="gue"), faces=[50, 50, 1])  # gob 20 + 10 + 1 = 31 (I-L7)
    refused(camp, F.TakeAction(fight="gue", character="gob", action="minor"),
            "Gobelin scored 50 or less at initiative and cannot act this turn (I-L7).")


def test_defences_per_turn(camp):
    # the goblin attacks Thor three times: parry, then dodge, then block (I-L543: a parry OR a dodge)
    camp.execute(F.TakeAction(fight="gue", character="gob", action="extra_major", what="Frénésie"))
    camp.execute(F.TakeAction(fight="gue", character="gob", action="extra_major", what="Frénésie"))
    ev = camp.execute(attack("gob", "thor", weapon="", defence="parade", defended=True), faces=[10])[0].event
    assert (ev.defender, ev.pv_lost, ev.defender_turn_after.defences.parry_or_dodge) == ("thor", 0, 0)
    refused(camp, attack("gob", "thor", weapon="", action="extra_major", defence="esquive", defended=True),
            "Thor: The esquive defence is already used this turn (I-L543).", faces=[10])
    camp.execute(H.Carry(character="thor", item="Écu d'écorce clouée", qty=1))  # equip takes what is carried (I-L47-48)
    camp.execute(H.Equip(character="thor", slot="shield", item="Écu d'écorce clouée"))  # a block needs one (I-L547)
    camp.execute(attack("gob", "thor", weapon="", action="extra_major", defence="blocage"), faces=[10])
    refused(camp, F.Defend(fight="gue", character="thor", defence="esquive", against_magic=True),
            "Thor: Magic damage cannot be dodged or parried, only blocked (I-L439).")
    camp.execute(F.Defend(fight="gue", character="thor", defence="magique"))  # the third kind is still free
    refused(camp, attack("gob", "thor", weapon="", action="extra_major", defended=True),
            "Say which defence was used (esquive, parade, blocage, vivacite_elfique or magique, I-L543).", faces=[10])


def test_acting_in_defence_for_an_ally_costs_a_major_action(camp):
    ev = camp.execute(attack("gob", "lysa", weapon="", defence="parade", defender="thor", defended=True),
                      faces=[10])[0].event  # I-L552
    assert (ev.defender, ev.pv_lost, ev.defender_turn_after.budget.major) == ("thor", 0, 0)
    refused(camp, attack(hands=2), "Thor: No major action is left this turn (I-L241).", faces=[10])
    # having used his major action already, Lysa's defence for Thor costs her next turn's (I-L552)
    camp.execute(cast("Embrasement"), faces=[50])
    camp.execute(F.Defend(fight="gue", character="lysa", defence="magique", for_ally=True))
    assert turn(camp, "lysa").owed_major == 1
    camp.execute(F.RollInitiative(fight="gue"), faces=[50, 50, 50])
    assert turn(camp, "lysa").budget.major == 0


def test_the_defence_window_runs_from_own_turn_to_own_turn(camp):
    camp.execute(attack(hands=2), faces=[90])  # Thor acts in turn 1: his window opens
    camp.execute(attack("gob", "thor", weapon="", defence="esquive"), faces=[90])
    camp.execute(F.RollInitiative(fight="gue"), faces=[50, 50, 50])
    # A34 own_turn_to_turn: Thor has not acted in the new turn yet, his dodge is still spent
    assert turn(camp, "thor").defences.parry_or_dodge == 0
    camp.execute(attack(hands=2), faces=[90])
    assert turn(camp, "thor").defences.parry_or_dodge == 1


def test_a_pure_defender_gets_his_defences_back_each_turn(camp):
    # I-L542-543: "dans un tour". Thor takes no action in turn 1; his dodge comes back at turn 2 anyway
    camp.execute(attack("gob", "thor", weapon="", defence="esquive"), faces=[90])
    assert turn(camp, "thor").defences.parry_or_dodge == 0
    camp.execute(F.RollInitiative(fight="gue"), faces=[50, 50, 50])
    assert turn(camp, "thor").defences.parry_or_dodge == 1
    camp.execute(attack("gob", "thor", weapon="", defence="esquive"), faces=[90])
    refused(camp, F.Defend(fight="gue", character="thor", defence="parade"),
            "Thor: The parade defence is already used this turn (I-L543).")
    camp.execute(F.RollInitiative(fight="gue"), faces=[50, 50, 50])
    camp.execute(attack("gob", "thor", weapon="", defence="parade"), faces=[90])
