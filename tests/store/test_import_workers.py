"""An import validating its payloads in worker processes (``import_rows(rows, validate=...)``,
``log_rows.validated``): on both stores the same chain as in one process, the same error for the same
first bad row (also when the iterable fails later), nothing written, and no worker left behind; a worker
that dies leaves its rows to the importing process. ``IMPORT_PARALLEL_MIN`` is lowered so that a few
thousand rows take the workers' path."""

from __future__ import annotations

import os

import pytest

from cristal_events import init_campaign, log_rows
from cristal_events.errors import CristalError, EventDecodeError
from cristal_events.store import GENESIS, create_store, row_hash


def _rows(n: int) -> list[tuple]:
    return [(f"00000000-0000-7000-8000-{i:012d}", "campaign", i + 1, "note.recorded", 1,
             f'{{"type":"note.recorded","text":"n{i}","topic":""}}', "2026-12-01T00:00:00+00:00", None,
             "GM", None, None) for i in range(n)]


@pytest.fixture
def codec(tmp_path):
    camp = init_campaign(tmp_path / "codec.db", name="C", ruleset="cristal", seed=1)
    yield camp.store.codec
    camp.close()


@pytest.fixture
def forks(monkeypatch):
    """The workers of every import of the test (their pids), the threshold lowered to 100 rows, one
    worker whatever the machine's load (``import_workers`` is tested on its own)."""
    monkeypatch.setattr(log_rows, "IMPORT_PARALLEL_MIN", 100)
    monkeypatch.setattr(log_rows, "import_workers", lambda: 1)
    made: list[int] = []
    real = log_rows._fork_validators

    def recording(validate, n):
        pool = real(validate, n)
        made.extend(w.pid for w in pool)
        return pool

    monkeypatch.setattr(log_rows, "_fork_validators", recording)
    return made


def test_workers_only_where_a_core_is_idle(monkeypatch):
    from cristal_events import cores

    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2, 3})
    # the tasks runnable now, this one included: two cores are always kept for the importing
    # process (the chain, and SQLite on its writer thread)
    for runnable, workers in ((1, 2), (2, 1), (3, 0), (4, 0), (9, 0)):
        monkeypatch.setattr(cores, "_runnable_now", lambda n=runnable: n)
        assert log_rows.import_workers() == workers
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1})
    monkeypatch.setattr(cores, "_runnable_now", lambda: 1)
    assert log_rows.import_workers() == 0  # two idle cores: both the importing process's
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0})
    assert log_rows.import_workers() == 0  # one core: nothing to share it with


def test_a_busy_machine_validates_a_big_import_here(tmp_path, codec, monkeypatch):
    monkeypatch.setattr(log_rows, "IMPORT_PARALLEL_MIN", 100)
    monkeypatch.setattr(log_rows, "import_workers", lambda: 0)
    monkeypatch.setattr(log_rows, "_Validator", None)  # a fork would fail loudly
    store = create_store(str(tmp_path / "a.db"), codec)
    rows = _rows(1500)
    rows[1200] = (*rows[1200][:5], "[]", *rows[1200][6:])
    with pytest.raises(EventDecodeError, match="Invalid 'note.recorded' payload"):
        store.import_rows(rows, validate=codec.decode)
    assert store.count() == 0
    assert store.import_rows(_rows(1500), validate=codec.decode) == 1500
    store.close()


def _gone(pid: int) -> bool:
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True
    return False


def test_workers_store_the_reference_chain_on_both_stores(backend, codec, forks):
    rows = _rows(4500)  # five chunks of 1,000 rows for the workers
    store = create_store(backend, codec)
    assert store.import_rows(iter(rows), validate=codec.decode) == 4500
    assert forks and all(_gone(pid) for pid in forks)
    prev = GENESIS
    for pos, rec in enumerate(store.read_all(decode=False), 1):
        assert rec.hash == row_hash(prev, pos, *rows[pos - 1])
        prev = rec.hash
    assert store.verify().ok
    store.close()


