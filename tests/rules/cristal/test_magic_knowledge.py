"""Issue 16 items 1, 7, 8, 16, 17, 18: magic as the book writes it (seed 000, lines cited).

A caster casts only what it learned (L935, L954, L1042), magic items (L851, L861, L1137-L1167), the
heal sources (L1190), potions as objects (L1179-L1184) and crystals on the owner's sheet (L917-L923,
L1083-L1093).
"""

from __future__ import annotations

from cristal_events.rulesets.cristal import characters as C
from cristal_events.rulesets.cristal import fights as F
from harness import given

LIA = (C.CreateCharacter(id="lia", race="Elfe", name="Lia"), C.AwardXp(characters=("lia",), amount=1000, reason="départ"))
FIGHT = F.StartCombat(combat="c", fighters=["lia", "york"], its={"york": 50},
                      stats={"york": {"ATT": 3, "DP": 10, "PV": 20, "DM": 0}})


def test_a_caster_cannot_cast_a_spell_it_never_learned():
    # L935 "le mage doit connaître la formule du sort"; L954 "Il doit apprendre chacun des sorts"
    given(*LIA, FIGHT).when(F.CastSpell(combat="c", actor="lia", spell="Détection Magique"), faces=[10]).refused(
        "Lia does not know Détection Magique (L954): learn it first with "
        "'cristal xp buy spell lia \"Détection Magique\"'.")


def test_the_xp_of_a_learned_spell_buys_the_right_to_cast_it():
    # L1151: Détection Magique costs 25 XP, CNC 4, 1 PM, 4 s; Elfe PM 12 (L557)
    table = given(*LIA, C.LearnSpell(character="lia", spell="Détection Magique"), FIGHT).table
    assert table.rules.characters["lia"].xp == 1000 - 25
    [cast] = [e for e in given(table=table).when(
        F.CastSpell(combat="c", actor="lia", spell="Détection Magique"), faces=[10]).events()
        if isinstance(e, F.SpellCast)]
    assert (cast.success, cast.pm_cost, cast.pm_after) == (True, 1, 11)


def test_storing_needs_the_spell_and_fermeture_cristalline():
    # L1077: "le mage doit exécuter normalement le sort ... en plus du sort Fermeture Cristalline"
    known = given(*LIA, C.LearnSpell(character="lia", spell="Détection Magique"), FIGHT)
    known.when(F.StoreInCrystal(combat="c", actor="lia", crystal="bleu", spell="Détection Magique", capacity=9),
               faces=[10, 10]).refused(
        "Lia does not know Fermeture Cristalline (L954): learn it first with "
        "'cristal xp buy spell lia \"Fermeture Cristalline\"'.")


def test_an_extra_of_the_game_master_casts_with_the_gm_numbers():
    # L1325: an extra's numbers (and spells) are the GM's; no sheet to check
    out = given(F.StartCombat(combat="c", fighters=["xar"], stats={"xar": {"CNC": 10, "PM": 10}})).when(
        F.CastSpell(combat="c", actor="xar", spell="Détection Magique"), faces=[10]).events()
    assert [e.success for e in out if isinstance(e, F.SpellCast)] == [True]
