"""Class tables (L682-L741), non-cumulative rows (L650), multi-class sums (L636), TV-04, TV-11."""

import pytest

from cristal_events.errors import RuleError, UnknownEntity
from cristal_events.rulesets.cristal.content import load_core
from cristal_events.rulesets.cristal.progression import (
    check_ability,
    check_prerequisites,
    class_bonuses,
    class_row,
    global_level,
)

# Every printed row, levels 1-20, as in the seed (L683-L692, L699-L708, L717-L726).
GUERRIER = {"ATT": list(range(1, 21)), "DP": [5 * n for n in range(1, 21)], "PV": [30 * n for n in range(1, 21)]}
MAGE = {"CNC": list(range(1, 21)), "DM": [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9],
        "PM": [30, 60, 90, 120, 150, 180, 210, 240, 270, 300, 330, 360, 390, 420, 450, 480, 510, 540, 570, 600]}
VOLEUR = {"ATT(g)": [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9],
          "DM": [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4],
          "PV": [15, 30, 45, 60, 75, 90, 105, 120, 135, 150, 165, 180, 195, 210, 225, 240, 255, 270, 285, 300],
          "Vol*": [3, 6, 9, 12, 15, 18, 21, 24, 27, 30, 33, 36, 39, 42, 45, 48, 51, 54, 57, 60]}
TABLES = {"Guerrier": GUERRIER, "Mage": MAGE, "Voleur": VOLEUR}
CASES = [(c, lvl) for c in TABLES for lvl in range(1, 21)]


@pytest.mark.parametrize("cls,level", CASES, ids=[f"{c}-{lvl}" for c, lvl in CASES])
def test_every_printed_row(cls, level):
    row = class_row(load_core().class_def(cls), level)
    assert row == {col: values[level - 1] for col, values in TABLES[cls].items()}


@pytest.mark.parametrize("cls,level", CASES, ids=[f"{c}-{lvl}" for c, lvl in CASES])
def test_patterns_reproduce_the_printed_rows(cls, level):
    c = load_core().class_def(cls)
    assert {col: c.patterns[col].value(level) for col in TABLES[cls]} == {col: v[level - 1] for col, v in TABLES[cls].items()}


@pytest.mark.parametrize("cls,level,expected", [
    ("Guerrier", 21, {"ATT": 21, "DP": 105, "PV": 630}),
    ("Mage", 22, {"CNC": 22, "DM": 10, "PM": 660}),
    ("Voleur", 25, {"ATT(g)": 12, "DM": 6, "PV": 375, "Vol*": 75}),
], ids=["guerrier-21", "mage-22", "voleur-25"])
def test_levels_beyond_20_extend_the_pattern(cls, level, expected):
    assert class_row(load_core().class_def(cls), level) == expected


def test_tv11_level_gives_its_own_row_not_a_sum():
    assert class_row(load_core().class_def("Guerrier"), 3) == {"ATT": 3, "DP": 15, "PV": 90}  # L650


def test_multiclass_sums_rows():
    b = class_bonuses(load_core(), {"Guerrier": 4, "Voleur": 2})  # TV-11
    assert b.flat == {"ATT": 4, "DM": 0} and b.percent == {"DP": 20, "PVmax": 150} and b.points == {"Vol": 6}
    b2 = class_bonuses(load_core(), {"Guerrier": 2, "Mage": 1})
    assert b2.flat == {"ATT": 2, "CNC": 1, "DM": 0} and b2.percent == {"DP": 10, "PVmax": 60, "PMmax": 30}


def test_tv04_global_level_split():
    assert global_level({"Guerrier": 4, "Mage": 2}) == 6  # L62
    with pytest.raises(RuleError):
        global_level({"Guerrier": -1})


VOLEUR_ABILITIES = [  # L731-L741: (cost, min level)
    (1, 1), (2, 2), (3, 3), (4, 5), (5, 5), (2, 3), (4, 6), (3, 4), (5, 8), (3, 5), (25, 10),
]


def test_voleur_abilities():
    assert [(a.cost, a.min_level) for a in load_core().class_def("Voleur").abilities] == VOLEUR_ABILITIES
    assert all(a.pool == "Vol" for a in load_core().class_def("Voleur").abilities)


def test_ability_checks():
    v = load_core().class_def("Voleur")
    assert check_ability(v, "attaque de dos", 5, 15).cost == 5
    with pytest.raises(RuleError, match=r"^Attaque de dos needs Voleur level 5 \(has 4\)\.$"):
        check_ability(v, "Attaque de dos", 4, 12)
    with pytest.raises(RuleError, match=r"^Piège magique costs 25 Vol points; only 24 left today\.$"):
        check_ability(v, "Piège magique", 10, 24)
    with pytest.raises(UnknownEntity):
        check_ability(v, "Vol à l'étalage", 10, 30)


def test_core_classes_have_no_prerequisites():
    for name in ("Guerrier", "Mage", "Voleur"):
        assert load_core().class_def(name).prerequisites == {}
        assert check_prerequisites(load_core(), name, {}) is None


def test_a_game_master_class_with_the_books_example_prerequisite():
    # L640: "le 5e niveau de Mage" as a class's Pré-Requis
    import msgspec

    from cristal_events.errors import RuleError
    from cristal_events.rulesets.cristal.content import merge

    core = load_core()
    archimage = msgspec.structs.replace(core.class_def("Mage"), name="Archimage", prerequisites={"Mage": 5})
    content = merge(core, msgspec.structs.replace(core, races={}, classes={"Archimage": archimage}, techniques={},
                                                  items={}, spells={}))
    with pytest.raises(RuleError, match="^Class Archimage requires Mage level 5.$"):
        check_prerequisites(content, "Archimage", {"Mage": 4})
    assert check_prerequisites(content, "Archimage", {"mage": 5}) is None
