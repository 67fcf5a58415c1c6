"""One store contract, two backends (issue 20, item 2): every test below runs on an SQLite file and on
a PostgreSQL campaign (the ``backend`` fixture of tests/conftest.py), as eventsourcing runs one suite
over each of its recorders. Then what only PostgreSQL does: the append-only guard of the server
itself, for the engine's role and for a superuser, and a campaign that hashes the same on both."""

from __future__ import annotations

import threading

import msgspec
import psycopg
import pytest
from pgcluster import with_campaign

from cristal_events import init_campaign, open_campaign
from cristal_events.errors import ConcurrencyConflict, CristalError, NotACampaign
from cristal_events.events import NoteRecorded
from cristal_events.receipts import Receipt
from cristal_events.service import RecordNote
from cristal_events.store import GENESIS, IMPORT_FIELDS, is_postgres, open_store, row_hash


def notes(*texts: str) -> list[NoteRecorded]:
    return [NoteRecorded(text=t) for t in texts]


@pytest.fixture
def camp(backend):
    c = init_campaign(backend, name="La Taverne", ruleset="cristal", rounding="round", seed=7)
    yield c
    c.close()


def test_the_first_event_is_the_header_chained_to_the_genesis(camp):
    first = camp.store.get(1)
    assert first.type == "campaign.created" and first.event.ruleset == "cristal"
    assert first.prev_hash == GENESIS
    assert first.hash == row_hash(GENESIS, 1, first.event_id, "campaign", 1, first.type, first.schema_version,
                                  first.payload, first.recorded_at, None, "GM", None, None)


def test_append_assigns_positions_and_stream_versions(camp):
    store = camp.store
    assert store.append("character:thor", notes("a", "b"), expected_version=0) == [2, 3]
    assert store.append("character:york", notes("c"), expected_version=0) == [4]
    assert store.append("character:thor", notes("d"), expected_version=2) == [5]
    assert [(r.position, r.version) for r in store.read_stream("character:thor")] == [(2, 1), (3, 2), (5, 3)]
    assert [r.position for r in store.read_stream("character:thor", after_version=2)] == [5]
    assert [r.position for r in store.read_all(after=3)] == [4, 5]
    assert [r.position for r in store.read_all(after=1, until=3)] == [2, 3]
    assert [r.event.text for r in store.read_all(stream="character:york")] == ["c"]
    assert [r.position for r in store.read_all(type="note.recorded", hashes=False)] == [2, 3, 4, 5]
    assert store.last_position() == 5 and store.count() == 5
    assert store.head() == (5, store.get(5).hash) == (5, store.last_hash())
    assert store.get(99) is None and store.hash_at(99) is None and store.hash_at(0) is None


def test_optimistic_concurrency_refuses_a_stale_version(camp):
    store = camp.store
    store.append("character:thor", notes("a"), expected_version=0)
    with pytest.raises(ConcurrencyConflict, match="Stream character:thor is at version 1, not 0"):
        store.append("character:thor", notes("b"), expected_version=0)
    assert store.last_position() == 2 and store.stream_version("character:thor") == 1


def test_an_idempotent_retry_by_event_id_returns_the_first_positions(camp):
    store = camp.store
    ids = ["11111111-1111-1111-1111-111111111111", "22222222-2222-2222-2222-222222222222"]
    first = store.append("character:thor", notes("a", "b"), expected_version=0, event_ids=ids)
    again = store.append("character:thor", notes("a", "b"), expected_version=0, event_ids=ids)
    assert first == again == [2, 3] and store.count() == 3
    with pytest.raises(ConcurrencyConflict, match="1 of the 2 event ids are already stored"):
        store.append("character:thor", notes("a", "x"), event_ids=[ids[0], "33333333-3333-3333-3333-333333333333"])
    assert store.count() == 3


