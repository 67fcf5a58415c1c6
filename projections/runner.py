"""Runs projections: incremental catch-up, full rebuild, and verification against a rebuild.

Each projection's checkpoint (version, last position, state) is written in the same transaction
as its rows, so a crash leaves either both or neither.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

import msgspec

from cristal_events.errors import ReadModelsBehind
from cristal_events.i18n import _

from . import for_campaign
from .base import Projection

if TYPE_CHECKING:
    from cristal_events import Campaign

Progress = Callable[[int, int], None]


def _specs(projs: Iterable[Projection]) -> dict[str, tuple[dict[str, str], tuple[str, ...]]]:
    return {name: (table.columns, table.pk) for p in projs for name, table in p.tables.items()}


def _ensure_tables(campaign: Campaign, projs: Iterable[Projection]) -> None:
    campaign.store.create_read_tables(_specs(projs))


def _checkpoint(campaign: Campaign, p: Projection) -> tuple[int, Any] | None:
    row = campaign.store.checkpoint(p.name)
    if row is None or row[0] != p.version:
        return None
    if p.world_state:
        return row[1], p.state_of(campaign.world_at(row[1]))
    try:
        state = msgspec.msgpack.decode(row[2], type=p.state_type) if row[2] is not None else p.initial()
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
    return row[1], state


def _clear(campaign: Campaign, p: Projection) -> None:
    campaign.store.create_read_tables(_specs([p]), replace=True)


def _values(rows: list[Any], cols: list[str]) -> list[Any]:
    """Rows (dicts keyed by column, or tuples in column order) as sequences of the columns' values."""
    if all(type(r) is tuple for r in rows):
        return rows
    return [_sequence(r, cols) for r in rows]


def _sequence(row: Any, cols: list[str]) -> tuple[Any, ...]:
    return row if isinstance(row, tuple) else tuple(map(row.get, cols))


#: what one row may raise when SQLite cannot hold it (an integer past 64 bits, a value of no SQL type)
_UNFIT = (OverflowError, sqlite3.ProgrammingError, sqlite3.InterfaceError, sqlite3.IntegrityError,
          ValueError, TypeError)


def _insert(campaign: Campaign, name: str, rows: list[Any], table: Any, problems: list[str] | None = None,
            projection: str = "") -> None:
    """Insert ``rows`` into table ``name``; a row SQLite cannot hold is skipped and, when
    ``problems`` is given, told there (naming its position, or its key) instead of failing all."""
    if not rows:
        return
    if problems is None:
        _insert_all(campaign, name, rows, table)
        return
    try:
        with campaign.store.savepoint():
            _insert_all(campaign, name, rows, table)
        return
    except _UNFIT:
        pass
    for row in rows:  # the batch failed: find the rows that cannot be held, keep the others
        try:
            with campaign.store.savepoint():
                _insert_all(campaign, name, [row], table)
        except _UNFIT as exc:
            problems.append(_("read model {value} could not hold {row_name} of table {name} ({name2}: {str})").format(value=projection or name, row_name=_row_name(row, table), name=name, name2=type(exc).__name__, str=str(exc).rstrip('.')))


def _row_name(row: Any, table: Any) -> str:
    cols = list(table.columns)
    values = _sequence(row, cols)
    if "position" in cols:
        return _("the row of position {values}").format(values=values[cols.index('position')])
    key = ", ".join(f"{k} {values[cols.index(k)]!r}" for k in table.pk if k in cols)
    return f"the row ({key})" if key else "a row"


def _insert_all(campaign: Campaign, name: str, rows: list[Any], table: Any) -> None:
    cols = list(table.columns)
    values = _values(rows, cols)
    # the columns holding JSON are found on the first row (a read model's rows share their shape);
    # a row that breaks that rule makes SQLite refuse the batch, which is then converted cell by cell
    nested = [i for i, v in enumerate(values[0]) if isinstance(v, _NESTED)]
    if nested:
        enc = msgspec.json.encode

        def convert(v: tuple[Any, ...]) -> list[Any]:
            row = list(v)
            for i in nested:
                if isinstance(row[i], _NESTED):
                    row[i] = enc(row[i]).decode()
            return row

        values = [convert(v) for v in values]
    try:
        campaign.store.replace_rows(name, cols, values)
    except (sqlite3.ProgrammingError, sqlite3.InterfaceError):
        campaign.store.replace_rows(name, cols, [tuple(map(_cell, v)) for v in values])


_NESTED = (dict, list, tuple)


def _cell(v: Any) -> Any:
    if isinstance(v, (dict, list, tuple)):
        return msgspec.json.encode(v).decode()
    return v


