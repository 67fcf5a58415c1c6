"""Casting a spell (issue 17 items 1, 13, 14): learned spells only (I-L17, I-L338, I-L443), Oubli's +1
level (I-L134, I-L220), incantation types (I-L110-117), range and senses (I-L10-15, I-L161-162), stealth
and the Volonté roll (I-L18-20, I-L462-479), secondary spells and their pp (I-L198-239, TX-10, TX-11),
pp out of combat (I-L207), superior effects (I-L517-518). Numbers are the text's and the example pack's."""

from __future__ import annotations

import msgspec
import pytest
from harness import Table
from helpers import refused

from cristal_events.rulesets.illergan import fights as F
from cristal_events.rulesets.illergan import heroes as H
from cristal_events.rulesets.illergan import spellbook as S
from cristal_events.rulesets.illergan import tavern as T
from cristal_events.rulesets.illergan.character import Choices
from cristal_events.rulesets.illergan.content import example_pack
from cristal_events.rulesets.illergan.state import MagicEntry

THOR = dict(Fo=4, Dex=50, Vit=60, Vol=40, Mana=10, E=8, Cha=30, Sav=30, Dep=5, Agilité=40, Adresse=60)
LYSA = dict(Fo=2, Dex=45, Vit=40, Vol=55, Mana=60, E=12, Cha=35, Sav=50, Dep=5, Agilité=50, Adresse=40)
SPELLS = ("Embrasement", "Ardeur", "Flamme vive", "Cendres collantes", "Fièvre", "Chaleur réparatrice")


def _table(settings=None, spells=SPELLS, class_name="Mage", cult=None):
    c = Table(name="Sorts", ruleset="illergan", seed=5, settings=settings)
    c.execute(H.LoadPack(name="example", data=msgspec.to_builtins(example_pack())))
    c.execute(H.CreateHero(character="thor", choices=Choices(name="Thor", race="Humain", class_name="Guerrier",
                                                             heritage="Enfant des rues"),
                           characteristics=THOR, pv=40, pm=0, rn=10, gift_face=3))
    c.execute(H.CreateHero(character="lysa", choices=Choices(name="Lysa", race="Elfe", class_name=class_name,
                                                             heritage="Apprenti d'académie", magics=("Yarlysy",), cult=cult),
                           characteristics=LYSA, pv=30, pm=60, rn=0, gift_face=5, spells=spells[:3], copper=5000))
    for spell in spells[3:]:  # a Mage masters 3 spells at creation (example pack); the rest are learned (I-L443)
        c.execute(S.LearnSpell(character="lysa", spell=spell, teacher="Maître Orvan"))
    return c


@pytest.fixture
def camp():
    return _table()


def cast(spell="Embrasement", **kw):
    return F.CastSpell(caster="lysa", spell=spell, cast_level=kw.pop("level", 1), **kw)


# ---------------------------------------------------------------- item 1
def test_an_unlearned_spell_is_not_cast():
    camp = _table(spells=("Ardeur",))
    refused(camp, cast("Embrasement"),
            "Lysa has not learned the spell Embrasement (I-L17, I-L443): learn it from a teacher first.", faces=[50])


def test_oubli_adds_one_to_the_spell_level(camp):
    # Lysa drinks Eau-de-vie (4 Alc each, example pack) until the Oubli threshold (the event dice are the seed's)
    for _ in range(12):
        if camp.state().rules.characters["lysa"].alc.band == "oubli":
            break
        camp.execute(T.Drink(character="lysa", beverage="Eau-de-vie"))
    assert camp.state().rules.characters["lysa"].alc.band == "oubli"
    ev = camp.execute(cast(), faces=[50])[0].event
    # +1 to the cast level (I-L134), not to the magic level nor the PM cost (I-L220): 10 PM at level 1
    assert (ev.level_bonus, ev.effective_level, ev.cost, ev.magic_level) == (1, 2, 10, 1)


def test_whisper_needs_an_oral_incantation():
    camp = _table(class_name="Prêtre", spells=("Embrasement",), cult="Vikasar")  # a Prêtre casts by gestures (example pack)
    refused(camp, cast(whispered=True), "Only an oral incantation can be whispered (I-L113).", faces=[50])
    mage = _table()
    ev = mage.execute(cast(whispered=True), faces=[50])[0].event
    assert ev.cost == 20  # 10 PM doubled (I-L113)


# ---------------------------------------------------------------- item 13
def test_incantation_gag_paralysis_and_canalisateur(camp):
    # the example Mage casts orally with a canalisateur (I-L110-117)
    refused(camp, cast(gagged=True), "The spell cannot be cast: a gag or paralysis makes an oral incantation "
            "impossible (I-L113).", faces=[50])
    refused(camp, cast(canalisateur=False), "The spell cannot be cast: the canalisateur (sceptre or bourdon) "
            "must be in hand (I-L117).", faces=[50])
    # "any": the canalisateur alone suffices even paralysed (I-L117)
    loose = _table(settings={"incantation_needs": "any"})
    assert loose.execute(cast(paralysed=True), faces=[50])[0].event.outcome == "normal"
    pretre = _table(class_name="Prêtre", spells=("Embrasement",), cult="Vikasar")
    refused(pretre, cast(paralysed=True), "The spell cannot be cast: paralysis stops a gestural incantation "
            "(I-L115).", faces=[50])
    assert pretre.execute(cast(gagged=True), faces=[50])[0].event.outcome == "normal"  # gestures only (I-L115)


