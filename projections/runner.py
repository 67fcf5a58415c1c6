"""Runs projections: incremental catch-up, full rebuild, and verification against a rebuild.

Each projection's checkpoint (version, last position, state) is written in the same transaction
as its rows, so a crash leaves either both or neither.
"""

from __future__ import annotations

import os
import sqlite3
import time
import weakref
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

import msgspec

from cristal_events.errors import ReadModelsBehind
from cristal_events.i18n import _
from cristal_events.log_rows import decoded

from . import for_campaign
from .base import Projection

if TYPE_CHECKING:
    from cristal_events import Campaign

Progress = Callable[[int, int], None]


def _specs(projs: Iterable[Projection]) -> dict[str, tuple[dict[str, str], tuple[str, ...]]]:
    return {name: (table.columns, table.pk) for p in projs for name, table in p.tables.items()}


def _ensure_tables(campaign: Campaign, projs: Iterable[Projection]) -> None:
    campaign.store.create_read_tables(_specs(projs))


#: the checkpoint states a campaign kept open wrote last, by read model: ``(version, position, state)``.
#: A console or a web table runs many commands on one open Campaign; decoding the state of its last
#: checkpoint again at each command (the XP ledger of a big campaign: several ms) is what it saves.
#: The states are immutable values (pure folds), and an entry is used only while the stored checkpoint
#: still has its version and position (another writer's catch-up moves it, a rollback leaves it behind).
_written: weakref.WeakKeyDictionary[Any, dict[str, tuple[int, int, Any]]] = weakref.WeakKeyDictionary()

#: the ``rows_state`` read models whose stored checkpoint keeps a copy of the state (a catch-up that
#: could not write or fold everything): their tables may lack a row of the state, so the checkpoint
#: keeps the state until a rebuild writes every row again
_state_kept: weakref.WeakKeyDictionary[Any, set[str]] = weakref.WeakKeyDictionary()


def _checkpoint(campaign: Campaign, p: Projection) -> tuple[int, Any] | None:
    kept = None if p.world_state else _written.get(campaign.store, {}).get(p.name)
    if kept is not None and campaign.store.checkpoint_head(p.name) == (kept[0], kept[1]) and kept[0] == p.version:
        return kept[1], kept[2]
    row = campaign.store.checkpoint(p.name)
    if row is None or row[0] != p.version:
        return None
    if p.world_state:
        return row[1], p.state_of(campaign.world_at(row[1]))
    if p.rows_state:
        kept_state = _state_kept.setdefault(campaign.store, set())
        if row[2] is None:  # the state is what its tables hold
            kept_state.discard(p.name)
            store = campaign.store
            return row[1], p.state_from_rows({t: store.table_rows(t, list(spec.columns), list(spec.pk))
                                              for t, spec in p.state_tables.items()})
        kept_state.add(p.name)
    try:
        state = msgspec.msgpack.decode(row[2], type=p.state_type) if row[2] is not None else p.initial()
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
    return row[1], state


def _keeps_state(store: Any, name: str, s: _Slot) -> bool:
    """Whether the checkpoint of ``rows_state`` read model ``name`` must keep a copy of its state
    (see :data:`_state_kept`), and remember it."""
    kept_state = _state_kept.setdefault(store, set())
    if s.problems or (s.start is not None and name in kept_state):
        kept_state.add(name)
        return True
    kept_state.discard(name)
    return False


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


#: the rows converted and inserted at a time: the JSON text of a batch of big rows (the sheets of a
#: 1M-event campaign: 2,286 rows, each with its whole sheet) is never all held at once
INSERT_CHUNK = 500


