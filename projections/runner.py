"""Runs projections: incremental catch-up, full rebuild, and verification against a rebuild.

Each projection's checkpoint (version, last position, state) is written in the same transaction
as its rows, so a crash leaves either both or neither.
"""

from __future__ import annotations

import sqlite3
import sys
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

import msgspec

from . import for_campaign
from .base import Projection

if TYPE_CHECKING:
    from cristal_events import Campaign

Progress = Callable[[int, int], None]


def _ensure_tables(campaign: "Campaign", projs: Iterable[Projection]) -> None:
    for p in projs:
        for name, table in p.tables.items():
            campaign.store.conn.execute(table.ddl(name))


def _checkpoint(campaign: "Campaign", p: Projection) -> tuple[int, Any] | None:
    row = campaign.store.conn.execute(
        "SELECT version, position, state FROM projection_checkpoints WHERE name = ?", (p.name,)
    ).fetchone()
    if row is None or row[0] != p.version:
        return None
    try:
        state = msgspec.msgpack.decode(row[2], type=p.state_type) if row[2] is not None else p.initial()
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
    return row[1], state


def _clear(campaign: "Campaign", p: Projection) -> None:
    for name, table in p.tables.items():
        campaign.store.conn.execute(f'DROP TABLE IF EXISTS "{name}"')
        campaign.store.conn.execute(table.ddl(name))


def _insert(campaign: "Campaign", name: str, rows: list[dict[str, Any]], table: Any) -> None:
    if not rows:
        return
    cols = list(table.columns)
    sql = f'INSERT OR REPLACE INTO "{name}" ({", ".join(chr(34) + c + chr(34) for c in cols)}) VALUES ({", ".join("?" * len(cols))})'
    # the columns holding JSON are found on the first row (a read model's rows share their shape);
    # a row that breaks that rule makes SQLite refuse the batch, which is then converted cell by cell
    nested = [i for i, c in enumerate(cols) if isinstance(rows[0].get(c), _NESTED)]
    if nested:
        enc = msgspec.json.encode

        def convert(r: dict[str, Any]) -> list[Any]:
            row = list(map(r.get, cols))
            for i in nested:
                if isinstance(row[i], _NESTED):
                    row[i] = enc(row[i]).decode()
            return row

        values: list[Any] = [convert(r) for r in rows]
    else:
        values = [tuple(map(r.get, cols)) for r in rows]
    try:
        campaign.store.conn.executemany(sql, values)
    except (sqlite3.ProgrammingError, sqlite3.InterfaceError):
        campaign.store.conn.executemany(sql, [tuple(_cell(r.get(c)) for c in cols) for r in rows])


_NESTED = (dict, list, tuple)


def _cell(v: Any) -> Any:
    if isinstance(v, (dict, list, tuple)):
        return msgspec.json.encode(v).decode()
    return v


def _run(campaign: "Campaign", projs: list[Projection], *, rebuild: bool, progress: Progress | None) -> dict[str, int]:
    store = campaign.store
    counts: dict[str, int] = {}
    with store.transaction():
        _ensure_tables(campaign, projs)
        last = store.last_position()
        work: list[tuple[Projection, int, Any]] = []
        for p in projs:
            cp = None if rebuild else _checkpoint(campaign, p)
            if cp is None:
                _clear(campaign, p)
                cp = (0, p.initial())
            if cp[0] < last:
                work.append((p, cp[0], cp[1]))
            counts[p.name] = 0
        if not work:
            return counts
        start = min(pos for _, pos, _ in work)
        # one slot per projection: [evolve, appended or None, from position, state, pending rows, count]
        slots = [[p.evolve, p.appended if p.append_tables else None, pos, st, {}, 0] for p, pos, st in work]
        done = 0
        for rec in store.read_all(after=start, hashes=False):
            position = rec.position
            for slot in slots:
                if position <= slot[2]:
                    continue
                st = slot[0](slot[3], rec)
                slot[3] = st
                if slot[1] is not None:
                    for table, rows in slot[1](st, rec).items():
                        slot[4].setdefault(table, []).extend(rows)
                slot[5] += 1
            done += 1
            if progress and done % 1000 == 0:
                progress(done, last - start)
            if done % 20000 == 0:
                for (p, _, _), slot in zip(work, slots):
                    for table, rows in slot[4].items():
                        _insert(campaign, table, rows, p.append_tables[table])
                    slot[4] = {}
        states = {p.name: slot[3] for (p, _, _), slot in zip(work, slots)}
        pending = {p.name: slot[4] for (p, _, _), slot in zip(work, slots)}
        counts.update({p.name: slot[5] for (p, _, _), slot in zip(work, slots)})
        for p, _, _ in work:
            for table, rows in pending[p.name].items():
                _insert(campaign, table, rows, p.append_tables[table])
            if p.state_tables:
                for table in p.state_tables:
                    store.conn.execute(f'DELETE FROM "{table}"')
                for table, rows in p.rows(states[p.name]).items():
                    _insert(campaign, table, rows, p.state_tables[table])
            blob = msgspec.msgpack.encode(states[p.name])
            store.conn.execute("INSERT OR REPLACE INTO projection_checkpoints VALUES (?, ?, ?, ?)",
                               (p.name, p.version, last, blob))
        if progress:
            progress(last - start, last - start)
    return counts


