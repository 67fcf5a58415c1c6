"""Stable states (L244-L354) with both rounding modes: TV-11 and the level-0 race table."""

import pytest

from cristal_events.errors import RuleError
from cristal_events.rulesets.cristal.content import load_core
from cristal_events.rulesets.cristal.stable import stable_states

C = load_core()


def states(race, classes, mode, equipped=(), weapon=None, fixed=None):
    r = C.race(race)
    s = stable_states(r, classes, fixed or r.fixed, equipped, weapon=weapon, mode=mode)
    return (s.DP, s.DM, s.ATT, s.DMG, s.CNC, s.PVmax, s.PMmax)


@pytest.mark.parametrize("race,classes,mode,expected", [
    # TV-11: Humain Guerrier 1: PV 12 + 12 x 30% = 15.6, DP 10 + 10 x 5% = 10.5 (L656, L266)
    ("Humain", {"Guerrier": 1}, "round", (11, 0, 1, "0", 0, 16, 6)),
    ("Humain", {"Guerrier": 1}, "truncate", (10, 0, 1, "0", 0, 15, 6)),
    # Guerrier 2 + Mage 1: ATT 2, CNC 1, DP% 10, PV% 60 (12 x 0.6 = 7.2), PM% 30 (6 x 0.3 = 1.8)
    ("Humain", {"Guerrier": 2, "Mage": 1}, "round", (11, 0, 2, "0", 1, 19, 8)),
    ("Humain", {"Guerrier": 2, "Mage": 1}, "truncate", (11, 0, 2, "0", 1, 19, 7)),
    # TV-11: Guerrier 4 + Voleur 2: 12 x 250% = 30, DP 10 + 2 = 12, ATT 4 + 0
    ("Humain", {"Guerrier": 4, "Voleur": 2}, "round", (12, 0, 4, "0", 0, 30, 6)),
    # TV-11: Elfe Mage 3: CNC 3 + 3, PMmax (10 + 2) x 1.9 = 22.8, DM 2 + 1, ATT DEX 3 / 2 = 1.5
    ("Elfe", {"Mage": 3}, "round", (10, 3, 2, "-1", 6, 6, 23)),
    ("Elfe", {"Mage": 3}, "truncate", (10, 3, 1, "-1", 6, 6, 22)),
    # Level 0 with race bases only (catalogue section 11 table)
    ("Humain", {}, "round", (10, 0, 0, "0", 0, 12, 6)),
    ("Elfe", {}, "truncate", (10, 2, 1, "-1", 3, 6, 12)),
    ("Nain", {}, "round", (12, 0, -1, "1", -3, 16, 2)),
], ids=["hg1-round", "hg1-trunc", "g2m1-round", "g2m1-trunc", "g4v2", "em3-round", "em3-trunc",
        "humain0", "elfe0-trunc", "nain0"])
def test_stable_states(race, classes, mode, expected):
    assert states(race, classes, mode) == expected


def test_dm_class_bonus_needs_magic(tmp_path):  # L497, D26
    import msgspec
    golem = msgspec.structs.replace(C.race("Humain"), name="Golem", pm_initial=0)
    s = stable_states(golem, {"Mage": 5}, golem.fixed)
    assert (s.DM, s.PMmax, s.CNC) == (0, 0, 5)  # L493: no PM whatever the level


def test_weapon_att_dmg_and_frc_required():
    axe = C.item("Hache de combat")
    assert states("Nain", {}, "round", [axe], axe)[2:4] == (-1, "1d12+1")  # FRC 3 / 3 = +1 (L302)
    sword = C.item("Épée à deux mains")
    # the FRC -6 handicap applies to the wearer: Nain FRC 3 - 6 = -3 -> DMG bonus -1
    assert states("Nain", {}, "round", [sword], sword)[3] == "2d6-1"
    heavy = msgspec_replace(sword, frc_required=2, modifiers={})
    assert states("Humain", {}, "round", [heavy], heavy, fixed=dict(C.race("Humain").fixed, FRC=8))[3] == "2d6+2"


def msgspec_replace(item, **kw):
    import msgspec
    return msgspec.structs.replace(item, **kw)


def test_items_dp_dm_and_magic_item_own_dm():
    armour = C.item("Armure de cuir")
    ring = msgspec_replace(C.item("Robe élégante"), name="Anneau", mag=3, dm=1, modifiers={})
    dp, dm = states("Humain", {}, "round", [armour, ring])[:2]
    assert (dp, dm) == (10 + armour.dp, 1)  # MAG 3 protects the ring itself, not its wearer (L851, D7)


def test_heavy_armour_dex_handicap_lowers_att():  # L869
    armour = C.item("Armure d'acier lourde")
    assert states("Humain", {"Guerrier": 1}, "round", [armour])[2] == 1 + (-2)  # DEX -3 / 2 = -1.5 -> -2


def test_projectile_gets_no_frc_bonus():  # L1340
    arrow = C.item("Flèche")
    assert states("Nain", {}, "round", [arrow], arrow)[3] == "1d6"


def test_weapon_must_be_equipped():
    with pytest.raises(RuleError, match="must be equipped"):
        states("Humain", {}, "round", [], C.item("Arc"))
