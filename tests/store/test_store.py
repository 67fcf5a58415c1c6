"""The store contract: append-only, optimistic concurrency, idempotent retries, tamper evidence."""

from __future__ import annotations

import hashlib
import sqlite3

import msgspec
import pytest

import cristal_events.store as S
from cristal_events.errors import ConcurrencyConflict
from cristal_events.events import NoteRecorded
from cristal_events.store import GENESIS


def notes(*texts):
    return [NoteRecorded(text=t) for t in texts]


def raw(path):
    conn = sqlite3.connect(path, isolation_level=None)
    return conn


def test_first_event_is_the_campaign_header(campaign):
    first = campaign.store.get(1)
    assert first.type == "campaign.created"
    assert first.event.ruleset == "cristal"
    assert first.prev_hash == GENESIS
    assert msgspec.json.decode(first.payload)["rounding"] == "round"


def test_append_assigns_positions_and_stream_versions(campaign):
    store = campaign.store
    assert store.append("character:thor", notes("a", "b"), expected_version=0) == [2, 3]
    assert store.append("character:york", notes("c"), expected_version=0) == [4]
    assert store.append("character:thor", notes("d"), expected_version=2) == [5]
    assert [(r.position, r.version) for r in store.read_stream("character:thor")] == [(2, 1), (3, 2), (5, 3)]
    assert [r.position for r in store.read_stream("character:thor", after_version=2)] == [5]
    assert [r.position for r in store.read_all(after=3)] == [4, 5]
    assert store.last_position() == 5
    assert [r.event.text for r in store.read_all(stream="character:york")] == ["c"]


def test_conflict_when_the_stream_moved(campaign):
    store = campaign.store
    store.append("character:thor", notes("a"), expected_version=0)
    with pytest.raises(ConcurrencyConflict, match="Stream character:thor is at version 1, not 0"):
        store.append("character:thor", notes("b"), expected_version=0)
    assert store.last_position() == 2


def test_idempotent_retry_returns_original_positions(campaign):
    store = campaign.store
    ids = ["11111111-1111-1111-1111-111111111111", "22222222-2222-2222-2222-222222222222"]
    first = store.append("character:thor", notes("a", "b"), expected_version=0, event_ids=ids)
    again = store.append("character:thor", notes("a", "b"), expected_version=0, event_ids=ids)
    assert first == again == [2, 3]
    assert store.count() == 3


def test_partial_retry_is_refused(campaign):
    store = campaign.store
    store.append("character:thor", notes("a"), event_ids=["11111111-1111-1111-1111-111111111111"])
    with pytest.raises(ConcurrencyConflict, match="1 of the 2 event ids are already stored"):
        store.append("character:thor", notes("a", "b"),
                     event_ids=["11111111-1111-1111-1111-111111111111", "33333333-3333-3333-3333-333333333333"])
    assert store.count() == 2


@pytest.mark.parametrize("sql", [
    "UPDATE events SET payload = '{}' WHERE position = 1",
    "UPDATE events SET actor = 'Mallory'",
    "DELETE FROM events WHERE position = 1",
    "DELETE FROM events",
], ids=["update-payload", "update-all", "delete-one", "delete-all"])
def test_triggers_abort_update_and_delete(campaign, db_path, sql):
    campaign.store.append("campaign", notes("a"))
    conn = raw(db_path)
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        conn.execute(sql)
    assert conn.execute("SELECT COUNT(*) FROM events").fetchone()[0] == 2
    conn.close()
    assert campaign.verify().ok


def _tamper(db_path, sql, *args):
    conn = raw(db_path)
    conn.execute("DROP TRIGGER events_no_update")
    conn.execute("DROP TRIGGER events_no_delete")
    conn.execute(sql, args)
    conn.close()


def test_verify_finds_a_single_changed_byte(campaign, db_path):
    campaign.store.append("campaign", notes("Thor gagne 60 XP", "York fuit", "fin"))
    assert campaign.verify().ok
    _tamper(db_path, "UPDATE events SET payload = replace(payload, '60', '61') WHERE position = 2")
    report = campaign.verify()
    assert not report.ok
    assert report.first_bad_position == 2
    assert "position 2 was altered after it was written (hash mismatch)" in report.problems


def test_verify_finds_a_removed_event(campaign, db_path):
    campaign.store.append("campaign", notes("a", "b", "c"))
    _tamper(db_path, "DELETE FROM events WHERE position = 3")
    report = campaign.verify()
    assert report.first_bad_position == 3
    assert "position 3 is missing" in report.problems[0]