def test_a_failed_transaction_appends_nothing(camp):
    store = camp.store
    with pytest.raises(RuntimeError):
        with store.transaction():
            store.append("campaign", notes("inside"))
            raise RuntimeError("the command failed after its append")
    assert store.last_position() == 1
    assert store.append("campaign", notes("after")) == [2]  # the position was not burnt either
    assert camp.verify().ok


def test_time_travel_and_snapshots(camp, monkeypatch):
    camp.execute(RecordNote(text="un"))
    camp.start_session("Arrivée")
    camp.execute(RecordNote(text="deux"))
    assert camp.state_at(2).core.session is None and camp.state_at(3).core.session == 1
    assert camp.write_snapshot(camp.state())
    key = camp._state_key()
    [(pos, event_hash, digest, blob)] = list(camp.store.snapshots(key))
    assert pos == 4 and event_hash == camp.store.hash_at(4)
    assert camp.store.snapshot_positions(key) == [4] and camp.store.snapshot_state(key, 4) == blob
    assert camp._load_snapshot(None).core.position == 4
    assert camp.check_snapshots() == []
    camp.execute(RecordNote(text="trois"))
    assert camp.state_at(4).core.position == 4 and camp.state().core.position == 5
    rebuilt = camp.rebuild_snapshots()
    assert rebuilt.written >= 1 and camp.check_snapshots() == []
    camp.store.drop_snapshots(key, camp.store.snapshot_positions(key))
    assert list(camp.store.snapshots(key)) == []


def test_checkpoints_and_read_model_tables(camp):
    store = camp.store
    with store.transaction():
        store.create_read_tables({"t2": ({"a": "TEXT", "b": "INTEGER", "c": "REAL"}, ("a", "b"))})
        store.replace_rows("t2", ["a", "b", "c"], [("x", 1, 0.5), ("x", 1, 1.5), ("y", 2, None)])
        assert store.table_rows("t2", ["a", "b", "c"], ["a", "b"]) == [("x", 1, 1.5), ("y", 2, None)]
        assert store.read_model_rows("t2", where={"a": "y"}) == [{"a": "y", "b": 2, "c": None}]
        store.delete_rows("t2", ["a", "b"], [("x", 1)])
        assert store.table_rows("t2", ["a"], ["a"]) == [("y",)]
        with pytest.raises(ZeroDivisionError), store.savepoint():
            store.clear_rows("t2")
            raise ZeroDivisionError
        assert store.table_rows("t2", ["a"], ["a"]) == [("y",)]  # rolled back to the savepoint alone
        store.put_checkpoint("m", 3, 1, b"\x00state")
        store.put_checkpoint("m", 3, 1, b"\x01state")
    assert store.checkpoint("m") == (3, 1, b"\x01state")
    assert store.read_model_current("m", 3) and not store.read_model_current("m", 4)
    assert store.checkpoint_head("m") == (3, 1) and store.checkpoint_head("absent") is None
    with store.transaction():
        store.move_checkpoint("m", 3, 2)  # an unchanged state moved on: its bytes stay
    assert store.checkpoint("m") == (3, 2, b"\x01state") and store.checkpoint_head("m") == (3, 2)
    store.drop_checkpoint("m")
    assert store.checkpoint("m") is None and store.table_rows("missing", ["a"], ["a"]) == []
    with pytest.raises(ValueError, match="not a usable SQL name"):
        store.clear_rows('x" ; DROP TABLE events; --')


def test_the_read_models_follow_commands_and_verify_against_a_rebuild(camp):
    from cristal_events.projections import runner

    from cristal_events import projections

    projections.attach(camp)
    camp.execute(RecordNote(text="un"))
    camp.start_session("Arrivée")
    camp.end_session()
    runner.catch_up(camp)
    assert runner.verify(camp) == []
    assert camp.verify(read_models=runner.verify, snapshots=True).problems == []