def _insert_all(campaign: Campaign, name: str, rows: list[Any], table: Any) -> None:
    cols = list(table.columns)
    values = _values(rows, cols)
    # the columns holding JSON are found on the first row (a read model's rows share their shape);
    # a row that breaks that rule makes SQLite refuse the batch, which is then converted cell by cell
    nested = [i for i, v in enumerate(values[0]) if isinstance(v, _NESTED)]
    enc = msgspec.json.encode

    def convert(v: tuple[Any, ...]) -> list[Any]:
        row = list(v)
        for i in nested:
            if isinstance(row[i], _NESTED):
                row[i] = enc(row[i]).decode()
        return row

    for at in range(0, len(values), INSERT_CHUNK):
        part = values[at:at + INSERT_CHUNK]
        if nested:
            part = [convert(v) for v in part]
        try:
            campaign.store.replace_rows(name, cols, part)
        except (sqlite3.ProgrammingError, sqlite3.InterfaceError):
            campaign.store.replace_rows(name, cols, [tuple(map(_cell, v)) for v in part])


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


#: the events folded between two inserts of the pending append rows (a multiple of 1,000)
FLUSH_EVERY = 20_000


def _fold(store: Any, slots: list[_Slot], until: int, flush: Callable[[], None] | None = None,
          progress: Progress | None = None) -> None:
    """Fold the log into every slot, each from its own position, up to ``until``.

    The log is read once per distinct starting position (a rebuild: once); each event goes only to
    the projections that handle its class (``Projection.handles``), looked up once per class.
    ``flush`` is called every :data:`FLUSH_EVERY` events (to insert the pending append rows).
    """
    starts = sorted({s.after for s in slots})
    total, done, flush_every = until - starts[0], 0, FLUSH_EVERY
    for i, after in enumerate(starts):
        upto = starts[i + 1] if i + 1 < len(starts) else until
        active = [s for s in slots if s.after <= after]
        routes: dict[type, list[tuple[Any, Any, dict[str, list[Any]], _Slot]]] = {}
        n = 0
        needed = _needed_types(store, active)
        recs = store.read_all(after=after, until=upto, hashes=False, decode=needed is None)
        for rec in recs if needed is None else _decoded_if(recs, store.codec, needed):
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
                if flush is not None and n % flush_every == 0:
                    flush()
        for s in active:
            s.count += n
        done += n


def _needed_types(store: Any, active: list[_Slot]) -> frozenset[str] | None:
    """The event types whose payloads the ``active`` slots read, when they fold none of the rules'
    state and each says what it reads (``Projection.handles``, ``Projection.payload_fields``); else
    None (decode every event).

    Why: the second process of a rebuild folds the sessions and the ledger alone over the first part
    of the log, which reads one payload in ten (the ledger's XP events, the session starts); decoding
    the others was most of its time there (benchmarks/README.md, "Eighth session"). Where the rules'
    read models fold, three events in four are theirs, and decoding the few others apart costs more
    than it saves."""
    classes: set[type] = set()
    for s in active:
        p = s.projection
        if p.world_state:
            return None
        if s.handles is not None:
            classes |= s.handles
        elif p.payload_fields is not None:
            classes.update(c for c in store.codec.classes
                           if any(f in c.__struct_fields__ for f in p.payload_fields))
        else:
            return None
    tags = {getattr(getattr(c, "__struct_config__", None), "tag", None) for c in classes}
    if not all(isinstance(t, str) for t in tags):  # an untagged class: its rows cannot be told by their type
        return None
    return frozenset(t for t in tags if isinstance(t, str))


def _decoded_if(recs: Iterable[Any], codec: Any, needed: frozenset[str]) -> Iterator[Any]:
    """``recs`` (read undecoded, without hashes) with the events of the ``needed`` types decoded by the
    store's own decoding (:func:`cristal_events.log_rows.decoded`: its upcasting and its errors)."""
    astuple = msgspec.structs.astuple
    for rec in recs:
        if rec.type in needed:
            rec = next(decoded((astuple(rec)[:12],), codec, ("", "")))
        yield rec


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


#: the page cache of a rebuild's connection, in KiB (None: SQLite's own, 2,000 KiB): see Store.page_cache
REBUILD_CACHE_KIB: int | None = None

