"""A/B of PostgreSQL appends (issue 20, eighth session): the engine's append as one call of the
function ``cristal_append`` (migration 0003; ``PgStore.append`` now) against the five statements it
replaced (BEGIN and the lock, the state, the INSERT or the COPY and the head, COMMIT; kept here as
:class:`StatementsStore`), and the raw floors of benchmarks/postgres.py, in one run.

    python benchmarks/pg_append.py single --appends 1000 --rounds 9
    python benchmarks/pg_append.py batch --events 20000 --rounds 9 [--profile]

``single``: ``--appends`` appends of one event, each its own transaction, one stream, expected
version given (benchmarks/postgres.py's ``ours_append`` with a batch of 1), against a raw autocommit
INSERT of the finished rows. ``batch``: ``--events`` events in appends of 1,000 over ten streams
against a raw binary COPY of the finished rows, 1,000 a transaction. Each contender runs on a fresh
database of one cluster (fsync on, or ``CRISTAL_TEST_POSTGRES``), the contenders take turns in each
round (the order reversed every other round); the figures are medians, with the load average and
each contender's own CPU time (``time.process_time``), the signal that survives a shared machine.
"""

from __future__ import annotations

import argparse
import cProfile
import hashlib
import os
import pstats
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "benchmarks")]

import postgres as P
from pgcluster import Cluster, with_campaign

from cristal_events.codec import Codec, encode
from cristal_events.errors import ConcurrencyConflict
from cristal_events.events import CORE_EVENTS, CORE_UPCASTERS, Event
from cristal_events.log_rows import ANY, new_event_ids, utc_now
from cristal_events.log_rows import hash_encoder as _hash_encoder
from cristal_events.store_pg import _COLUMNS, PgStore

_COPY_FROM = 16


class StatementsStore(PgStore):
    """The append before migration 0003, kept for the A/B: its own transaction of BEGIN and the lock
    (one simple-query message), the ids' positions (when ids are given), the stream's version and the
    head in one SELECT, a multi-row INSERT moving the head (a COPY and an UPDATE from 16 rows), COMMIT."""

    def append(self, stream: str, events: Sequence[Event], expected_version: int | None = ANY, *,
               event_ids: Sequence[str] | None = None, actor: str = "GM", session: int | None = None,
               causation_id: str | None = None, correlation_id: str | None = None,
               recorded_at: str | None = None, causation_ids: Sequence[str | None] | None = None) -> list[int]:
        ids = list(event_ids) if event_ids is not None else new_event_ids(len(events))
        with self.transaction():
            if event_ids is not None:
                known = dict(self._sql("SELECT event_id, position FROM events WHERE event_id = ANY(%s)",
                                       (ids,)).fetchall())
                if len(known) == len(ids):
                    return [known[i] for i in ids]
            version, seq, last, prev = self._sql(
                "SELECT (SELECT COALESCE(MAX(version), 0) FROM events WHERE stream = %s), (SELECT position FROM "
                "log_head), e.position, e.hash FROM (SELECT 1) one LEFT JOIN LATERAL (SELECT position, hash FROM "
                "events ORDER BY position DESC LIMIT 1) e ON true", (stream,)).fetchone()
            position = max(seq, last or 0)
            prev = prev or "0" * 64
            if expected_version is not None and version != expected_version:
                raise ConcurrencyConflict(f"Stream {stream} is at version {version}, not {expected_version}")
            when = recorded_at or utc_now()
            rows = []
            enc, sha = _hash_encoder.encode, hashlib.sha256
            for i, (event, eid) in enumerate(zip(events, ids)):
                position += 1
                cause = causation_ids[i] if causation_ids is not None else causation_id
                canon = (prev, position, eid, stream, version + i + 1, event.__struct_config__.tag,
                         type(event).version, encode(event).decode(), when, session, actor, cause, correlation_id)
                h = sha(enc(canon)).hexdigest()
                rows.append((*canon[1:], prev, h))
                prev = h
            if len(rows) >= _COPY_FROM:
                with self.conn.cursor() as cur, cur.copy(f"COPY events ({_COLUMNS}) FROM STDIN (FORMAT BINARY)") as cp:
                    cp.set_types(P.TYPES)
                    for r in rows:
                        cp.write_row(r)
                self.conn.execute("UPDATE log_head SET position = GREATEST(position, %s)", (rows[-1][0],))
            else:
                marks = ",".join(["(%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s)"] * len(rows))
                self.conn.execute(f"WITH head AS (UPDATE log_head SET position = GREATEST(position, %s)) "
                                  f"INSERT INTO events ({_COLUMNS}) VALUES {marks}",
                                  [rows[-1][0], *(x for r in rows for x in r)])
        return [r[0] for r in rows]


