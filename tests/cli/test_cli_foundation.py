"""The CLI skeleton: init, session, log, verify, schema, and one clear sentence for every error."""

from __future__ import annotations

import json
import sqlite3

import pytest
from click.testing import CliRunner

from cristal_events import open_campaign
from cristal_events.cli import cli


def count(path):
    conn = sqlite3.connect(path)
    try:
        return conn.execute("SELECT COUNT(*) FROM events").fetchone()[0]
    finally:
        conn.close()


def test_init_log_session_verify(run, db_path):
    res = run("init", "--name", "La Taverne", "--seed", "4")
    assert res.exit_code == 0
    assert res.output == f"Created campaign « La Taverne » (Les Lois du Cristal, rounding round) in {db_path}.\n"
    started = run("session", "start", "--title", "Arrivée", "--date", "1er Mai").output.splitlines()
    assert started[0] == "Session 1 started at position 2."
    assert started[1].startswith("Dice commitment: ") and len(started[1]) == len("Dice commitment: ") + 64
    assert run("note", "Thor arrive à la taverne").exit_code == 0
    ended = run("session", "end").output.splitlines()
    assert ended[0] == "Session 1 ended at position 4."
    assert ended[1] == f"Receipt: 4:{open_campaign(db_path).store.hash_at(4)}" and len(ended) == 2
    lines = run("log").output.splitlines()
    assert len(lines) == 4
    assert "s1  campaign" in lines[2] and "note.recorded" in lines[2] and lines[2].endswith("GM's note: Thor arrive à la taverne")
    assert lines[1].endswith("Session 1 begins: Arrivée — 1er Mai")
    verified = run("verify")
    assert verified.exit_code == 0
    assert verified.output.startswith("OK: 4 events, hash chain intact")


def test_log_filters_and_json(run):
    run("init", "--name", "T")
    run("session", "start")
    run("note", "un")
    run("session", "end")
    run("note", "hors session")
    records = [json.loads(line) for line in run("log", "--json", "--session", "1").output.splitlines()]
    assert [r["type"] for r in records] == ["session.started", "note.recorded", "session.ended"]
    assert records[1]["payload"] == {"type": "note.recorded", "text": "un", "topic": "", "private": False}
    assert {"position", "event_id", "stream", "version", "hash", "prev_hash", "recorded_at", "actor"} <= set(records[0])
    assert [json.loads(x)["position"] for x in run("log", "--json", "--after", "4").output.splitlines()] == [5]
    assert len(run("log", "--type", "note.recorded").output.splitlines()) == 2
    assert len(run("log", "--stream", "campaign").output.splitlines()) == 5


def test_init_json_and_settings(run):
    res = run("init", "--name", "T", "--rounding", "truncate", "--set", "pm_overdraw=false", "--json")
    data = json.loads(res.output)
    assert data["rounding"] == "truncate"
    assert data["settings"]["pm_overdraw"] is False
    assert data["settings"]["chain_attacks"] == 2


def test_schema_is_json_schema_of_the_events(run):
    run("init", "--name", "T")
    schema = json.loads(run("schema").output)
    assert "SessionStarted" in schema["$defs"]


def test_verify_json_reports_the_first_bad_position(run, db_path):
    run("init", "--name", "T")
    run("note", "Thor gagne 60 XP")
    conn = sqlite3.connect(db_path, isolation_level=None)
    conn.execute("DROP TRIGGER events_no_update")
    conn.execute("UPDATE events SET payload = replace(payload, '60', '600') WHERE position = 2")
    conn.close()
    res = run("verify")
    assert res.exit_code == 1
    assert res.output == ("Error: the campaign does not verify at position 2: "
                          "position 2 was altered after it was written (hash mismatch).\n")
    data = json.loads(run("verify", "--json").output)
    assert data["ok"] is False and data["first_bad_position"] == 2


def _error(res):
    assert res.exit_code != 0
    assert "Traceback" not in res.output
    lines = res.output.strip().splitlines()
    assert len(lines) == 1, res.output
    return lines[0]


def test_missing_file(run, db_path):
    assert _error(run("log")) == f"Error: No campaign at {db_path}; create one with 'cristal init {db_path} --name NAME'."
    assert not db_path.exists()


def test_not_a_campaign(tmp_path):
    text = tmp_path / "notes.txt"
    text.write_text("bonjour")
    res = CliRunner().invoke(cli, ["--db", str(text), "log"])
    assert _error(res) == f"Error: {text} is not a campaign file (not an SQLite database)."
    assert text.read_text() == "bonjour"


def test_init_refuses_an_existing_file(run, db_path):
    run("init", "--name", "T")
    assert _error(run("init", "--name", "Again")) == f"Error: {db_path} already exists; choose another path or remove it first."
    assert count(db_path) == 1


def test_newer_schema_file(run, db_path):
    run("init", "--name", "T")
    conn = sqlite3.connect(db_path)
    conn.execute("INSERT INTO schema_migrations VALUES (9999, '9999_future.sql', 'abc', '2030-01-01')")
    conn.commit()
    conn.close()
    before = db_path.read_bytes()
    msg = _error(run("note", "x"))
    assert msg.startswith("Error: This campaign uses schema version 9999, newer than this engine's")
    assert db_path.read_bytes() == before