class _Slot:
    """One projection being folded: its hooks, its state and the append rows not yet inserted."""

    __slots__ = ("projection", "evolve", "appended", "handles", "after", "state", "start", "pending", "count",
                 "problems")

    def __init__(self, p: Projection, after: int, state: Any, start: Any = None):
        self.projection, self.after, self.state, self.count = p, after, state, 0
        self.problems: list[str] = []  # the events it could not fold (one sentence each)
        self.start = start  # the checkpointed state the fold starts from (None after a clear)
        self.evolve = p.evolve
        self.appended = p.appended if p.append_tables else None
        self.handles = p.handles
        self.pending: dict[str, list[Any]] = {t: [] for t in p.append_tables}


def _fold(store: Any, slots: list[_Slot], until: int, flush: Callable[[], None] | None = None,
          progress: Progress | None = None) -> None:
    """Fold the log into every slot, each from its own position, up to ``until``.

    The log is read once per distinct starting position (a rebuild: once); each event goes only to
    the projections that handle its class (``Projection.handles``), looked up once per class.
    ``flush`` is called every 20,000 events (to insert the pending append rows).
    """
    starts = sorted({s.after for s in slots})
    total, done = until - starts[0], 0
    for i, after in enumerate(starts):
        upto = starts[i + 1] if i + 1 < len(starts) else until
        active = [s for s in slots if s.after <= after]
        routes: dict[type, list[tuple[Any, Any, dict[str, list[Any]], _Slot]]] = {}
        n = 0
        for rec in store.read_all(after=after, until=upto, hashes=False):
            cls = type(rec.event)
            targets = routes.get(cls)
            if targets is None:
                targets = routes[cls] = [(s.evolve, s.appended, s.pending, s) for s in active
                                         if s.handles is None or cls in s.handles]
            for evolve, appended, pending, s in targets:
                try:
                    st = evolve(s.state, rec)
                    out = appended(st, rec) if appended is not None else None
                except Exception as exc:  # noqa: BLE001 - an event it cannot hold must not stop the others
                    s.problems.append(f"read model {s.projection.name} skipped position {rec.position} "
                                      f"({type(exc).__name__}: {str(exc).rstrip('.')})")
                    continue
                s.state = st
                if out:
                    for table, rows in out.items():
                        pending[table].extend(rows)
            n += 1
            if n % 1000 == 0:
                if progress:
                    progress(done + n, total)
                if flush is not None and n % 20000 == 0:
                    flush()
        for s in active:
            s.count += n
        done += n


def _write_state(campaign: Campaign, p: Projection, s: _Slot) -> None:
    """Bring ``p``'s state tables to ``p.rows(s.state)``: only the rows that changed when the
    projection can tell them (a catch-up from its checkpoint), else every row again."""
    changed = None if s.start is None else p.changed_rows(s.start, s.state)
    if changed is None:
        for table in p.state_tables:
            campaign.store.clear_rows(table)
        for table, rows in p.rows(s.state).items():
            _insert(campaign, table, rows, p.state_tables[table], s.problems, p.name)
        return
    for table, (rows, gone) in changed.items():
        spec = p.state_tables[table]
        if gone:
            campaign.store.delete_rows(table, spec.pk, gone)
        _insert(campaign, table, rows, spec, s.problems, p.name)


def _run(campaign: Campaign, projs: list[Projection], *, rebuild: bool, progress: Progress | None,
         problems: list[str] | None = None) -> dict[str, int]:
    store = campaign.store
    counts: dict[str, int] = {}
    found: list[str] = []  # what the read models could not hold, one sentence each
    with store.transaction():
        _ensure_tables(campaign, projs)
        last = store.last_position()
        slots: list[_Slot] = []
        for p in projs:
            cp = None if rebuild else _checkpoint(campaign, p)
            start = cp[1] if cp is not None else None  # a checkpointed state: its tables hold rows(start)
            if cp is None:
                _clear(campaign, p)
                cp = (0, p.initial())
            if cp[0] < last:
                slots.append(_Slot(p, cp[0], cp[1], start))
            counts[p.name] = 0
        if not slots:
            return counts

        def flush() -> None:
            for s in slots:
                for table, rows in s.pending.items():
                    _insert(campaign, table, rows, s.projection.append_tables[table], s.problems, s.projection.name)
                    rows.clear()

        _fold(store, slots, last, flush, progress)
        flush()
        for s in slots:
            p = s.projection
            counts[p.name] = s.count
            try:
                if p.state_tables:
                    with store.savepoint():
                        _write_state(campaign, p, s)
                blob = None if p.world_state else msgspec.msgpack.encode(s.state)
            except Exception as exc:  # noqa: BLE001 - no checkpoint: the next catch-up folds it again
                s.problems.append(_("read model {name} could not be written ({name2}: {str})").format(name=p.name, name2=type(exc).__name__, str=str(exc).rstrip('.')))
                store.drop_checkpoint(p.name)
                continue
            store.put_checkpoint(p.name, p.version, last, blob)
        for s in slots:
            found.extend(s.problems)
        if progress:
            total = last - min(s.after for s in slots)
            progress(total, total)
    if problems is not None:
        problems.extend(found)
    elif found:  # a caller that asked for no list still learns of it, once the rest is written
        raise ReadModelsBehind(_("The read models are up to date except what they could not hold: {items}.").format(items='; '.join(found)))
    return counts


