"""The A/B of the eighth session's levers on the bulk import and the replay (issue 20's first two rows),
each variant against the code before it and the raw floor of ``run.py``, taking turns in each round
(``baseline.median_times``), wall and CPU time (``os.times``: this process, and its children for the
import's validators) reported as medians, with the load average before and after.

    python benchmarks/import_levers.py replay --campaign /tmp/me/c1m.db --rounds 9
    python benchmarks/import_levers.py import --campaign /tmp/me/c1m.db --sizes 100000 --rounds 7

``--campaign`` is a campaign file the run only reads (a copy of a generated one: never the cached
files of ``generator.cached``). Figures and what was kept: benchmarks/README.md, "Eighth session".
"""

from __future__ import annotations

import argparse
import gc
import os
import shutil
import statistics
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE)]

import baseline as B
import msgspec
import run as R

from cristal_events import log_rows, open_campaign
from cristal_events.records import RecordedEvent


class Clock:
    """Wall time by ``baseline.median_times``; CPU seconds of this process and of its children per variant."""

    def __init__(self) -> None:
        self.cpu: dict[str, list[tuple[float, float]]] = {}

    def timed(self, name: str, fn: Callable[[], object]) -> Callable[[], None]:
        def run() -> None:
            t0 = os.times()
            fn()
            t1 = os.times()
            self.cpu.setdefault(name, []).append((t1.user + t1.system - t0.user - t0.system,
                                                  t1.children_user + t1.children_system
                                                  - t0.children_user - t0.children_system))
        return run

    def measure(self, fns: dict[str, Callable[[], object]], rounds: int) -> dict[str, tuple[float, float, float]]:
        """{variant: (median wall s, median CPU s of this process, median CPU s of its children)}."""
        self.cpu.clear()
        print(f"load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores", file=sys.stderr)
        walls = B.median_times([self.timed(k, f) for k, f in fns.items()], rounds)
        print(f"load average after: {os.getloadavg()[0]:.2f}", file=sys.stderr)
        return {k: (w, statistics.median(p[0] for p in self.cpu[k]), statistics.median(p[1] for p in self.cpu[k]))
                for k, w in zip(fns, walls)}


