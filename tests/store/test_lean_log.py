"""Migration 0003 (the lean event log) and the bulk append path (``Store.import_rows``).

A campaign written before 0003 keeps every row, position, hash and its AUTOINCREMENT counter when it
is upgraded; the CHECK and the type index are gone, the append-only triggers are back. An import
of several chunks (written on a second thread) stores the same chain as the reference hashing, and
any failure (a payload refused by the iterable, a row SQLite refuses) leaves nothing behind.
"""

from __future__ import annotations

import sqlite3
import sys

import pytest

from cristal_events import init_campaign, migrate, open_campaign
from cristal_events.errors import CristalError, StoreUnavailable
from cristal_events.events import NoteRecorded
from cristal_events.store import GENESIS, IMPORT_FIELDS, Store, row_hash


def _schema(conn: sqlite3.Connection) -> dict[str, str]:
    return {name: sql for name, sql in conn.execute("SELECT name, sql FROM sqlite_master WHERE tbl_name = 'events'")}


@pytest.fixture
def old_campaign(tmp_path, monkeypatch):
    """A campaign written by an engine that shipped migrations 0001 and 0002 only, with 30 notes."""
    shipped = migrate.available()
    monkeypatch.setattr(migrate, "available", lambda: [m for m in shipped if m.number <= 2])
    path = tmp_path / "old.db"
    camp = init_campaign(path, name="Ancienne", ruleset="cristal")
    for i in range(30):
        camp.store.append("campaign", [NoteRecorded(text=f"note {i}")])
    camp.close()
    monkeypatch.setattr(migrate, "available", lambda: shipped)
    return path


def test_an_old_campaign_is_upgraded_with_every_row_and_hash(old_campaign):
    conn = sqlite3.connect(old_campaign)
    before = conn.execute("SELECT * FROM events ORDER BY position").fetchall()
    assert "CHECK (json_valid(payload))" in _schema(conn)["events"]
    conn.close()

    camp = open_campaign(old_campaign)
    conn = camp.store.conn
    assert conn.execute("SELECT * FROM events ORDER BY position").fetchall() == before
    assert [r[0] for r in conn.execute("SELECT number FROM schema_migrations ORDER BY number")] == [
        m.number for m in migrate.available()]
    schema = _schema(conn)
    assert "json_valid" not in schema["events"]
    assert "events_by_type" not in schema
    assert {"events_by_session", "events_session_starts", "events_no_update", "events_no_delete"} <= set(schema)
    assert camp.verify().ok
    with pytest.raises(sqlite3.IntegrityError, match="append-only: UPDATE is forbidden"):
        camp.store.conn.execute("UPDATE events SET actor = 'X' WHERE position = 2")
    with pytest.raises(sqlite3.IntegrityError, match="append-only: DELETE is forbidden"):
        camp.store.conn.execute("DELETE FROM events WHERE position = 2")
    # the log goes on where it stopped
    assert camp.store.append("campaign", [NoteRecorded(text="après")]) == [len(before) + 1]
    assert camp.verify().ok
    camp.close()


def test_the_upgrade_keeps_the_counter_that_shows_removed_tail_events(old_campaign):
    conn = sqlite3.connect(old_campaign, isolation_level=None)  # an attacker removes the last 3 events
    conn.execute("DROP TRIGGER events_no_delete")
    conn.execute("DELETE FROM events WHERE position > 28")
    conn.close()
    camp = open_campaign(old_campaign)
    assert camp.store.conn.execute("SELECT seq FROM sqlite_sequence WHERE name = 'events'").fetchone() == (31,)
    report = camp.verify()
    assert not report.ok and report.first_bad_position == 29
    assert "the log ends at position 28 but position 31 was written" in report.problems[0]
    camp.close()


