"""`cristal copy SRC DST` between SQLite and PostgreSQL, both directions, through the CLI (issue 20,
item 4): the same events and hashes, receipts and session commitments still valid, `verify` agreeing
on both ends, and the open session's dice secret going along."""

from __future__ import annotations

import json

from click.testing import CliRunner
from pgcluster import with_campaign

from cristal_events.cli import cli


def _run(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def _hashes(target: str) -> list[tuple[int, str]]:
    out = _run("--db", target, "log", "--json")
    assert out.exit_code == 0, out.output
    return [(d["position"], d["hash"]) for d in map(json.loads, out.stdout.splitlines())]


def _build(db: str) -> str:
    """A campaign with an ended session (its receipt returned) and an open one that rolled engine dice."""
    assert _run("init", db, "--name", "La Taverne", "--seed", "7").exit_code == 0
    for argv in (["session", "start", "--title", "Un"],
                 ["character", "create", "thor", "--race", "Humain", "--name", "Thor", "--set", "FRC=+1"],
                 ["xp", "award", "thor", "400", "--reason", "Départ"]):
        assert _run("--db", db, *argv).exit_code == 0
    ended = _run("--db", db, "session", "end")
    receipt = ended.output.split("Receipt: ")[1].split()[0]
    for argv in (["session", "start", "--title", "Deux"],
                 ["check", "sur-effort", "thor", "FRC", "--reason", "La herse"]):  # an engine die of session 2
        out = _run("--db", db, *argv)
        assert out.exit_code == 0, out.output
    return receipt


def _verifies(target: str, receipt: str) -> dict:
    out = _run("--db", target, "verify", "--rolls", "--receipt", receipt, "--json")
    assert out.exit_code == 0, out.output
    return json.loads(out.output)


def test_copy_sqlite_to_postgresql_and_back(tmp_path, pg_url):
    first = str(tmp_path / "taverne.db")
    receipt = _build(first)
    pg = with_campaign(pg_url, "taverne")
    moved = _run("copy", first, pg, "--json")
    assert moved.exit_code == 0, moved.output
    done = json.loads(moved.output)
    assert done["secret_copied"] is True and done["events"] == len(_hashes(first))
    back = str(tmp_path / "retour.db")
    again = _run("copy", pg, back)
    assert again.exit_code == 0 and f"both end on the receipt {done['receipt']}" in again.output
    assert _hashes(first) == _hashes(pg) == _hashes(back)
    reports = [_verifies(t, receipt) for t in (first, pg, back)]
    assert {(r["ok"], r["events"], r["first_bad_position"]) for r in reports} == {(True, len(_hashes(first)), None)}
    for target in (pg, back):  # the session open in the source goes on in each copy, its dice verifiable
        assert _run("--db", target, "session", "end").exit_code == 0
        rolls = _verifies(target, receipt)["rolls"]
        assert rolls["checked"] == 1 and rolls["sessions"] == 2 and rolls["mismatches"] == []


def test_copy_refuses_an_existing_destination_or_a_source_that_does_not_verify(tmp_path, pg_url):
    first = str(tmp_path / "taverne.db")
    _build(first)
    pg = with_campaign(pg_url, "taverne")
    assert _run("copy", first, pg).exit_code == 0
    twice = _run("copy", first, pg)
    assert twice.exit_code == 1 and "already exists" in twice.output
    existing = _run("copy", pg, first)
    assert existing.exit_code == 1 and "already exists" in existing.output
    import sqlite3

    conn = sqlite3.connect(first, isolation_level=None)
    conn.execute("DROP TRIGGER events_no_update")
    conn.execute("UPDATE events SET actor = 'Mallory' WHERE position = 3")
    conn.close()
    refused = _run("copy", first, with_campaign(pg_url, "forged"))
    assert refused.exit_code == 1 and "does not verify" in refused.output and "nothing was copied" in refused.output
    from cristal_events.store_pg import campaigns

    assert campaigns(pg_url) == ["taverne"]


def test_a_jsonl_export_imports_into_postgresql_with_the_same_hashes(tmp_path, pg_url):
    first = str(tmp_path / "taverne.db")
    _build(first)
    assert _run("--db", first, "session", "end").exit_code == 0  # an export to import is of ended sessions
    export = tmp_path / "t.jsonl"
    assert _run("--db", first, "export", "timeline", "--format", "jsonl", "-o", str(export)).exit_code == 0
    pg = with_campaign(pg_url, "importee")
    out = _run("import", str(export), pg)
    assert out.exit_code == 0 and "Imported" in out.output, out.output
    assert _hashes(pg) == _hashes(first)
    assert _run("--db", pg, "verify").exit_code == 0


def _dice_table(db: str) -> tuple[int, int]:
    """A campaign with every kind of GM dice: a secret roll revealed by position, a sealed override
    revealed at its session's end, a disclosed override, a GM re-roll, and in the open session a secret
    roll still sealed; (the sealed position, the face the GM saw there)."""
    assert _run("init", db, "--name", "Brume", "--seed", "3", "--fudge-policy", "sealed").exit_code == 0
    for argv in (["session", "start", "--title", "La forêt"],
                 ["character", "create", "thor", "--race", "Humain", "--name", "Thor"]):
        assert _run("--db", db, *argv).exit_code == 0
    shown = json.loads(_run("--db", db, "check", "technique", "thor", "Forestier", "--secret", "--json").stdout)
    assert _run("--db", db, "reveal", str(shown["sealed"]["position"])).exit_code == 0
    award = json.loads(_run("--db", db, "xp", "award", "thor", "600", "--reason", "le gué", "--json").stdout)
    assert _run("--db", db, "override", str(award[0]["position"]), "--set", "amount=60", "--reason",
                "trop généreux").exit_code == 0
    assert _run("--db", db, "session", "end").exit_code == 0
    assert _run("--db", db, "settings", "--set", "fudge_policy=disclosed", "--reason", "vote").exit_code == 0
    assert _run("--db", db, "session", "start", "--title", "Le gué").exit_code == 0
    again = json.loads(_run("--db", db, "xp", "award", "thor", "50", "--reason", "la rive", "--json").stdout)
    assert _run("--db", db, "override", str(again[0]["position"]), "--set", "amount=40", "--reason",
                "arrondi").exit_code == 0
    rolled = json.loads(_run("--db", db, "check", "sur-effort", "thor", "FRC", "--reason", "La herse",
                             "--json").stdout)
    assert _run("--db", db, "reroll", str(rolled[-1]["position"]), "--reason", "tombé",
                "--dice", "4").exit_code == 0
    hidden = json.loads(_run("--db", db, "check", "technique", "thor", "Natation", "--secret", "--json").stdout)
    return hidden["sealed"]["position"], hidden["sealed"]["events"][0]["event"]["face"]


def _audit(target: str) -> dict:
    out = _run("--db", target, "audit", "dice", "--json")
    assert out.exit_code == 0, out.output
    return json.loads(out.stdout)


def test_copy_carries_sealed_and_revealed_rolls_and_overrides_both_ways(tmp_path, pg_url):
    first = str(tmp_path / "brume.db")
    position, face = _dice_table(first)
    pg = with_campaign(pg_url, "brume")
    moved = json.loads(_run("copy", first, pg, "--json").stdout)
    assert (moved["secret_copied"], moved["sealed_copied"]) == (True, 1)
    back = str(tmp_path / "retour.db")
    returned = json.loads(_run("copy", pg, back, "--json").stdout)
    assert (returned["secret_copied"], returned["sealed_copied"]) == (True, 1)
    assert _hashes(first) == _hashes(pg) == _hashes(back)
    audits = [_audit(t) for t in (first, pg, back)]
    assert audits[0] == audits[1] == audits[2]
    assert audits[0]["counts"] == {"overrides": 2, "rerolls": 1, "sealed": 1} and audits[0]["sealed"] == [position]
    before = [json.loads(_run("--db", t, "verify", "--rolls", "--json").stdout) for t in (first, pg, back)]
    assert all(r["ok"] and r["rolls"]["sealed"] == 1 and r["rolls"]["revealed"] == 2 for r in before), before
    assert before[0]["rolls"] == before[1]["rolls"] == before[2]["rolls"]
    for target in (first, pg, back):  # each copy reveals the roll still sealed, to the same face
        ended = _run("--db", target, "session", "end", "--json")
        assert ended.exit_code == 0 and "could not be revealed" not in ended.output, ended.output
        report = json.loads(_run("--db", target, "verify", "--rolls", "--json").stdout)
        assert report["ok"] and report["rolls"]["sealed"] == 0 and report["rolls"]["revealed"] == 3, report
        log = [json.loads(line) for line in _run("--db", target, "log", "--json").stdout.splitlines()]
        checked = [r for r in log if r["type"] == "technique.checked"]
        assert checked[-1]["payload"]["face"] == face
    # the three ends took the same positions for the reveal and the session's end (their hashes differ
    # only by the time each was written)
    assert [p for p, _ in _hashes(first)] == [p for p, _ in _hashes(pg)] == [p for p, _ in _hashes(back)]
