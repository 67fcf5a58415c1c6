"""A rebuild that folds the sessions and ledger in a second process writes exactly the rows,
checkpoints and counts of a rebuild in one process, and folds them itself when that process fails
(issue 20, the rebuild's lever)."""

from __future__ import annotations

import shutil

import pytest
from cristal_events.projections import runner
from helpers import every_table as dump
from helpers import second_process_fails

from cristal_events import projections
from cristal_events.rulesets.cristal import characters as C
from cristal_events.service import Campaign, RecordNote


def played(path):
    camp = projections.attach(Campaign.create(path, name="P", ruleset="cristal", seed=3))
    for n in range(3):
        camp.start_session(f"Soirée {n}")
        if n == 0:
            camp.execute(C.CreateCharacter(id="thor", race="Nain"))
            camp.execute(C.CreateCharacter(id="lya", race="Humain"))
        camp.execute(C.AwardXp(characters=("thor", "lya"), amount=400, reason=f"quête {n}"))
        camp.execute(C.BuyLevel(character="thor", class_name="Guerrier", stat="FRC"))
        camp.execute(RecordNote(text=f"Note <b>{n}</b> ✓"))
        camp.end_session()
    return camp



@pytest.fixture
def pair(tmp_path):
    played(tmp_path / "a.db").close()
    shutil.copyfile(tmp_path / "a.db", tmp_path / "b.db")  # the same log, event ids and times included
    a, b = Campaign.open(tmp_path / "a.db"), Campaign.open(tmp_path / "b.db")
    yield a, b
    a.close()
    b.close()


def beside(monkeypatch, on):
    monkeypatch.setattr(runner, "PARALLEL_REBUILD_MIN", 1 if on else 1 << 62)
    monkeypatch.setattr(runner, "_free_core", lambda: on)


def test_a_rebuild_in_two_processes_writes_what_one_process_writes(pair, monkeypatch):
    a, b = pair
    calls = []
    real = runner._fold_beside
    monkeypatch.setattr(runner, "_fold_beside", lambda *args: calls.append(args[1]) or real(*args))
    beside(monkeypatch, True)
    counts_two = runner.rebuild(a)
    beside(monkeypatch, False)
    counts_one = runner.rebuild(b)
    # the timeline is not folded by either process: its rows are copied from the log (Timeline.log_columns)
    assert [s.projection.name for s in calls[0]] == ["cristal_ledger", "sessions"]
    assert counts_two == counts_one and counts_one["timeline"] == a.store.last_position()
    assert dump(a) == dump(b)
    assert a.store.conn.execute("SELECT count(*) FROM timeline").fetchone()[0] == a.store.last_position()
    assert runner.verify(a) == []


def test_a_failed_second_process_leaves_the_rebuild_to_the_first(pair, monkeypatch):
    a, b = pair
    second_process_fails(monkeypatch)
    beside(monkeypatch, True)
    counts = runner.rebuild(a)
    beside(monkeypatch, False)
    assert counts == runner.rebuild(b)
    assert dump(a) == dump(b)
    assert runner.verify(a) == []


def test_a_small_log_or_a_busy_machine_rebuilds_in_one_process(pair, monkeypatch):
    a, _ = pair
    monkeypatch.setattr(runner, "_fold_beside", lambda *args: pytest.fail("forked"))
    monkeypatch.setattr(runner, "_free_core", lambda: True)
    runner.rebuild(a)  # below PARALLEL_REBUILD_MIN
    monkeypatch.setattr(runner, "PARALLEL_REBUILD_MIN", 1)
    monkeypatch.setattr(runner, "_free_core", lambda: False)
    assert runner.rebuild(a)["timeline"] == a.store.last_position()