def test_import_rechains_the_rows_at_the_end_of_the_log(camp, tmp_path):
    source = init_campaign(tmp_path / "source.db", name="Source", ruleset="cristal", seed=3)
    source.execute(RecordNote(text="a"))
    source.execute(RecordNote(text="b"))
    rows = [tuple(getattr(r, f) for f in IMPORT_FIELDS) for r in source.store.read_all(after=1, decode=False)]
    source.close()
    assert camp.store.import_rows(rows) == 2
    got = list(camp.store.read_all(after=1))
    assert [r.event.text for r in got] == ["a", "b"] and [r.position for r in got] == [2, 3]
    assert got[0].prev_hash == camp.store.get(1).hash
    assert camp.verify().ok
    with pytest.raises(CristalError):  # an event id already stored: the whole import is refused
        camp.store.import_rows([rows[1][:0] + ("99999999-9999-9999-9999-999999999999", *rows[1][1:]), rows[0]])
    assert camp.store.last_position() == 3


def test_verify_names_a_broken_chain_and_receipts(camp, request):
    camp.start_session("Arrivée")
    camp.end_session()
    ends = camp.session_receipts()
    assert list(ends) == [1] and ends[1] == Receipt(*camp.store.head())
    assert camp.verify(receipts=[camp.receipt()]).ok
    forged = Receipt(3, "0" * 64)
    out = camp.verify(receipts=[forged, Receipt(99, "a" * 64)])
    assert not out.ok and out.first_bad_position == 3 and len(out.receipts["problems"]) == 2
    _tamper(camp, request)  # a superuser (PostgreSQL) or a raw connection (SQLite) with the guard dropped
    report = camp.store.verify()
    assert not report.ok and report.first_bad_position == 2
    assert any("altered" in p for p in report.problems), report.problems


def _tamper(camp, request) -> None:
    """Edit position 2's actor around the append-only guard, as someone with the database's keys could."""
    target = camp.store.target.url() if is_postgres(camp.store.path) else camp.store.path
    if is_postgres(target):
        url = request.getfixturevalue("pg_cluster").superuser_url(camp.store.target.conninfo)
        with psycopg.connect(url, autocommit=True, options=f"-c search_path={camp.store.target.schema}") as c:
            c.execute("ALTER TABLE events DISABLE TRIGGER events_no_update")
            c.execute("UPDATE events SET actor = 'Mallory' WHERE position = 2")
            c.execute("ALTER TABLE events ENABLE TRIGGER events_no_update")
        return
    import sqlite3

    c = sqlite3.connect(target, isolation_level=None)
    c.execute("DROP TRIGGER events_no_update")
    c.execute("UPDATE events SET actor = 'Mallory' WHERE position = 2")
    c.execute("CREATE TRIGGER events_no_update BEFORE UPDATE ON events BEGIN SELECT RAISE(ABORT, 'no'); END")
    c.close()


def test_access_tokens_and_session_bounds(camp):
    store = camp.store
    with store.transaction():
        store.grant_access("alice", "h" * 64, ["thor"], False)
    assert store.access_holder("alice")["characters"] == ["thor"]
    assert store.access_by_hash("h" * 64)["name"] == "alice"
    with store.transaction():
        store.revoke_access("alice")
    assert store.access_holder("alice") is None and store.access_list()[0]["revoked_at"]
    camp.execute(RecordNote(text="avant"))
    camp.start_session("Arrivée")
    camp.execute(RecordNote(text="pendant"))
    assert store.session_span(1) == (3, 4) and store.session_span(2) is None and store.session_span(-1) is None
    assert store.stream_exists("campaign") and not store.stream_exists("character:nobody")
    assert camp.secrets_file().exists()  # the dice secret lives in a file, never in the database
    assert camp.session_secret(1) and not store.has_legacy_secrets()


