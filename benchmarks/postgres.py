"""The PostgreSQL rows of the speed table (issue 20): the engine's PostgreSQL store against raw psycopg
and the eventsourcing library's PostgreSQL recorder and application, on one PostgreSQL 15 cluster.

    python benchmarks/postgres.py --events 100000 [--rounds 5] [--json]

The cluster is the tests' technique (tests/pgcluster.py): Debian's initdb into a temporary directory
as the postgres user, the server on a Unix socket only, here with fsync ON (as the issue measured),
stopped at the end; or the server of CRISTAL_TEST_POSTGRES when it is set. Every figure is the median
over ``rounds`` rounds in which the contenders take turns (the order reversed every other round), each
on a fresh database, with events of about 150 bytes (a note, its envelope and hash chain):

* append 1,000 per transaction: ``PgStore.append`` of 1,000 events (encode, chain, hash, binary COPY)
  vs a raw binary COPY of the same finished rows into a table with the same keys, and eventsourcing's
  ``PostgresApplicationRecorder.insert_events`` (1,000 stored events) and Application (an aggregate of
  1,000 events saved);
* append 1 per transaction, with the campaign's ordering lock: ``PgStore.append`` of one event (one
  call of the function ``cristal_append`` in autocommit: the advisory lock, the stream's version and
  the head checked, the insert, in one statement and one round trip) vs a raw autocommit INSERT of
  the finished row, and eventsourcing's recorder and application, one event per call;
* replay: ``PgStore.read_all`` (keyset pages, decode to typed events) and a fold vs a raw keyset
  SELECT with the same msgspec decoders and the same fold, and eventsourcing's recorder
  (``select_events`` of every aggregate, its events decoded by the application's mapper).

``postgres_rows(events, rounds)`` returns the three rows for benchmarks/run.py's table.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import msgspec
from pgcluster import Cluster, with_campaign

from cristal_events.codec import Codec, encode
from cristal_events.events import CORE_EVENTS, CORE_UPCASTERS, NoteRecorded
from cristal_events.store import new_event_ids, row_hash, utc_now
from cristal_events.store_pg import _COLUMNS, PgStore

BATCH = 1000
STREAMS = 10
RAW_TABLE = """
CREATE TABLE raw_events (position bigint PRIMARY KEY, event_id text NOT NULL UNIQUE, stream text NOT NULL,
    version integer NOT NULL, type text NOT NULL, schema_version integer NOT NULL, payload text NOT NULL,
    recorded_at text NOT NULL, session bigint, actor text NOT NULL, causation_id text, correlation_id text,
    prev_hash text NOT NULL, hash text NOT NULL, UNIQUE (stream, version))
