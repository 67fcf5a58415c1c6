"""A bulk import into an empty log writes through SQLite's rollback journal, not the WAL
(``Store._rollback_journal``): the same chain as through the WAL, nothing written on a bad row or a
crash, the file back in WAL mode afterwards; never inside a caller's transaction, into a log that
holds events, or while another connection has the file open (then it does not wait for it)."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

import cristal_events.store as S
from cristal_events import init_campaign
from cristal_events.errors import EventDecodeError
from cristal_events.store import GENESIS, Store

ROOT = Path(__file__).resolve().parents[2]


def _rows(n: int, first: int = 0) -> list[tuple]:
    return [(f"00000000-0000-7000-8000-{i:012d}", "campaign", i + 1, "note.recorded", 1,
             f'{{"type":"note.recorded","text":"n{i}","topic":""}}', "2026-12-01T00:00:00+00:00", None,
             "GM", None, None) for i in range(first, first + n)]


@pytest.fixture(autouse=True)
def bulk_from_1000(monkeypatch):
    """The rollback journal from 1,000 rows on (the threshold is 10,000), so that the tests stay small."""
    monkeypatch.setattr(S, "ROLLBACK_JOURNAL_MIN", 1000)


@pytest.fixture
def codec(tmp_path):
    camp = init_campaign(tmp_path / "codec.db", name="C", ruleset="cristal", seed=1)
    yield camp.store.codec
    camp.close()


def _traced(store: Store) -> list[str]:
    seen: list[str] = []
    store.conn.set_trace_callback(seen.append)
    return seen


def _journal_switches(seen: list[str]) -> list[str]:
    return [s for s in seen if s.startswith(("PRAGMA journal_mode =", "PRAGMA synchronous ="))]


def _mode(path: Path) -> str:
    conn = sqlite3.connect(path)
    try:
        return conn.execute("PRAGMA journal_mode").fetchone()[0]
    finally:
        conn.close()


def test_an_import_into_an_empty_log_goes_through_the_rollback_journal(tmp_path, codec):
    store = Store.create(tmp_path / "a.db", codec)
    seen = _traced(store)
    assert store.import_rows(_rows(3000), validate=codec.decode) == 3000
    assert _journal_switches(seen) == ["PRAGMA journal_mode = DELETE", "PRAGMA synchronous = FULL",
                                       "PRAGMA synchronous = 1", "PRAGMA journal_mode = WAL"]
    assert store.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store.conn.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL, as every connection
    head = store.head()
    assert store.verify().ok
    store.close()
    assert _mode(tmp_path / "a.db") == "wal"
    # the same rows through the WAL (another connection holds the file): the same chain
    other = Store.create(tmp_path / "b.db", codec)
    holder = sqlite3.connect(tmp_path / "b.db")
    holder.execute("SELECT COUNT(*) FROM events").fetchone()
    seen = _traced(other)
    t0 = time.perf_counter()
    assert other.import_rows(_rows(3000), validate=codec.decode) == 3000
    assert time.perf_counter() - t0 < 4  # it did not wait for the other connection (busy timeout 5 s)
    assert _journal_switches(seen) == ["PRAGMA journal_mode = DELETE"]  # asked, refused: the WAL it is
    assert other.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert other.head() == head
    assert [r.hash for r in other.read_all()] == [r.hash for r in Store.open(tmp_path / "a.db", codec).read_all()]
    holder.close()
    other.close()


def test_a_bad_row_writes_nothing_and_leaves_the_wal(tmp_path, codec):
    store = Store.create(tmp_path / "a.db", codec)
    rows = _rows(2500)
    rows[2100] = (*rows[2100][:5], '{"type":"note.recorded","text":12}', *rows[2100][6:])
    with pytest.raises(EventDecodeError, match="Invalid 'note.recorded' payload"):
        store.import_rows(rows, validate=codec.decode)
    assert store.count() == 0
    assert store.head() == (0, GENESIS)
    assert store.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store.import_rows(_rows(10), validate=codec.decode) == 10
    store.close()
    assert not Path(f"{tmp_path / 'a.db'}-journal").exists()


def test_not_inside_a_callers_transaction_nor_into_a_log_with_events_nor_for_a_few_rows(tmp_path, codec):
    store = Store.create(tmp_path / "a.db", codec)
    seen = _traced(store)
    with store.transaction():
        assert store.import_rows(_rows(1500)) == 1500
    assert _journal_switches(seen) == []
    assert store.import_rows(_rows(1500, first=1500)) == 1500  # the log holds events: they stay in the WAL
    assert _journal_switches(seen) == []
    assert store.count() == 3000 and store.verify().ok
    store.close()
    small = Store.create(tmp_path / "b.db", codec)
    seen = _traced(small)
    assert small.import_rows(_rows(999)) == 999  # fewer rows than the threshold: the switches cost more
    assert _journal_switches(seen) == []
    small.close()


def test_an_iterable_failing_while_read_ahead_fails_after_the_rows_before_it(tmp_path, codec):
    store = Store.create(tmp_path / "a.db", codec)
    good = _rows(600)
    bad = list(good)
    bad[300] = (*bad[300][:5], "[]", *bad[300][6:])

    def failing(rows):
        yield from rows
        raise OSError("the export file went away")

    with pytest.raises(OSError, match="went away"):
        store.import_rows(failing(good), validate=codec.decode)
    with pytest.raises(EventDecodeError, match="Invalid 'note.recorded' payload"):  # the earlier bad row first
        store.import_rows(failing(bad), validate=codec.decode)
    assert store.count() == 0
    assert store.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    store.close()


KILLED_IMPORT = """
import os, signal, sys
from cristal_events import init_campaign
from cristal_events.store import Store
sys.path.insert(0, sys.argv[3])
from test_bulk_journal import _rows
codec = init_campaign(sys.argv[2], name="C", ruleset="cristal", seed=1).store.codec
store = Store.create(sys.argv[1], codec)

def rows():
    yield from _rows(60000)
    os.kill(os.getpid(), signal.SIGKILL)  # in the middle of the transaction, the page cache spilled

store.import_rows(rows())
"""


def test_an_import_killed_midway_leaves_an_empty_log_that_imports_again(tmp_path, codec):
    db = tmp_path / "killed.db"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run([sys.executable, "-c", KILLED_IMPORT, str(db), str(tmp_path / "c.db"),
                           str(Path(__file__).parent)], env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    assert Path(f"{db}-journal").exists()  # the hot journal of the rollback mode
    store = Store.open(db, codec)  # SQLite rolls the journal back
    assert store.count() == 0 and store.head() == (0, GENESIS)
    assert store.import_rows(_rows(1500), validate=codec.decode) == 1500  # a bulk import: back to the WAL
    assert store.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store.verify().ok
    store.close()
