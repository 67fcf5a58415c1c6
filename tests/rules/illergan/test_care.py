"""Consumables and recovery (I-L190-192, I-L249, ruling I19) decided by the rules (tests/harness.py).

A potion de soin gives 20 PV, a potion de mana 40 PM (I-L190-191), never beyond the maximum; in a
fight a consumable from the belt is a minor action (I-L249). The antidote and the poisons' effects
are the EXAMPLE pack's (G30). Outside potions, healing spells and destiny points, `recover` records
what the game master gives back (the text states no natural recovery).
"""

from __future__ import annotations

import msgspec
from harness import Table
from helpers import refused

from cristal_events.rulesets.illergan import care as K
from cristal_events.rulesets.illergan import fights as F
from cristal_events.rulesets.illergan import heroes as H
from cristal_events.rulesets.illergan.character import Choices
from cristal_events.rulesets.illergan.content import example_pack

THOR = dict(Fo=3, Dex=50, Vit=60, Vol=40, Mana=10, E=8, Cha=30, Sav=30, Dep=5, Agilité=40, Adresse=60)


def make(**settings):
    c = Table(name="Soins", ruleset="illergan", seed=3, settings=settings)
    c.execute(H.LoadPack(name="example", data=msgspec.to_builtins(example_pack())))
    c.execute(H.CreateHero(character="lysa", choices=Choices(name="Lysa", race="Elfe", class_name="Mage",
                                                             heritage="Apprenti d'académie", magics=("Yarlysy",)),
                           characteristics=dict(THOR, Mana=60), pv=30, pm=60, rn=0, gift_face=5, kit=("mage",)))
    c.execute(H.Equip(character="lysa", slot="armour", item="Toge à glyphe de Sycte"))  # the bag fits then
    return c


def lysa(c):
    return c.state().rules.characters["lysa"]


def fight(c):
    """An ogre's bare fist on Lysa's trunk: [Fo × 5] + [FP] = 31 C, less the toge's SR C 4 = 27 PV (I-L279, I-L290)."""
    c.execute(H.CreateCreature(character="gob", name="Gobelin", pv=50,
                               characteristics=dict(Fo=6, Dex=40, Vol=10, Vit=20, Adresse=60)))
    c.execute(F.StartFight(fight="f", participants=("lysa", "gob")))
    c.execute(F.RollInitiative(fight="f"), faces=[50, 50])
    hit = c.execute(F.Attack(fight="f", attacker="gob", target="lysa"), faces=[50])[0].event
    return hit


def test_a_potion_de_soin_gives_20_pv_as_a_minor_action_from_the_belt():
    c = make()
    hit = fight(c)
    assert (hit.pv_lost, lysa(c).pv) == (27, 3)
    ev = c.execute(K.UseConsumable(character="lysa", item="Potion de soin", fight="f"))[0].event
    assert (ev.pv_gained, ev.pv_after, ev.turn_after.budget.minor) == (20, 23, 0)  # 20 PV (I-L190), minor (I-L249)
    assert lysa(c).pv == 23 and lysa(c).items["Potion de soin (20PV)"] == 1
    refused(c, K.UseConsumable(character="lysa", item="Potion de soin", fight="f"),
            "Lysa: No minor action is left this turn (I-L241).")
    c.execute(F.EndFight(fight="f"))
    ev = c.execute(K.UseConsumable(character="lysa", item="Potion de soin"))[0].event
    assert (ev.pv_gained, ev.pv_after) == (7, 30)  # never beyond PVmax 30
    refused(c, K.UseConsumable(character="lysa", item="Potion de soin"), "Lysa carries no Potion de soin.")


def test_a_potion_de_mana_gives_40_pm_and_no_belt_no_potion_in_a_fight():
    c = make()
    c.execute(H.Carry(character="lysa", item="Ceinture de combat", qty=-1))
    hit = fight(c)
    assert hit.hit
    refused(c, K.UseConsumable(character="lysa", item="Potion de mana", fight="f"),
            "In a fight a consumable is used from the belt (I-L249); Lysa carries none.")
    c.execute(F.EndFight(fight="f"))
    ev = c.execute(K.UseConsumable(character="lysa", item="Potion de mana"))[0].event
    assert (ev.pm_gained, ev.pm_after) == (0, 60)  # full: never beyond PMmax (I-L191)
    assert lysa(c).items["Potion de mana (40PM)"] == 1  # used up all the same


def test_antidote_and_poison_from_the_pack():
    c = make()
    c.execute(H.Carry(character="lysa", item="Poison engourdissant", qty=1))
    c.execute(H.Carry(character="lysa", item="Antidote", qty=1))
    c.execute(H.CreateCreature(character="gob", name="Gobelin", pv=50,
                               characteristics=dict(Fo=4, Dex=40, Vol=10, Vit=20, Adresse=60)))
    c.execute(K.UseConsumable(character="lysa", item="Poison engourdissant", target="gob"))
    assert c.state().rules.characters["gob"].conditions == ("empoisonné",)
    ev = c.execute(K.UseConsumable(character="lysa", item="Antidote", target="gob"))[0].event
    assert ev.cured == ["empoisonné"] and c.state().rules.characters["gob"].conditions == ()


def test_recovery_by_healing_or_rest_is_capped_and_recorded():
    c = make()
    fight(c)
    c.execute(F.EndFight(fight="f"))
    ev = c.execute(K.Recover(character="lysa", source="soin", reason="Main apaisante", pv=15))[0].event
    assert (ev.pv_gained, ev.pv_after) == (15, 18)
    ev = c.execute(K.Recover(character="lysa", source="repos", reason="une nuit à l'auberge", pv=20))[0].event
    assert (ev.pv_gained, ev.pv_after) == (12, 30)  # capped at PVmax 30
    refused(c, K.Recover(character="lysa", source="repos", reason="encore", pv=5),
            "Lysa already has all 30 PV and 60 PM.")
    refused(c, K.Recover(character="lysa", source="soin", reason="", pv=5),
            "PV and PM given back need a reason (the spell, the rest, the care).")


def test_a_table_may_rule_that_rest_gives_nothing_back():
    c = make(rest_recovers=False)
    fight(c)
    refused(c, K.Recover(character="lysa", source="repos", reason="une nuit", pv=10),
            "In this campaign a rest gives no PV or PM back (rest_recovers=false): only potions, healing spells "
            "and destiny points do (I-L190-191, I-L479).")
    assert c.execute(K.Recover(character="lysa", source="soin", reason="Main apaisante", pv=10))[0].event.pv_after == 13