def test_session_starts_are_read_through_their_partial_index(campaign):
    campaign.start_session("Un")
    campaign.store.append("campaign", [NoteRecorded(text="a")], session=1)
    campaign.end_session()
    campaign.start_session("Deux")
    got = [r.event.title for r in campaign.store.read_all(type="session.started")]
    assert got == ["Un", "Deux"]
    assert [r.event.title for r in campaign.store.read_all(after=3, type="session.started")] == ["Deux"]
    plan = campaign.store.conn.execute(
        "EXPLAIN QUERY PLAN SELECT position FROM events INDEXED BY events_session_starts "
        "WHERE type = 'session.started' ORDER BY position").fetchall()
    assert "events_session_starts" in plan[0][3]
    # another type is still filtered exactly (by a scan)
    assert [r.event.text for r in campaign.store.read_all(type="note.recorded")] == ["a"]


def _rows(n: int, *, start: int = 0) -> list[tuple]:
    return [(f"00000000-0000-7000-8000-{start + i:012d}", "campaign", start + i + 1, "note.recorded", 1,
             f'{{"type":"note.recorded","text":"n{start + i}","topic":""}}', "2026-12-01T00:00:00+00:00", None,
             "GM", None, None) for i in range(n)]


def _fresh(tmp_path, name: str = "bulk.db") -> Store:
    return Store.create(tmp_path / name)


def test_an_import_of_several_chunks_stores_the_reference_chain(tmp_path):
    store = _fresh(tmp_path)
    rows = _rows(2345)  # 3 chunks of 1,000 rows: the writer thread is used
    interval = sys.getswitchinterval()
    assert store.import_rows(iter(rows)) == 2345
    assert sys.getswitchinterval() == interval
    prev = GENESIS
    for pos, stored in enumerate(store.conn.execute("SELECT * FROM events ORDER BY position"), 1):
        assert stored[0] == pos and stored[1:12] == rows[pos - 1] and stored[12] == prev
        assert stored[13] == row_hash(prev, pos, *rows[pos - 1])
        prev = stored[13]
    assert store.verify().ok
    # dict rows go the same way, chained after the last
    assert store.append_rows([dict(zip(IMPORT_FIELDS, r)) for r in _rows(3, start=2345)]) == 3
    assert store.last_position() == 2348 and store.verify().ok
    store.close()


def test_a_refused_row_in_the_iterable_leaves_nothing(tmp_path):
    store = _fresh(tmp_path)

    def rows():
        for i, r in enumerate(_rows(2600)):
            if i == 2100:  # two chunks are already with the writer
                raise CristalError("Line 2101 of export.jsonl: invalid payload; nothing was imported.")
            yield r

    with pytest.raises(CristalError, match="Line 2101"):
        store.import_rows(rows())
    assert store.count() == 0
    assert not store.conn.in_transaction
    assert store.import_rows(_rows(2)) == 2  # the store is still usable
    store.close()


def test_a_row_sqlite_refuses_on_the_writer_thread_leaves_nothing(tmp_path):
    store = _fresh(tmp_path)
    rows = _rows(2200)
    rows[1700] = rows[10]  # the same event id twice, in the second chunk
    with pytest.raises(StoreUnavailable, match="could not be used: UNIQUE constraint failed"):
        store.import_rows(rows)
    assert store.count() == 0
    assert not store.conn.in_transaction
    store.close()


def test_an_import_joins_the_callers_transaction(tmp_path):
    store = _fresh(tmp_path)
    with pytest.raises(RuntimeError):
        with store.transaction():
            store.import_rows(_rows(2100))
            assert store.count() == 2100
            raise RuntimeError("the caller changes its mind")
    assert store.count() == 0
    store.close()


def test_imports_in_two_threads_restore_the_switch_interval(tmp_path):
    import threading

    before = sys.getswitchinterval()
    stores = [_fresh(tmp_path, f"t{i}.db") for i in range(2)]
    counts: list[int] = []
    threads = [threading.Thread(target=lambda s=s: counts.append(s.import_rows(_rows(3200)))) for s in stores]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert counts == [3200, 3200]
    assert sys.getswitchinterval() == before
    for s in stores:
        assert s.verify().ok
        s.close()
