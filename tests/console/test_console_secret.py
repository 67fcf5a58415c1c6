"""Issue 21 item 1 at the console: the game master's ``--secret`` works on a console line as on the
one-shot CLI (the same click command): the line shows him the outcome, the log holds only the
commitment, and ``reveal`` at the console lets the outcome in."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner
from console_helpers import play

from cristal_events.cli import cli


def cristal(db: Path, *args: str):
    return CliRunner().invoke(cli, ["--db", str(db), *args], catch_exceptions=False)


def test_a_secret_roll_typed_at_the_console_is_sealed_until_revealed_there(tmp_path: Path) -> None:
    db = tmp_path / "brume.db"
    assert cristal(db, "init", "--name", "Brume", "--seed", "3").exit_code == 0
    assert cristal(db, "session", "start", "--title", "La forêt").exit_code == 0
    assert cristal(db, "character", "create", "thor", "--race", "Humain", "--name", "Thor").exit_code == 0
    res = play(db, "check technique thor Forestier --difficulty 8 --secret\n")
    assert res.returncode == 0, res.stderr
    assert "Secret roll sealed at position" in res.stdout and "Forestier roll" in res.stdout  # the GM sees it
    assert "1 secret roll is still sealed" in res.stderr
    log = [json.loads(line) for line in cristal(db, "log", "--json").stdout.splitlines()]
    sealed = [e["position"] for e in log if e["payload"]["type"] == "roll.sealed"]
    assert len(sealed) == 1 and not any(e["payload"]["type"] == "technique.checked" for e in log)
    shown = play(db, f"reveal {sealed[0]}\n")
    assert shown.returncode == 0, shown.stderr
    log = [json.loads(line) for line in cristal(db, "log", "--json").stdout.splitlines()]
    assert [e["payload"]["type"] for e in log][-3:] == ["roll.revealed", "technique.checked", "dice.rolled"]
    assert json.loads(cristal(db, "verify", "--rolls", "--json").stdout)["rolls"]["revealed"] == 1
