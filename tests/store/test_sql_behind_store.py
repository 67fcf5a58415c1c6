"""All SQL behind the store (issue 15, item 5): the Store methods that replaced raw statements in the
service, the jobs and the CLI, the session secret written by the service after decide, and a check
that no other module of the package executes SQL text."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import msgspec
import pytest

from cristal_events import open_campaign
from cristal_events.errors import CristalError, RuleError, UnknownEntity
from cristal_events.jobs.walk import check_character, session_range
from cristal_events.service import RecordNote, StartSession
from cristal_events.store import Store

ROOT = Path(__file__).resolve().parents[2]

#: the modules that may execute SQL text: the store (SQLite, PostgreSQL), and the migrations it applies
SQL_MODULES = {"cristal_events/store.py", "cristal_events/migrate.py", "cristal_events/store_pg.py"}
#: the two ruleset CLIs' SQL (the Illergan XP list, the combat log) gets its own Store methods on the
#: ruleset-CLI branch of issue 15, merged beside this one; nothing else is allowed here
RULESET_CLI_SQL = {"cristal_events/rulesets/illergan/cli_play.py", "cristal_events/rulesets/cristal/cli_combat.py"}
_EXECUTES = re.compile(r"\.(execute|executemany|executescript)\(")
#: ``Campaign.execute(command)`` runs a command, not SQL
_COMMAND = re.compile(r"\b(camp|campaign|self|Campaign)\.execute\(")


def _python_files(folder: str) -> list[Path]:
    return sorted((ROOT / folder).rglob("*.py"))


def test_only_the_store_executes_sql_text():
    offenders = []
    for path in _python_files("cristal_events") + _python_files("projections"):
        rel = path.relative_to(ROOT).as_posix()
        if rel in SQL_MODULES or rel in RULESET_CLI_SQL:
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if _EXECUTES.search(line) and not _COMMAND.search(line):
                offenders.append(f"{rel}:{n}: {line.strip()}")
    assert offenders == []


def test_no_module_but_the_store_opens_sqlite_itself():
    opened = [p.relative_to(ROOT).as_posix() for p in _python_files("cristal_events") + _python_files("projections")
              if "sqlite3.connect(" in p.read_text(encoding="utf-8")]
    assert opened == ["cristal_events/store.py"]


def test_the_check_would_catch_a_raw_statement():
    for line in ('row = camp.store.conn.execute("SELECT 1 FROM events").fetchone()',
                 'self.store.conn.executemany("DELETE FROM t WHERE a = ?", rows)', 'cur.execute("PRAGMA x")'):
        assert _EXECUTES.search(line) and not _COMMAND.search(line), line
    assert _COMMAND.search("recs = camp.execute(RecordNote(text='x'))")


def test_session_span_and_stream_existence(campaign):
    campaign.execute(RecordNote(text="avant"))
    campaign.start_session("Arrivée")
    campaign.execute(RecordNote(text="pendant"))
    campaign.end_session()
    store = campaign.store
    assert store.session_span(1) == (3, 5)
    assert store.session_span(2) is None
    assert store.session_span(-1) is None and store.session_span(2**70) is None
    assert session_range(campaign, 1) == (3, 5)
    with pytest.raises(UnknownEntity, match="Session 2 has no events in this campaign"):
        session_range(campaign, 2)
    with pytest.raises(CristalError, match="Session 2 has no events"):
        campaign.state_at_session_end(2)
    assert campaign.state_at_session_end(1).core.position == 5
    assert store.stream_exists("campaign") and not store.stream_exists("character:nobody")
    with pytest.raises(UnknownEntity, match="No character 'nobody' in this campaign"):
        check_character(campaign, "nobody")


def test_legacy_secrets_are_read_and_moved_through_the_store(db_path, campaign):
    campaign.start_session("Arrivée")
    secret = campaign.session_secret(1)
    campaign.secrets_file().unlink()  # a campaign of an older engine: the secret sat in the table
    with campaign.store.transaction():
        campaign.store.conn.execute("INSERT INTO session_secrets VALUES (1, ?), (9, 'stale')", (secret,))
    assert campaign.store.has_legacy_secrets()
    assert campaign.store.legacy_secrets() == {1: secret, 9: "stale"}
    assert campaign.store.legacy_secret(9) == "stale" and campaign.store.legacy_secret(2) is None
    campaign.close()
    with open_campaign(db_path) as camp:  # the first writable open moves the open session's one out
        assert not camp.store.has_legacy_secrets() and camp.store.legacy_secrets() == {}
        assert camp.session_secret(1) == secret
        assert b'"1"' in camp.secrets_file().read_bytes() and b"stale" not in camp.secrets_file().read_bytes()


def test_the_header_and_the_last_position_are_peeked_read_only(db_path, campaign, tmp_path):
    campaign.execute(RecordNote(text="x"))
    header = Store.peek_header(db_path)
    assert header is not None and msgspec.json.decode(header)["ruleset"] == "cristal"
    assert Store.peek_last_position(db_path) == 2
    assert Store.peek_header(tmp_path / "missing.db") is None
    (tmp_path / "junk.db").write_bytes(b"not a database at all" * 100)
    assert Store.peek_header(tmp_path / "junk.db") is None


def test_decide_only_commits_to_the_secret_the_service_draws(campaign):
    world = campaign.state()
    ctx = campaign.context(world, actor="GM", faces=None)
    emits, _ = campaign._decide(world, StartSession(title="t"), ctx, new_secret="ab" * 32)
    assert emits[0].event.seed_commitment == hashlib.sha256(("ab" * 32).encode()).hexdigest()
    assert not campaign.secrets_file().exists()  # decide wrote nothing: the service keeps the secret
    with pytest.raises(RuleError, match="needs its dice secret"):
        campaign._decide(world, StartSession(title="t"), ctx)
    rec = campaign.start_session("Arrivée")[0]
    secret = campaign.session_secret(1)
    assert hashlib.sha256(secret.encode()).hexdigest() == rec.event.seed_commitment


def test_a_refused_session_start_writes_no_secret(campaign):
    campaign.start_session("Arrivée")
    kept = campaign.secrets_file().read_bytes()
    with pytest.raises(RuleError, match="Session 1 is still open"):
        campaign.execute(StartSession(title="encore"))
    assert campaign.secrets_file().read_bytes() == kept


def test_read_model_tables_are_created_by_sqlite_utils_with_the_declared_shape(db_path, campaign):
    from cristal_events.projections.base import XP_LEDGER
    from cristal_events.projections.runner import catch_up

    campaign.execute(RecordNote(text="x"))
    catch_up(campaign)
    store = campaign.store
    assert "xp_ledger" in store.table_names()
    table = store.read_model_db()["xp_ledger"]
    assert table.exists() and table.pks == ["position"]
    assert list(table.columns_dict) == list(XP_LEDGER.columns)  # the declared column order
    assert {c.name: c.type for c in table.columns} == XP_LEDGER.columns
    with store.transaction():
        store.create_read_tables({"t2": ({"a": "TEXT", "b": "INTEGER", "c": "REAL"}, ("a", "b"))})
        t2 = store.read_model_db()["t2"]
        assert t2.pks == ["a", "b"]
        store.replace_rows("t2", ["a", "b", "c"], [("x", 1, 0.5), ("x", 1, 1.5), ("y", 2, None)])
        assert store.table_rows("t2", ["a", "b", "c"], ["a", "b"]) == [("x", 1, 1.5), ("y", 2, None)]
        store.delete_rows("t2", ["a", "b"], [("x", 1)])
        assert store.table_rows("t2", ["c"], ["a"]) == [(None,)]
        store.create_read_tables({"t2": ({"a": "TEXT"}, ("a",))}, replace=True)
        assert store.table_rows("t2", ["a"], ["a"]) == [] and list(t2.columns_dict) == ["a"]
    assert store.table_rows("missing", ["a"], ["a"]) == []
    with pytest.raises(ValueError, match="not a usable SQL name"):
        store.clear_rows('x" ; DROP TABLE events; --')


def test_a_command_on_a_built_campaign_does_not_import_sqlite_utils(db_path, campaign):
    import subprocess
    import sys

    from cristal_events.projections.runner import catch_up

    campaign.execute(RecordNote(text="x"))
    catch_up(campaign)  # the read-model tables exist from here on
    campaign.close()
    code = ("import sys\nfrom cristal_events.cli import main\n"
            "try:\n    main(['--db', sys.argv[1], 'note', 'encore'])\nexcept SystemExit:\n    pass\n"
            "print('sqlite_utils' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code, str(db_path)], capture_output=True, text=True,
                         env={**__import__("os").environ, "PYTHONPATH": str(ROOT)}, check=True)
    assert out.stdout.strip().splitlines()[-1] == "False", out.stdout + out.stderr
    assert "Note recorded at position" in out.stdout
