"""``combat log`` and ``evening`` open the campaign read-only (issue 15 item 4): with their read model
caught up they read its table; behind (or never built) they compute the same rows from the log in
memory, say so on stderr, and write nothing to the file."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

from click.testing import CliRunner

from cristal_events.cli import cli

STATS = ["--stat", "thor:ATT=5", "--stat", "thor:DP=12", "--stat", "thor:PV=20", "--stat", "york:ATT=3",
         "--stat", "york:DP=10", "--stat", "york:PV=15", "--stat", "york:race=Humain", "--stat", "thor:race=Humain"]
COMMANDS = [  # the first turns of the book's Thor vs York table (L1298-L1311)
    ["attack", "duel", "thor", "york", "--weapon", "Épée longue", "--dice", "2"],
    ["act", "duel", "york", "détache son fouet", "--action", "chercher_ceinture", "--dice", "3"],
    ["attack", "duel", "york", "thor", "--weapon", "Fouet", "--dice", "1"],
    ["act", "duel", "thor", "recule vers la porte", "--action", "marcher_5m"],
]
THOR = ["--stat", "Fo=4", "--stat", "Dex=50", "--stat", "Vit=60", "--stat", "Vol=40", "--stat", "Mana=10",
        "--stat", "E=8", "--stat", "Cha=30", "--stat", "Sav=30", "--stat", "Dep=5", "--stat", "Agilité=40",
        "--stat", "Adresse=60"]


def invoke(db: Path, *args: str):
    return CliRunner().invoke(cli, ["--db", str(db), *args])


def _forget(db: Path, name: str, table: str) -> None:
    """The read model as a campaign whose read models were never built holds it: no table, no checkpoint."""
    with sqlite3.connect(db) as conn:
        conn.execute(f'DROP TABLE "{table}"')
        conn.execute("DELETE FROM projection_checkpoints WHERE name = ?", (name,))
    conn.close()
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()


def _digest(db: Path) -> str:
    return hashlib.sha256(db.read_bytes()).hexdigest()


def _same_answer_from_memory(db: Path, args: tuple[str, ...], name: str, table: str) -> None:
    assert invoke(db, "rebuild").exit_code == 0  # a write command: the read models caught up
    stored = [invoke(db, *args, *fmt) for fmt in ((), ("--json",))]
    assert all(r.exit_code == 0 and not r.stderr for r in stored), [r.output for r in stored]
    _forget(db, name, table)
    before = _digest(db)
    again = [invoke(db, *args, *fmt) for fmt in ((), ("--json",))]
    for old, new in zip(stored, again):
        assert new.exit_code == 0, new.output
        assert new.stdout == old.stdout
        assert new.stderr.startswith(f"Warning: The read model {name} is behind the log: its rows were computed "
                                     "from the log in memory"), new.stderr
    assert _digest(db) == before  # nothing written: no table, no checkpoint
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        assert conn.execute("SELECT COUNT(*) FROM sqlite_master WHERE name = ?", (table,)).fetchone() == (0,)
    conn.close()


def test_combat_log_answers_from_memory_when_its_read_model_is_behind(tmp_path: Path) -> None:
    db = tmp_path / "duel.db"
    assert invoke(db, "init", "--name", "Duel", "--seed", "5").exit_code == 0
    assert invoke(db, "combat", "start", "duel", "--with", "thor,york", "--it", "york=2", *STATS).exit_code == 0
    for args in COMMANDS:
        assert invoke(db, "combat", *args).exit_code == 0, args
    shown = invoke(db, "combat", "log", "duel").stdout.splitlines()
    assert len([ln for ln in shown if ln.startswith("#")]) == len(COMMANDS)  # one row per action, in 80 columns
    _same_answer_from_memory(db, ("combat", "log", "duel"), "cristal_combats", "cristal_combat_log")


def test_evening_answers_from_memory_when_its_read_model_is_behind(tmp_path: Path) -> None:
    db = tmp_path / "soir.db"
    assert invoke(db, "init", "--name", "Soir", "--ruleset", "illergan", "--seed", "3").exit_code == 0
    invoke(db, "content", "load", "--example")
    assert invoke(db, "character", "create", "thor", "--name", "Thor", "--race", "Humain", "--class", "Guerrier",
                  "--heritage", "Enfant des rues", *THOR, "--pv", "40", "--rn", "10", "--gift", "3").exit_code == 0
    assert invoke(db, "drink", "thor", "Bière").exit_code == 0
    assert invoke(db, "drink", "thor", "Eau-de-vie", "--dice", "3").exit_code == 0
    assert invoke(db, "wait", "90").exit_code == 0
    _same_answer_from_memory(db, ("evening",), "illergan_evening", "illergan_evening")
    _same_answer_from_memory(db, ("evening", "thor"), "illergan_evening", "illergan_evening")
