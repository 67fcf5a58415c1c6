"""Moving in combat at the race's speed (seed 000, L1286-L1290; ruling D11: t = 3.6 × d / v)."""

from __future__ import annotations

import json

import pytest
from harness import Table

from cristal_events.errors import RuleError
from cristal_events.rulesets.cristal import combat as c
from cristal_events.rulesets.cristal import fights as F
from cristal_events.rulesets.cristal.characters import CreateCharacter


@pytest.fixture
def table():
    return Table(name="La Taverne", ruleset="cristal", rounding="round", seed=7)


@pytest.mark.parametrize("metres, kmh, mode, seconds", [
    (5, 3, "round", 6),       # Humain, cruise (L518): 5 m at 3 km/h = 6 s (the printed formula would give 0.46 s)
    (5, 3, "truncate", 6),
    (10, 30, "round", 1),     # Humain, top speed 30 km/h: 1.2 s
    (10, 10, "round", 4),     # Nain, top 10 km/h (L597): 3.6 s -> 4 rounded
    (10, 10, "truncate", 3),  # ... 3 truncated
    (5, 2, "round", 9),       # Elfe swimming at cruise 2 km/h: 9 s
    (0, 3, "round", 0),
], ids=["humain-5m", "humain-5m-trunc", "humain-top", "nain-top-round", "nain-top-trunc", "elfe-nage", "zero"])
def test_travel_seconds(metres, kmh, mode, seconds):
    assert c.travel_seconds(metres, kmh, mode) == seconds


def test_metres_per_second_is_kmh_over_3_6():
    # L1288: 30 km/h = 8.33 m/s, 3 km/h = 0.83 m/s
    assert round(float(c.metres_per_second(30)), 2) == 8.33
    assert round(float(c.metres_per_second(3)), 2) == 0.83


def test_no_speed_and_negative_distance_are_refused():
    with pytest.raises(RuleError, match="A speed of 0 km/h covers no distance."):
        c.travel_seconds(5, 0, "round")
    with pytest.raises(RuleError, match=r"A distance cannot be negative \(-5 m\)."):
        c.travel_seconds(-5, 3, "round")


def test_a_move_in_combat_uses_the_race_speed(table):
    table.execute(CreateCharacter(id="thor", race="Humain", name="Thor"))
    table.execute(CreateCharacter(id="gimli", race="Nain", name="Gimli"))
    table.execute(F.StartCombat(combat="pont", fighters=["thor", "gimli"], its={"gimli": 1}))
    ev = table.execute(F.TakeAction(combat="pont", actor="thor", move_m=5))[0].event
    assert (ev.seconds, ev.what) == (6, "Bipède 5 m (vitesse de croisière, 3 km/h)")
    ev = table.execute(F.TakeAction(combat="pont", actor="gimli", move_m=10, pace="top"))[0].event
    assert ev.seconds == 4  # 3.6 × 10 / 10 = 3.6 -> 4
    assert table.state().rules.combats["pont"].it == {"thor": 6, "gimli": 5}


def test_a_move_refusals_append_nothing(table):
    table.execute(CreateCharacter(id="thor", race="Humain", name="Thor"))
    table.execute(F.StartCombat(combat="pont", fighters=["thor"]))
    before = table.last_position()
    with pytest.raises(RuleError, match=r"The race Humain cannot move by 'Vol'; its modes: Bipède, Nage."):
        table.execute(F.TakeAction(combat="pont", actor="thor", move_m=5, movement="Vol"))
    with pytest.raises(RuleError, match="one of them"):
        table.execute(F.TakeAction(combat="pont", actor="thor", move_m=5, seconds=3))
    assert table.last_position() == before


def test_move_through_the_cli(run):
    run("init", "--name", "T")
    run("character", "create", "xar", "--race", "Elfe", "--name", "Xar")
    run("combat", "start", "lac", "--with", "xar")
    res = run("combat", "act", "lac", "xar", "--move", "5", "--movement", "Nage", "--json")
    assert res.exit_code == 0, res.output
    assert json.loads(run("combat", "show", "lac", "--json").output)["participants"][0]["it"] == 9
