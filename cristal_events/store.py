"""The append-only event store: one SQLite file per campaign.

Python API::

    store = Store.open("campaign.db", codec)            # existing campaign, migrations applied
    positions = store.append("character:thor", [event], expected_version=3)
    for rec in store.read_all(after=0): ...
    store.read_stream("character:thor", after_version=0)
    store.last_position(); store.verify()

Appends run in one ``BEGIN IMMEDIATE`` transaction (WAL journal, busy timeout), so a
check-then-append cannot race. Each row carries the SHA-256 of its canonical encoding chained to
the previous row's hash; ``verify`` recomputes the chain and reports the first bad position.
SQLite triggers abort every UPDATE and DELETE on the events table.
"""

import itertools
import os
import sqlite3
import sys
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import closing, contextmanager, nullcontext
from datetime import UTC, datetime
from typing import Any

import msgspec

from . import migrate
from .codec import Codec, encode
from .errors import (
    CampaignDamaged,
    ConcurrencyConflict,
    CristalError,
    IntegrityError,
    NotACampaign,
    StoreUnavailable,
)
from .events import Event
from .i18n import _
from .log_rows import (  # shared with the PostgreSQL store (re-exported: callers import them from here)
    ANY,
    BULK_HASHES,
    GENESIS,
    IMPORT_FIELDS,
    LOG_COPY_COLUMNS,
    SESSION_ENDS,
    VerifyReport,
    access_row,
    chained,
    decoded,
    gap_problem,
    hash_encoder,
    ident,
    new_event_id,
    new_event_ids,
    row_hash,
    sha256,
    still_sealed,
    unlinked_problem,
    utc_now,
    validated,
)
from .records import RecordedEvent  # the envelope is the kernel's; re-exported for old callers

#: the names other modules import from here (those of .log_rows included)
__all__ = ["ANY", "GENESIS", "IMPORT_FIELDS", "LOG_COPY_COLUMNS", "VerifyReport", "access_row", "gap_problem", "ident", "new_event_id", "new_event_ids", "row_hash", "unlinked_problem", "utc_now", "Store", "RecordedEvent"]

#: a ``--db`` target naming a PostgreSQL campaign starts with one of these (cristal_events/store_pg.py)
POSTGRES_SCHEMES = ("postgresql://", "postgres://")
#: the constraint failures of an append whose stream or position another writer took first
_MOVED = (sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY)
#: the columns of a row's canonical array, the input of its hash, in order
_CANONICAL = ("prev_hash, position, event_id, stream, version, type, schema_version, payload, recorded_at, "
              "session, actor, causation_id, correlation_id")
_SQLITE_MAX_INT = 2**63 - 1  # the largest integer SQLite binds
#: an import of at least so many rows into an empty log goes through the rollback journal
#: (Store._rollback_journal): its two switches and syncs cost about 19 ms, which the rows repay from
#: about 6,000 on (3.3 us a row; benchmarks/README.md, "Eighth session")
ROLLBACK_JOURNAL_MIN = 10_000

_COLUMNS = (
    "position, event_id, stream, version, type, schema_version, payload, recorded_at, session, actor, "
    "causation_id, correlation_id, prev_hash, hash"
)
_WIDTH = 14  # the columns of _COLUMNS
_ROW_MARKS = "(" + ",".join("?" * _WIDTH) + ")"
#: event types with a partial index of their own (migration 0003): type -> index
_INDEXED_TYPES = {"session.started": "events_session_starts"}
_COLUMNS_NO_HASHES = _COLUMNS.replace(", prev_hash, hash", "")


#: the first 16 bytes of every SQLite database file
SQLITE_HEADER = b"SQLite format 3\x00"


def _starts_like_sqlite(path: str | os.PathLike[str]) -> bool:
    """Whether the file begins with the SQLite header. Read only once SQLite has refused the file as
    "not a database" (no connection of this process can rely on the locks that closing it drops)."""
    try:
        with open(path, "rb") as fh:
            return fh.read(len(SQLITE_HEADER)) == SQLITE_HEADER
    except OSError:
        return False


def damaged(path: str | os.PathLike[str], what: str) -> CampaignDamaged:
    """The sentence for a campaign file whose SQLite pages are truncated or corrupted."""
    return CampaignDamaged(
        _("{path} is damaged (truncated or corrupted): SQLite reports {what!r} and nothing was written; "
          "restore a copy (a backup of the file, or a JSONL export checked with 'cristal verify --file "
          "EXPORT.jsonl' and rebuilt with 'cristal import EXPORT.jsonl NEW.db').").format(path=path, what=what)
    )


def translate_sqlite_error(exc: sqlite3.Error, path: str | os.PathLike[str]) -> CristalError:
    """One clear sentence for the SQLite failures a user can meet, classified by the exception's class and
    SQLite error code (``sqlite_errorcode``; its low byte is the primary code), never by its message."""
    code = getattr(exc, "sqlite_errorcode", None)
    primary = code & 0xFF if isinstance(code, int) else None
    if primary in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED):
        return StoreUnavailable(_("The campaign {path} is locked by another program past the timeout; nothing "
                                  "was written.").format(path=path))
    if primary == sqlite3.SQLITE_READONLY:
        return StoreUnavailable(_("The campaign {path} is read-only; nothing was written.").format(path=path))
    if primary == sqlite3.SQLITE_FULL:
        return StoreUnavailable(_("The disk holding {path} is full; nothing was written.").format(path=path))
    if primary == sqlite3.SQLITE_IOERR:
        return StoreUnavailable(_("The disk holding {path} failed to read or write it (I/O error); nothing was "
                                  "written.").format(path=path))
    if primary == sqlite3.SQLITE_CORRUPT:
        return damaged(path, str(exc))
    if primary == sqlite3.SQLITE_NOTADB:
        if _starts_like_sqlite(path):
            return damaged(path, str(exc))
        return NotACampaign(_("{path} is not a campaign file (not an SQLite database).").format(path=path))
    if primary == sqlite3.SQLITE_CANTOPEN:
        return NotACampaign(_("{path} cannot be opened (its folder or file is missing or not accessible).").format(path=path))
    if code == sqlite3.SQLITE_CONSTRAINT_TRIGGER:  # RAISE(ABORT) of the triggers guarding the log
        return IntegrityError(_("The event log of {path} is append-only; events cannot be changed or removed.").format(path=path))
    name = getattr(exc, "sqlite_errorname", None) or type(exc).__name__
    return StoreUnavailable(_("The campaign {path} could not be used: {exc} ({name}).").format(path=path, exc=exc, name=name))


