"""The PostgreSQL append in one statement (issue 20, eighth session): ``PgStore.append`` of a command's
few events is one call of the function ``cristal_append`` (migrations/postgres/0003_append_function.sql),
its rows chained in Python from the head the store last saw. What that must keep: the campaign's lock
and one statement a round trip, the same refusals as the five statements it replaced when the stream
or the head moved (another writer, a caller's transaction rolled back), the retry by event ids, a chain
equal to SQLite's for the same rows, payloads that cannot reach the SQL text, timestamps that follow
positions, and campaigns created before the migration."""

from __future__ import annotations

import threading

import pytest
from pgcluster import with_campaign

from cristal_events import store_pg
from cristal_events.codec import Codec
from cristal_events.errors import ConcurrencyConflict, CristalError
from cristal_events.events import CORE_EVENTS, CORE_UPCASTERS, NoteRecorded
from cristal_events.store import Store
from cristal_events.store_pg import PgStore


def codec() -> Codec:
    return Codec(CORE_EVENTS, CORE_UPCASTERS)


def notes(*texts: str) -> list[NoteRecorded]:
    return [NoteRecorded(text=t) for t in texts]


@pytest.fixture
def url(pg_url):
    return with_campaign(pg_url, "taverne")


@pytest.fixture
def store(url):
    s = PgStore.create(url, codec())
    yield s
    s.close()


class Counting:
    """A connection that counts the statements sent through it (each one a round trip)."""

    def __init__(self, conn):
        self.conn, self.sent = conn, []

    def execute(self, sql, args=None):
        self.sent.append(sql)
        return self.conn.execute(sql, args)

    def __getattr__(self, name):
        return getattr(self.conn, name)


def test_an_append_after_the_first_is_one_statement_holding_the_campaign_lock(store):
    store.append("character:thor", notes("a"), expected_version=0)
    counting = store.conn = Counting(store.conn)
    assert store.append("character:thor", notes("b"), expected_version=1) == [2]
    assert store.append("character:york", notes("c", "d"), expected_version=0) == [3, 4]
    assert len(counting.sent) == 2 and all("cristal_append" in s for s in counting.sent)
    # the function takes the campaign's advisory lock: a writer holding it makes the append wait
    holder, waiter = PgStore.open(store.target.url(), codec()), PgStore.open(store.target.url(), codec(), timeout=0.3)
    try:
        with holder.transaction():
            with pytest.raises(CristalError, match="locked by another writer"):
                waiter.append("character:thor", notes("e"), expected_version=2)
        assert waiter.append("character:thor", notes("e"), expected_version=2) == [5]
    finally:
        holder.close()
        waiter.close()
    assert store.verify().ok


def test_two_writers_taking_turns_each_chain_from_the_head_the_other_left(url, store):
    other = PgStore.open(url, codec())
    try:
        for i in range(6):
            writer = (store, other)[i % 2]
            assert writer.append("campaign", notes(f"n{i}"), expected_version=i) == [i + 1]
        # a stream version guessed (no expected version) from a stale tip is numbered again
        assert store.append("character:thor", notes("x")) == [7]
        assert other.append("character:thor", notes("y")) == [8]
        assert store.append("character:thor", notes("z")) == [9]
        assert [r.version for r in store.read_stream("character:thor")] == [1, 2, 3]
        report = other.verify()
        assert report.ok and report.events == 9
    finally:
        other.close()


def test_a_stale_expected_version_is_refused_with_the_same_sentence_and_nothing_written(url, store):
    store.append("character:thor", notes("a"), expected_version=0)
    other = PgStore.open(url, codec())
    try:
        other.append("character:thor", notes("b"), expected_version=1)
        with pytest.raises(ConcurrencyConflict, match="Stream character:thor is at version 2, not 1: someone else "
                                                      "wrote first; retry."):
            store.append("character:thor", notes("late"), expected_version=1)
    finally:
        other.close()
    assert store.count() == 2 and store.verify().ok


