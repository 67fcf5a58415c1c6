"""Tie-breaks at the table (issue 14, item 2): every round's faces are stored, the rounds decide the
winner, an engine tie-break never leaves the table stuck, entered faces that stay level say how many
more are needed."""

from __future__ import annotations

import json

from cristal_events import open_campaign


def _level(run) -> None:
    assert run("init", "--name", "Égalité").exit_code == 0
    assert run("session", "start").exit_code == 0
    r = run("combat", "start", "t", "--with", "a,b,c", "--stat", "a:PV=5", "--stat", "b:PV=5", "--stat", "c:PV=5")
    assert r.exit_code == 0, r.output


def test_an_engine_tie_break_rolls_until_decided_and_stores_every_round(run, db_path):
    _level(run)
    r = run("combat", "next", "t", "--json")
    assert r.exit_code == 0, r.output
    camp = open_campaign(db_path, readonly=True)
    tie = next(camp.store.read_all(type="combat.tie_broken")).event
    record = next(camp.store.read_all(type="dice.rolled")).event
    camp.close()
    faces = [r.total for rnd in tie.rounds for r in rnd.values()]
    assert [d.face for roll in record.rolls for d in roll.dice] == faces  # every round, in the order rolled
    last = tie.rounds[-1]
    assert [n for n, r in last.items() if r.total == max(x.total for x in last.values())] == [tie.winner]
    again = run("combat", "next", "t")
    assert again.exit_code == 0 and "roll again" not in again.output
    assert run("session", "end").exit_code == 0
    assert run("verify", "--rolls").exit_code == 0


def test_the_rounds_decide_even_when_an_eliminated_contender_rolled_higher_before(run, db_path):
    _level(run)
    # round 1: a 5, b 5, c 3 -> a and b roll again: a 1, b 2 -> b acts (c's 3 is from a round it lost)
    r = run("combat", "next", "t", "--dice", "5,5,3,1,2", "--json")
    assert r.exit_code == 0, r.output
    camp = open_campaign(db_path, readonly=True)
    tie = next(camp.store.read_all(type="combat.tie_broken")).event
    camp.close()
    assert tie.winner == "b"
    assert [{k: v.total for k, v in rnd.items()} for rnd in tie.rounds] == [{"a": 5, "b": 5, "c": 3}, {"a": 1, "b": 2}]
    refused = run("combat", "act", "t", "c", "attend", "--duration", "2")
    assert refused.exit_code == 1 and "It is b's turn" in refused.output
    assert run("combat", "act", "t", "b", "attend", "--duration", "2").exit_code == 0


def test_entered_faces_that_stay_level_say_how_many_more_are_needed(run, db_path):
    _level(run)
    before = open_campaign(db_path, readonly=True).store.last_position()
    r = run("combat", "next", "t", "--dice", "4,4,2")
    assert r.exit_code == 1
    assert r.output == ("Error: The tie-break dice are level between a and b: enter 2 more d6 faces (3 entered so far; "
                        "one d6 each for a and b, in that order).\n")
    assert open_campaign(db_path, readonly=True).store.last_position() == before
    assert run("combat", "next", "t", "--dice", "4,4,2,6,1").exit_code == 0


def test_a_tie_break_stored_before_v2_is_read_as_one_round(run, db_path):
    _level(run)
    camp = open_campaign(db_path)
    last = camp.store.get(camp.store.last_position())
    roll = {"expr": "1d6", "source": "entered", "purpose": "tie-break"}
    camp.store.append_rows([{
        "event_id": "00000000-0000-0000-0000-0000000000aa", "stream": "combat:t",
        "version": camp.store.stream_version("combat:t") + 1, "type": "combat.tie_broken", "schema_version": 1,
        "payload": json.dumps({"type": "combat.tie_broken", "name": "t", "it": 0, "winner": "b",
                               "rolls": {n: {**roll, "faces": [v], "total": v} for n, v in
                                         {"a": 2, "b": 6, "c": 4}.items()}}),
        "recorded_at": last.recorded_at, "session": 1, "actor": "GM", "causation_id": None, "correlation_id": None,
    }])
    camp.close()
    camp = open_campaign(db_path, readonly=True)
    ev = next(camp.store.read_all(type="combat.tie_broken")).event
    camp.close()
    assert [{k: r.total for k, r in rnd.items()} for rnd in ev.rounds] == [{"a": 2, "b": 6, "c": 4}]
    assert ev.rolls["b"].total == 6
    assert run("combat", "act", "t", "b", "attend", "--duration", "2").exit_code == 0  # the stored winner acts