#: a rebuild of at least this many events folds the read models that keep a state of their own in a
#: second process (see :func:`_fold_beside`); below it a fork costs more than it saves
PARALLEL_REBUILD_MIN = 20_000

#: the cell values a row may carry from the second process unchanged (msgpack keeps each as it is)
_PLAIN = (type(None), bool, int, float, str, bytes)
_PLAIN_TYPES = frozenset(_PLAIN)


class _Done(msgspec.Struct, array_like=True):
    """The second process's last word on one projection it folded (its rows came before, in frames)."""

    state_rows: dict[str, list[tuple[Any, ...]]]  #: its state tables' rows
    blob: bytes  #: its state, as the checkpoint keeps it
    count: int
    problems: list[str]  #: what it could not fold, one sentence each


#: one frame of the second process: (projection, table, rows) or, last, every projection's _Done
_Frame = tuple[str, str, list[tuple[Any, ...]]] | dict[str, _Done]


def _plain_rows(rows: list[Any], table: Any) -> list[Any]:
    """``rows`` as sequences of plain cells in column order, nested values as the JSON text
    :func:`_insert_all` would store; ValueError for a cell msgpack would not give back as it is.

    A row whose cells are all of the plain types is kept as it is (most rows: the combat log's, a
    third of a rebuild's rows, checked cell by cell cost the second process 1.4 us a row); an integer
    of it past 64 bits is then refused by the frame's msgpack encoder (OverflowError), which fails
    the second process as the ValueError would: this process then folds its read models itself."""
    enc = msgspec.json.encode
    plain = _PLAIN_TYPES.issuperset
    out: list[Any] = []
    nested: list[int] | None = None  # the JSON columns, found on the first row that has one (as _insert_all)
    for v in _values(rows, list(table.columns)):
        if plain(map(type, v)):
            out.append(v)
            continue
        if nested is None:
            nested = [i for i, c in enumerate(v) if isinstance(c, _NESTED)]
        row = list(v)
        for i in nested:
            if isinstance(row[i], _NESTED):
                row[i] = enc(row[i]).decode()
        if plain(map(type, row)):  # the ledger's rows: their flags as JSON, the rest as it is
            out.append(row)
            continue
        row = [enc(c).decode() if isinstance(c, _NESTED) else c for c in v]
        for c in row:
            if type(c) not in _PLAIN or (type(c) is int and not -(1 << 63) <= c < (1 << 64)):
                raise ValueError(f"a cell of type {type(c).__name__}")
        out.append(row)
    return out


def _free_core() -> bool:
    """Whether a second process would find a core of its own (``cristal_events.cores.idle``: the
    tasks runnable now besides this one leave a core idle). On a busy machine the two processes
    share the cores the others leave, and a rebuild in two processes measured 1.4 to 1.7 x slower
    than in one (benchmarks/README.md, "Levers, A/B")."""
    from cristal_events import cores  # a rebuild only: a catch-up never forks

    return hasattr(os, "fork") and cores.idle() >= 1


#: where a rebuild splits the log for the read models that fold the rules' state (``world_state``):
#: this process folds them up to the usable snapshot at or before this share of the log, the second
#: process from that snapshot's state on, beside the others (see :func:`_split_point`)
SPLIT_AT = 0.6


def _split_point(campaign: Campaign, last: int) -> Any:
    """The campaign's world at the newest usable snapshot at or before ``SPLIT_AT`` of the log, where
    the second process starts folding the world read models; None (no split) without one in the
    second half of that share.

    Why: the rules' fold and the combat log are most of a rebuild (benchmarks/README.md, "Eighth
    session"); the sessions and the ledger alone left the second process idle most of the time. The
    state at a position is a function of the log up to it, so the two parts fold the same rows as one
    fold, provided the snapshot is right: the caller checks that its own fold reached the same state
    there (:func:`_run`), and folds the rest itself otherwise."""
    target = int(last * SPLIT_AT)
    world = campaign._load_snapshot(target)
    if world is None or world.core.position < target // 2:
        return None
    return world