def test_concurrent_writers_of_one_campaign_never_decide_on_stale_state(backend):
    """Eight threads, each with its own connection, append 'note' commands expecting the stream's
    version they read inside the transaction: none conflicts, none is lost, the chain holds."""
    init_campaign(backend, name="T", ruleset="cristal", seed=1).close()
    errors: list[BaseException] = []

    def writer(k: int) -> None:
        try:
            with open_campaign(backend) as c:
                for i in range(10):
                    c.execute(RecordNote(text=f"{k}-{i}"))
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    with open_campaign(backend) as c:
        assert c.store.last_position() == 81 and c.verify().ok
        assert [r.version for r in c.store.read_stream("campaign")] == list(range(1, 82))


# ------------------------------------------------------------------ PostgreSQL only
def test_the_engine_role_may_not_update_or_delete_events(pg_url, pg_cluster):
    url = with_campaign(pg_url, "taverne")
    init_campaign(url, name="T", ruleset="cristal", seed=1).close()
    with psycopg.connect(pg_url, autocommit=True, options="-c search_path=cristal_taverne") as conn:
        assert conn.execute("SELECT rolsuper FROM pg_roles WHERE rolname = current_user").fetchone() == (False,)
        for sql in ("UPDATE events SET actor = 'Mallory'", "DELETE FROM events", "TRUNCATE events"):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(sql)
    with psycopg.connect(pg_cluster.superuser_url(pg_url), autocommit=True,
                         options="-c search_path=cristal_taverne") as conn:  # a superuser meets the triggers
        for sql in ("UPDATE events SET actor = 'Mallory'", "DELETE FROM events", "TRUNCATE events"):
            with pytest.raises(psycopg.errors.IntegrityConstraintViolation, match="append-only"):
                conn.execute(sql)
        conn.execute("GRANT UPDATE ON events TO cristal")  # granted back: verify says so
    with open_campaign(url) as c:
        assert c.verify().problems == ["the role cristal may UPDATE the event log (the privilege was granted back)"]


def test_many_campaigns_share_one_database_and_the_url_names_one(pg_url):
    from cristal_events.store_pg import campaigns

    init_campaign(pg_url, name="Défaut", ruleset="cristal").close()  # no ?campaign=: the default one
    init_campaign(with_campaign(pg_url, "illergan_club"), name="Club", ruleset="illergan").close()
    assert campaigns(pg_url) == ["default", "illergan_club"]
    with open_campaign(with_campaign(pg_url, "default")) as c:
        assert c.header.name == "Défaut"
    with open_campaign(with_campaign(pg_url, "illergan_club")) as c:
        assert c.header.ruleset == "illergan" and c.store.last_position() == 1
    with pytest.raises(CristalError, match="already exists"):
        init_campaign(pg_url, name="Encore", ruleset="cristal")
    with pytest.raises(NotACampaign, match="No campaign absent in"):
        open_campaign(with_campaign(pg_url, "absent"))
    with pytest.raises(CristalError, match="1 to 40 lowercase letters"):
        open_store(with_campaign(pg_url, 'x"; drop'))


def test_a_campaign_hashes_the_same_on_both_backends(tmp_path, pg_url):
    """The same rows imported into an SQLite file and a PostgreSQL campaign: the same chain."""
    source = init_campaign(tmp_path / "s.db", name="S", ruleset="cristal", seed=5)
    source.start_session("Arrivée")
    source.execute(RecordNote(text="é ✓ \u2028 \"quoted\""))
    source.end_session()
    rows = [tuple(getattr(r, f) for f in IMPORT_FIELDS) for r in source.store.read_all(decode=False)]
    source.close()
    heads = []
    for target in (str(tmp_path / "copy.db"), with_campaign(pg_url, "copy")):
        from cristal_events.store import create_store

        store = create_store(target)
        store.import_rows(rows)
        assert store.verify().ok, store.verify().problems
        heads.append([(r.position, r.hash) for r in store.read_all(decode=False)])
        store.close()
    assert heads[0] == heads[1] and len(heads[0]) == len(rows)
    assert msgspec.json.decode(rows[2][5])["text"].startswith("é ✓")