"""
TYPES = ["int8", "text", "text", "int4", "text", "int4", "text", "text", "int8", "text", "text", "text", "text", "text"]


def notes(n: int) -> list[NoteRecorded]:
    """Events of about 150 bytes stored (payload and envelope of a note)."""
    return [NoteRecorded(text=f"Le groupe avance de {i % 97} pas vers la tour.", topic="récit") for i in range(n)]


def finished_rows(events: list[NoteRecorded], per_stream: int) -> list[tuple[Any, ...]]:
    """The 14-column rows the engine would store for ``events`` (hashes included): the raw floor's input."""
    rows, prev, when = [], "0" * 64, utc_now()
    ids = new_event_ids(len(events))
    versions = [0] * STREAMS
    for i, (ev, eid) in enumerate(zip(events, ids)):
        s = (i // per_stream) % STREAMS
        versions[s] += 1
        payload = encode(ev).decode()
        h = row_hash(prev, i + 1, eid, f"character:hero{s}", versions[s], "note.recorded", 1, payload, when, None,
                     "GM", None, None)
        rows.append((i + 1, eid, f"character:hero{s}", versions[s], "note.recorded", 1, payload, when, None, "GM",
                     None, None, prev, h))
        prev = h
    return rows


def fold(state: int, ev: NoteRecorded) -> int:
    return state + len(ev.text)


# ------------------------------------------------------------------ the engine
def ours_append(url: str, events: list[NoteRecorded], batch: int) -> float:
    store = PgStore.create(url, Codec(CORE_EVENTS, CORE_UPCASTERS))
    versions = [0] * STREAMS
    t0 = time.perf_counter()
    for k, i in enumerate(range(0, len(events), batch)):
        s = k % STREAMS if batch > 1 else 0
        part = events[i:i + batch]
        store.append(f"character:hero{s}", part, expected_version=versions[s])
        versions[s] += len(part)
    took = time.perf_counter() - t0
    store.close()
    return took


def ours_replay(url: str) -> tuple[float, int]:
    store = PgStore.open(url, Codec(CORE_EVENTS, CORE_UPCASTERS), readonly=True)
    t0 = time.perf_counter()
    state = 0
    for rec in store.read_all(hashes=False):
        state = fold(state, rec.event)
    took = time.perf_counter() - t0
    store.close()
    return took, state


# ------------------------------------------------------------------ raw psycopg
def _raw(url: str) -> Any:
    import psycopg

    conn = psycopg.connect(url, autocommit=True)
    conn.execute(RAW_TABLE)
    return conn


def raw_copy(url: str, rows: list[tuple[Any, ...]], batch: int) -> float:
    conn = _raw(url)
    t0 = time.perf_counter()
    for i in range(0, len(rows), batch):
        with conn.transaction(), conn.cursor() as cur:
            with cur.copy(f"COPY raw_events ({_COLUMNS}) FROM STDIN (FORMAT BINARY)") as copy:
                copy.set_types(TYPES)
                for r in rows[i:i + batch]:
                    copy.write_row(r)
    took = time.perf_counter() - t0
    conn.close()
    return took


def raw_insert(url: str, rows: list[tuple[Any, ...]]) -> float:
    conn = _raw(url)
    sql = f"INSERT INTO raw_events ({_COLUMNS}) VALUES ({','.join(['%s'] * 14)})"
    t0 = time.perf_counter()
    for r in rows:
        conn.execute(sql, r)
    took = time.perf_counter() - t0
    conn.close()
    return took


def raw_replay(url: str) -> tuple[float, int]:
    """Keyset pages of the same 12 columns, the payload decoded by its class's msgspec decoder, the same fold."""
    import psycopg

    decoders = {cls.__struct_config__.tag: msgspec.json.Decoder(cls).decode for cls in CORE_EVENTS}
    conn = psycopg.connect(url, autocommit=True)
    cols = _COLUMNS.replace(", prev_hash, hash", "")
    sql = f"SELECT {cols} FROM raw_events WHERE position > %s ORDER BY position LIMIT 5000"
    t0 = time.perf_counter()
    state, last = 0, 0
    while True:
        page = conn.execute(sql, (last,)).fetchall()
        for row in page:
            state = fold(state, decoders[row[4]](row[6]))
        if len(page) < 5000:
            break
        last = page[-1][0]
    took = time.perf_counter() - t0
    conn.close()
    return took, state


# ------------------------------------------------------------------ eventsourcing[postgres]
def _es_env(url: str) -> dict[str, str]:
    parts = urlsplit(url)
    host = dict(parse_qsl(parts.query)).get("host") or parts.hostname or "localhost"
    return {"PERSISTENCE_MODULE": "eventsourcing.postgres", "POSTGRES_DBNAME": parts.path.strip("/"),
            "POSTGRES_HOST": host, "POSTGRES_PORT": str(parts.port or 5432), "POSTGRES_USER": parts.username or "",
            "POSTGRES_PASSWORD": parts.password or "", "CREATE_TABLE": "y"}


def _es_recorder(url: str) -> Any:
    from eventsourcing.persistence import InfrastructureFactory

    return InfrastructureFactory.construct(_es_env(url)).application_recorder()


def _es_stored(payloads: list[bytes], per: int) -> list[Any]:
    from eventsourcing.persistence import StoredEvent

    out, oid = [], uuid.uuid4()
    for i, state in enumerate(payloads):
        if i % per == 0:
            oid = uuid.uuid4()
        out.append(StoredEvent(originator_id=oid, originator_version=i % per + 1, topic="bench:Noted", state=state))
    return out


def es_recorder_append(url: str, payloads: list[bytes], batch: int) -> float:
    rec = _es_recorder(url)
    stored = _es_stored(payloads, batch if batch > 1 else len(payloads))
    t0 = time.perf_counter()
    for i in range(0, len(stored), batch):
        rec.insert_events(stored[i:i + batch])
    took = time.perf_counter() - t0
    rec.datastore.close()
    return took


def es_recorder_replay(url: str) -> tuple[float, int]:
    """Every aggregate's stored events selected (its recorder) and decoded to the note's typed event."""
    rec = _es_recorder(url)
    decode = msgspec.json.Decoder(NoteRecorded).decode
    with rec.datastore.get_connection() as conn:
        ids = [r["originator_id"] for r in conn.execute(
            f"SELECT DISTINCT originator_id FROM {rec.events_table_name}").fetchall()]
    t0 = time.perf_counter()
    state = 0
    for oid in ids:
        for se in rec.select_events(oid):
            state = fold(state, decode(se.state))
    took = time.perf_counter() - t0
    rec.datastore.close()
    return took, state


_APP: list[Any] = []


def _es_application(url: str) -> tuple[Any, type]:
    from eventsourcing.application import Application
    from eventsourcing.domain import Aggregate, event

    if not _APP:
        class Party(Aggregate):
            @event("Created")
            def __init__(self, name: str) -> None:
                self.name = name
                self.noted = 0

            @event("Noted")
            def note(self, text: str, topic: str) -> None:
                self.noted += len(text)

        _APP.append(Party)
    return Application(env=_es_env(url)), _APP[0]


def es_application_append(url: str, events: list[NoteRecorded], batch: int) -> float:
    app, Party = _es_application(url)
    t0 = time.perf_counter()
    if batch == 1:  # one event per transaction: one aggregate, saved after each new event
        party = Party(name="la compagnie")
        app.save(party)
        for ev in events[1:]:
            party.note(text=ev.text, topic=ev.topic)
            app.save(party)
    else:
        for i in range(0, len(events), batch):
            party = Party(name=f"groupe {i}")
            for ev in events[i + 1:i + batch]:
                party.note(text=ev.text, topic=ev.topic)
            app.save(party)
    took = time.perf_counter() - t0
    app.close()
    return took


# ------------------------------------------------------------------ rounds
def _rounds(contenders: dict[str, Callable[[], float]], rounds: int) -> dict[str, float]:
    """The median seconds of each contender over ``rounds``, taking turns (reversed every other round)."""
    times: dict[str, list[float]] = {k: [] for k in contenders}
    names = list(contenders)
    for i in range(rounds):
        for name in (names if i % 2 == 0 else names[::-1]):
            times[name].append(contenders[name]())
    return {k: statistics.median(v) for k, v in times.items()}


def postgres_rows(events: int, rounds: int) -> list[dict[str, Any]]:
    """The three PostgreSQL rows of the speed table: dicts of figure, goal, ours, baseline, ratio, ok, note."""
    cluster = Cluster(os.environ["CRISTAL_TEST_POSTGRES"]) if os.environ.get("CRISTAL_TEST_POSTGRES") \
        else Cluster.start(fsync=True)
    try:
        return _measure(cluster, events, max(1, rounds))
    finally:
        cluster.stop()


def _measure(cluster: Cluster, n: int, rounds: int) -> list[dict[str, Any]]:
    evs = notes(n)
    rows = finished_rows(evs, BATCH)
    payloads = [encode(e) for e in evs]
    single = min(n, 2000)
    single_rows = finished_rows(evs[:single], single)

    def fresh() -> str:
        return cluster.new_database("bench")

    def timed(fn: Callable[[str], Any]) -> Callable[[], float]:
        def run() -> float:
            url = fresh()
            try:
                took = fn(url)
                return took if isinstance(took, float) else took[0]
            finally:
                cluster.drop_database(url)
        return run

    out: list[dict[str, Any]] = []
    # --- append 1,000 per transaction
    t = _rounds({
        "ours": timed(lambda u: ours_append(with_campaign(u, "bench"), evs, BATCH)),
        "copy": timed(lambda u: raw_copy(u, rows, BATCH)),
        "es_recorder": timed(lambda u: es_recorder_append(u, payloads, BATCH)),
        "es_app": timed(lambda u: es_application_append(u, evs, BATCH)),
    }, rounds)
    rate = {k: n / v for k, v in t.items()}
    out.append(_row("PostgreSQL: append 1,000/txn", ">= 0.7 x raw COPY", rate["ours"], rate["copy"], 0.7, "raw COPY",
                    f"eventsourcing recorder {rate['es_recorder']:,.0f} ev/s ({rate['ours'] / rate['es_recorder']:.1f} x), "
                    f"application {rate['es_app']:,.0f} ev/s ({rate['ours'] / rate['es_app']:.1f} x)"))
    # --- append 1 per transaction
    t = _rounds({
        "ours": timed(lambda u: ours_append(with_campaign(u, "bench"), evs[:single], 1)),
        "insert": timed(lambda u: raw_insert(u, single_rows)),
        "es_recorder": timed(lambda u: es_recorder_append(u, payloads[:single], 1)),
        "es_app": timed(lambda u: es_application_append(u, evs[:single], 1)),
    }, rounds)
    rate = {k: single / v for k, v in t.items()}
    out.append(_row("PostgreSQL: append 1/txn, with the campaign's ordering lock", ">= 0.5 x raw autocommit INSERT",
                    rate["ours"], rate["insert"], 0.5, "raw INSERT",
                    f"{single:,} events; eventsourcing recorder {rate['es_recorder']:,.0f} ev/s "
                    f"({rate['ours'] / rate['es_recorder']:.1f} x), application {rate['es_app']:,.0f} ev/s "
                    f"({rate['ours'] / rate['es_app']:.1f} x)"))
    # --- replay: one database holding the three stores' copies of the same events
    url = fresh()
    try:
        ours_append(with_campaign(url, "bench"), evs, BATCH)
        raw_copy(url, rows, BATCH)
        es_recorder_append(url, payloads, BATCH)
        results: dict[str, list[float]] = {"ours": [], "raw": [], "es": []}
        folds: set[int] = set()
        runs = {"ours": lambda: ours_replay(with_campaign(url, "bench")), "raw": lambda: raw_replay(url),
                "es": lambda: es_recorder_replay(url)}
        for i in range(rounds):
            for name in (list(runs) if i % 2 == 0 else list(runs)[::-1]):
                took, state = runs[name]()
                results[name].append(took)
                folds.add(state)
        assert len(folds) == 1, folds  # the three replays folded the same events
        rate = {k: n / statistics.median(v) for k, v in results.items()}
    finally:
        cluster.drop_database(url)
    out.append(_row("PostgreSQL: replay (read in position order, decode, fold)", ">= 0.7 x raw keyset SELECT + msgspec",
                    rate["ours"], rate["raw"], 0.7, "raw SELECT",
                    f"eventsourcing recorder {rate['es']:,.0f} ev/s ({rate['ours'] / rate['es']:.1f} x)"))
    return out


def _row(figure: str, goal: str, ours: float, base: float, need: float, base_name: str, note: str) -> dict[str, Any]:
    ratio = ours / base
    return {"figure": figure, "goal": goal, "ours": f"{ours:,.0f} ev/s", "baseline": f"{base_name} {base:,.0f} ev/s",
            "ratio": f"{ratio:.2f} x", "ok": ratio >= need, "note": note}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--events", type=int, default=100_000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    rows = postgres_rows(a.events, a.rounds)
    if a.json:
        print(json.dumps(rows, ensure_ascii=False))
        return
    print(f"PostgreSQL 15, fsync on, Unix socket; {a.events:,} events of about 150 bytes; medians of {a.rounds} rounds")
    print(f"| {'figure':<60} | {'goal':<34} | {'ours':>14} | {'baseline':>24} | {'ratio':>7} | ok |")
    for r in rows:
        print(f"| {r['figure']:<60} | {r['goal']:<34} | {r['ours']:>14} | {r['baseline']:>24} | {r['ratio']:>7} | "
              f"{'yes' if r['ok'] else 'NO'} |")
        print(f"|   {r['note']}")


if __name__ == "__main__":
    main()