def test_locked_database_times_out_with_one_sentence(run, db_path, monkeypatch):
    run("init", "--name", "T")
    monkeypatch.setenv("CRISTAL_BUSY_TIMEOUT", "0.2")
    holder = sqlite3.connect(db_path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        msg = _error(run("note", "x"))
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert msg == f"Error: The campaign {db_path} is locked by another program past the timeout; nothing was written."
    assert count(db_path) == 1


def test_refused_command_appends_nothing(run, db_path):
    run("init", "--name", "T")
    assert _error(run("session", "end")) == "Error: No session is open."
    run("session", "start")
    assert _error(run("session", "start")) == "Error: Session 1 is still open; end it before starting another."
    assert count(db_path) == 2


def _all_commands(group, prefix=()):
    import click

    ctx = click.Context(group, info_name="cristal")
    for name in group.list_commands(ctx):
        cmd = group.get_command(ctx, name)
        yield prefix + (name,), cmd
        if isinstance(cmd, click.Group):
            yield from _all_commands(cmd, prefix + (name,))


@pytest.mark.parametrize("path,cmd", list(_all_commands(cli)), ids=lambda x: " ".join(x) if isinstance(x, tuple) else "")
def test_every_command_has_help_with_an_example(path, cmd):
    res = CliRunner().invoke(cli, [*path, "--help"])
    assert res.exit_code == 0
    assert "Example" in res.output, f"cristal {' '.join(path)} --help shows no example"


def test_the_core_command_table_matches_the_modules():
    from cristal_events.cli import CORE, core_commands, module_commands

    assert set(CORE) == set(core_commands())
    for name, module in CORE.items():
        assert name in module_commands(module)


@pytest.mark.parametrize("ruleset", ["cristal", "illergan"])
def test_each_ruleset_command_table_names_the_module_that_defines_it(ruleset):
    """``PARTS`` of a ruleset's cli module: every command, each in the module it names (the CLI
    imports only that module for the command typed)."""
    import importlib

    from cristal_events.cli import ruleset_command, ruleset_commands

    mod = importlib.import_module(f"cristal_events.cli.{ruleset}")
    assert set(mod.PARTS) == set(ruleset_commands(ruleset))
    for name, part in mod.PARTS.items():
        defining = importlib.import_module(f"cristal_events.cli.{ruleset}.{part}")
        assert name in {c.name for c in defining.COMMANDS}
        assert ruleset_command(ruleset, name) is ruleset_commands(ruleset)[name]


def test_a_ruleset_cli_without_parts_gives_its_commands_function(monkeypatch):
    """A ruleset package's ``cli`` module may define ``commands()`` instead of ``PARTS``."""
    import types

    import click

    from cristal_events import cli

    @click.command("hello")
    def hello() -> None:
        """Say hello."""

    monkeypatch.setattr(cli, "_ruleset_cli", lambda name: types.SimpleNamespace(commands=lambda: [hello]))
    cli.ruleset_commands.cache_clear()
    try:
        assert cli.ruleset_commands("plugin") == {"hello": hello}
        assert cli.ruleset_command("plugin", "hello") is hello
        assert cli.ruleset_command("plugin", "goodbye") is None
    finally:
        cli.ruleset_commands.cache_clear()


def _leaves():
    import click

    for path, cmd in _all_commands(cli):
        if not isinstance(cmd, click.Group):
            yield path, cmd


@pytest.mark.parametrize("path,cmd", list(_leaves()), ids=lambda x: " ".join(x) if isinstance(x, tuple) else "")
def test_every_command_has_json_for_scripts(path, cmd):
    assert any("--json" in p.opts for p in cmd.params), f"cristal {' '.join(path)} has no --json"


def test_json_of_note_schema_and_export(run, tmp_path):
    run("init", "--name", "T")
    assert json.loads(run("note", "x", "--json").output) == {"position": 2, "type": "note.recorded", "session": None}
    compact = run("schema", "--json").output
    assert len(compact.strip().splitlines()) == 1 and "SessionStarted" in json.loads(compact)["$defs"]
    out = tmp_path / "t.jsonl"
    res = run("export", "timeline", "--format", "jsonl", "-o", str(out), "--json")
    assert json.loads(res.output) == {"path": str(out), "format": "jsonl", "events": 2}


def test_demo_and_script_check_in_json(tmp_path, monkeypatch):
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    monkeypatch.chdir(root)
    res = CliRunner().invoke(cli, ["demo", str(tmp_path / "d"), "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert (data["campaign"], data["sessions"], data["anomalies"]) == ("La Compagnie du Cristal", 3, 0)
    assert data["party"] == ["thor", "xar", "gustave"] and Path(data["html"]).is_file()
    res = CliRunner().invoke(cli, ["script", "check", "sample_campaigns/compagnie_du_cristal.toml", "--json"])
    assert json.loads(res.output)["ok"] is True