def test_a_retry_by_event_ids_answers_the_stored_positions_and_half_a_batch_is_refused(store):
    store.append("campaign", notes("a"))
    ids = ["0193aaaa-0000-7000-8000-000000000001", "0193aaaa-0000-7000-8000-000000000002"]
    assert store.append("character:thor", notes("b", "c"), 0, event_ids=ids) == [2, 3]
    fresh = PgStore.open(store.target.url(), codec())  # no tip: the retry comes from another process
    try:
        assert fresh.append("character:thor", notes("b", "c"), 0, event_ids=ids) == [2, 3]
        with pytest.raises(ConcurrencyConflict, match="1 of the 2 event ids are already stored"):
            fresh.append("character:york", notes("d", "e"), 0, event_ids=[ids[1], "0193aaaa-0000-7000-8000-00000000000f"])
    finally:
        fresh.close()
    assert store.count() == 3


def test_inside_a_caller_transaction_rolled_back_the_next_append_chains_from_the_log(store):
    store.append("campaign", notes("a"), expected_version=0)
    with pytest.raises(RuntimeError), store.transaction():
        assert store.append("campaign", notes("gone"), expected_version=1) == [2]
        raise RuntimeError("the command failed after its append")
    assert store.count() == 1  # the tip says 2; the log says 1
    assert store.append("campaign", notes("b"), expected_version=1) == [2]
    with store.transaction():  # the command path: its append joins the caller's transaction
        assert store.append("campaign", notes("c"), expected_version=2) == [3]
        assert store.last_position() == 3
    assert [r.event.text for r in store.read_all()] == ["a", "b", "c"] and store.verify().ok


HOSTILE = ["'); DELETE FROM events; --", "$$ LANGUAGE sql $$", '"}],[{"x":1', "back\\slash \\\" \\u0041",
           "tab\tnew\nline\r", "é ç ∑ 😀 \u200b", "{\"json\": [1, 2]}", "%s %(x)s {}"]


def test_payloads_and_envelopes_travel_as_data_and_hash_as_on_sqlite(tmp_path, store):
    lite = Store.create(tmp_path / "c.db", codec())
    try:
        when = "2026-12-01T23:48:01.123456+00:00"
        for i, text in enumerate(HOSTILE):
            args = dict(expected_version=0, event_ids=[f"0193aaaa-0000-7000-8000-{i:012x}"], actor=text,
                        session=i, causation_id=text, correlation_id=text, recorded_at=when)
            ev = [NoteRecorded(text=text, topic=text)]
            assert store.append(f"character:{text}", ev, **args) == lite.append(f"character:{text}", ev, **args)
        pg, sq = list(store.read_all()), list(lite.read_all())
        assert [r.event.text for r in pg] == HOSTILE
        assert [(r.actor, r.causation_id, r.stream, r.payload, r.prev_hash, r.hash) for r in pg] == \
               [(r.actor, r.causation_id, r.stream, r.payload, r.prev_hash, r.hash) for r in sq]
        assert store.verify().ok and lite.verify().ok
    finally:
        lite.close()


def test_a_time_stamped_before_the_head_is_taken_again(store, monkeypatch):
    store.append("campaign", notes("a"), expected_version=0)
    head_at = store.get(1).recorded_at
    stamps = iter(["2001-01-01T00:00:00.000000+00:00"])
    real = store_pg.utc_now
    monkeypatch.setattr(store_pg, "utc_now", lambda: next(stamps, None) or real())
    assert store.append("campaign", notes("b"), expected_version=1) == [2]
    assert store.get(2).recorded_at >= head_at
    assert store.verify().ok


def test_text_the_server_cannot_hold_is_one_sentence_and_nothing_is_written(store):
    with pytest.raises(CristalError, match="could not be used"):
        store.append("campaign", notes("a"), actor="G\x00M")
    assert store.count() == 0