def catch_up(campaign: Campaign, *, progress: Progress | None = None,
             problems: list[str] | None = None) -> dict[str, int]:
    """Apply the events each projection has not seen; rebuild those whose version changed.

    An event a read model cannot fold, or a row SQLite cannot hold (a number an older engine let
    into the log), is skipped and the others go on: with ``problems`` (a list) each is told there
    in one sentence naming its position; without it, :class:`~cristal_events.errors.ReadModelsBehind`
    is raised once all the rest is written."""
    return _run(campaign, for_campaign(campaign), rebuild=False, progress=progress, problems=problems)


def rebuild(campaign: Campaign, *, progress: Progress | None = None,
            problems: list[str] | None = None) -> dict[str, int]:
    """Drop every read model and replay the whole log into it (what it cannot hold: :func:`catch_up`)."""
    return _run(campaign, for_campaign(campaign), rebuild=True, progress=progress, problems=problems)


def expected_rows(campaign: Campaign, p: Projection, progress: Progress | None = None) -> dict[str, list[Any]]:
    """The rows a full rebuild of ``p`` would write, computed in memory (the same fold as a rebuild)."""
    slot = _Slot(p, 0, p.initial())
    last = campaign.store.last_position()
    if last > 0:
        _fold(campaign.store, [slot], last, progress=progress)
    out: dict[str, list[Any]] = {t: [] for t in p.tables}
    out.update(slot.pending)
    for table, rows in p.rows(slot.state).items():
        out[table] = rows
    return out


def expected_table(campaign: Campaign, p: Projection, table: str) -> list[dict[str, Any]]:
    """One table of ``p`` as a full rebuild would store it, computed in memory: dicts keyed by column,
    nested values as JSON text and numbers as the column's SQLite type holds them, in primary-key
    order (what a read command shows when the stored table is behind the log or cannot be written)."""
    spec = p.tables[table]
    cols = list(spec.columns)
    kinds = [spec.columns[c].upper() for c in cols]
    rows = [dict(zip(cols, (_affinity(_cell(v), k) for v, k in zip(_sequence(r, cols), kinds))))
            for r in expected_rows(campaign, p)[table] if _holdable(r, cols)]
    dedup = {tuple(r[k] for k in spec.pk): r for r in rows}
    return [dedup[k] for k in sorted(dedup)]


def _affinity(v: Any, kind: str) -> Any:
    """``v`` as a column of SQLite type ``kind`` returns it (a REAL column gives 5.0 for 5)."""
    if kind == "REAL" and type(v) is int:
        return float(v)
    if kind == "INTEGER" and (type(v) is bool or (type(v) is float and v.is_integer())):
        return int(v)
    return v


def verify(campaign: Campaign, *, progress: Progress | None = None) -> list[str]:
    """Compare the stored read models to a full rebuild in memory; return the differences
    (``progress(done, total)`` as each read model's fold goes)."""
    problems = []
    store = campaign.store
    last = store.last_position()
    for p in for_campaign(campaign):
        cp = store.checkpoint(p.name)
        if cp is None:
            continue  # never built: nothing stored to disagree
        if cp[0] != p.version or cp[1] != last:
            problems.append(_("read model {name} is behind the log (run 'cristal rebuild')").format(name=p.name))
            continue
        for table, rows in expected_rows(campaign, p, progress).items():
            spec = p.tables[table]
            cols = list(spec.columns)
            stored = store.table_rows(table, cols, spec.pk)
            want = sorted((tuple(map(_cell, _sequence(r, cols))) for r in rows if _holdable(r, cols)),
                          key=lambda t: tuple(t[cols.index(k)] for k in spec.pk))
            dedup = {tuple(t[cols.index(k)] for k in spec.pk): t for t in want}
            want = [dedup[k] for k in sorted(dedup)]
            if stored != want:
                problems.append(_("read model {name} (table {table}) differs from a rebuild of the log").format(name=p.name, table=table))
    return problems


def _holdable(row: Any, cols: list[str]) -> bool:
    """Whether SQLite can hold ``row`` (no integer past 64 bits): the rows a catch-up skips, with a
    warning naming them, are not expected of the stored tables either."""
    return all(not (type(v) is int and not -2**63 <= v < 2**63) for v in _sequence(row, cols))