def test_verify_finds_a_removed_last_event(campaign, db_path):
    campaign.store.append("campaign", notes("a", "b"))
    _tamper(db_path, "DELETE FROM events WHERE position = 3")
    report = campaign.verify()
    assert report.first_bad_position == 3
    assert "events were removed from its end" in report.problems[0]


def test_verify_finds_swapped_payloads(campaign, db_path):
    campaign.store.append("campaign", notes("a", "b"))
    conn = raw(db_path)
    conn.execute("DROP TRIGGER events_no_update")
    p2, p3 = (r[0] for r in conn.execute("SELECT payload FROM events WHERE position IN (2, 3) ORDER BY position"))
    conn.execute("UPDATE events SET payload = ? WHERE position = 2", (p3,))
    conn.execute("UPDATE events SET payload = ? WHERE position = 3", (p2,))
    conn.close()
    assert campaign.verify().first_bad_position == 2


def test_verify_reports_missing_triggers(campaign, db_path):
    _tamper(db_path, "SELECT 1")
    report = campaign.verify()
    assert not report.ok
    assert "the append-only trigger events_no_update is missing" in report.problems


def test_payload_is_queryable_with_sqlite_json_functions(campaign, db_path):
    campaign.store.append("campaign", notes("Thor"))
    import sqlite_utils

    db = sqlite_utils.Database(db_path)
    rows = list(db.query("SELECT json_extract(payload, '$.text') AS text FROM events WHERE type = 'note.recorded'"))
    assert rows == [{"text": "Thor"}]


def test_verify_names_a_column_turned_into_a_blob(campaign, db_path):
    # SQLite's json_array cannot hold a BLOB: verify falls back to hashing the columns in Python
    campaign.store.append("campaign", notes("a", "b"))
    _tamper(db_path, "UPDATE events SET actor = CAST('GM' AS BLOB) WHERE position = 3")
    report = campaign.verify()
    assert report.first_bad_position == 3
    assert "position 3 was altered after it was written (hash mismatch)" in report.problems


@pytest.mark.parametrize("text", ["tab\there", "ctrl\x01\x1f", 'quote " and \\ backslash', "emoji 🐉 and \u2028 sep",
                                  "<script>alert(1)</script>", "\u202eRTL"],
                         ids=["tab", "control", "quotes", "non-bmp", "html", "rtl"])
def test_the_sql_and_python_canonical_encodings_agree(campaign, text):
    campaign.store.append("campaign", [NoteRecorded(text=text, topic=text)], actor=text)
    rows = campaign.store.conn.execute(
        f"SELECT json_array({S._CANONICAL}), position FROM events ORDER BY position").fetchall()
    for sql_text, pos in rows:
        assert S._row_digest(campaign.store.conn, pos) == hashlib.sha256(sql_text.encode()).hexdigest()
    assert campaign.verify().ok


def test_reading_without_hashes_leaves_them_empty(campaign):
    campaign.store.append("campaign", notes("a"))
    full = list(campaign.store.read_all())
    light = list(campaign.store.read_all(hashes=False))
    assert [r.event for r in light] == [r.event for r in full]
    assert {(r.hash, r.prev_hash) for r in light} == {("", "")}
    assert all(len(r.hash) == 64 for r in full)


def test_opening_never_opens_the_file_outside_sqlite(campaign, db_path, monkeypatch):
    # Closing a plain descriptor of the database file would drop the POSIX locks of the SQLite
    # connection this process already holds on it (a classic way to corrupt an SQLite file).
    import builtins

    from cristal_events import open_campaign

    real_open = builtins.open

    def guarded(file, *args, **kwargs):
        assert str(file) != str(db_path), "the campaign file was opened outside SQLite"
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", guarded)
    again = open_campaign(db_path)
    assert again.store.count() == 1
    again.close()


def test_a_text_file_is_still_not_a_campaign(tmp_path):
    from cristal_events import open_campaign
    from cristal_events.errors import NotACampaign

    text = tmp_path / "notes.db"
    text.write_text("bonjour, ceci n'est pas une base")
    with pytest.raises(NotACampaign, match=r"is not a campaign file \(not an SQLite database\)"):
        open_campaign(text)
    assert text.read_text() == "bonjour, ceci n'est pas une base"