def catch_up(campaign: "Campaign", *, progress: Progress | None = None) -> dict[str, int]:
    """Apply the events each projection has not seen; rebuild those whose version changed."""
    return _run(campaign, for_campaign(campaign), rebuild=False, progress=progress)


def rebuild(campaign: "Campaign", *, progress: Progress | None = None) -> dict[str, int]:
    """Drop every read model and replay the whole log into it."""
    return _run(campaign, for_campaign(campaign), rebuild=True, progress=progress)


def expected_rows(campaign: "Campaign", p: Projection) -> dict[str, list[dict[str, Any]]]:
    """The rows a full rebuild of ``p`` would write, computed in memory."""
    state = p.initial()
    out: dict[str, list[dict[str, Any]]] = {t: [] for t in p.tables}
    for rec in campaign.store.read_all(hashes=False):
        state = p.evolve(state, rec)
        for table, rows in p.appended(state, rec).items():
            out[table].extend(rows)
    for table, rows in p.rows(state).items():
        out[table] = rows
    return out


def verify(campaign: "Campaign") -> list[str]:
    """Compare the stored read models to a full rebuild in memory; return the differences."""
    problems = []
    store = campaign.store
    last = store.last_position()
    for p in for_campaign(campaign):
        cp = store.conn.execute("SELECT version, position FROM projection_checkpoints WHERE name = ?",
                                (p.name,)).fetchone()
        if cp is None:
            continue  # never built: nothing stored to disagree
        if cp[0] != p.version or cp[1] != last:
            problems.append(f"read model {p.name} is behind the log (run 'cristal rebuild')")
            continue
        for table, rows in expected_rows(campaign, p).items():
            spec = p.tables[table]
            cols = list(spec.columns)
            order = ", ".join(f'"{c}"' for c in spec.pk)
            stored = [tuple(r) for r in store.conn.execute(
                f'SELECT {", ".join(chr(34) + c + chr(34) for c in cols)} FROM "{table}" ORDER BY {order}')]
            want = sorted((tuple(_cell(r.get(c)) for c in cols) for r in rows),
                          key=lambda t: tuple(t[cols.index(k)] for k in spec.pk))
            dedup = {tuple(t[cols.index(k)] for k in spec.pk): t for t in want}
            want = [dedup[k] for k in sorted(dedup)]
            if stored != want:
                problems.append(f"read model {p.name} (table {table}) differs from a rebuild of the log")
    return problems


def tty_progress(label: str) -> Progress | None:
    """A progress line on stderr when it is a terminal; None (quiet) in pipes."""
    if not sys.stderr.isatty():
        return None

    def show(done: int, total: int) -> None:
        pct = 100 * done // total if total else 100
        bar = "#" * (pct // 4)
        sys.stderr.write(f"\r{label} [{bar:<25}] {pct:3d}% ({done}/{total})")
        if done >= total:
            sys.stderr.write("\n")
        sys.stderr.flush()

    return show
