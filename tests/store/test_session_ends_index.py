"""Migration 0008: the session ends read through their partial index.

Every session's receipt is its ``session.ended`` row (position and chain hash); the HTML export
reads them before its walk, in both of its processes. What must hold: the query is planned through
the index, the index holds the session ends and nothing else, and a campaign written before the
migration gives the same receipts opened read-only (a scan) and once migrated (the index).
"""

from __future__ import annotations

import sqlite3

import pytest

from cristal_events import init_campaign, migrate, open_campaign
from cristal_events.events import NoteRecorded
from cristal_events.log_rows import SESSION_ENDS


def _play(camp, sessions: int) -> None:
    for n in range(1, sessions + 1):
        camp.start_session(f"Soirée {n}")
        camp.store.append("campaign", [NoteRecorded(text=f"note {n}.{i}") for i in range(5)], session=n)
        if n < sessions:  # the last one still open
            camp.end_session()


def _plan(conn: sqlite3.Connection) -> str:
    return " ".join(str(r) for r in conn.execute("EXPLAIN QUERY PLAN " + SESSION_ENDS))


def test_the_session_ends_are_read_through_their_partial_index(campaign):
    _play(campaign, 3)
    conn = campaign.store.conn
    assert "USING INDEX events_session_ends" in _plan(conn)
    ends = campaign.store.session_ends()
    assert sorted(ends) == [1, 2]
    assert all(campaign.store.hash_at(p) == h for p, h in ends.values())
    assert [conn.execute("SELECT type FROM events WHERE position = ?", (p,)).fetchone()[0]
            for p, _h in ends.values()] == ["session.ended", "session.ended"]
    receipts = campaign.session_receipts()
    assert {s: (r.position, r.hash) for s, r in receipts.items()} == ends
    # the index holds the two ends only, not the starts nor the notes
    assert conn.execute("SELECT count(*) FROM events INDEXED BY events_session_ends "
                        "WHERE type = 'session.ended'").fetchone()[0] == 2


@pytest.fixture
def before_0008(tmp_path, monkeypatch):
    """A campaign written by an engine that shipped migrations up to 0007, three sessions played."""
    shipped = migrate.available()
    monkeypatch.setattr(migrate, "available", lambda: [m for m in shipped if m.number < 8])
    path = tmp_path / "avant.db"
    camp = init_campaign(path, name="Avant", ruleset="cristal", seed=5)
    _play(camp, 3)
    expected = camp.store.session_ends()
    camp.close()
    monkeypatch.setattr(migrate, "available", lambda: shipped)
    return path, expected


def test_a_campaign_written_before_the_index_gives_the_same_receipts_before_and_after_it(before_0008):
    path, expected = before_0008
    assert sorted(expected) == [1, 2]
    old = open_campaign(path, readonly=True)  # read-only: not migrated, the ends found by a scan
    try:
        names = {r[0] for r in old.store.conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
        assert "events_session_ends" not in names
        assert "events_session_ends" not in _plan(old.store.conn)
        assert old.store.session_ends() == expected
    finally:
        old.close()
    new = open_campaign(path)  # a writable open applies the pending migration
    try:
        assert new.store.conn.execute("SELECT name FROM schema_migrations WHERE number = 8").fetchone() == (
            "0008_session_ends_index.sql",)
        assert "USING INDEX events_session_ends" in _plan(new.store.conn)
        assert new.store.session_ends() == expected
        assert new.store.verify().ok
    finally:
        new.close()
