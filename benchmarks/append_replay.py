"""First benchmark (issue 2, item 12): append, replay and verify N small events, engine vs raw floor.

    python benchmarks/append_replay.py --n 100000 [--single 5000] [--repeat 3]

The engine appends N small events through ``Store.append`` (batches of 1,000, and one per
transaction for ``--single`` events), replays them with ``read_all`` (decode to typed events) and a
fold, and verifies the hash chain. In the same run a raw ``sqlite3`` + msgspec baseline does the
same work without the engine (same payloads, batches and decoder; no envelope, no hash chain).
Figures are medians of ``--repeat`` runs, in events per second, with the engine/raw ratio.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import baseline as B

from cristal_events.codec import Codec, encode
from cristal_events.events import CORE_EVENTS, CORE_UPCASTERS, NoteRecorded
from cristal_events.store import Store, new_event_ids, utc_now

STREAMS = 10


def small_events(n: int) -> list[NoteRecorded]:
    return [NoteRecorded(text=f"Le groupe avance de {i % 97} pas.", topic="récit") for i in range(n)]


def fold(state: int, ev: NoteRecorded) -> int:
    return state + len(ev.text)


def raw_fold(state: int, item: tuple) -> int:
    return fold(state, item[1])


def engine_append(path: str, events: list[NoteRecorded], batch: int) -> Store:
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(path + suffix):
            os.remove(path + suffix)
    store = Store.create(path, Codec(CORE_EVENTS, CORE_UPCASTERS))
    versions = [0] * STREAMS
    for k, i in enumerate(range(0, len(events), batch)):
        s = k % STREAMS
        part = events[i:i + batch]
        store.append(f"character:hero{s}", part, expected_version=versions[s])
        versions[s] += len(part)
    return store


def engine_replay(store: Store) -> int:
    state = 0
    for rec in store.read_all():
        state = fold(state, rec.event)
    return state


def raw_rows(events: list[NoteRecorded], batch: int) -> list[B.Row]:
    """The rows the engine would store, without its hash chain (ids and time made the same way)."""
    rows, versions = [], [0] * STREAMS
    for k, i in enumerate(range(0, len(events), batch)):
        s = k % STREAMS
        when = utc_now()
        ids = new_event_ids(len(events[i:i + batch]))
        for ev, eid in zip(events[i:i + batch], ids):
            versions[s] += 1
            rows.append((eid, f"character:hero{s}", versions[s], "note.recorded", 1, encode(ev).decode(),
                         when, None, "GM", None, None))
    return rows


def measure(n: int, single: int, repeat: int, folder: str) -> list[tuple[str, float, float]]:
    events = small_events(n)
    few = events[:single]
    eng, raw = os.path.join(folder, "engine.db"), os.path.join(folder, "raw.db")
    out = []

    def e_batch() -> None:
        engine_append(eng, events, 1000).close()

    def r_batch() -> None:
        conn = B.raw_create(raw)
        B.raw_append(conn, raw_rows(events, 1000), 1000)  # the baseline encodes its payloads too
        conn.close()

    out.append((f"append {n:,} (batches of 1,000)", n / B.median_time(e_batch, repeat), n / B.median_time(r_batch, repeat)))

    def e_single() -> None:
        engine_append(eng + "1", few, 1).close()

    def r_single() -> None:
        conn = B.raw_create(raw + "1")
        B.raw_append(conn, raw_rows(few, 1), 1)
        conn.close()

    out.append((f"append {single:,} (one per transaction)", single / B.median_time(e_single, repeat),
                single / B.median_time(r_single, repeat)))

    e_batch()
    r_batch()
    store = Store.open(eng, Codec(CORE_EVENTS, CORE_UPCASTERS))
    conn = B.raw_connect(raw)
    assert engine_replay(store) == B.raw_replay(conn, CORE_EVENTS, raw_fold, 0)
    out.append((f"replay {n:,} (decode + fold)", n / B.median_time(lambda: engine_replay(store), repeat),
                n / B.median_time(lambda: B.raw_replay(conn, CORE_EVENTS, raw_fold, 0), repeat)))
    report = store.verify()
    assert report.ok and report.events == n
    scan = B.raw_connect(eng)  # the raw scan reads the same rows: the engine's own table
    out.append((f"verify {n:,} (hash chain vs raw scan)", n / B.median_time(store.verify, repeat),
                n / B.median_time(lambda: B.raw_scan(scan), repeat)))
    scan.close()
    store.close()
    conn.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description="Append, replay and verify N small events: engine vs raw sqlite3 + msgspec.")
    ap.add_argument("--n", type=int, default=100_000, help="events appended in batches of 1,000")
    ap.add_argument("--single", type=int, default=None, help="events appended one per transaction (default N/20, at most 5,000)")
    ap.add_argument("--repeat", type=int, default=3, help="runs per figure (the median is printed)")
    a = ap.parse_args()
    single = a.single or max(1, min(5000, a.n // 20))
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"SQLite {__import__('sqlite3').sqlite_version}; medians of {a.repeat} runs")
    with tempfile.TemporaryDirectory() as folder:
        rows = measure(a.n, single, a.repeat, folder)
    print(f"{'figure':<44}{'engine ev/s':>14}{'raw ev/s':>14}{'ratio':>8}")
    for name, e, r in rows:
        print(f"{name:<44}{e:>14,.0f}{r:>14,.0f}{e / r:>8.2f}")


if __name__ == "__main__":
    main()
