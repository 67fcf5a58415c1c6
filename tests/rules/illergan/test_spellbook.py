"""Learning a spell after creation (I-L443, TX-20), duration and concentration (I-L494-495), stacking
and cancelling (I-L514-515), creature magic (I-L619-623): issue 17 item 15."""

from __future__ import annotations

import msgspec
import pytest
from harness import Table
from helpers import refused

from cristal_events.rulesets.illergan import fights as F
from cristal_events.rulesets.illergan import heroes as H
from cristal_events.rulesets.illergan import spellbook as S
from cristal_events.rulesets.illergan import tavern as T
from cristal_events.rulesets.illergan import trials as R
from cristal_events.rulesets.illergan.character import Choices
from cristal_events.rulesets.illergan.content import example_pack
from cristal_events.rulesets.illergan.state import ActiveSpell, MagicEntry

THOR = dict(Fo=4, Dex=50, Vit=60, Vol=40, Mana=10, E=8, Cha=30, Sav=30, Dep=5, Agilité=40, Adresse=60)
LYSA = dict(Fo=2, Dex=45, Vit=40, Vol=55, Mana=60, E=12, Cha=35, Sav=50, Dep=5, Agilité=50, Adresse=40)


@pytest.fixture
def camp():
    c = Table(name="Grimoire", ruleset="illergan", seed=5)
    c.execute(H.LoadPack(name="example", data=msgspec.to_builtins(example_pack())))
    c.execute(H.CreateHero(character="thor", choices=Choices(name="Thor", race="Humain", class_name="Guerrier",
                                                             heritage="Enfant des rues"),
                           characteristics=THOR, pv=40, pm=0, rn=10, gift_face=3))
    for cid, name in (("lysa", "Lysa"), ("orvan", "Orvan")):
        c.execute(H.CreateHero(character=cid, choices=Choices(name=name, race="Elfe", class_name="Mage",
                                                              heritage="Apprenti d'académie", magics=("Yarlysy",)),
                               characteristics=LYSA, pv=30, pm=60, rn=0, gift_face=5, copper=3000,
                               spells=("Embrasement", "Ardeur", "Bouclier de braise")))
    return c


def rules(camp):
    return camp.state().rules


def test_learning_a_spell_costs_its_minimum_level_in_gold(camp):
    # TX-20: a spell of minimum level X costs X'O on average and needs the magic at level X (I-L443)
    ev = camp.execute(S.LearnSpell(character="lysa", spell="Fièvre", teacher="Maître Orvan"))[0].event
    assert (ev.price_c, ev.copper_after) == (900, 2100)  # 1'O = 30'A = 900'C (I-L24)
    assert "Fièvre" in rules(camp).characters["lysa"].spells
    assert camp.execute(F.CastSpell(caster="lysa", spell="Fièvre", cast_level=1), faces=[50])[0].event.cost == 6
    refused(camp, S.LearnSpell(character="lysa", spell="Jet de lave", teacher="Maître Orvan"),
            "Jet de lave is of minimum level 4; Lysa masters Yarlysy at level 1 and can learn it from level 4 (I-L443).")
    refused(camp, S.LearnSpell(character="thor", spell="Fièvre", teacher="Maître Orvan"),
            "Thor does not know the magic Yarlysy: learn the magic first (I-L586).")
    refused(camp, S.LearnSpell(character="lysa", spell="Fièvre", teacher="Maître Orvan"), "Lysa already masters Fièvre.")


def test_a_campaign_teacher_must_know_the_spell_teach_and_be_of_higher_level(camp):
    refused(camp, S.LearnSpell(character="lysa", spell="Fièvre", teacher="orvan"),
            "Orvan does not know Fièvre and cannot teach it (I-L443).")
    refused(camp, S.LearnSpell(character="lysa", spell="Ardeur", teacher="orvan"), "Lysa already masters Ardeur.")
    camp.execute(S.LearnSpell(character="orvan", spell="Fièvre", teacher="Maître Kel"))
    refused(camp, S.LearnSpell(character="lysa", spell="Fièvre", teacher="orvan"),
            "A teacher is a mage of high level (I-L443): Orvan masters Yarlysy at level 1, not above Lysa's 1.")
    refused(camp, S.LearnSpell(character="lysa", spell="Fièvre", teacher="Maître Kel", price_c=3001),
            "Teaching Fièvre costs 3'O 10'A 1'C; Lysa has only 3'O 10'A.")


