"""The rebuild's memory levers (issue 20, "peak memory, 1M rebuild <= 100 MB") change how the rows are
written, never which: rows converted and inserted a chunk at a time, the pending rows flushed more or
less often and a smaller page cache all leave the tables a rebuild in one go leaves."""

from __future__ import annotations

import shutil

import pytest
from cristal_events.projections import runner
from helpers import every_table as dump

from cristal_events import projections
from cristal_events.rulesets.cristal import characters as C
from cristal_events.service import Campaign, RecordNote


@pytest.fixture
def pair(tmp_path):
    camp = projections.attach(Campaign.create(tmp_path / "a.db", name="M", ruleset="cristal", seed=7))
    for n in range(3):
        camp.start_session(f"Soirée {n}")
        if n == 0:
            for who in ("thor", "lya", "york"):
                camp.execute(C.CreateCharacter(id=who, race="Humain"))
        camp.execute(C.AwardXp(characters=("thor", "lya", "york"), amount=300, reason=f"quête {n}"))
        camp.execute(RecordNote(text=f"Note {n}"))
        camp.end_session()
    camp.close()
    shutil.copyfile(tmp_path / "a.db", tmp_path / "b.db")
    a, b = Campaign.open(tmp_path / "a.db"), Campaign.open(tmp_path / "b.db")
    yield a, b
    a.close()
    b.close()


def test_rows_written_a_chunk_at_a_time_and_flushed_often_are_the_rows_of_one_go(pair, monkeypatch):
    a, b = pair
    monkeypatch.setattr(runner, "PARALLEL_REBUILD_MIN", 1 << 62)
    runner.rebuild(a)
    monkeypatch.setattr(runner, "INSERT_CHUNK", 2)  # three sheets: two chunks
    monkeypatch.setattr(runner, "FLUSH_EVERY", 1000)
    runner.rebuild(b)
    assert dump(a) == dump(b)
    assert len(dump(b)["cristal_sheets"]) == 3
    assert runner.verify(b) == []


def test_a_rebuild_bounds_its_page_cache_and_gives_it_back(pair, monkeypatch):
    a, _ = pair
    seen = []
    real = runner._fold

    def fold(store, *args, **kwargs):
        seen.append(store.conn.execute("PRAGMA cache_size").fetchone()[0])
        return real(store, *args, **kwargs)

    before = a.store.conn.execute("PRAGMA cache_size").fetchone()[0]
    monkeypatch.setattr(runner, "_fold", fold)
    monkeypatch.setattr(runner, "REBUILD_CACHE_KIB", 300)
    runner.rebuild(a)
    assert seen and set(seen) == {-300}  # -N: N KiB
    assert a.store.conn.execute("PRAGMA cache_size").fetchone()[0] == before
    a.execute(RecordNote(text="Après"))
    runner.catch_up(a)  # a catch-up keeps the connection's own cache
    assert len(seen) == 2 and seen[-1] == before
    assert runner.verify(a) == []


def test_rows_are_inserted_by_a_few_statements_whatever_the_batch_sizes(tmp_path):
    """A batch of any size is written in chunks of a power of two of rows: a table gets at most nine
    distinct statements (which the connection keeps prepared), not a new one per batch size."""
    from cristal_events.projections.base import XP_LEDGER

    camp = Campaign.create(tmp_path / "s.db", name="S", ruleset="cristal", seed=1)
    try:
        store = camp.store
        store.create_read_tables({"xp_ledger": (XP_LEDGER.columns, XP_LEDGER.pk)})
        cols = list(XP_LEDGER.columns)
        seen: list[str] = []
        store.conn.set_trace_callback(seen.append)
        at = 0
        with store.transaction():
            for size in (1, 7, 300, 257, 511, 1000, 2, 999, 123):
                store.replace_rows("xp_ledger", cols, [(at + i, "thor", 1, "t", "GM", "award", 5, "", "r", None, None,
                                                        5, None, "[]") for i in range(size)])
                at += size
        store.conn.set_trace_callback(None)
        # the trace shows each statement with its values bound: its chunk's rows are its value tuples
        chunks = [sql.count("),(") + 1 for sql in seen if sql.startswith('INSERT OR REPLACE INTO "xp_ledger"')]
        assert sum(chunks) == at and len(set(chunks)) <= 9
        assert all(k & (k - 1) == 0 and k <= 256 for k in chunks)
        assert store.conn.execute("SELECT count(*), min(position), max(position) FROM xp_ledger").fetchone() == (at, 0, at - 1)
    finally:
        camp.close()
