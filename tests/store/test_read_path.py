"""The replay's read path (``Store.read_all``, ``read_stream``, ``get``): the store hands back the
decoding generator of ``log_rows.decoded`` itself (one frame a replay resumes per event), which must
still read nothing before it is iterated, read what the log holds when it is, and raise an SQLite
failure met while reading as the store's one sentence."""

from __future__ import annotations

import sqlite3

import pytest

from cristal_events import log_rows
from cristal_events.errors import CampaignDamaged, StoreUnavailable
from cristal_events.events import NoteRecorded


def test_a_read_runs_its_query_when_first_iterated(campaign):
    store = campaign.store
    later = store.read_all(after=1)
    stream = store.read_stream("campaign:notes")
    store.append("campaign:notes", [NoteRecorded(text="after the call")])
    assert [r.event.text for r in later] == ["after the call"]
    assert [r.event.text for r in stream] == ["after the call"]


def test_the_read_is_the_decoding_generator_itself(campaign):
    it = campaign.store.read_all(hashes=False)
    assert it.gi_code is log_rows.decoded.__code__  # not wrapped in the store's own generators
    first = next(it)
    assert (first.position, first.type, first.prev_hash, first.hash) == (1, "campaign.created", "", "")
    assert first.event.ruleset == "cristal"


def test_an_sqlite_failure_while_reading_is_the_stores_sentence(campaign, monkeypatch):
    store = campaign.store
    store.append("campaign:notes", [NoteRecorded(text=f"n{i}") for i in range(3)])

    class Failing:
        """A cursor that fails after its first row, as a page found corrupt in the middle of a scan."""

        def __init__(self, rows):
            self.rows = iter(rows)
            self.n = 0

        def __iter__(self):
            return self

        def __next__(self):
            self.n += 1
            if self.n == 2:
                exc = sqlite3.DatabaseError("database disk image is malformed")
                exc.sqlite_errorcode = sqlite3.SQLITE_CORRUPT
                raise exc
            return next(self.rows)

    real = store.conn

    class Conn:
        def execute(self, sql, args=()):
            return Failing(real.execute(sql, args).fetchall())

    monkeypatch.setattr(store, "conn", Conn())
    got = []
    with pytest.raises(CampaignDamaged, match="is damaged"):
        for rec in store.read_all():
            got.append(rec.position)
    assert got == [1]  # the rows before the failure were handed over first
    monkeypatch.setattr(store, "conn", real)


def test_a_read_of_a_closed_store_is_the_stores_sentence(campaign):
    it = campaign.store.read_all()
    campaign.store.conn.close()
    with pytest.raises(StoreUnavailable, match="could not be used"):
        next(it)


def test_decoded_without_a_translation_raises_the_drivers_error():
    def rows():
        raise sqlite3.OperationalError("no such table: events")

    with pytest.raises(sqlite3.OperationalError):
        next(log_rows.decoded(rows, None, ()))
    it = log_rows.decoded(rows, None, (), errors=(sqlite3.Error,), translate=lambda exc: LookupError(str(exc)))
    with pytest.raises(LookupError, match="no such table"):
        next(it)