def test_concentration_turns_become_minutes_and_back(camp):
    # Ardeur lasting 3 turns, kept by concentration: 3 minutes (I-L494)
    ev = camp.execute(F.CastSpell(caster="lysa", spell="Ardeur", cast_level=1, duration=3, concentrate=True),
                      faces=[50])[0].event
    assert ev.active == ActiveSpell(spell="Ardeur", caster="lysa", level=1, duration=3, unit="minutes",
                                    concentrated=True, position=ev.active.position)
    # the GM's other cases: 2.5 minutes left become 2 turns, rounded down (I-L494)
    ev = camp.execute(S.BreakConcentration(caster="lysa", spell="Ardeur", remaining_minutes=2.5))[0].event
    assert ev.turns_left == 2
    (a,) = rules(camp).characters["lysa"].active_spells
    assert (a.duration, a.unit, a.concentrated) == (2, "tours", False)
    refused(camp, F.CastSpell(caster="lysa", spell="Ardeur", cast_level=1, duration=10, duration_unit="minutes",
                              concentrate=True), "A duration in minutes is invariable (I-L495): concentration does "
            "not lengthen it.", faces=[50])


def _concentrate(camp, spell="Ardeur", turns=3):
    camp.execute(F.CastSpell(caster="lysa", spell=spell, cast_level=1, duration=turns, concentrate=True), faces=[50])


def _broken(events):
    return [(e.event.spell, e.event.remaining_minutes, e.event.turns_left) for e in events
            if isinstance(e.event, S.ConcentrationBroken)]


def test_casting_another_spell_converts_the_minutes_left_into_turns(camp):
    # Ardeur of 3 turns kept by concentration lasts 3 minutes (I-L494); 1 minute passes (clock 0 -> 1):
    # 3 - 1 = 2 minutes left, converted into 2 turns (rounded down) when Lysa casts Embrasement (I-L494)
    _concentrate(camp)
    camp.execute(T.PassTime(minutes=1))
    events = camp.execute(F.CastSpell(caster="lysa", spell="Embrasement", cast_level=1), faces=[50])
    assert _broken(events) == [("Ardeur", 2.0, 2)]
    assert isinstance(events[0].event, S.ConcentrationBroken) and isinstance(events[1].event, F.SpellCast)
    (a,) = rules(camp).characters["lysa"].active_spells
    assert (a.duration, a.unit, a.concentrated) == (2, "tours", False)
    # no longer concentrating: the next cast converts nothing
    assert _broken(camp.execute(F.CastSpell(caster="lysa", spell="Embrasement", cast_level=1), faces=[50])) == []


def test_a_skill_check_breaks_the_concentration_a_characteristic_does_not(camp):
    # Ardeur of 5 turns kept: 5 minutes; after 2 minutes, 3 left -> 3 turns when she climbs (I-L494)
    _concentrate(camp, turns=5)
    camp.execute(T.PassTime(minutes=2))
    assert _broken(camp.execute(R.RollCheck(character="lysa", what="Vol"), faces=[20])) == []
    assert _broken(camp.execute(R.RollCheck(character="lysa", what="Escalade", bonus=20), faces=[20])) == [
        ("Ardeur", 3.0, 3)]
    # a spell whose minutes have all run out converts into 0 turns
    _concentrate(camp, turns=2)
    camp.execute(T.PassTime(minutes=4))
    assert _broken(camp.execute(R.RollCheck(character="lysa", what="Escalade", bonus=20), faces=[20])) == [
        ("Ardeur", 0.0, 0)]


def test_walking_keeps_the_concentration_sprinting_attacking_or_defending_breaks_it(camp):
    # he may walk or talk, but not run or fight (I-L494); Ardeur of 4 turns on Thor: 4 minutes, none passed
    camp.execute(F.CastSpell(caster="lysa", spell="Ardeur", cast_level=1, duration=4, concentrate=True,
                             target="thor"), faces=[50])
    camp.execute(F.StartFight(fight="gue", participants=("thor", "lysa")))
    camp.execute(F.RollInitiative(fight="gue"), faces=[50, 50])
    assert _broken(camp.execute(F.Move(fight="gue", character="lysa", metres=3))) == []
    events = camp.execute(F.Move(fight="gue", character="lysa", metres=10, sprint=15))
    assert _broken(events) == [("Ardeur", 4.0, 4)]
    (a,) = rules(camp).characters["thor"].active_spells  # the holder's spell is the one converted
    assert (a.duration, a.unit, a.concentrated) == (4, "tours", False)
    # attacking breaks it (Thor's own concentration on nothing: nothing to convert)
    camp.execute(S.CancelSpell(caster="lysa", spell="Ardeur", target="thor"))
    _concentrate(camp, turns=6)
    assert _broken(camp.execute(F.Attack(fight="gue", attacker="thor", target="lysa"),
                                faces=[90])) == []
    events = camp.execute(F.Defend(fight="gue", character="lysa", defence="esquive"))
    assert _broken(events) == [("Ardeur", 6.0, 6)]  # a dodge is fighting (I-L494)


