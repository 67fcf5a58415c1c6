"""The rules harness itself (tests/harness.py): it answers as a campaign file does, and it fails loudly.

A scenario moved from a campaign file onto the harness keeps its numbers only if the harness decides
with the same context: the same settings, the same engine dice for the same public seed, the same
checks of entered faces. These tests hold it to that, against a real campaign.
"""

from __future__ import annotations

import pytest
from harness import Table, given

from cristal_events.errors import DiceError, RuleError
from cristal_events.events import DiceRecorded
from cristal_events.ruleset import Emit
from cristal_events.rulesets.cristal import characters as C
from cristal_events.rulesets.cristal import fights as F
from cristal_events.service import Campaign, ChangeSetting

DUEL = F.StartCombat(combat="d", fighters=["a", "b"], its={"b": 100},
                     stats={"a": {"ATT": 8, "DMG": "1d6"}, "b": {"DP": 10, "PV": 20}})
HIT = F.Attack(combat="d", actor="a", target="b", chain=True)


def test_engine_dice_of_a_seeded_table_are_the_campaigns(tmp_path):
    """Three engine-rolled attacks: the same faces, events and dice records as a campaign with that seed."""
    camp = Campaign.create(tmp_path / "c.db", name="T", ruleset="cristal", rounding="truncate", seed=41)
    table = Table("cristal", rounding="truncate", seed=41)
    for command in (C.CreateCharacter(id="r", race="Humain", roll_adjustments=True), DUEL, HIT, HIT, HIT):
        got, want = table.execute(command), camp.execute(command)
        assert [(r.stream, r.event) for r in got] == [(r.stream, r.event) for r in want]
    assert table.rules == camp.state().rules
    assert table.state().core.seed_counter == camp.state().core.seed_counter > 0
    camp.close()


def test_then_compares_the_rules_events_and_leaves_the_dice_record_to_the_service():
    events = given(DUEL).when(HIT, faces=[15, 11, 4]).events()
    assert [type(e) for e in events] == [F.AttackResolved, F.PvChanged]  # the rules' answer, no dice record
    table = given(DUEL).when(HIT, faces=[15, 11, 4]).then(*events)
    assert isinstance(table.log[-1].event, DiceRecorded)  # folded after the rules' events, as a campaign does
    assert [d.face for r in table.log[-1].event.rolls for d in r.dice] == [15, 11, 4]


def test_then_fails_on_another_event_another_stream_or_another_count():
    xp = C.XpAwarded(character="x", amount=10, reason="r", balance_after=10)
    scenario = given(C.CreateCharacter(id="x", race="Humain"))
    with pytest.raises(AssertionError):
        scenario.when(C.AwardXp(characters=("x",), amount=10, reason="r")).then(
            C.XpAwarded(character="x", amount=10, reason="r", balance_after=11))
    with pytest.raises(AssertionError):
        scenario.when(C.AwardXp(characters=("x",), amount=10, reason="r")).then(Emit("character:y", xp))
    with pytest.raises(AssertionError):
        scenario.when(C.AwardXp(characters=("x",), amount=10, reason="r")).then(xp, xp)
    assert scenario.table.rules.characters["x"].xp == 0  # a failed then folds nothing
    scenario.when(C.AwardXp(characters=("x",), amount=10, reason="r")).then(Emit("character:x", xp))
    assert scenario.table.rules.characters["x"].xp == 10


def test_refused_fails_when_the_rules_accept_or_say_something_else():
    scenario = given(C.CreateCharacter(id="x", race="Humain"))
    with pytest.raises(pytest.fail.Exception):
        scenario.when(C.AwardXp(characters=("x",), amount=10, reason="r")).refused("An XP award needs a reason.")
    with pytest.raises(AssertionError):
        scenario.when(C.AwardXp(characters=("x",), amount=10, reason=" ")).refused("Another sentence.")


def test_a_history_command_may_carry_the_faces_rolled_at_the_table():
    # ATT 8 against DP 10, chained (L1363): d20 15 hits, d20 11 misses, 1d6 4 damage on the hit
    table = given(DUEL, (HIT, [15, 11, 4])).table
    assert [d.face for r in table.log[-1].event.rolls for d in r.dice] == [15, 11, 4]
    assert F.numbers(table.rules, table.rules.combats["d"], "b", "round").PV == 20 - 4


def test_entered_faces_are_checked_as_the_service_checks_them():
    given(DUEL).when(HIT, faces=[15, 11, 4, 6]).refused("4 faces were entered but the command used 3.", DiceError)
    given().when(C.CreateCharacter(id="x", race="Humain"), faces=[3]).refused(
        "Dice faces were entered but this command rolls no dice.")


def test_given_folds_events_on_their_stream_and_a_house_rule_reaches_the_context():
    created = Table("cristal").execute(C.CreateCharacter(id="x", race="Humain"))[0]
    table = given(created.event, stream="character:x").table
    assert table.stream("character:x")[0].event == created.event and table.rules.characters["x"].pv == 12
    table = given(ChangeSetting(key="pm_overdraw", value=False, reason="table")).table
    assert table.context().settings.pm_overdraw is False
    with pytest.raises(RuleError):
        Table("cristal").decide(ChangeSetting(key="pm_overdraw", value="sometimes", reason="x"))
