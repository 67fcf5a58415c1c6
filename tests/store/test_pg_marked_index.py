"""The rows PostgreSQL looks up by type, in one partial index (migrations/postgres/0004, with the
session ends since 0005): the session starts and ends and the secret rolls with their reveals. What that must keep: each query of the two indexes it
replaced is planned through it on a log far larger than the rows it holds, it holds only those rows,
and a campaign created before it is migrated with the same answers."""

from __future__ import annotations

import pytest
from pgcluster import with_campaign

from cristal_events import store_pg
from cristal_events.codec import Codec
from cristal_events.events import CORE_EVENTS, CORE_UPCASTERS, NoteRecorded, SessionEnded, SessionStarted
from cristal_events.log_rows import SESSION_ENDS
from cristal_events.store_pg import PgStore


def codec() -> Codec:
    return Codec(CORE_EVENTS, CORE_UPCASTERS)


def fill(store: PgStore) -> list[int]:
    """Three sessions of 400 notes each, the first two ended; the positions of their starts."""
    starts = []
    for n in range(1, 4):
        starts += store.append("campaign", [SessionStarted(number=n, title=f"S{n}")])
        store.append(f"notes:{n}", [NoteRecorded(text=f"n{i}") for i in range(400)], session=n)
        if n < 3:
            store.append("campaign", [SessionEnded(number=n)], session=n)
    store.conn.execute("ANALYZE events")
    return starts


def plan(store: PgStore, sql: str, args: tuple[object, ...] = ()) -> str:
    return "\n".join(r[0] for r in store.conn.execute("EXPLAIN " + sql, args).fetchall())


@pytest.fixture
def url(pg_url):
    return with_campaign(pg_url, "taverne")


def test_session_starts_and_secret_rolls_are_read_through_the_one_index(url):
    store = PgStore.create(url, codec())
    try:
        starts = fill(store)
        indexes = {r[0]: r[1] for r in store.conn.execute(
            "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'events' AND schemaname = current_schema()")}
        assert "events_session_starts" not in indexes and "events_sealed_rolls" not in indexes
        assert ("WHERE (type = ANY (ARRAY['session.started'::text, 'session.ended'::text, 'roll.sealed'::text, "
                "'roll.revealed'::text]))") in indexes["events_marked"]
        assert "events_marked" in plan(store, PgStore._LAST_SESSION_START)
        assert "events_marked" in plan(store, PgStore._SEALED_ROWS.replace("%s", str(starts[-1])))
        assert "events_marked" in plan(store, SESSION_ENDS)
        assert store.last_session_start() == starts[-1]
        assert PgStore.sealed_of(url) == []
        assert sorted(store.session_ends()) == [1, 2]
        assert all(store.hash_at(p) == h for p, h in store.session_ends().values())
        # the index holds the three session starts and the two ends, not the 1,200 notes
        assert store.conn.execute("SELECT count(*) FROM events WHERE type IN ('session.started', 'session.ended', "
                                  "'roll.sealed', 'roll.revealed')").fetchone()[0] == 5
        assert [r.position for r in store.read_all(type="session.started")] == starts
    finally:
        store.close()


def test_a_campaign_created_with_the_two_indexes_migrates_to_the_one(url, monkeypatch):
    before = [m for m in store_pg.available() if m[0] < 4]
    monkeypatch.setattr(store_pg, "available", lambda: before)
    old = PgStore.create(url, codec())
    try:
        starts = fill(old)
        names = {r[0] for r in old.conn.execute(
            "SELECT indexname FROM pg_indexes WHERE tablename = 'events' AND schemaname = current_schema()")}
        assert {"events_session_starts", "events_sealed_rolls"} <= names and "events_marked" not in names
    finally:
        old.close()
    monkeypatch.undo()
    new = PgStore.open(url, codec())
    try:
        names = {r[0] for r in new.conn.execute(
            "SELECT indexname FROM pg_indexes WHERE tablename = 'events' AND schemaname = current_schema()")}
        assert "events_marked" in names and not names & {"events_session_starts", "events_sealed_rolls"}
        assert new.last_session_start() == starts[-1]
        assert sorted(new.session_ends()) == [1, 2]
        assert "events_marked" in plan(new, SESSION_ENDS)
        assert new.verify().ok
    finally:
        new.close()
