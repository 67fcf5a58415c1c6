"""The rebuild's memory levers (issue 20, "peak memory, 1M rebuild <= 100 MB") change how the rows are
written, never which: rows converted and inserted a chunk at a time, the pending rows flushed more or
less often and a smaller page cache all leave the tables a rebuild in one go leaves."""

from __future__ import annotations

import shutil

import pytest
from cristal_events.projections import runner

from cristal_events import projections
from cristal_events.rulesets.cristal import characters as C
from cristal_events.service import Campaign, RecordNote


def dump(camp):
    names = sorted(r[0] for r in camp.store.conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'"))
    return {t: sorted(camp.store.conn.execute(f'SELECT * FROM "{t}"').fetchall(), key=repr) for t in names}


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