def test_range_by_sense(camp):
    # seen: [5 + E] = 5 + 12 = 17 m (I-L161); heard: [5 + 0,25 × 50] = 17.5, capped at 17 (I-L12, A3)
    ev = camp.execute(cast(target="thor", distance=17), faces=[50])[0].event
    assert (ev.reach, ev.sense) == (17, "sight")
    refused(camp, cast(target="thor", distance=18), "A target located by sight can be reached at 17 m at most "
            "(I-L10-15, I-L161), not at 18 m.", faces=[50])
    refused(camp, cast(target="thor", sense="smell", distance=11), "A target located by smell can be reached at "
            "10 m at most (I-L10-15, I-L161), not at 11 m.", faces=[50])  # 5 + 0,25 × 20 (elf olfactory 20%)
    assert camp.execute(cast(target="thor", sense="touch", distance=0), faces=[50])[0].event.reach == 0


def test_volonte_roll_stealth_and_consent(camp):
    # altération: the target rolls Volonté automatically, Dé100 40 ≤ Vol 40 counters it (I-L462)
    ev = camp.execute(cast("Fièvre", target="thor"), faces=[50, 40])[0].event
    assert (ev.resistance, ev.resisted, [r.total for r in ev.rolls]) == ("vol_roll", True, [50, 40])
    ev = camp.execute(cast("Fièvre", target="thor"), faces=[50, 41])[0].event
    assert (ev.resistance, ev.resisted) == ("vol_roll", False)
    # a stealthy mage not spotted: no Volonté roll (I-L20, I-L462)
    ev = camp.execute(cast("Fièvre", target="thor", stealth=True), faces=[50])[0].event
    assert (ev.resistance, len(ev.rolls)) == ("no_vol_roll", 1)
    ev = camp.execute(cast("Fièvre", target="thor", stealth=True, spotted=True), faces=[50, 90])[0].event
    assert ev.resistance == "vol_roll"
    # soin: accepted or refused, no roll (I-L479)
    assert camp.execute(cast("Chaleur réparatrice", target="thor"), faces=[50])[0].event.resistance == "accepted"
    refused(camp, cast("Embrasement", target="thor", accept=True), "Only an amélioration, protection or soin spell "
            "is accepted or refused (I-L465), not Embrasement.", faces=[50])
    assert camp.execute(cast("Chaleur réparatrice", target="thor", accept=False), faces=[50])[0].event.resistance == "refused"


# ---------------------------------------------------------------- item 14
def test_combination_cost_and_pp(camp):
    camp.execute(F.StartFight(fight="gue", participants=("thor", "lysa")))
    camp.execute(F.RollInitiative(fight="gue"), faces=[50, 50])
    two = (F.SecondaryCast(spell="Flamme vive", level=1), F.SecondaryCast(spell="Cendres collantes", level=1))
    ev = camp.execute(cast(fight="gue", secondaries=two), faces=[50])[0].event
    # one spell at launch (I-L224): 10 + 4 + 3 PM; 3 spells in the combination = 2 pp (I-L200-203, TX-10)
    assert (ev.cost, ev.pm_after, ev.pp_gained) == (17, 43, 2)
    assert [(s.spell, s.level, s.cost) for s in ev.secondaries] == [("Flamme vive", 1, 4), ("Cendres collantes", 1, 3)]


def test_combination_limits(camp):
    refused(camp, cast(secondaries=(F.SecondaryCast(spell="Flamme vive", level=2),)),
            "A secondary spell at level 2 exceeds the primary's level 1 (I-L228).", faces=[50])
    four = tuple(F.SecondaryCast(spell="Flamme vive", level=1) for _ in range(4))
    refused(camp, cast(secondaries=four), "At magic level 1 at most 3 secondary spells are cast at once (I-L231).",
            faces=[50])  # TX-11
    refused(camp, cast("Ardeur", secondaries=(F.SecondaryCast(spell="Flamme vive", level=1),)),
            "Secondary spells are cast on a primary spell; Ardeur is not one (I-L224-226).", faces=[50])
    refused(camp, cast("Flamme vive"), "Flamme vive is a secondary spell: cast it with a primary spell or on one "
            "cast earlier (I-L226).", faces=[50])
    # a secondary on a primary cast at an earlier turn (I-L227)
    ev = camp.execute(cast("Flamme vive", on_primary="Embrasement", on_primary_level=1), faces=[50])[0].event
    assert (ev.on_primary, ev.cost) == ("Embrasement", 4)


def test_pp_out_of_combat_one_every_three_casts(camp):
    pps = [camp.execute(cast("Ardeur"), faces=[50])[0].event.pp_gained for _ in range(4)]
    assert pps == [0, 0, 1, 0]  # 1 pp every 3 casts out of combat (I-L207)
    assert camp.state().rules.characters["lysa"].magics["Yarlysy"] == MagicEntry(level=1, pp=1, casts_out_of_combat=1)
    camp.execute(cast("Ardeur", relevant=False), faces=[50])  # the GM deems it not relevant: not counted
    assert camp.state().rules.characters["lysa"].magics["Yarlysy"].casts_out_of_combat == 1
    off = _table(settings={"pp_out_of_combat": False})
    assert [off.execute(cast("Ardeur"), faces=[50])[0].event.pp_gained for _ in range(3)] == [0, 0, 0]


def test_superior_effect_needs_the_magic_level(camp):
    # Embrasement's superior effect from magic level 6 (example pack); a level bonus does not unlock it (I-L517)
    ev = camp.execute(cast(), faces=[1, 5])[0].event
    assert (ev.effective_level, ev.superior_effect) == (2, False)