def report(title: str, got: dict[str, tuple[float, float, float]], n: int, raw: str) -> None:
    print(f"\n{title}")
    print("| variant | wall | ev/s | x raw (wall) | CPU | CPU of children | x raw (CPU) |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    rw, rc, _ = got[raw]
    for k, (w, c, ch) in got.items():
        print(f"| {k} | {w:.3f} s | {n / w:,.0f} | {rw / w:.3f} | {c:.3f} s | {ch:.3f} s | {rc / (c + ch):.3f} |")


# ------------------------------------------------------------------------------------------ replay
def _decoded_before(rows: Any, codec: Any, tail: tuple[str, ...]) -> Iterator[RecordedEvent]:
    """``log_rows.decoded`` as it was before this session's lever (its loop is the same)."""
    current, slow, errors = codec.current, codec.read, (msgspec.ValidationError, msgspec.DecodeError)
    for r in rows:
        entry = current.get(r[4])
        if entry is not None and entry[0] == r[5]:
            try:
                ev = entry[1](r[6])
            except errors:
                ev = slow(r[4], r[5], r[6])
        else:
            ev = slow(r[4], r[5], r[6])
        yield RecordedEvent(*r, *tail, ev)  # type: ignore[call-arg]


def read_all_before(store: Any) -> Iterator[RecordedEvent]:
    """``Store.read_all(hashes=False)`` before the lever: read_all and ``_rows`` each a generator
    wrapping the next (``yield from``), three frames resumed per event."""
    import sqlite3

    def rows() -> Iterator[RecordedEvent]:
        try:
            yield from _decoded_before(store.conn.execute(sql, [0]), store.codec, ("", ""))
        except sqlite3.Error:
            raise

    from cristal_events.store import _COLUMNS_NO_HASHES
    sql = f"SELECT {_COLUMNS_NO_HASHES} FROM events WHERE position > ? ORDER BY position"
    yield from rows()


def replay_ab(source: str, rounds: int) -> None:
    camp = open_campaign(source, readonly=True)
    codec = camp.store.codec
    folder = tempfile.mkdtemp(prefix="cristal-levers-")
    try:
        rows = R.exported_rows(camp)
        raw_path = os.path.join(folder, "raw.db")
        R.raw_import(raw_path, rows)
        n = len(rows)
        del rows
        R.warm_file_cache(source, raw_path)
        gc.freeze()
        conn = B.raw_connect(raw_path)

        def before() -> int:
            state = 0
            for rec in read_all_before(camp.store):
                state = R.count_fold(state, rec.event)
            return state

        fns: dict[str, Callable[[], object]] = {
            "engine (one frame per event: the lever)": lambda: R.engine_replay(camp),
            "engine before (three frames per event)": before,
            "raw sqlite3 + msgspec": lambda: B.raw_replay(conn, codec.classes, R.count_fold, 0),
        }
        got = Clock().measure(fns, rounds)
        conn.close()
        report(f"replay of {n:,} events, medians of {rounds}", got, n, "raw sqlite3 + msgspec")
    finally:
        camp.close()
        shutil.rmtree(folder, ignore_errors=True)


# ------------------------------------------------------------------------------------------ import
def import_ab(source: str, sizes: list[int], rounds: int) -> None:
    """A bulk import (``run.engine_import``: ``Store.create`` then ``import_rows(rows, validate=
    codec.decode)``) with and without the rollback journal (``Store._rollback_journal`` taken back),
    in one process and with one validator forced (``log_rows.import_workers``), and the raw floor.
    What ``import_workers()`` answers on this machine is printed with each round of the default."""
    from contextlib import nullcontext

    from cristal_events.store import Store

    camp = open_campaign(source, readonly=True)
    codec = camp.store.codec
    folder = tempfile.mkdtemp(prefix="cristal-levers-")
    workers, journal, limit = log_rows.import_workers, Store._rollback_journal, log_rows.IMPORT_PARALLEL_MIN
    answered: list[int] = []

    def variant(n_workers: int | None, rollback: bool) -> Callable[[list], None]:
        def run(part: list) -> None:
            if n_workers is None:
                answered.append(workers())
                log_rows.import_workers = lambda: answered[-1]
            else:
                log_rows.import_workers = lambda: n_workers
            Store._rollback_journal = journal if rollback else (lambda self: nullcontext())  # type: ignore[method-assign]
            try:
                R.engine_import(os.path.join(folder, "imp.db"), codec, part)
            finally:
                log_rows.import_workers, Store._rollback_journal = workers, journal  # type: ignore[method-assign]
        return run

    variants = {"rollback journal, as the machine decides (kept)": variant(None, True),
                "rollback journal, one validator forced": variant(1, True),
                "rollback journal, one process": variant(0, True),
                "WAL (before), one validator forced": variant(1, False),
                "WAL (before), one process": variant(0, False)}
    try:
        for n in sizes:
            part = R.exported_rows(camp, until=n)  # only these rows held: a fork costs with the process's size
            gc.freeze()  # as run.py
            answered.clear()
            fns: dict[str, Callable[[], object]] = {k: (lambda f=f, p=part: f(p)) for k, f in variants.items()}
            fns["raw sqlite3 + msgspec"] = lambda p=part: R.raw_import(os.path.join(folder, "raw.db"), p)
            got = Clock().measure(fns, rounds)
            report(f"bulk import of {len(part):,} rows, medians of {rounds}; import_workers() answered {answered}",
                   got, len(part), "raw sqlite3 + msgspec")
            del part, fns
            gc.unfreeze()
            gc.collect()
    finally:
        camp.close()
        log_rows.IMPORT_PARALLEL_MIN = limit
        shutil.rmtree(folder, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("lever", choices=["replay", "import"])
    ap.add_argument("--campaign", required=True, help="a campaign file this run only reads (a copy)")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--sizes", default="100000", help="import: comma-separated numbers of rows")
    a = ap.parse_args()
    if a.lever == "replay":
        replay_ab(a.campaign, a.rounds)
    else:
        import_ab(a.campaign, [int(s) for s in a.sizes.split(",")], a.rounds)


if __name__ == "__main__":
    main()