def engine(cls: type[PgStore], url: str, events: list[Any], batch: int) -> tuple[float, float]:
    store = cls.create(url, Codec(CORE_EVENTS, CORE_UPCASTERS))
    versions = [0] * P.STREAMS
    t0, c0 = time.perf_counter(), time.process_time()
    for k, i in enumerate(range(0, len(events), batch)):
        s = k % P.STREAMS if batch > 1 else 0
        part = events[i:i + batch]
        store.append(f"character:hero{s}", part, expected_version=versions[s])
        versions[s] += len(part)
    took = time.perf_counter() - t0, time.process_time() - c0
    assert store.verify().ok
    store.close()
    return took


def timed_raw(fn: Callable[..., float], *args: Any) -> tuple[float, float]:
    c0 = time.process_time()
    took = fn(*args)
    return took, time.process_time() - c0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("what", choices=["single", "batch"])
    ap.add_argument("--appends", type=int, default=1000)
    ap.add_argument("--events", type=int, default=20000)
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--profile", action="store_true", help="cProfile the new path once, print the top 25")
    a = ap.parse_args()
    cluster = Cluster(os.environ["CRISTAL_TEST_POSTGRES"]) if os.environ.get("CRISTAL_TEST_POSTGRES") \
        else Cluster.start(fsync=True)
    try:
        if a.what == "single":
            n, batch = a.appends, 1
            evs = P.notes(n)
            rows = P.finished_rows(evs, n)
            contenders = {
                "function (new)": lambda u: engine(PgStore, with_campaign(u, "bench"), evs, 1),
                "statements (old)": lambda u: engine(StatementsStore, with_campaign(u, "bench"), evs, 1),
                "raw INSERT": lambda u: timed_raw(P.raw_insert, u, rows),
            }
        else:
            n, batch = a.events, P.BATCH
            evs = P.notes(n)
            rows = P.finished_rows(evs, batch)
            contenders = {
                "function (new)": lambda u: engine(PgStore, with_campaign(u, "bench"), evs, batch),
                "statements (old)": lambda u: engine(StatementsStore, with_campaign(u, "bench"), evs, batch),
                "raw COPY": lambda u: timed_raw(P.raw_copy, u, rows, batch),
            }
        if a.profile:
            url = cluster.new_database("prof")
            prof = cProfile.Profile()
            prof.enable()
            engine(PgStore, with_campaign(url, "bench"), evs, batch)
            prof.disable()
            cluster.drop_database(url)
            pstats.Stats(prof).sort_stats("tottime").print_stats(25)
        wall: dict[str, list[float]] = {k: [] for k in contenders}
        cpu: dict[str, list[float]] = {k: [] for k in contenders}
        names = list(contenders)
        loads = []
        for r in range(a.rounds):
            for name in (names if r % 2 == 0 else names[::-1]):
                url = cluster.new_database("ab")
                try:
                    w, c = contenders[name](url)
                finally:
                    cluster.drop_database(url)
                wall[name].append(w)
                cpu[name].append(c)
            loads.append(os.getloadavg()[0])
        base = names[-1]
        print(f"{a.what}: {n:,} events, {batch}/append, {a.rounds} rounds; load average during the run "
              f"{min(loads):.2f}-{max(loads):.2f} (median {statistics.median(loads):.2f})")
        for name in names:
            rate = n / statistics.median(wall[name])
            ratio = statistics.median(wall[base]) / statistics.median(wall[name])
            print(f"  {name:<18} {rate:>9,.0f} ev/s  ({ratio:.2f} x {base}; range {n / max(wall[name]):,.0f}-"
                  f"{n / min(wall[name]):,.0f})  CPU {statistics.median(cpu[name]) * 1e6 / n:6.1f} us/event")
    finally:
        if not os.environ.get("CRISTAL_TEST_POSTGRES"):
            cluster.stop()


if __name__ == "__main__":
    main()