def test_concurrent_appenders_lose_nothing_and_the_chain_holds(url, store):
    errors: list[BaseException] = []

    def writer(k: int) -> None:
        s = PgStore.open(url, codec())
        try:
            for i in range(25):
                s.append(f"character:w{k}", notes(f"{k}-{i}"), expected_version=i)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
        finally:
            s.close()

    threads = [threading.Thread(target=writer, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    report = store.verify()
    assert report.ok and report.events == 100
    assert [r.position for r in store.read_all()] == list(range(1, 101))
    stamps = [r.recorded_at for r in store.read_all()]
    assert stamps == sorted(stamps)


def test_a_campaign_created_before_the_function_migrates_forward(url, monkeypatch):
    before = [m for m in store_pg.available() if m[0] < 3]
    monkeypatch.setattr(store_pg, "available", lambda: before)
    old = PgStore.create(url, codec())
    try:
        assert old.append("campaign", notes(*[f"n{i}" for i in range(20)]), expected_version=0) == list(range(1, 21))
        assert old.conn.execute("SELECT to_regprocedure('cristal_append(bigint, text, integer, bigint, text, "
                                "boolean, boolean, text, bigint, text, text, json)')").fetchone()[0] is None
    finally:
        old.close()
    monkeypatch.undo()
    new = PgStore.open(url, codec())
    try:
        assert sorted(store_pg._recorded(new.conn)) == [n for n, _, _ in store_pg.available()]
        assert new.append("campaign", notes("after"), expected_version=20) == [21]
        report = new.verify()
        assert report.ok and report.events == 21
    finally:
        new.close()


def test_a_writer_whose_clock_is_behind_the_head_still_writes_its_time_under_the_lock(store, monkeypatch):
    store.append("campaign", notes("a"), expected_version=0)
    behind = "2001-01-01T00:00:00.000000+00:00"  # another machine's clock, years behind the head's
    monkeypatch.setattr(store_pg, "utc_now", lambda: behind)
    counting = store.conn = Counting(store.conn)
    assert store.append("campaign", notes("b"), expected_version=1) == [2]
    # refused twice before the lock (the time precedes the head's), then stamped inside the transaction
    # holding the lock, as the statements before the function did: at most four calls, nothing lost
    assert sum("cristal_append" in s for s in counting.sent) == 3
    assert store.get(2).recorded_at == behind and store.verify().ok


def test_a_store_just_opened_writes_on_its_second_call(url, store):
    store.append("campaign", notes("a"), expected_version=0)
    fresh = PgStore.open(url, codec())
    try:
        counting = fresh.conn = Counting(fresh.conn)
        assert fresh.append("campaign", notes("b"), expected_version=1) == [2]
        assert counting.sent == [store_pg._APPEND] * 2  # the first learns the head, the second writes
    finally:
        fresh.close()


def test_a_batch_goes_through_copy_with_the_same_guarantees(url, store):
    ids = [f"0193bbbb-0000-7000-8000-{i:012x}" for i in range(20)]
    batch = notes(*[f"n{i}" for i in range(20)])
    assert store.append("character:thor", batch, 0, event_ids=ids) == list(range(1, 21))
    assert store.append("character:thor", batch, 0, event_ids=ids) == list(range(1, 21))  # the retry
    with pytest.raises(ConcurrencyConflict, match="1 of the 20 event ids are already stored"):
        store.append("character:york", batch, 0, event_ids=[*ids[19:], *(i.replace("bbbb", "cccc") for i in ids[:19])])
    with pytest.raises(ConcurrencyConflict, match="is at version 20, not 3"):
        store.append("character:thor", batch, 3)
    other = PgStore.open(url, codec())
    try:  # the batch left the tip where the log ends: the next one-statement append writes at once
        other.append("campaign", notes("x"))
        counting = store.conn = Counting(store.conn)
        assert store.append("campaign", notes("y"), expected_version=1) == [22]
        assert sum("cristal_append" in s for s in counting.sent) == 2  # its tip was stale: one refusal
    finally:
        other.close()
    assert store.verify().ok and [r.version for r in store.read_stream("character:thor")] == list(range(1, 21))
