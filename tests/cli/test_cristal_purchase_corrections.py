"""Corrections of XP purchases (issue 4, L9): a level, technique or spell charged the wrong XP is amended
with ``cristal correct POS --set cost=N``; the purchase stays, the ledger and the audit show both."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from cristal_events.cli import cli
from cristal_events.service import Campaign


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "buy.db"
    run(path, "init", str(path), "--name", "Cristal", "--ruleset", "cristal")
    run(path, "character", "create", "xar", "--race", "Humain", "--name", "Xar")
    run(path, "xp", "award", "xar", "600", "--reason", "Starting XP (L1478)")
    run(path, "character", "ready", "xar")  # in play: a purchase is then the last event (no creation PV move)
    return path


def run(path, *args, ok=True):
    result = CliRunner().invoke(cli, ["--db", str(path), *args])
    if ok:
        assert result.exit_code == 0, result.output
    return result


def log_length(path):
    with Campaign.open(path, readonly=True) as c:
        return c.store.last_position()


def xp(path):
    return json.loads(run(path, "sheet", "xar", "--json").output)["variable"]["XP"]


def ledger(path):
    with Campaign.open(path, readonly=True) as c:
        cur = c.store.conn.execute("SELECT * FROM xp_ledger ORDER BY position")
        cols = [d[0] for d in cur.description]
        return [dict(zip(cols, r)) for r in cur]


def test_vision_cristalline_charged_150_instead_of_100(db):
    # L1119: Vision Cristalline, Coût d'apprentissage 100; the GM charged 150
    run(db, "xp", "buy", "xar", "spell", "Vision Cristalline", "--cost", "150")
    pos = log_length(db)
    assert xp(db) == 450
    out = run(db, "correct", str(pos), "--reason", "Vision Cristalline costs 100 (L1119)", "--set", "cost=100").output
    assert "+50" in out
    assert xp(db) == 500
    rows = ledger(db)
    spend, fix = rows[-2], rows[-1]
    assert (spend["position"], spend["cost_charged"], spend["cost_required"]) == (pos, 150, 100)
    assert json.loads(spend["flags"]) == ["cost_mismatch"]  # the purchase stays as it was recorded
    assert (fix["kind"], fix["amount"], fix["amends"], fix["cost_charged"], fix["cost_required"]) == (
        "correction", 50, pos, 100, 100)
    assert fix["balance_after"] == 500 and json.loads(fix["flags"]) == []
    result = run(db, "audit", "xp", "xar", ok=False)
    audit = result.output.splitlines()
    at = next(i for i, line in enumerate(audit) if line.strip().startswith(f"#{pos} "))
    assert "charged 150, rule 100" in audit[at] and "!!" not in audit[at]
    assert audit[at + 1].strip().startswith("↳") and "+50" in audit[at + 1] and "L1119" in audit[at + 1]
    # the correction brought the charge to the rules' cost: the anomaly is settled
    assert result.exit_code == 0 and "No anomaly" in result.output


def test_a_correction_that_misses_the_rule_leaves_the_anomaly(db):
    run(db, "xp", "buy", "xar", "spell", "Vision Cristalline", "--cost", "150")
    pos = log_length(db)
    run(db, "correct", str(pos), "--reason", "still wrong", "--set", "cost=120")
    result = run(db, "audit", "xp", "xar", ok=False)
    assert result.exit_code == 1
    assert any(line.strip().startswith(f"#{pos} ") and "!! cost_mismatch" in line for line in result.output.splitlines())


@pytest.mark.parametrize("buy, cost, refund", [
    (("level", "Guerrier", "--stat", "FRC"), 60, 40),     # L60: a Humain's 1st global level costs 100
    (("level", "Guerrier", "--stat", "FRC"), 130, -30),   # undercharged: the difference is taken
], ids=["level-overcharged", "level-undercharged"])
def test_level_purchase_correction_gives_back_the_difference(db, buy, cost, refund):
    run(db, "xp", "buy", "xar", *buy)
    pos = log_length(db)
    run(db, "correct", str(pos), "--reason", "house price", "--set", f"cost={cost}")
    assert xp(db) == 500 + refund
    sheet = json.loads(run(db, "sheet", "xar", "--json").output)
    assert sheet["global_level"] == 1  # the purchase itself stands


def test_a_second_correction_starts_from_the_corrected_charge(db):
    run(db, "xp", "buy", "xar", "spell", "Vision Cristalline", "--cost", "150")
    pos = log_length(db)
    run(db, "correct", str(pos), "--reason", "first", "--set", "cost=100")
    run(db, "correct", str(pos), "--reason", "second", "--set", "cost=120")
    assert xp(db) == 480
    assert [r["amount"] for r in ledger(db)][-2:] == [50, -20]


@pytest.mark.parametrize("change, message", [
    ("amount=100", "A purchase can only be corrected with --set cost=N (the XP it should have cost)."),
    ("cost=-5", "cost must be a whole number of XP, 0 or more, not -5."),
    ("cost=cent", "cost must be a whole number of XP, 0 or more, not 'cent'."),
    ("cost=150", "The purchase at position {pos} already costs 150 XP; nothing to correct."),
], ids=["wrong-field", "negative", "not-a-number", "unchanged"])
def test_bad_purchase_corrections_are_refused(db, change, message):
    run(db, "xp", "buy", "xar", "spell", "Vision Cristalline", "--cost", "150")
    pos = log_length(db)
    result = run(db, "correct", str(pos), "--reason", "r", "--set", change, ok=False)
    assert result.exit_code == 1
    assert result.output.strip() == f"Error: {message.format(pos=pos)}"
    assert log_length(db) == pos
