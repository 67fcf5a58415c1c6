"""The XP ledger decided in one place (cristal_events/xp_ledger.py): one LedgerEntry, one flags(),
one balance; and the audit reading the caught-up ``xp_ledger`` table, or the runner's expected rows
when that read model is behind the log."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest
from cristal_events.projections import runner as projections_runner

from cristal_events import projections
from cristal_events.cli.script import load
from cristal_events.cli.script import run as run_script
from cristal_events.jobs.audit import audit_rows, find_ledger, ledger_rows
from cristal_events.service import Campaign
from cristal_events.xp_ledger import LedgerEntry, balance, flags, from_row, posted, to_row

COMPAGNIE = Path(__file__).resolve().parents[2] / "sample_campaigns" / "compagnie_du_cristal.toml"


def entry(**fields) -> LedgerEntry:
    base = {"position": 6, "character": "thor", "kind": "spend", "amount": -100, "what": "level",
            "cost_charged": 100, "cost_required": 100, "balance_after": 500}
    return LedgerEntry(**{**base, **fields})


@pytest.mark.parametrize("fields, expected", [
    ({}, []),
    ({"cost_charged": 90, "amount": -90}, ["cost_mismatch"]),
    ({"balance_after": -1}, ["negative_balance"]),
    ({"flags": ["past_level_limit"]}, ["past_level_limit"]),
    ({"flags": ["dead_character"]}, ["dead_character"]),
    ({"kind": "award", "amount": 10, "reason": " \t", "cost_charged": None, "cost_required": None}, ["no_reason"]),
    ({"kind": "correction", "amount": 10, "reason": "", "amends": 5, "cost_charged": None,
      "cost_required": None}, ["no_reason"]),
    ({"kind": "award", "amount": 10, "reason": "York", "cost_charged": None, "cost_required": None}, []),
], ids=["clean", "cost", "negative", "level-limit", "dead", "award-no-reason", "correction-no-reason", "award"])
def test_flags_decides_each_rule_of_the_contract(fields, expected):
    assert flags(entry(**fields)) == expected


def test_flags_are_in_the_contracts_order_once_each_and_keep_a_code_they_do_not_know():
    e = entry(kind="correction", amount=-90, reason="", cost_charged=90, balance_after=-5,
              flags=["older_code", "dead_character", "cost_mismatch", "past_level_limit"])
    assert flags(e) == ["cost_mismatch", "negative_balance", "past_level_limit", "dead_character", "no_reason",
                        "older_code"]
    e.flags = flags(e)
    assert flags(e) == e.flags  # deciding again changes nothing: a stored row reads back as it was written


def test_posted_is_the_running_balance_and_decides_the_flags():
    award = posted(entry(kind="award", amount=600, reason="York", balance_after=None, cost_charged=None,
                         cost_required=None), 0)
    spend = posted(entry(amount=-700, cost_charged=700, cost_required=700, balance_after=None), award.balance_after)
    assert (award.balance_after, award.flags, spend.balance_after, spend.flags) == (600, [], -100, ["negative_balance"])
    assert balance([award, spend]) == -100 and balance([]) == 0


def test_a_stored_row_reads_back_as_the_entry_that_wrote_it():
    e = posted(entry(balance_after=None, cost_charged=90, amount=-90, flags=["dead_character"]), 150)
    row = to_row(e)
    assert list(row) == ["position", "character", "session", "recorded_at", "actor", "kind", "amount", "what",
                         "reason", "cost_charged", "cost_required", "balance_after", "amends", "flags"]
    assert from_row(row) == e
    stored = {**row, "flags": '["cost_mismatch", "dead_character"]', "session": None}  # as SQLite gives it back
    assert from_row(stored).flags == ["cost_mismatch", "dead_character"]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    db = tmp_path_factory.mktemp("ledger") / "compagnie.db"
    run_script(load(COMPAGNIE), db)
    return db


def _entries(db):
    camp = Campaign.open(db, readonly=True)
    try:
        return ledger_rows(camp, find_ledger(projections.for_campaign(camp)))
    finally:
        camp.close()


def test_the_audit_reads_the_caught_up_table_without_folding_the_log(built, tmp_path, monkeypatch):
    db = tmp_path / "c.db"
    shutil.copy(built, db)
    with sqlite3.connect(db) as conn:  # a mark only the stored table carries
        conn.execute("UPDATE xp_ledger SET reason = 'lu dans la table' WHERE position = 44")

    def no_fold(*args, **kwargs):
        raise AssertionError("the ledger was folded again although its read model is caught up")

    monkeypatch.setattr(projections_runner, "expected_rows", no_fold)
    entries = _entries(db)
    assert [e.position for e in entries] == sorted(e.position for e in entries) and len(entries) == 18
    assert next(e for e in entries if e.position == 44).reason == "lu dans la table"


def test_a_ledger_behind_the_log_gives_the_rows_a_rebuild_would_write(built, tmp_path):
    stored = _entries(built)
    db = tmp_path / "behind.db"
    shutil.copy(built, db)
    with sqlite3.connect(db) as conn:  # the read model stops 30 events short, its rows for them gone
        conn.execute("UPDATE projection_checkpoints SET position = 49 WHERE name = 'cristal_ledger'")
        conn.execute("DELETE FROM xp_ledger WHERE position > 49")
    behind = _entries(db)
    assert behind == stored and behind[-1].position == 74
    report = audit_rows(behind)
    thor = next(c for c in report.characters if c.id == "thor")
    assert (thor.earned, thor.spent, thor.corrected, thor.balance) == (1150, 320, -540, 290)
    assert report.ok


def test_the_ledger_is_read_with_the_cycle_collector_paused_and_left_as_it_was(built, monkeypatch):
    import gc

    from cristal_events.jobs import audit

    seen: list[bool] = []
    real = audit.from_row
    monkeypatch.setattr(audit, "from_row", lambda row: seen.append(gc.isenabled()) or real(row))
    assert gc.isenabled()
    entries = _entries(built)
    assert len(entries) == 18 and seen == [False] * 18  # each row read with the collector paused
    assert gc.isenabled()  # and on again after
    gc.disable()
    try:
        assert _entries(built) == entries
        assert not gc.isenabled()  # a caller that had paused it finds it paused
    finally:
        gc.enable()