def _own_file(store: Any) -> bool:
    """Whether the second process can open the campaign on its own connection: a SQLite file (a
    PostgreSQL campaign's rebuild runs in one process; the child's connection would fail and this
    process fold everything after its own part)."""
    from cristal_events.store import Store

    return isinstance(store, Store) and os.path.isfile(store.path)


class _ChildFailed(Exception):
    """The second process of a rebuild ended without its last frame."""


def _fold_beside(campaign: Campaign, slots: list[_Slot], until: int) -> Iterator[_Frame]:
    """Fold ``slots`` (a rebuild of read models whose state is their own, not the rules', from the
    start, and the rules' read models from the snapshot :func:`_split_point` found, each slot from its
    own position) in a forked child on its own read-only connection, while this process folds the
    others (and the rules' read models up to that snapshot). Returns the child's
    frames as it writes them: (projection, table, rows) every 20,000 events, then one dict of every
    projection's :class:`_Done`; reading them waits for the child where needed and raises
    :class:`_ChildFailed` if it ends without its last frame (the caller then folds them itself).

    The child writes to an unnamed temporary file (each frame in one ``os.write``, the reader using
    ``os.pread``, so that the two never share a file offset), so it never waits for this process,
    which may still be folding; it never touches this process's connection and leaves by ``os._exit``.

    Why: a rebuild is bound by one core's Python (the rules fold, the combat log); a second core
    folds the sessions and the ledger, and the later part of the rules' read models, at the same time
    (the timeline is copied in SQL, :func:`_copy_rows`) (benchmarks/README.md, "Levers, A/B" and
    "Eighth session"). The rows are inserted by this process, which holds the
    write transaction, with the same :func:`_insert` (and its skipped-row sentences) as a rebuild in
    one process."""
    import tempfile  # (and its shutil, bz2, lzma) only for a rebuild's second process, not a command's catch-up

    from cristal_events.store import Store

    out = tempfile.TemporaryFile()
    fd = out.fileno()
    try:
        pid = os.fork()
    except OSError:
        out.close()
        raise _ChildFailed from None
    if pid == 0:  # pragma: no cover - the child's coverage is not collected
        code = 1
        try:
            store = Store.open(campaign.store.path, campaign.store.codec, readonly=True)
            encode = msgspec.msgpack.Encoder().encode

            def write(frame: Any) -> None:
                data = encode(frame)
                view = memoryview(len(data).to_bytes(8, "little") + data)
                while view:
                    view = view[os.write(fd, view):]

            def flush() -> None:  # every 20,000 events: the rows go to the file, not to memory
                for s in slots:
                    spec = s.projection.append_tables
                    for table, rows in s.pending.items():
                        if rows:
                            write((s.projection.name, table, _plain_rows(rows, spec[table])))
                            rows.clear()

            _fold(store, slots, until, flush)
            flush()
            write({s.projection.name: _Done({t: _plain_rows(rows, s.projection.state_tables[t])
                                             for t, rows in s.projection.rows(s.state).items()},
                                            b"" if s.projection.world_state else msgspec.msgpack.encode(s.state),
                                            s.count, s.problems)
                   for s in slots})
            code = 0
        finally:
            os._exit(code)
    return _frames(out, pid)


def _frames(out: Any, pid: int) -> Iterator[_Frame]:
    """The frames the child ``pid`` writes to ``out``, each as soon as it is whole."""
    decode = msgspec.msgpack.Decoder(_Frame).decode
    fd, pos, status, pause = out.fileno(), 0, None, 0.0005

    def read(n: int) -> bytes | None:  # n bytes at pos, or None while the child has not written them
        data = os.pread(fd, n, pos)
        return data if len(data) == n else None

    try:
        while True:
            head = read(8)
            data = head and os.pread(fd, int.from_bytes(head, "little"), pos + 8)
            if head and data is not None and len(data) == int.from_bytes(head, "little"):
                pos += 8 + len(data)
                frame = decode(data)
                yield frame
                if isinstance(frame, dict):
                    break
                continue
            if status is not None:  # ended, and everything it wrote has been read
                raise _ChildFailed
            done, code = os.waitpid(pid, os.WNOHANG)
            if done:
                status = code  # read once more: its last frame may have come just before it ended
            else:
                time.sleep(pause)
        if status is None:
            _, status = os.waitpid(pid, 0)
        if status != 0:
            raise _ChildFailed
    finally:
        if status is None:  # the caller stopped early (an error): the child is of no more use
            import signal

            try:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            except OSError:
                pass
        out.close()


