"""Issue 18 item 2: the sealed-roll count that ends every command's output is read, at the console and
the web table, on the campaign they keep open (``cli.inprocess.Kept.sealed``: its state, caught up with
every writer, and the session starts' index), not by a second connection scanning the last session;
it always equals the one-shot peek (``Store.sealed_of``), which reads through the secret rolls' own
partial index (migration 0007 on SQLite, 0002 on PostgreSQL)."""

from __future__ import annotations

import contextlib
import io
import json
import sqlite3
from pathlib import Path

from click.testing import CliRunner

from cristal_events import open_campaign
from cristal_events.cli import cli
from cristal_events.cli.inprocess import Kept, invoke
from cristal_events.store import Store


def cristal(db: str | Path, *args: str):
    return CliRunner().invoke(cli, ["--db", str(db), *args], catch_exceptions=False)


def at_the_table(kept: Kept, *words: str) -> tuple[int, str]:
    """One line run on the campaign kept open, as the console and the web table run it: (exit, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = invoke(kept, list(words))
    return code, err.getvalue()


def secret_check(db: str) -> int:
    r = cristal(db, "check", "technique", "thor", "Forestier", "--difficulty", "8", "--secret", "--json")
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)["sealed"]["position"]


def test_the_kept_campaign_counts_the_sealed_rolls_as_the_peek_does_whoever_writes(backend: str) -> None:
    db = backend
    assert cristal(db, "init", "--name", "Brume", "--seed", "3").exit_code == 0
    kept = Kept(db)
    try:
        assert at_the_table(kept, "session", "start", "--title", "La forêt") == (0, "")
        assert kept.sealed() == Store.sealed_of(db) == []
        assert at_the_table(kept, "character", "create", "thor", "--race", "Humain", "--name", "Thor")[0] == 0
        first = secret_check(db)  # another writer (the one-shot CLI) seals: the kept campaign catches up
        code, err = at_the_table(kept, "note", "la brume se lève")
        assert code == 0 and f"1 secret roll is still sealed (position {first})" in err
        assert kept.sealed() == Store.sealed_of(db) == [first]
        code, err = at_the_table(kept, "check", "technique", "thor", "Forestier", "--difficulty", "8", "--secret")
        second = kept.sealed()[-1]
        assert code == 0 and f"2 secret rolls are still sealed (positions {first}, {second})" in err
        assert kept.sealed() == Store.sealed_of(db) == [first, second]
        assert cristal(db, "reveal", str(first)).exit_code == 0
        code, err = at_the_table(kept, "note", "révélé")
        assert f"1 secret roll is still sealed (position {second})" in err
        assert kept.sealed() == Store.sealed_of(db) == [second]
        # a roll whose sealed file is lost stays sealed for good once its session ends: neither the peek
        # nor the kept campaign (whose folded state still holds it) counts it in the next session
        with contextlib.closing(open_campaign(db, readonly=True)) as camp:
            camp.sealed_file().unlink()
        code, err = at_the_table(kept, "session", "end")
        assert code == 0 and kept.campaign.state().core.sealed == [second]
        assert at_the_table(kept, "session", "start", "--title", "Le lendemain") == (0, "")
        assert kept.sealed() == Store.sealed_of(db) == []
        code, err = at_the_table(kept, "note", "rien de scellé")
        assert code == 0 and "still sealed" not in err
    finally:
        kept.close()
    assert Kept(db).sealed() is None  # nothing open: the caller peeks
    closed = Kept(db)
    closed(False).close()  # a command that closed the campaign it was handed ('serve' does)
    assert closed.sealed() is None


def test_the_peek_reads_the_secret_rolls_through_their_partial_index(tmp_path: Path) -> None:
    db = str(tmp_path / "brume.db")
    assert cristal(db, "init", "--name", "Brume", "--seed", "3").exit_code == 0
    conn = sqlite3.connect(db)
    try:
        names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
        assert "events_sealed_rolls" in names
        plan = " ".join(str(r) for r in conn.execute("EXPLAIN QUERY PLAN " + Store._SEALED_ROWS, (0,)))
        assert "USING INDEX events_sealed_rolls" in plan, plan
        assert conn.execute("SELECT name FROM schema_migrations WHERE number = 7").fetchone() == (
            "0007_sealed_rolls_index.sql",)
    finally:
        conn.close()