def test_the_first_bad_row_is_refused_as_in_one_process_and_nothing_is_written(backend, codec, forks,
                                                                                  monkeypatch):
    rows = _rows(4500)
    for at in (3210, 4100):  # two bad rows: the first in log order is the one named
        rows[at] = (*rows[at][:5], '{"type":"note.recorded","text":12}', *rows[at][6:])
    with pytest.raises(EventDecodeError) as one_process:
        codec.decode(*rows[3210][3:6])
    store = create_store(backend, codec)
    with pytest.raises(EventDecodeError) as workers:
        store.import_rows(rows, validate=codec.decode)
    assert str(workers.value) == str(one_process.value) and "text" in str(workers.value)
    assert forks and all(_gone(pid) for pid in forks)
    assert store.count() == 0
    monkeypatch.setattr(log_rows, "IMPORT_PARALLEL_MIN", 1 << 62)  # the same import in one process
    with pytest.raises(EventDecodeError) as inline:
        store.import_rows(rows, validate=codec.decode)
    assert str(inline.value) == str(workers.value)
    assert store.import_rows(_rows(3), validate=codec.decode) == 3  # the store is still usable
    store.close()


def test_a_bad_row_still_in_a_worker_comes_before_the_iterables_later_error(tmp_path, codec, forks):
    rows = _rows(4000)
    rows[1500] = (*rows[1500][:5], "not json", *rows[1500][6:])

    def source():
        for i, r in enumerate(rows):
            if i == 3900:  # the chunk holding row 1500 was sent to a worker and not yet answered
                raise CristalError("Line 3901 of export.jsonl cannot be read; nothing was imported.")
            yield r

    store = create_store(str(tmp_path / "a.db"), codec)
    with pytest.raises(EventDecodeError, match="Malformed 'note.recorded' payload"):
        store.import_rows(source(), validate=codec.decode)
    assert store.count() == 0 and not store.conn.in_transaction
    rows[1500] = _rows(1501)[1500]
    with pytest.raises(CristalError, match="Line 3901"):  # no bad row before it: the iterable's error
        store.import_rows(source(), validate=codec.decode)
    assert store.count() == 0
    assert all(_gone(pid) for pid in forks)
    rows[50] = (*rows[50][:5], "not json", *rows[50][6:])

    def short():  # fails while the first rows are read ahead (below the threshold of 100)
        yield from rows[:80]
        raise CristalError("Line 81 of export.jsonl cannot be read; nothing was imported.")

    with pytest.raises(EventDecodeError, match="Malformed 'note.recorded' payload"):
        store.import_rows(short(), validate=codec.decode)
    assert store.count() == 0
    store.close()


def test_a_worker_that_dies_leaves_its_rows_to_this_process(tmp_path, codec, forks):
    parent = os.getpid()
    seen: list[int] = []

    def validate(type_, sv, payload):
        if os.getpid() != parent:
            os._exit(3)  # the worker dies on its first row
        seen.append(1)
        return codec.decode(type_, sv, payload)

    store = create_store(str(tmp_path / "a.db"), codec)
    assert store.import_rows(_rows(2500), validate=validate) == 2500
    assert len(seen) == 2500  # every row validated here: the first 101 read ahead, the rest the worker left
    assert forks and all(_gone(pid) for pid in forks) and store.verify().ok
    store.close()


def test_a_small_import_or_one_beside_another_thread_forks_no_worker(tmp_path, codec, forks):
    import threading

    store = create_store(str(tmp_path / "a.db"), codec)
    assert store.import_rows(_rows(100), validate=codec.decode) == 100  # at the threshold: one process
    assert forks == []
    done = threading.Event()
    other = threading.Thread(target=done.wait)
    other.start()
    try:
        assert store.import_rows(_rows(500)[100:], validate=codec.decode) == 400
    finally:
        done.set()
        other.join()
    assert forks == [] and store.verify().ok
    store.close()
