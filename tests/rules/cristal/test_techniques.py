"""Techniques TV-12 (L755-L799): costs, race factor, restriction, roll."""

import pytest

from cristal_events.dice import Dice
from cristal_events.errors import RuleError
from cristal_events.rulesets.cristal.content import load_core
from cristal_events.rulesets.cristal.progression import (
    check_technique_restriction,
    technique_adjustment,
    technique_cost,
    technique_roll,
)

C = load_core()


@pytest.mark.parametrize("tech,race,costs", [
    ("Natation", None, [20, 40, 80, 160, 320, 640, 1280, 2560, 5120]),  # L785
    ("Forestier", "Humain", [25, 50, 100, 200, 400, 800, 1600, 3200, 6400]),  # L792
    ("Forestier", "Elfe", [10, 20, 40, 80, 160, 320, 640, 1280, 2560]),  # L790, L792 (Elfe 10)
    ("Lecture et écriture de la magie", "Nain", [50, 100, 200, 400, 800, 1600, 3200, 6400, 12800]),  # L799
], ids=["natation", "forestier", "forestier-elfe", "lecture"])
def test_costs(tech, race, costs):
    t = C.technique(tech)
    r = C.race(race) if race else None
    assert [technique_cost(t, n, r) for n in range(1, 10)] == costs


def test_lecture_limits():  # L799
    t = C.technique("Lecture et écriture de la magie")
    assert t.limits["read_cnc_max"][0] == 8 and t.limits["read_cnc_max"][2] == 16 and t.limits["read_cnc_max"][8] == 40
    assert t.limits["write_cnc_max"][:3] == [None, None, 8] and t.limits["write_cnc_max"][8] == 32
    assert len(t.capabilities) == 9


def test_restriction():  # L795
    t = C.technique("Lecture et écriture de la magie")
    check_technique_restriction(t, C.race("Elfe"), {"Mage": 1})
    with pytest.raises(RuleError, match=r"^Lecture et écriture de la magie requires Mage level 1\.$"):
        check_technique_restriction(t, C.race("Elfe"), {"Guerrier": 3})


@pytest.mark.parametrize("tech,fixed,mode,adj", [
    ("Forestier", {"OBS": 3}, "round", 1), ("Forestier", {"OBS": -3}, "round", -1),
    ("Forestier", {"OBS": 2}, "round", 1), ("Forestier", {"OBS": 2}, "truncate", 0),
    ("Lecture et écriture de la magie", {"INT": 3}, "round", 2), ("Lecture et écriture de la magie", {"INT": 3}, "truncate", 1),
    ("Natation", {}, "round", 0),
], ids=lambda v: str(v))
def test_adjustment(tech, fixed, mode, adj):
    assert technique_adjustment(C.technique(tech), fixed, mode) == adj


def test_tv12_elfe_forestier_2_succeeds_on_2():
    t, elfe = C.technique("Forestier"), C.race("Elfe").fixed  # 2 + OBS 3 / 3 = 3
    assert technique_roll(t, 2, elfe, Dice.entered([2])).success
    roll = technique_roll(t, 2, elfe, Dice.entered([1]))
    assert (roll.total, roll.success, roll.margin) == (4, False, -1)


def test_tv12_untrained_swimming_needs_5():  # L774: level 0, no adjustment
    t = C.technique("Natation")
    assert not technique_roll(t, 0, C.race("Humain").fixed, Dice.entered([4])).success
    assert technique_roll(t, 0, C.race("Humain").fixed, Dice.entered([5])).success
    untrained = technique_roll(C.technique("Forestier"), 0, {"OBS": 9}, Dice.entered([3]))
    assert untrained.adjustment == 0 and untrained.total == 3


def test_turbulent_river_difficulty_10():  # L770
    roll = technique_roll(C.technique("Natation"), 4, {}, Dice.entered([6]), difficulty=10)
    assert (roll.total, roll.success) == (10, True)