def test_attacking_breaks_the_concentration(camp):
    _concentrate(camp, turns=3)  # 3 minutes, none passed: 3 turns (I-L494)
    camp.execute(F.StartFight(fight="gue", participants=("thor", "lysa")))
    camp.execute(F.RollInitiative(fight="gue"), faces=[50, 50])
    events = camp.execute(F.Attack(fight="gue", attacker="lysa", target="thor"), faces=[90])
    assert _broken(events) == [("Ardeur", 3.0, 3)]


def test_identical_spells_do_not_stack_and_the_caster_cancels(camp):
    # the higher level stays, the other is cancelled (I-L514)
    camp.execute(S.LearnSpell(character="lysa", spell="Fièvre", teacher="Maître Orvan"))
    camp.execute(F.CastSpell(caster="lysa", spell="Fièvre", cast_level=1, target="thor", duration=3), faces=[1, 5, 90])
    ev = camp.execute(F.CastSpell(caster="orvan", spell="Embrasement", cast_level=1, target="thor", duration=2),
                      faces=[50])[0].event
    assert ev.stacking == ""
    # a critical raises Lysa's Embrasement to level 2 (I-L525); Orvan's level 1 one is cancelled
    ev = camp.execute(F.CastSpell(caster="lysa", spell="Embrasement", cast_level=1, target="thor", duration=2),
                      faces=[1, 5])[0].event
    assert (ev.stacking, ev.active.level) == ("replaced", 2)
    ev = camp.execute(F.CastSpell(caster="orvan", spell="Embrasement", cast_level=1, target="thor", duration=2),
                      faces=[50])[0].event
    assert (ev.stacking, ev.active) == ("cancelled", None)
    assert [(a.spell, a.caster, a.level) for a in rules(camp).characters["thor"].active_spells] == [
        ("Fièvre", "lysa", 2), ("Embrasement", "lysa", 2)]  # different spells do stack
    refused(camp, S.CancelSpell(caster="orvan", spell="Embrasement", target="thor"),
            "Orvan has no Embrasement in effect on Thor.")
    camp.execute(S.CancelSpell(caster="lysa", spell="Embrasement", target="thor"))  # at any time (I-L515)
    assert [a.spell for a in rules(camp).characters["thor"].active_spells] == ["Fièvre"]
    # two casts out of combat: no pp yet, the third one gives it (I-L207)
    assert rules(camp).characters["lysa"].magics["Yarlysy"] == MagicEntry(level=1, pp=0, casts_out_of_combat=2)


def test_creature_magic(camp):
    # a creature's spells form one magic of its own, at the level of its highest spell; it casts each at least
    # at the level shown and at most at that magic level (I-L619-623)
    camp.execute(H.CreateCreature(character="salamandre", name="Salamandre", characteristics=dict(Fo=3, Dex=40, Vol=20,
                                  Vit=30, Adresse=50, E=6), pv=40, pm=50, spells={"Embrasement": 2, "Fièvre": 4}))
    ev = camp.execute(F.CastSpell(caster="salamandre", spell="Embrasement", cast_level=4, target="thor"),
                      faces=[50])[0].event
    assert (ev.magic, ev.magic_level, ev.cost) == ("Magie de Salamandre", 4, 25)
    refused(camp, F.CastSpell(caster="salamandre", spell="Embrasement", cast_level=1),
            "Embrasement can be cast at levels 2 to 4 (I-L219, I-L623), not at level 1.", faces=[50])
    refused(camp, F.CastSpell(caster="salamandre", spell="Ardeur", cast_level=1),
            "Salamandre does not know the magic Yarlysy of Ardeur.", faces=[50])
