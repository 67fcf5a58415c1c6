"""The floors the engine is measured against: raw sqlite3 + msgspec, and the eventsourcing library.

Each function does the engine's work without the engine: same rows, same batch sizes, same
decode to typed msgspec events, same fold; no validation hooks, no hash chain, no envelope.
"""

from __future__ import annotations

import os
import sqlite3
import statistics
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import msgspec

# The same envelope the engine stores (issue 2, item 2) with the two uniqueness rules a store needs
# (an event id is stored once; a stream version is taken once), but no hash chain, no triggers,
# no secondary index and no validation: the floor of a store that meets the spec without the engine.
RAW_SCHEMA = """
CREATE TABLE events (position INTEGER PRIMARY KEY, event_id TEXT NOT NULL UNIQUE, stream TEXT NOT NULL,
                     version INTEGER NOT NULL, type TEXT NOT NULL, schema_version INTEGER NOT NULL,
                     payload TEXT NOT NULL, recorded_at TEXT NOT NULL, session INTEGER, actor TEXT NOT NULL,
                     causation_id TEXT, correlation_id TEXT, UNIQUE (stream, version));
"""
RAW_INSERT = ("INSERT INTO events (event_id, stream, version, type, schema_version, payload, recorded_at, session, "
              "actor, causation_id, correlation_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
Row = tuple[str, str, int, str, int, str, str, "int | None", str, "str | None", "str | None"]


def median_time(fn: Callable[[], Any], repeat: int) -> float:
    """The median wall time of ``repeat`` calls of ``fn`` (the machine is shared and noisy)."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def median_times(fns: Sequence[Callable[[], Any]], repeat: int) -> list[float]:
    """The median wall time of each of ``fns`` over ``repeat`` rounds, the functions taking turns in
    each round: on a shared machine whose speed drifts over minutes, an engine figure and its
    baseline are then measured under the same conditions (their ratio is what stays stable). Every
    other round runs them in the reverse order (A B, B A, A B ...), so that neither always runs
    right after the other (a file the other just read, a heap it just left)."""
    times: list[list[float]] = [[] for _ in fns]
    for i in range(repeat):
        pairs = list(zip(fns, times))
        for fn, out in (pairs if i % 2 == 0 else pairs[::-1]):
            t0 = time.perf_counter()
            fn()
            out.append(time.perf_counter() - t0)
    return [statistics.median(t) for t in times]


def raw_connect(path: str) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    return conn


def raw_create(path: str) -> sqlite3.Connection:
    if os.path.exists(path):
        os.remove(path)
    conn = raw_connect(path)
    conn.executescript(RAW_SCHEMA)
    return conn


def raw_append(conn: sqlite3.Connection, rows: Sequence[Row], batch: int) -> None:
    """Insert (event_id, stream, version, type, schema_version, payload, recorded_at, session, actor,
    causation_id, correlation_id) rows, ``batch`` per transaction."""
    for i in range(0, len(rows), batch):
        conn.execute("BEGIN IMMEDIATE")
        conn.executemany(RAW_INSERT, rows[i:i + batch])
        conn.execute("COMMIT")


def raw_replay(conn: sqlite3.Connection, classes: Iterable[type], fold: Callable[[Any, Any], Any], initial: Any) -> Any:
    """SELECT every event in order (envelope and payload), decode the payload to its typed event
    with the msgspec Decoder of the class its ``type`` column names (faster than one Decoder of
    the Union of every class, which must find the class from the payload's tag; the engine does
    the same), and fold it with its envelope (what any replay needs)."""
    decoders = {cls.__struct_config__.tag: msgspec.json.Decoder(cls).decode for cls in classes}
    state = initial
    cur = conn.execute("SELECT position, event_id, stream, version, type, schema_version, payload, recorded_at, "
                       "session, actor, causation_id, correlation_id FROM events ORDER BY position")
    for row in cur:
        state = fold(state, (row, decoders[row[4]](row[6])))
    return state


def raw_scan(conn: sqlite3.Connection) -> int:
    """Read every column of every row (the floor of any verification)."""
    n = 0
    for _ in conn.execute("SELECT * FROM events ORDER BY position"):
        n += 1
    return n


# ------------------------------------------------------------------------ eventsourcing (bench extra)
def eventsourcing_available() -> str | None:
    """None when the ``eventsourcing`` library is importable, else why not (the column is skipped)."""
    try:
        import eventsourcing  # noqa: F401
    except ImportError:
        return "eventsourcing is not installed (pip install '.[bench]'); its column is skipped"
    return None


_HERO: list[type] = []


def _hero_class() -> type:
    """The eventsourcing aggregate of the comparison (defined once: the library registers topics).

    ``award`` is the small two-field event; ``record`` carries one of the campaign's real payloads
    (the decoded JSON object of a stored event), so both stores move the same data."""
    if not _HERO:
        from eventsourcing.domain import Aggregate, event

        class Hero(Aggregate):
            @event("Created")
            def __init__(self, name: str) -> None:
                self.name = name
                self.xp = 0
                self.recorded = 0

            @event("XpAwarded")
            def award(self, amount: int, reason: str) -> None:
                self.xp += amount

            @event("Recorded")
            def record(self, payload: dict) -> None:
                self.recorded += 1

        _HERO.append(Hero)
    return _HERO[0]


def eventsourcing_run(path: str, n: int, batch: int = 1000, payloads: Sequence[dict[str, Any]] | None = None
                      ) -> tuple[float, float]:
    """(append events/s, replay events/s) of eventsourcing's SQLite Application on ``n`` events.

    Aggregates of ``batch`` events each are saved in one transaction (``app.save``), then every
    aggregate is reconstructed from its events (``repository.get``: read, decode, fold). Without
    ``payloads`` the events are small (an amount and a reason); with them, event ``i`` carries
    ``payloads[i % len(payloads)]``, the same objects the engine stores.
    """
    from eventsourcing.application import Application

    Hero = _hero_class()
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(path + suffix):
            os.remove(path + suffix)
    app = Application(env={"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": path,
                           "SQLITE_LOCK_TIMEOUT": "10"})
    ids = []
    t0 = time.perf_counter()
    done = 0
    while done < n:
        hero = Hero(name=f"hero-{len(ids)}")
        for i in range(min(batch, n - done) - 1):
            if payloads:
                hero.record(payload=payloads[(done + i) % len(payloads)])
            else:
                hero.award(amount=i % 50, reason="combat")
        app.save(hero)
        ids.append(hero.id)
        done += min(batch, n - done)
    append = n / (time.perf_counter() - t0)
    t0 = time.perf_counter()
    total = sum(app.repository.get(i).xp for i in ids)
    replay = n / (time.perf_counter() - t0)
    assert total >= 0
    app.close()
    return append, replay