class Store:
    """An append-only event log in one SQLite file."""

    def __init__(self, conn: sqlite3.Connection, path: str, codec: Codec | None = None):
        self.conn = conn
        self.path = path
        self.codec = codec
        self._depth = 0
        self._insert_sql: dict[int, str] = {}
        self._chunk: int | None = None
        self._snapshot_columns: bool | None = None  # see _bound_snapshots
        self._sqlite_utils: Any = None  # see read_model_db

    # ------------------------------------------------------------------ opening
    @classmethod
    def create(cls, path: str | os.PathLike[str], codec: Codec | None = None, *, timeout: float | None = None) -> "Store":
        """Create a new, empty campaign file (refuses an existing file)."""
        p = path_text(path)
        if os.path.exists(p):
            raise CristalError(_("{p} already exists; choose another path or remove it first.").format(p=p))
        parent = _parent(p)
        if not os.path.exists(parent):
            raise CristalError(_("The folder {parent} does not exist.").format(parent=parent))
        try:
            conn = _connect(p, "rwc", timeout)
            conn.execute("PRAGMA journal_mode=WAL")
            migrate.apply_pending(conn)
        except sqlite3.Error as exc:
            raise translate_sqlite_error(exc, p) from None
        return cls(conn, p, codec)

    @classmethod
    def open(cls, path: str | os.PathLike[str], codec: Codec | None = None, *, timeout: float | None = None,
             readonly: bool = False) -> "Store":
        """Open an existing campaign, applying pending migrations (unless read-only)."""
        p = path_text(path)
        if not os.path.exists(p):
            raise NotACampaign(_("No campaign at {p}; create one with 'cristal init {p} --name NAME'.").format(p=p))
        if os.path.isdir(p):
            raise NotACampaign(_("{p} is a folder, not a campaign file.").format(p=p))
        # No plain open()/close() of the file here: closing any descriptor of a database file drops
        # every POSIX lock this process holds on it, including those of an SQLite connection already
        # open on it, which lets another process write under that connection's feet. SQLite itself
        # says "file is not a database" for a file that is not one.
        if not os.access(p, os.R_OK):
            raise NotACampaign(_("{p} cannot be read (permission denied).").format(p=p))
        if os.stat(p).st_size == 0 and not os.path.exists(f"{p}-wal"):
            # SQLite would take an empty file for an empty database (and call it "not a campaign")
            raise CampaignDamaged(_("{p} is empty (0 bytes): a campaign truncated to nothing, or not a "
                                    "campaign file; restore a copy (a backup, or 'cristal import' of a JSONL "
                                    "export).").format(p=p))
        try:
            conn = _connect(p, "ro" if readonly else "rw", timeout)
            app_id = conn.execute("PRAGMA application_id").fetchone()[0]
            if app_id != migrate.APPLICATION_ID:
                conn.close()
                raise NotACampaign(_("{p} is an SQLite file but not a cristal-events campaign.").format(p=p))
            if readonly:
                migrate.check(conn)
            else:
                migrate.apply_pending(conn)
        except sqlite3.Error as exc:
            raise translate_sqlite_error(exc, p) from None
        return cls(conn, p, codec)

    def close(self) -> None:
        self.conn.close()

    # ------------------------------------------------------------ transactions
    @contextmanager
    def transaction(self) -> Iterator[None]:
        """A write transaction started with BEGIN IMMEDIATE; re-entrant (inner calls join the outer one)."""
        if self._depth:
            self._depth += 1
            try:
                yield
            finally:
                self._depth -= 1
            return
        try:
            self.conn.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise translate_sqlite_error(exc, self.path) from None
        self._depth = 1
        try:
            yield
        except BaseException:
            self._depth = 0
            try:
                self.conn.execute("ROLLBACK")
            except sqlite3.Error:
                pass
            raise
        self._depth = 0
        try:
            self.conn.execute("COMMIT")
        except sqlite3.Error as exc:
            try:
                self.conn.execute("ROLLBACK")
            except sqlite3.Error:
                pass
            raise translate_sqlite_error(exc, self.path) from None

    # ------------------------------------------------------------------ writing
    def stream_version(self, stream: str) -> int:
        row = self.conn.execute("SELECT MAX(version) FROM events WHERE stream = ?", (stream,)).fetchone()
        return row[0] or 0

    def append(self, stream: str, events: Sequence[Event], expected_version: int | None = ANY, *,
               event_ids: Sequence[str] | None = None, actor: str = "GM", session: int | None = None,
               causation_id: str | None = None, correlation_id: str | None = None,
               recorded_at: str | None = None, causation_ids: Sequence[str | None] | None = None) -> list[int]:
        """Append ``events`` to ``stream`` atomically; return their global positions.

        ``expected_version`` is the stream version the caller decided on (0: the stream must be new;
        ``None``: no check); a mismatch raises :class:`ConcurrencyConflict`. When every id of
        ``event_ids`` is already stored, nothing is written and their original positions are
        returned (an idempotent retry).
        """
        if not events:
            return []
        ids = list(event_ids) if event_ids is not None else new_event_ids(len(events))
        if len(ids) != len(events):
            raise ValueError("event_ids and events differ in length")
        try:
            with self.transaction():
                if event_ids is not None:
                    known = self._positions_of(ids)
                    if len(known) == len(ids):
                        return [known[i] for i in ids]
                    if known:
                        raise ConcurrencyConflict(
                            _("{len} of the {len2} event ids are already stored; a retry must resend the same "
                              "batch.").format(len=len(known), len2=len(ids))
                        )
                current = self.stream_version(stream)
                if expected_version is not None and current != expected_version:
                    raise ConcurrencyConflict(
                        _("Stream {stream} is at version {current}, not {expected_version}: someone else wrote "
                          "first; retry.").format(stream=stream, current=current, expected_version=expected_version)
                    )
                position, prev = self._head()
                when = recorded_at or utc_now()
                rows = []
                enc, sha = hash_encoder.encode, sha256(len(ids))
                for i, (event, eid) in enumerate(zip(events, ids)):
                    position += 1
                    cause = causation_ids[i] if causation_ids is not None else causation_id
                    # the canonical array of row_hash, built once and reused as the row
                    canon = (prev, position, eid, stream, current + i + 1, event.__struct_config__.tag,
                             type(event).version, encode(event).decode(), when, session, actor, cause, correlation_id)
                    h = sha(enc(canon)).hexdigest()
                    rows.append((*canon[1:], prev, h))
                    prev = h
                self._insert(rows)
        except sqlite3.IntegrityError as exc:
            if getattr(exc, "sqlite_errorcode", None) in _MOVED:
                raise ConcurrencyConflict(_("Stream {stream} moved while appending ({exc}); retry.").format(stream=stream, exc=exc)) from None
            raise translate_sqlite_error(exc, self.path) from None
        except sqlite3.Error as exc:
            raise translate_sqlite_error(exc, self.path) from None
        except UnicodeEncodeError:  # e.g. argv bytes that were not UTF-8 (surrogate escapes)
            raise CristalError(_("Text with characters that are not valid Unicode cannot be stored; nothing "
                                 "was written.")) from None
        return [r[0] for r in rows]

    def append_rows(self, rows: Iterable[dict[str, Any]]) -> int:
        """Append pre-built rows given as dicts of :data:`IMPORT_FIELDS`; see :meth:`import_rows`."""
        return self.import_rows(tuple(map(r.__getitem__, IMPORT_FIELDS)) for r in rows)

    def import_rows(self, rows: Iterable[Sequence[Any]], *, validate: Callable[[str, int, str], Any] | None = None) -> int:
        """Append pre-built rows (an import): tuples of :data:`IMPORT_FIELDS`, re-chained and re-hashed
        at the end of this log, in one transaction (the caller's, when one is open).

        ``rows`` is consumed as it goes: an import of any size holds a few chunks in memory, and an
        exception raised by the iterable (a payload that does not validate) rolls the whole
        transaction back. While SQLite writes one chunk on a second thread (it releases the GIL
        while it works), this thread hashes the next one and runs the iterable's own validation;
        so the iterable must not use this store's connection (read another file, or a list).

        ``validate(type, schema_version, payload)`` (e.g. ``codec.decode``), when given, is called on
        every row before it is chained; its exception rolls everything back. A big import runs it in
        a worker process while this one chains and writes (:func:`log_rows.validated`).

        An import of :data:`ROLLBACK_JOURNAL_MIN` rows or more into an empty log outside a caller's
        transaction (``cristal copy``, a benchmark) is written through SQLite's rollback journal
        rather than the WAL when no other connection has the file open (:meth:`_rollback_journal`):
        the same rows, the same transaction. So many rows are read before the transaction starts
        (an error of the iterable among them is raised after the rows before it, as it would be)."""
        try:
            journal: Any = nullcontext()
            if not self._depth and not self.conn.in_transaction and self._head() == (0, GENESIS):
                it = iter(rows)
                head: list[Sequence[Any]] = []
                try:
                    for r in itertools.islice(it, ROLLBACK_JOURNAL_MIN):
                        head.append(r)
                except Exception as exc:  # noqa: BLE001 - raised in its place, after the rows before it
                    rows = _then_raise(head, exc)
                else:
                    rows = itertools.chain(head, it)
                    if len(head) == ROLLBACK_JOURNAL_MIN:
                        journal = self._rollback_journal()
            with journal, self.transaction(), closing(validated(rows, validate)) as checked:
                position, prev = self._head()
                return self._pipelined(chained(checked, position, prev, self._chunk_rows()))
        except sqlite3.Error as exc:
            raise translate_sqlite_error(exc, self.path) from None

    @contextmanager
    def _rollback_journal(self) -> Iterator[None]:
        """While a bulk import fills an empty log, SQLite's rollback journal (``journal_mode=DELETE``,
        ``synchronous=FULL``) instead of the WAL, then the WAL again: the pages of a new file are
        written once, into the file, where the WAL writes each into the log first (and again each
        time the page cache spills it), then copies it into the file at the checkpoint; a page that
        did not exist before the transaction needs no journal, so a rollback (a bad row, a crash)
        truncates the file back. Measured: SQLite's share of a 100k import 0.59 s of CPU against
        0.92 s (benchmarks/README.md, "Eighth session"). Only when nothing can notice: no caller's
        transaction, an empty log, the file in WAL mode, and no other connection on it (leaving the
        WAL needs the only connection; asked without waiting, else the import stays in the WAL). The
        file is left in WAL mode, also by the next bulk import into a log a killed one left empty (in
        rollback mode: its journal rolled back when the file is next opened)."""
        conn = self.conn
        if self._depth or conn.in_transaction or self._head() != (0, GENESIS):
            yield
            return
        if conn.execute("PRAGMA journal_mode").fetchone()[0] not in ("wal", "delete"):  # delete: a crashed import's
            yield
            return
        timeout = conn.execute("PRAGMA busy_timeout").fetchone()[0]
        sync = conn.execute("PRAGMA synchronous").fetchone()[0]
        conn.execute("PRAGMA busy_timeout = 0")
        try:
            mode = conn.execute("PRAGMA journal_mode = DELETE").fetchone()[0]
        except sqlite3.Error:  # another connection holds the file: the WAL it is
            mode = "wal"
        finally:
            conn.execute(f"PRAGMA busy_timeout = {int(timeout)}")
        if mode != "delete":
            yield
            return
        # FULL: in rollback mode NORMAL may leave a file damaged by a power cut (SQLite's docs); it
        # costs one more sync of a journal that holds only the file's first pages
        conn.execute("PRAGMA synchronous = FULL")
        try:
            yield
        finally:
            conn.execute(f"PRAGMA synchronous = {int(sync)}")
            try:
                conn.execute("PRAGMA journal_mode = WAL")
            except sqlite3.Error:  # a reader came meanwhile and held on past the timeout: the file
                pass  # stays in rollback mode, which every command reads and writes the same

    def _pipelined(self, chunks: Iterator[list[tuple[Any, ...]]]) -> int:
        """Insert the chunks in order, one at a time on a writer thread while the next is prepared.

        At most one insert is in flight: its error (or the iterator's) surfaces here before the next
        chunk is handed over, and the writer has finished before the transaction commits or rolls
        back. The interpreter's switch interval is shortened meanwhile, so that the writer gets the
        GIL back soon after SQLite finishes a chunk; it is restored afterwards."""
        first = next(chunks, None)
        if first is None:
            return 0
        second = next(chunks, None)
        if second is None:  # one chunk (a command, a small import): no thread
            self._insert(first)
            return len(first)
        from concurrent.futures import ThreadPoolExecutor  # only imports pay for it

        n = 0
        with _short_switch_interval():
            with ThreadPoolExecutor(max_workers=1, thread_name_prefix="cristal-import") as writer:
                pending = writer.submit(self._insert, first)
                n += len(first)
                for chunk in itertools.chain([second], chunks):
                    pending.result()
                    pending = writer.submit(self._insert, chunk)
                    n += len(chunk)
                pending.result()
        return n

    def _chunk_rows(self) -> int:
        """How many rows one INSERT carries: 1,000, or fewer where SQLite allows fewer bound values
        (fewer chunks, fewer GIL hand-overs with the writer thread: see benchmarks/README.md, 'chunk size')."""
        if self._chunk is None:
            self._chunk = max(1, min(1000, self.conn.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER) // _WIDTH))
        return self._chunk

    def _insert(self, rows: Sequence[tuple[Any, ...]]) -> None:
        """Insert rows of the 14 columns with multi-row INSERTs of :meth:`_chunk_rows` rows each.

        One statement for many rows runs as one step in SQLite and updates the AUTOINCREMENT counter
        once, where ``executemany`` pays a step, a reset and a counter update for every row."""
        size = self._chunk_rows()
        for i in range(0, len(rows), size):
            part = rows[i:i + size]
            sql = self._insert_sql.get(len(part))
            if sql is None:
                sql = self._insert_sql[len(part)] = f"INSERT INTO events ({_COLUMNS}) VALUES " + ",".join([_ROW_MARKS] * len(part))
            self.conn.execute(sql, list(itertools.chain.from_iterable(part)))

    def _positions_of(self, ids: Sequence[str]) -> dict[str, int]:
        out: dict[str, int] = {}
        for chunk in range(0, len(ids), 500):
            part = ids[chunk:chunk + 500]
            q = f"SELECT event_id, position FROM events WHERE event_id IN ({','.join('?' * len(part))})"
            out.update(self.conn.execute(q, part).fetchall())
        return out

    def _head(self) -> tuple[int, str]:
        row = self.conn.execute("SELECT seq FROM sqlite_sequence WHERE name = 'events'").fetchone()
        seq = row[0] if row else 0
        last = self.conn.execute("SELECT position, hash FROM events ORDER BY position DESC LIMIT 1").fetchone()
        if last is None:
            return seq, GENESIS
        return max(seq, last[0]), last[1]

    # ------------------------------------------------------------------ reading
    def last_position(self) -> int:
        row = self.conn.execute("SELECT MAX(position) FROM events").fetchone()
        return row[0] or 0

    def count(self) -> int:
        return self.conn.execute("SELECT COUNT(*) FROM events").fetchone()[0]

    def last_hash(self) -> str:
        row = self.conn.execute("SELECT hash FROM events ORDER BY position DESC LIMIT 1").fetchone()
        return row[0] if row else GENESIS

    def hash_at(self, position: int) -> str | None:
        """The stored chain hash of the event at ``position``, or None when the log has no such event."""
        if not 0 < position <= _SQLITE_MAX_INT:
            return None
        row = self.conn.execute("SELECT hash FROM events WHERE position = ?", (position,)).fetchone()
        return row[0] if row else None

    def head(self) -> tuple[int, str]:
        """The last event's position and chain hash ((0, GENESIS) for an empty log)."""
        row = self.conn.execute("SELECT position, hash FROM events ORDER BY position DESC LIMIT 1").fetchone()
        return (row[0], row[1]) if row else (0, GENESIS)

    def session_ends(self) -> dict[int, tuple[int, str]]:
        """Each ended session's number -> (position, chain hash) of its ``session.ended`` event."""
        return {s: (p, h) for s, p, h in self.conn.execute(SESSION_ENDS)}

    # -------------------------------------------------------------- snapshots
    # Snapshots are derived data (a cache of the folded state), outside the log's triggers; each row
    # carries the hash of the event at its position and a digest binding its state to that hash
    # (migration 0005). The service decides what a snapshot holds and when it may be used.
    def snapshots(self, state_version: str, *, upto: int | None = None,
                  newest_first: bool = False) -> Iterator[tuple[int, str, str, bytes]]:
        """The stored snapshots of ``state_version`` as ``(position, event_hash, digest, state)``, in
        position order (newest first on demand), only those at or before ``upto`` when given."""
        sql = "SELECT position, event_hash, digest, state FROM snapshots WHERE state_version = ?"
        args: list[Any] = [state_version]
        if upto is not None:
            sql += " AND position <= ?"
            args.append(max(-1, min(upto, _SQLITE_MAX_INT)))
        sql += " ORDER BY position DESC" if newest_first else " ORDER BY position"
        if self._bound_snapshots():
            yield from self.conn.execute(sql, args)

    def snapshot_state(self, state_version: str, position: int) -> bytes | None:
        """The stored state of one snapshot, or None."""
        if not self._bound_snapshots():
            return None
        row = self.conn.execute("SELECT state FROM snapshots WHERE state_version = ? AND position = ?",
                                (state_version, position)).fetchone()
        return row[0] if row else None

    def snapshot_positions(self, state_version: str) -> list[int]:
        """The positions of the stored snapshots of ``state_version``, in order."""
        if not self._bound_snapshots():
            return []
        return [p for (p,) in self.conn.execute(
            "SELECT position FROM snapshots WHERE state_version = ? ORDER BY position", (state_version,))]

    def _bound_snapshots(self) -> bool:
        """Whether the snapshot table has its bound form (migration 0005): a campaign of an older engine
        opened read-only still has the old one, whose unbound snapshots are never used."""
        if self._snapshot_columns is None:
            cols = {r[1] for r in self.conn.execute("PRAGMA table_info(snapshots)")}
            self._snapshot_columns = {"event_hash", "digest"} <= cols
        return self._snapshot_columns

    def put_snapshot(self, position: int, state_version: str, event_hash: str, digest: str, state: bytes) -> None:
        """Store (or replace) the snapshot of ``state_version`` at ``position``."""
        self.conn.execute("INSERT OR REPLACE INTO snapshots (position, state_version, event_hash, digest, state) "
                          "VALUES (?, ?, ?, ?, ?)", (position, state_version, event_hash, digest, state))

    def drop_snapshots(self, state_version: str, positions: Iterable[int]) -> None:
        """Delete the snapshots of ``state_version`` at ``positions``."""
        self.conn.executemany("DELETE FROM snapshots WHERE state_version = ? AND position = ?",
                              [(state_version, p) for p in positions])

    def drop_other_snapshots(self, state_version: str) -> None:
        """Delete the snapshots of every state version but ``state_version`` (states of older rules)."""
        self.conn.execute("DELETE FROM snapshots WHERE state_version != ?", (state_version,))

    # ------------------------------------------- sessions, streams, secrets, header (issue 15, item 5)
    # What the service, the jobs and the CLI asked SQLite directly before: every statement is here now.
    def session_span(self, session: int) -> tuple[int, int] | None:
        """The first and last positions of session ``session``'s events, or None when it has none."""
        if not 0 <= session <= _SQLITE_MAX_INT:
            return None
        row = self.conn.execute("SELECT MIN(position), MAX(position) FROM events WHERE session = ?",
                                (session,)).fetchone()
        return None if row[0] is None else (row[0], row[1])

    def stream_exists(self, stream: str) -> bool:
        """Whether the log holds at least one event of ``stream``."""
        return self.conn.execute("SELECT 1 FROM events WHERE stream = ? LIMIT 1", (stream,)).fetchone() is not None

    def legacy_secrets(self) -> dict[int, str]:
        """The rows of the legacy ``session_secrets`` table (secrets moved beside the campaign since)."""
        return dict(self.conn.execute("SELECT session, secret FROM session_secrets").fetchall())

    def legacy_secret(self, session: int) -> str | None:
        """Session ``session``'s secret in the legacy ``session_secrets`` table, or None."""
        if not 0 <= session <= _SQLITE_MAX_INT:
            return None
        row = self.conn.execute("SELECT secret FROM session_secrets WHERE session = ?", (session,)).fetchone()
        return row[0] if row else None

    def has_legacy_secrets(self) -> bool:
        return self.conn.execute("SELECT 1 FROM session_secrets LIMIT 1").fetchone() is not None

    def clear_legacy_secrets(self) -> None:
        """Empty the legacy ``session_secrets`` table (inside the caller's transaction)."""
        self.conn.execute("DELETE FROM session_secrets")

    def checkpoint_wal(self) -> None:
        """Fold the write-ahead log into the main file and truncate it (before the file is copied)."""
        self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    # ------------------------------------------------------ read models (issue 15, item 5)
    # The read-model tables (projections/) and their checkpoints. sqlite-utils creates, drops and
    # introspects the tables and reads them back for ``verify``; the rows a catch-up writes after
    # every command keep a hand-written multi-row INSERT OR REPLACE, measured against
    # ``Table.insert_all(replace=True)`` by benchmarks/read_models.py (benchmarks/README.md, "Read
    # models"): 20,000 ledger rows took 50.7 ms by hand, 311.0 ms through sqlite-utils (+513 %), and
    # importing it adds 32 % to the start-up of every command (224 -> 296 ms). Nothing on the
    # per-command path imports it; table creation (0.8 ms more, only when a table is missing) does.
    def read_model_db(self) -> Any:
        """A ``sqlite_utils.Database`` over this connection (the store's transactions stay the store's:
        sqlite-utils nests savepoints inside them). No plugin runs and no pragma is changed."""
        if self._sqlite_utils is None:
            import sqlite_utils

            self._sqlite_utils = sqlite_utils.Database(self.conn, recursive_triggers=False, execute_plugins=False)
        return self._sqlite_utils

    def table_names(self) -> set[str]:
        """The tables of the campaign file (one catalogue read, without importing sqlite-utils)."""
        return {n for (n,) in self.conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}

    def create_read_tables(self, tables: dict[str, tuple[dict[str, str], tuple[str, ...]]], *,
                           replace: bool = False) -> None:
        """Create each read table ``name -> (columns: name -> SQLite type, primary key)`` that does not
        exist yet (with ``replace``: drop and create it again, empty) through sqlite-utils."""
        existing = set() if replace else set(self.table_names())  # one look at the schema, not one per table
        missing = tables if replace else {n: t for n, t in tables.items() if n not in existing}
        if not missing:
            return
        db = self.read_model_db()
        for name, (columns, pk) in missing.items():
            if replace:
                db[name].drop(ignore=True)
            db[name].create(dict(columns), pk=pk[0] if len(pk) == 1 else tuple(pk), column_order=list(columns))

    def clear_rows(self, table: str) -> None:
        """Delete every row of read table ``table``."""
        self.conn.execute(f'DELETE FROM "{ident(table)}"')

    def delete_rows(self, table: str, pk: Sequence[str], keys: Iterable[Sequence[Any]]) -> None:
        """Delete the rows of read table ``table`` whose primary key ``pk`` is one of ``keys``."""
        where = " AND ".join(f'"{ident(c)}" = ?' for c in pk)
        self.conn.executemany(f'DELETE FROM "{ident(table)}" WHERE {where}', keys)

    def replace_rows(self, table: str, columns: Sequence[str], values: Sequence[Sequence[Any]]) -> None:
        """INSERT OR REPLACE ``values`` (sequences in ``columns`` order) into read table ``table`` with
        multi-row statements: one SQLite step per chunk of rows instead of one per row (rows replace
        each other in order, as one by one). Hand-written: see the figures above.

        Every chunk holds a power of two of rows (256, then what is left as 128, 64 ... 1), so a table
        is written by at most nine statements, which the connection's statement cache keeps prepared.
        A chunk of whatever size was left made a new statement of up to 500 rows at nearly every
        call, each kept in that cache (128 of them): 50 MB more for 300,000 rows inserted 2,000 at a
        time, a quarter of a 1M-event rebuild's peak (benchmarks/README.md, "Levers, A/B")."""
        if not values:
            return
        cols = list(columns)
        per = max(1, min(256, self.conn.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER) // len(cols)))
        per = 1 << (per.bit_length() - 1)  # a power of two
        head = f'INSERT OR REPLACE INTO "{ident(table)}" ({", ".join(chr(34) + ident(c) + chr(34) for c in cols)}) VALUES '
        marks = "(" + ",".join("?" * len(cols)) + ")"
        at, n = 0, len(values)
        while at < n:
            k = per
            while k > n - at:
                k >>= 1
            self.conn.execute(head + ",".join([marks] * k), list(itertools.chain.from_iterable(values[at:at + k])))
            at += k

    @contextmanager
    def page_cache(self, kib: int | None) -> Iterator[None]:
        """SQLite's page cache of this connection at most ``kib`` KiB while inside (None: as it is), then
        as it was: a rebuild writes every read table once and reads the log once, in order, so a big
        cache holds pages it will not read again (runner.REBUILD_CACHE_KIB)."""
        if kib is None:
            yield
            return
        before = self.conn.execute("PRAGMA cache_size").fetchone()[0]
        self.conn.execute(f"PRAGMA cache_size = {-max(1, int(kib))}")
        try:
            yield
        finally:
            self.conn.execute(f"PRAGMA cache_size = {int(before)}")

    def copy_log_rows(self, table: str, columns: Sequence[str], sources: Sequence[str], after: int,
                      until: int) -> int:
        """Write into read table ``table`` (its ``columns``) one row per event after position ``after`` up
        to ``until``, made of the log's envelope columns ``sources`` (:data:`LOG_COPY_COLUMNS`), in one
        INSERT ... SELECT: a read model whose rows are the envelope itself (the timeline) is copied by
        SQLite instead of being folded and inserted from Python. Returns the number of rows written."""
        if not set(sources) <= LOG_COPY_COLUMNS or len(sources) != len(columns):
            raise ValueError(f"not columns of the log's envelope: {', '.join(sources)}")
        cols = ", ".join(f'"{ident(c)}"' for c in columns)
        cur = self.conn.execute(f'INSERT OR REPLACE INTO "{ident(table)}" ({cols}) SELECT {", ".join(sources)} '
                                "FROM events WHERE position > ? AND position <= ? ORDER BY position", (after, until))
        return cur.rowcount

    def table_rows(self, table: str, columns: Sequence[str], order_by: Sequence[str]) -> list[tuple[Any, ...]]:
        """Every row of read table ``table`` as tuples of ``columns``, ordered by ``order_by``; [] when the
        table does not exist. One SELECT by hand, not sqlite-utils: a one-shot command reads the
        sessions' state back from their table (``Projection.rows_state``), and importing sqlite-utils
        would add about a third to its start-up (see :meth:`read_model_db`)."""
        if table not in self.table_names():
            return []
        cols = ", ".join(f'"{ident(c)}"' for c in columns)
        order = ", ".join(f'"{ident(c)}"' for c in order_by)
        return [tuple(r) for r in self.conn.execute(f'SELECT {cols} FROM "{ident(table)}" ORDER BY {order}')]

    @contextmanager
    def savepoint(self, name: str = "read_model_row") -> Iterator[None]:
        """A SAVEPOINT inside the caller's transaction: what fails inside it is rolled back alone."""
        self.conn.execute(f"SAVEPOINT {ident(name)}")
        try:
            yield
        except BaseException:
            self.conn.execute(f"ROLLBACK TO {ident(name)}")
            self.conn.execute(f"RELEASE {ident(name)}")
            raise
        self.conn.execute(f"RELEASE {ident(name)}")

    def checkpoint(self, name: str) -> tuple[int, int, bytes | None] | None:
        """Read model ``name``'s checkpoint ``(version, position, state)``, or None."""
        row = self.conn.execute("SELECT version, position, state FROM projection_checkpoints WHERE name = ?",
                                (name,)).fetchone()
        return None if row is None else (row[0], row[1], row[2])

    def checkpoint_head(self, name: str) -> tuple[int, int] | None:
        """Read model ``name``'s checkpoint ``(version, position)`` without its state (a campaign kept
        open holds the state it wrote: the runner checks it is still the stored one)."""
        row = self.conn.execute("SELECT version, position FROM projection_checkpoints WHERE name = ?",
                                (name,)).fetchone()
        return None if row is None else (row[0], row[1])

    def move_checkpoint(self, name: str, version: int, position: int) -> None:
        """Move read model ``name``'s checkpoint to ``position``, its stored state unchanged. An
        UPDATE leaves the state's pages alone where INSERT OR REPLACE writes the whole row again: a
        140 kB state (the sessions of a 1M-event campaign) is 150 kB of WAL per command otherwise."""
        self.conn.execute("UPDATE projection_checkpoints SET position = ? WHERE name = ? AND version = ?",
                          (position, name, version))

    def put_checkpoint(self, name: str, version: int, position: int, state: bytes | None) -> None:
        self.conn.execute("INSERT OR REPLACE INTO projection_checkpoints VALUES (?, ?, ?, ?)",
                          (name, version, position, state))

    def drop_checkpoint(self, name: str) -> None:
        self.conn.execute("DELETE FROM projection_checkpoints WHERE name = ?", (name,))

    @staticmethod
    def peek_header(path: str | os.PathLike[str]) -> bytes | str | None:
        """The raw payload of a campaign file's first event (its ``campaign.created`` header), read
        through a short read-only connection without migrating or checking the file; None when the
        file is not a readable campaign. For the CLI, which picks the ruleset before opening."""
        if is_postgres(path):
            from .store_pg import PgStore

            return PgStore.peek_header(path)  # type: ignore[arg-type]

        p = path_text(path)
        if not os.path.isfile(p):
            return None
        try:
            conn = _connect(p, "ro", 1)
            try:
                row = conn.execute("SELECT payload FROM events WHERE position = 1").fetchone()
            finally:
                conn.close()
        except sqlite3.Error:
            return None
        return row[0] if row else None

    @staticmethod
    def peek_last_position(path: str | os.PathLike[str]) -> int:
        """The last position of a campaign file read through a short read-only connection, without
        migrating or checking it (0 when it has no events). Raises sqlite3.Error for an unreadable file."""
        if is_postgres(path):
            from .store_pg import PgStore

            return PgStore.peek_last_position(path)  # type: ignore[arg-type]

        conn = _connect(path_text(path), "ro", None)  # the usual busy timeout (CRISTAL_BUSY_TIMEOUT, 5 s)
        try:
            return conn.execute("SELECT COALESCE(MAX(position), 0) FROM events").fetchone()[0]
        finally:
            conn.close()

    def read_all(self, after: int = 0, *, until: int | None = None, stream: str | None = None,
                 type: str | None = None, session: int | None = None, decode: bool = True,
                 hashes: bool = True) -> Iterator[RecordedEvent]:
        """Events after position ``after`` (and up to ``until``), in log order, optionally filtered.

        ``hashes=False`` leaves ``prev_hash`` and ``hash`` empty: a fold does not need them, and not
        reading two 64-character strings a row makes replays faster (exports and verify read them).
        """
        where: list[str] = ["position > ?"]
        args: list[Any] = [after]
        if until is not None:
            where.append("position <= ?")
            args.append(until)
        if stream is not None:
            where.append("stream = ?")
            args.append(stream)
        source = "events"
        if type in _INDEXED_TYPES:  # e.g. the session starts: read through their partial index
            source = f"events INDEXED BY {_INDEXED_TYPES[type]}"
            where.append(f"type = '{type}'")  # a literal (a constant of this module): SQLite must see the index's condition
        elif type is not None:
            where.append("type = ?")
            args.append(type)
        if session is not None:
            where.append("session = ?")
            args.append(session)
        columns = _COLUMNS if hashes else _COLUMNS_NO_HASHES
        sql = f"SELECT {columns} FROM {source} WHERE {' AND '.join(where)} ORDER BY position"
        return self._rows(sql, args, decode, hashes)

    def read_stream(self, stream: str, after_version: int = 0, *, decode: bool = True) -> Iterator[RecordedEvent]:
        """The events of one stream after ``after_version``, in stream order."""
        sql = f"SELECT {_COLUMNS} FROM events WHERE stream = ? AND version > ? ORDER BY version"
        return self._rows(sql, [stream, after_version], decode)

    def get(self, position: int) -> RecordedEvent | None:
        """The event at one position, or None."""
        for rec in self._rows(f"SELECT {_COLUMNS} FROM events WHERE position = ?", [position], True):
            return rec
        return None

    # ------------------------------------------------------------ read models
    def read_model_rows(self, table: str, *, where: dict[str, Any] | None = None,
                        order_by: Sequence[str] = ()) -> list[dict[str, Any]]:
        """The rows of one read-model table (dicts keyed by column), those whose columns equal
        ``where``'s values, in the order of the columns ``order_by``; no rows when the table does not
        exist yet. Read through sqlite-utils (imported here: reading a table is not every command's)."""
        import sqlite_utils

        db = sqlite_utils.Database(self.conn, recursive_triggers=False, execute_plugins=False)
        if not db[table].exists():
            return []
        clause = " AND ".join(f'"{c}" = ?' for c in where or {}) or None
        order = ", ".join(f'"{c}"' for c in order_by) or None
        return list(db[table].rows_where(clause, list((where or {}).values()), order_by=order))

    def read_model_current(self, name: str, version: int) -> bool:
        """Whether the read model ``name``, at ``version``, has folded the whole log (its checkpoint)."""
        try:
            row = self.conn.execute("SELECT version, position FROM projection_checkpoints WHERE name = ?",
                                    (name,)).fetchone()
        except sqlite3.OperationalError:  # no checkpoint table: no read model was ever built
            return False
        return row is not None and row[0] == version and row[1] == self.last_position()

    @staticmethod
    def ruleset_of(path: str | os.PathLike[str]) -> str | None:
        """The ruleset named in a campaign file's first event, or None when it cannot be read (no file,
        not a campaign): a peek that opens no Store, takes no lock and applies no migration."""
        if is_postgres(path):
            from .store_pg import PgStore

            return PgStore.ruleset_of(path)  # type: ignore[arg-type]

        p = path_text(path)
        if not os.path.isfile(p):
            return None
        try:
            conn = sqlite3.connect(f"file:{os.path.realpath(p)}?mode=ro", uri=True, timeout=1)
            try:
                row = conn.execute("SELECT payload FROM events WHERE position = 1").fetchone()
            finally:
                conn.close()
            return msgspec.json.decode(row[0]).get("ruleset") if row else None
        except (sqlite3.Error, msgspec.DecodeError, AttributeError):
            return None

    #: the last session's start (the session starts' partial index, migration 0003)
    _LAST_SESSION_START = ("SELECT MAX(position) FROM events INDEXED BY events_session_starts "
                           "WHERE type = 'session.started'")
    #: the secret rolls and their reveals after a position; written exactly as the predicate of the partial
    #: index of migration 0007 (SQLite uses a partial index only for a WHERE that repeats its own), so a
    #: long session is not scanned: O(secret rolls), not O(session). No INDEXED BY: a campaign opened
    #: read-only by an older engine's file may not have that index yet, and the query stays right without it.
    _SEALED_ROWS = ("SELECT position, type, payload FROM events WHERE position > ? "
                    "AND type IN ('roll.sealed', 'roll.revealed') ORDER BY position")

    @staticmethod
    def sealed_of(path: str | os.PathLike[str]) -> list[int]:
        """The positions of the secret rolls (``roll.sealed``) of the last session that no
        ``roll.revealed`` names, read from a campaign file without opening a Store (a peek, like
        :meth:`ruleset_of`: every command's output shows the count); [] when it cannot be read.
        Only the last session is read (through the session starts' index, then the secret rolls' one):
        a session's end reveals every roll it still can, and ``verify --rolls`` names any that stayed
        sealed for good. A face holding the campaign open reads :meth:`last_session_start` and its
        state's ``core.sealed`` instead (``cli.inprocess.Kept.sealed``: no connection per command)."""
        if is_postgres(path):
            from .store_pg import PgStore

            return PgStore.sealed_of(path)  # type: ignore[arg-type]

        p = path_text(path)
        if not os.path.isfile(p):
            return []
        try:
            conn = sqlite3.connect(f"file:{os.path.realpath(p)}?mode=ro", uri=True, timeout=1)
            try:
                start = conn.execute(Store._LAST_SESSION_START).fetchone()[0]
                if start is None:
                    return []
                rows = conn.execute(Store._SEALED_ROWS, (start,)).fetchall()
            finally:
                conn.close()
            return still_sealed(rows)
        except (sqlite3.Error, msgspec.DecodeError, AttributeError):
            return []

    def last_session_start(self) -> int | None:
        """The position of the last ``session.started`` (None before the first session): where the
        secret rolls :meth:`sealed_of` counts begin."""
        return self.conn.execute(Store._LAST_SESSION_START).fetchone()[0]

    def _rows(self, sql: str, args: list[Any], decode: bool, hashes: bool = True) -> Iterator[RecordedEvent]:
        """The rows of ``sql`` as recorded events, read when the caller first iterates: the generator
        of :func:`log_rows.decoded` itself (the hot path), which runs the query at its first step and
        raises an SQLite error as the store's sentence; not wrapped in generators of its own (read_all,
        read_stream and this one return it), so a replay resumes one frame per event."""
        # without the hash columns the SELECT returns 12 values and the two hashes are given here
        # as empty strings (fetching a constant column still costs a call into SQLite per row)
        return decoded(lambda: self.conn.execute(sql, args), self.codec if decode else None,
                       () if hashes else ("", ""), errors=(sqlite3.Error,), translate=self._sqlite_failure)

    def _sqlite_failure(self, exc: Exception) -> Exception:
        return translate_sqlite_error(exc, self.path)  # type: ignore[arg-type]  # only sqlite3.Error reaches it

    # ---------------------------------------------------------------- verifying
    def _stretches(self, workers: int | None, progress: Any = None) -> list["_Stretch"]:
        """The chain walked in stretches of positions: one, or a few per process on a big log.

        Each row is checked against its own stored hash and the hash stored before it, so the walk
        splits into ranges checked side by side and joined by :func:`_join` (the link between two
        stretches is checked there). Workers are forked processes, each reading the file on its own
        read-only connection (SQLite releases the GIL only inside a step, one row at a time, so
        threads cannot share the work); a worker that fails leaves its stretches to this process.

        The fork happens while this connection is idle (its queries have run to completion) and no
        other thread runs, so a child inherits no SQLite lock or mutex in use; this process, alive
        until its children end, keeps the SHARED lock of the database file that a WAL-mode
        connection holds while it is open, and each child takes its own WAL read lock."""
        last = self.last_position()
        if workers is None:
            workers = verify_workers(last)
        if (workers <= 1 or last < 2 * workers or not sys.platform.startswith("linux") or self.conn.in_transaction
                or threading.active_count() > 1 or not os.path.isfile(self.path)):
            tick = None if progress is None else (lambda n: progress(min(n, last), last))
            return [_walk_stretch(self.conn, 0, None, tick)]
        # the log cut in more stretches than processes, handed out in turn through a pipe holding their
        # numbers (a read of 4 bytes takes one; the pipe serialises the readers): a process slowed by the
        # machine's load takes fewer, where halves fixed in advance left this one waiting for the slower
        pieces = max(workers, min(workers * 8, last // _STRETCH_MIN))
        sha256(last)  # a bulk: OpenSSL's SHA-256 loaded here, once, rather than in every process forked below
        los = [last * i // pieces for i in range(pieces)]
        spans: list[tuple[int, int | None]] = list(zip(los, [*los[1:], None]))  # (lo, hi], the last one open
        queue_r, queue_w = os.pipe()
        try:
            os.write(queue_w, b"".join(i.to_bytes(4, "little") for i in range(pieces)))
        finally:
            os.close(queue_w)

        def take(conn: sqlite3.Connection, tick: Any = None) -> list[tuple[int, _Stretch]]:
            done: list[tuple[int, _Stretch]] = []
            walked = 0
            while len(got := os.read(queue_r, 4)) == 4:
                i = int.from_bytes(got, "little")
                step = None if tick is None else (lambda n, base=walked: tick(base + n))
                done.append((i, _walk_stretch(conn, *spans[i], step)))
                walked += done[-1][1].n
            return done

        try:
            children = [_fork(lambda: take(_connect(self.path, "ro", None))) for _ in range(workers - 1)]
            try:
                # the others walk as fast as this one: its rows times the processes stand for the whole
                tick = None if progress is None else (lambda n: progress(min(last, n * workers), last))
                mine = take(self.conn, tick)
            finally:  # the children are waited for whatever happens here
                got = [_collect(child) for child in children]
        finally:
            os.close(queue_r)
        walked = dict(mine)
        for stretches in got:
            walked.update(stretches or [])
        # a stretch a failed child had taken is walked here
        return [walked[i] if i in walked else _walk_stretch(self.conn, *spans[i]) for i in range(pieces)]

    def verify(self, *, workers: int | None = None,
               progress: Callable[[int, int], None] | None = None) -> VerifyReport:
        """Recompute the hash chain; check positions, triggers and migrations. Never raises for bad data.

        ``workers``: processes sharing the walk (None: one per CPU, up to 4, on a log of at least
        ``VERIFY_PARALLEL_MIN`` events; 1: this process alone). The report is the same either way.
        ``progress(done, total)`` is called every 4,096 events walked and at the end."""
        n, first_bad, expected_pos, problems = _join(self._stretches(workers, progress))
        if progress is not None:
            progress(self.last_position(), self.last_position())
        row = self.conn.execute("SELECT seq FROM sqlite_sequence WHERE name = 'events'").fetchone()
        seq = row[0] if row else 0
        if first_bad is None and seq > expected_pos - 1:
            first_bad = expected_pos
            problems.append(_("the log ends at position {value} but position {seq} was written: events were "
                              "removed from its end").format(value=expected_pos - 1, seq=seq))
        triggers = {name for (name,) in self.conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")}
        for t in ("events_no_update", "events_no_delete"):
            if t not in triggers:
                problems.append(f"the append-only trigger {t} is missing")
        try:
            pending = migrate.check(self.conn)
            if pending:
                problems.append(_("{len} migration(s) were never applied").format(len=len(pending)))
        except CristalError as exc:
            problems.append(str(exc).rstrip("."))
        return VerifyReport(ok=not problems, events=n, first_bad_position=first_bad, problems=problems)

    # ---------------------------------------------------------------- web access tokens (issue 19)
    # The rows of ``access_tokens`` (migration 0006): holders of a token for ``cristal serve``. Only a
    # token's SHA-256 is stored; a grant or revoke is written by the command's own transaction
    # (``Campaign._decide_access``), beside its access.granted / access.revoked event.

    def grant_access(self, name: str, token_hash: str, characters: Sequence[str], gm: bool) -> None:
        """A new holder (a revoked one's row is replaced)."""
        self.conn.execute("DELETE FROM access_tokens WHERE name = ? AND revoked_at IS NOT NULL", (name,))
        self.conn.execute(
            "INSERT INTO access_tokens (name, token_hash, characters, gm, granted_at) VALUES (?, ?, ?, ?, ?)",
            (name, token_hash, msgspec.json.encode(list(characters)).decode(), int(gm),
             datetime.now(UTC).isoformat()))

    def revoke_access(self, name: str) -> None:
        self.conn.execute("UPDATE access_tokens SET revoked_at = ? WHERE name = ? AND revoked_at IS NULL",
                          (datetime.now(UTC).isoformat(), name))

    def access_holder(self, name: str) -> dict[str, Any] | None:
        """The live (not revoked) access of ``name``, without its hash; None when there is none."""
        row = self.conn.execute("SELECT name, characters, gm, granted_at FROM access_tokens "
                                "WHERE name = ? AND revoked_at IS NULL", (name,)).fetchone()
        return access_row(row) if row else None

    def access_by_hash(self, token_hash: str) -> dict[str, Any] | None:
        """The live holder of the token whose SHA-256 is ``token_hash``, without the hash; or None."""
        row = self.conn.execute("SELECT name, characters, gm, granted_at FROM access_tokens "
                                "WHERE token_hash = ? AND revoked_at IS NULL", (token_hash,)).fetchone()
        return access_row(row) if row else None

    @staticmethod
    def peek_access(path: str | os.PathLike[str], token_hash: str) -> dict[str, Any] | None:
        """The live holder of a token (as :meth:`access_by_hash`) read through a short read-only
        connection, for the web table, which checks every request without holding the file open; None
        for an unknown or revoked token or an unreadable file."""
        if is_postgres(path):
            from .store_pg import PgStore

            return PgStore.peek_access(path, token_hash)  # type: ignore[arg-type]

        try:
            conn = _connect(path_text(path), "ro", None)
            try:
                row = conn.execute("SELECT name, characters, gm, granted_at FROM access_tokens "
                                   "WHERE token_hash = ? AND revoked_at IS NULL", (token_hash,)).fetchone()
            finally:
                conn.close()
        except sqlite3.Error:
            return None
        return access_row(row) if row else None

    @staticmethod
    def peek_last_stream(path: str | os.PathLike[str], prefix: str) -> str | None:
        """The stream of the last event whose stream starts with ``prefix`` (e.g. ``combat:``), read
        through a short read-only connection; None when there is none."""
        if is_postgres(path):
            from .store_pg import PgStore

            return PgStore.peek_last_stream(path, prefix)  # type: ignore[arg-type]

        conn = _connect(path_text(path), "ro", None)
        try:
            row = conn.execute("SELECT stream FROM events WHERE stream LIKE ? ESCAPE '\\' "
                               "ORDER BY position DESC LIMIT 1",
                               (prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%",)
                               ).fetchone()
        finally:
            conn.close()
        return row[0] if row else None

    def access_list(self) -> list[dict[str, Any]]:
        """Every holder, revoked ones too (``revoked_at``), never a hash."""
        rows = self.conn.execute("SELECT name, characters, gm, granted_at, revoked_at FROM access_tokens "
                                 "ORDER BY name").fetchall()
        return [{**access_row(r[:4]), "revoked_at": r[4]} for r in rows]


#: below this many events ``verify`` walks the chain in one process (a fork costs a few milliseconds)
VERIFY_PARALLEL_MIN = int(os.environ.get("CRISTAL_VERIFY_PARALLEL_MIN", "20000"))
_STRETCH_MIN = 10_000  # the fewest events of a stretch a process takes in turn (more: more queries)


def verify_workers(events: int) -> int:
    """How many processes :meth:`Store.verify` shares a log of ``events`` events between by default:
    one per CPU this process may use, up to 4, from ``VERIFY_PARALLEL_MIN`` events on (1 below, and
    off Linux: a fork without exec is not safe everywhere, macOS's system libraries for one)."""
    if events < VERIFY_PARALLEL_MIN or not sys.platform.startswith("linux"):
        return 1
    from . import cores  # a big verify only

    return max(1, min(cores.usable(), 4))


class _Stretch(msgspec.Struct, array_like=True):
    """The walk of the positions in ``(lo, hi]``: the rows seen, the first row's position and stored
    ``prev_hash`` (its link to the stretch before is checked by :func:`_join`), the last row's hash,
    the next expected position, and the first problem found inside the stretch."""

    n: int = 0
    first: tuple[int, str] | None = None
    last_hash: str = ""
    end: int = 0
    first_bad: int | None = None
    problem: str = ""


def _row_digest(conn: sqlite3.Connection, position: int) -> str:
    """The hash of one row recomputed in Python from its columns (the reference encoding)."""
    r = conn.execute(f"SELECT {_CANONICAL} FROM events WHERE position = ?", (position,)).fetchone()
    return sha256()(hash_encoder.encode(r)).hexdigest()


def _walk_stretch(conn: sqlite3.Connection, lo: int, hi: int | None, tick: Any = None) -> _Stretch:
    """Walk the rows of positions ``(lo, hi]`` (``hi`` None: to the end). SQLite builds each row's
    canonical JSON array (``json_array`` writes the same compact text as msgspec for these columns)
    and Python only hashes it; a row whose digest differs is recomputed from its columns the
    reference way before it is called altered. A row that SQLite's JSON cannot hold (a column
    turned into a BLOB) makes the stretch be walked again with the columns hashed in Python."""
    try:
        return _walk(conn, lo, hi, in_sql=True, tick=tick)
    except sqlite3.Error:
        return _walk(conn, lo, hi, in_sql=False, tick=tick)


def _walk(conn: sqlite3.Connection, lo: int, hi: int | None, *, in_sql: bool, tick: Any = None) -> _Stretch:
    cols = f"prev_hash, position, CAST(json_array({_CANONICAL}) AS BLOB), hash" if in_sql else f"{_CANONICAL}, hash"
    where, args = ("position > ?", (lo,)) if hi is None else ("position > ? AND position <= ?", (lo, hi))
    cur = conn.execute(f"SELECT {cols} FROM events WHERE {where} ORDER BY position", args)
    enc, sha = hash_encoder.encode, sha256(BULK_HASHES if hi is None else hi - lo)
    out = _Stretch()
    first = next(cur, None)
    if first is None:
        return out
    out.first = (first[1], first[0])
    prev, expected, n = first[0], first[1], 0
    for r in itertools.chain([first], cur):
        n += 1
        if tick is not None and not n & 4095:
            tick(n)
        if out.first_bad is not None:
            continue
        pos, h = r[1], r[-1]
        if pos != expected:
            out.first_bad, out.problem = expected, gap_problem(expected, pos)
        elif r[0] != prev:
            out.first_bad, out.problem = pos, unlinked_problem(pos)
        elif (sha(r[2]).hexdigest() if in_sql else sha(enc(r[:13])).hexdigest()) != h and \
                (not in_sql or _row_digest(conn, pos) != h):
            out.first_bad = pos
            out.problem = _("position {pos} was altered after it was written (hash mismatch)").format(pos=pos)
        prev, expected = h, pos + 1
    out.n, out.last_hash, out.end = n, prev, expected
    return out


def _join(stretches: list[_Stretch]) -> tuple[int, int | None, int, list[str]]:
    """The stretches, in order, as one walk from the genesis: (events, first bad position, next
    expected position, problems); the first problem in log order is the one reported."""
    n, first_bad, problem, prev, expected = 0, None, "", GENESIS, 1
    for s in stretches:
        n += s.n
        if first_bad is not None or s.first is None:
            continue
        pos, link = s.first
        if pos != expected:
            first_bad, problem = expected, gap_problem(expected, pos)
        elif link != prev:
            first_bad, problem = pos, unlinked_problem(pos)
        elif s.first_bad is not None:
            first_bad, problem = s.first_bad, s.problem
        else:
            prev, expected = s.last_hash, s.end
    return n, first_bad, expected, [problem] if problem else []


def _fork(work: Any) -> tuple[int, int] | None:
    """Run ``work()`` in a forked child; (pid, read end of the pipe of its msgpack result), or None
    when the fork failed. The child never touches this process's connection and leaves by
    ``os._exit`` (no finalizer runs there)."""
    try:
        r, w = os.pipe()
    except OSError:
        return None
    try:
        pid = os.fork()
    except OSError:
        os.close(r)
        os.close(w)
        return None
    if pid == 0:  # pragma: no cover - the child's coverage is not collected
        code = 1
        try:
            os.close(r)
            data = msgspec.msgpack.encode(work())
            with os.fdopen(w, "wb") as f:
                f.write(data)
            code = 0
        finally:
            os._exit(code)
    os.close(w)
    return pid, r


def _collect(child: tuple[int, int] | None) -> list[tuple[int, _Stretch]] | None:
    """The child's stretches (numbered), or None when it failed (the caller walks them itself)."""
    if child is None:
        return None
    pid, r = child
    with os.fdopen(r, "rb") as f:
        data = f.read()
    _, status = os.waitpid(pid, 0)
    if status != 0 or not data:
        return None
    try:
        return msgspec.msgpack.decode(data, type=list[tuple[int, _Stretch]])
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None


def _then_raise(rows: list[Sequence[Any]], exc: Exception) -> Iterator[Sequence[Any]]:
    """``rows``, then ``exc`` raised (an import's iterable failed while its first rows were read ahead)."""
    yield from rows
    raise exc


_switch = {"users": 0, "saved": 0.0}
_switch_lock = threading.Lock()


@contextmanager
def _short_switch_interval(seconds: float = 0.0005) -> Iterator[None]:
    """Shorten the interpreter's thread switch interval while a pipelined import runs (imports in
    several threads at once share one shortening; the last to finish restores the interval)."""
    with _switch_lock:
        if _switch["users"] == 0:
            _switch["saved"] = sys.getswitchinterval()
            sys.setswitchinterval(min(_switch["saved"], seconds))
        _switch["users"] += 1
    try:
        yield
    finally:
        with _switch_lock:
            _switch["users"] -= 1
            if _switch["users"] == 0:
                sys.setswitchinterval(_switch["saved"])


def path_text(path: str | os.PathLike[str]) -> str:
    """``str(pathlib.Path(path))`` without importing pathlib (with urllib.parse, ipaddress and fnmatch,
    2-3 ms of a one-shot command's start-up: benchmarks/README.md, "Ninth session"): the path with its
    empty and ``.`` parts dropped (``a//./b/`` is ``a/b``, ``""`` is ``.``), a leading ``//`` kept as POSIX
    keeps it. The campaign's path as its messages and ``Store.path`` have always shown it."""
    text = os.fspath(path)
    if not isinstance(text, str):
        raise TypeError(f"expected a str or os.PathLike path, not {type(text).__name__}")
    root = "//" if text.startswith("//") and not text.startswith("///") else "/" if text.startswith("/") else ""
    return root + "/".join(part for part in text.split("/") if part and part != ".") or "."


def _parent(path: str) -> str:
    """``str(pathlib.Path(path).parent)`` of a :func:`path_text`."""
    head, sep, _tail = path.rpartition("/")
    if not sep:
        return "."
    return head if head.strip("/") else head + "/" if head else "/"


def _uri_path(path: str) -> str:
    """The file's absolute path for an SQLite ``file:`` URI: %, ? and # escaped (urllib.parse costs start-up)."""
    return os.path.realpath(path).replace("%", "%25").replace("?", "%3f").replace("#", "%23")


def _connect(path: str, mode: str, timeout: float | None) -> sqlite3.Connection:
    if timeout is None:
        timeout = float(os.environ.get("CRISTAL_BUSY_TIMEOUT", "5"))
    uri = f"file:{_uri_path(path)}?mode={mode}"
    conn = sqlite3.connect(uri, uri=True, timeout=timeout, isolation_level=None, check_same_thread=False)
    conn.execute(f"PRAGMA busy_timeout = {int(timeout * 1000)}")
    conn.execute("PRAGMA synchronous = NORMAL")
    return conn


def is_postgres(target: object) -> bool:
    """Whether a campaign target is a PostgreSQL URL (else it is an SQLite file's path)."""
    return isinstance(target, str) and target.startswith(POSTGRES_SCHEMES)


def open_store(target: str | os.PathLike[str], codec: Codec | None = None, *, timeout: float | None = None,
               readonly: bool = False) -> Any:
    """The store of an existing campaign: an SQLite file's :class:`Store`, or for a ``postgresql://``
    URL a :class:`cristal_events.store_pg.PgStore` (the same surface; psycopg is imported only then)."""
    if is_postgres(target):
        from .store_pg import PgStore

        return PgStore.open(str(target), codec, timeout=timeout, readonly=readonly)
    return Store.open(target, codec, timeout=timeout, readonly=readonly)


def create_store(target: str | os.PathLike[str], codec: Codec | None = None, *, timeout: float | None = None) -> Any:
    """A new, empty campaign's store, on the backend its target names (see :func:`open_store`)."""
    if is_postgres(target):
        from .store_pg import PgStore

        return PgStore.create(str(target), codec, timeout=timeout)
    return Store.create(target, codec, timeout=timeout)