def _run(campaign: Campaign, projs: list[Projection], *, rebuild: bool, progress: Progress | None,
         problems: list[str] | None = None) -> dict[str, int]:
    store = campaign.store
    counts: dict[str, int] = {}
    found: list[str] = []  # what the read models could not hold, one sentence each
    with store.page_cache(REBUILD_CACHE_KIB if rebuild else None), store.transaction():
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

        copied = [s for s in slots if s.projection.log_columns]  # their rows are copied, not folded
        slots = [s for s in slots if not s.projection.log_columns]

        def flush() -> None:
            for s in slots:
                for table, rows in s.pending.items():
                    _insert(campaign, table, rows, s.projection.append_tables[table], s.problems, s.projection.name)
                    rows.clear()

        beside = [s for s in slots if not s.projection.world_state]
        world = [s for s in slots if s.projection.world_state]
        frames, later, until = None, [], last  # later: the world read models' second part, in the child
        if rebuild and last >= PARALLEL_REBUILD_MIN and world and _own_file(store) and _free_core():
            split = _split_point(campaign, last)
            if split is not None:
                until = split.core.position
                later = [_Slot(s.projection, until, s.projection.state_of(split)) for s in world]
            if beside or later:
                try:
                    frames = _fold_beside(campaign, beside + later, last)
                    slots = world
                except _ChildFailed:
                    frames, later, until = None, [], last
        if slots:
            _fold(store, slots, until, flush, progress if until == last or progress is None else
                  lambda done, total: progress(done * last // until, last))  # this process's share of the work
            flush()
        for s in copied:  # before the child's rows: this process does not wait for the child to copy them
            _copy_rows(campaign, s, last)
        found_beside: list[str] = []
        if frames is not None:
            # the child's part of the world read models holds only if it started from the state this
            # process's fold reached there (a snapshot is a cache: a rebuild folds the log): else it is
            # dropped and this process folds the rest itself
            agreed = all(s.state == t.state for s, t in zip(world, later))
            try:
                found_beside = _write_beside(campaign, beside + later if agreed else beside, frames, last, counts,
                                             {s.projection.name: (s.count, s.problems) for s in world if agreed and later})
            except _ChildFailed:  # the child failed: empty what it sent, and fold its read models here
                redo = beside + [_Slot(s.projection, 0, s.projection.initial()) for s in world if later]
                for s in redo:
                    _clear(campaign, s.projection)
                slots = [s for s in slots if not later or not s.projection.world_state] + redo
                _fold(store, redo, last, flush)
                flush()
            else:
                if later and agreed:  # their rows and checkpoints are written: nothing more of them here
                    slots = [s for s in slots if not s.projection.world_state]
                elif later:
                    for s in world:
                        s.after = until
                    _fold(store, world, last, flush)
                    flush()
        slots = slots + copied
        for s in slots:
            p = s.projection
            counts[p.name] = s.count
            try:
                if p.state_tables:
                    with store.savepoint():
                        _write_state(campaign, p, s)
                if not p.world_state and s.start is not None and s.state is s.start and not s.problems:
                    # nothing this read model folds changed its state (a fight's attack for the XP
                    # ledger): the stored state stays, only its position moves (no blob rewritten)
                    store.move_checkpoint(p.name, p.version, last)
                    _written.setdefault(store, {})[p.name] = (p.version, last, s.state)
                    continue
                # a rows_state read model's tables hold its state, unless some of it could not be
                # written or folded: then its state is kept in the checkpoint as for the others
                blob = None if p.world_state else msgspec.msgpack.encode(s.state) if (
                    not p.rows_state or _keeps_state(store, p.name, s)) else None
            except Exception as exc:  # noqa: BLE001 - no checkpoint: the next catch-up folds it again
                s.problems.append(_("read model {name} could not be written ({name2}: {str})").format(name=p.name, name2=type(exc).__name__, str=str(exc).rstrip('.')))
                store.drop_checkpoint(p.name)
                continue
            store.put_checkpoint(p.name, p.version, last, blob)
            if not p.world_state:
                _written.setdefault(store, {})[p.name] = (p.version, last, s.state)
        for s in slots:
            found.extend(s.problems)
        found.extend(found_beside)
        if progress:
            total = last - min((s.after for s in slots), default=0)
            progress(total, total)
    if problems is not None:
        problems.extend(found)
    elif found:  # a caller that asked for no list still learns of it, once the rest is written
        raise ReadModelsBehind(_("The read models are up to date except what they could not hold: {items}.").format(items='; '.join(found)))
    return counts


def _copy_rows(campaign: Campaign, s: _Slot, last: int) -> None:
    """Write the rows of a read model made of the log's envelope (``Projection.log_columns``: the
    timeline) for the events after its position up to ``last``, copied by the store in SQL.

    Why: they are the columns the log already holds; folding them in Python built a tuple per event,
    kept up to 20,000 of them pending and inserted them in multi-row statements (about a fifth of a
    rebuild and a third of its inserted rows; benchmarks/README.md, "Levers, A/B")."""
    p = s.projection
    for table, sources in p.log_columns.items():
        s.count = campaign.store.copy_log_rows(table, list(p.append_tables[table].columns), sources, s.after, last)


def _write_beside(campaign: Campaign, beside: list[_Slot], frames: Iterator[_Frame], last: int,
                  counts: dict[str, int], earlier: dict[str, tuple[int, list[str]]] | None = None) -> list[str]:
    """Insert the rows the second process folded (:func:`_fold_beside`) and checkpoint its read
    models (their event counts into ``counts``); what they could not fold or hold, one sentence each,
    in the order of ``beside``. The frames of a read model not in ``beside`` are skipped (a world read
    model's part this process folds again). ``earlier``: for a world read model whose first part this
    process folded, that part's event count and what it could not fold."""
    store = campaign.store
    specs = {s.projection.name: s.projection for s in beside}
    problems: dict[str, list[str]] = {name: [] for name in specs}
    earlier = earlier or {}
    for frame in frames:
        if isinstance(frame, tuple):
            name, table, rows = frame
            if name in specs:
                _insert(campaign, table, rows, specs[name].append_tables[table], problems[name], name)
            continue
        for name, done in frame.items():
            if name not in specs:
                continue
            p, found = specs[name], problems[name]
            count, first = earlier.get(name, (0, []))
            found[:0] = [*first, *done.problems]
            counts[name] = count + done.count
            try:
                if p.state_tables:
                    with store.savepoint():
                        for table in p.state_tables:
                            store.clear_rows(table)
                        for table, rows in done.state_rows.items():
                            _insert(campaign, table, rows, p.state_tables[table], found, name)
            except Exception as exc:  # noqa: BLE001 - no checkpoint: the next catch-up folds it again
                found.append(f"read model {name} could not be written ({type(exc).__name__}: "
                             f"{str(exc).rstrip('.')})")
                store.drop_checkpoint(name)
            else:
                if p.rows_state and not found:  # every row written from scratch: the tables hold the state
                    _state_kept.setdefault(store, set()).discard(name)
                    store.put_checkpoint(name, p.version, last, None)
                else:
                    if p.rows_state:
                        _state_kept.setdefault(store, set()).add(name)
                    store.put_checkpoint(name, p.version, last, None if p.world_state else done.blob)
    return [line for name in specs for line in problems[name]]


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
