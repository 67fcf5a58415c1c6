"""The event store on PostgreSQL (issue 20): the surface of :class:`cristal_events.store.Store`, one
schema per campaign.

Python API::

    store = open_store("postgresql://cristal@/tables?host=/run/postgresql&campaign=taverne", codec)
    store.append("character:thor", [event], expected_version=3)      # as on SQLite

A target URL is a libpq URL (``postgresql://`` or ``postgres://``) with one more query parameter,
``campaign=NAME`` (lowercase letters, digits and ``_``; without it ``default``). Each campaign lives
in the schema ``cristal_NAME`` of the database, with the tables of an SQLite campaign file
(``migrations/postgres/``); the connection's ``search_path`` names it, so every statement here is
the SQLite store's, in PostgreSQL's dialect. Why a schema and not a campaign key on every table:
docs/architecture.md, "PostgreSQL".

A write transaction takes ``pg_advisory_xact_lock`` on the campaign's key first, so the appends of
one campaign are serialized: a command is decided on the current state, and a position is assigned
inside the lock, so a reader paging by position never misses a row committed late (insert order is
commit order). Rows carry the same canonical hash as on SQLite (:func:`cristal_events.store.row_hash`),
so a campaign verifies the same on both. Append-only is PostgreSQL's own: triggers refuse UPDATE,
DELETE and TRUNCATE of ``events``, and those privileges are revoked from the role that created it.

Batches are written with ``COPY`` (psycopg's binary-capable copy protocol), a single command's few
rows with one call of the function ``cristal_append`` (migration 0003: the lock, the checks and the
insert in one statement, one round trip); the replay reads keyset pages of positions
(benchmarks/postgres.py, benchmarks/pg_append.py).
"""

from __future__ import annotations

import hashlib
import itertools
import os
import re
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import ExitStack, closing, contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import msgspec

from .codec import Codec, encode
from .errors import (
    ConcurrencyConflict,
    CristalError,
    IntegrityError,
    MigrationError,
    NotACampaign,
    SchemaTooNew,
    StoreUnavailable,
)
from .events import Event
from .i18n import _
from .log_rows import (
    ANY,
    GENESIS,
    IMPORT_FIELDS,
    SESSION_ENDS,
    VerifyReport,
    access_row,
    chained,
    decoded,
    hash_encoder,
    ident,
    new_event_ids,
    still_sealed,
    utc_now,
    validated,
)
from .records import RecordedEvent

SCHEMES = ("postgresql://", "postgres://")
DEFAULT_CAMPAIGN = "default"
SCHEMA_PREFIX = "cristal_"
_NAME = re.compile(r"^[a-z][a-z0-9_]{0,39}$")
_MIGRATION = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")
_COLUMNS = ("position, event_id, stream, version, type, schema_version, payload, recorded_at, session, actor, "
            "causation_id, correlation_id, prev_hash, hash")
_COLUMNS_NO_HASHES = _COLUMNS.replace(", prev_hash, hash", "")
_CANONICAL = ("prev_hash, position, event_id, stream, version, type, schema_version, payload, recorded_at, "
              "session, actor, causation_id, correlation_id")
_PAGE = 5000  # rows per keyset page of a read (bounded memory; each page is fetched whole)
_COPY_FROM = 16  # from this many rows an append uses COPY instead of the function cristal_append
_PG_MAX_INT = 2**63 - 1
_COPY = f"COPY events ({_COLUMNS}) FROM STDIN (FORMAT BINARY)"
_COPY_TYPES = ["int8", "text", "text", "int4", "text", "int4", "text", "text", "int8", "text", "text", "text", "text",
               "text"]
#: one append, one statement (migration 0003_append_function.sql); every parameter typed, so the
#: function is found whatever psycopg infers from a list of None
_APPEND = ("SELECT status, version, head, head_hash, positions FROM cristal_append(%s::bigint, %s::text, %s::integer, "
           "%s::bigint, %s::text, %s::boolean, %s::boolean, %s::text, %s::bigint, %s::text, %s::text, %s::json)")
#: its statuses
_APPENDED, _KNOWN, _SOME_KNOWN, _STALE_VERSION, _STALE_HEAD = range(5)
#: the last of an index as ORDER BY ... DESC LIMIT 1, never MAX(): psycopg prepares a statement run
#: five times, and the server's generic plan of a MAX made while the table was small (a new campaign,
#: a store opened early) was a plain aggregate over every row of the stream, kept as the log grew
#: (an append's version read went O(stream): benchmarks/README.md, "Eighth session"); a backward
#: index scan stopping at the first row is the only plan of these whatever the table's size
_STREAM_VERSION = ("SELECT COALESCE((SELECT version FROM events WHERE stream = %s ORDER BY stream DESC, version DESC "
                   "LIMIT 1), 0)")
_LAST_POSITION = "SELECT COALESCE((SELECT position FROM events ORDER BY position DESC LIMIT 1), 0)"
#: the rows of an append travel as one JSON parameter (cristal_append reads them with json_array_elements):
#: msgspec encodes them in C where psycopg would quote six text arrays in Python (about 90 us an append)
_json_encode = msgspec.json.Encoder().encode
#: SQLite column types of the read models -> PostgreSQL's
_TYPES = {"INTEGER": "bigint", "REAL": "double precision", "TEXT": "text", "BLOB": "bytea"}


def is_postgres(target: Any) -> bool:
    """Whether a ``--db`` target names a PostgreSQL campaign (a ``postgresql://`` URL)."""
    return isinstance(target, str) and target.startswith(SCHEMES)


class Target(msgspec.Struct, frozen=True):
    """A parsed target: the libpq URL without ``campaign``, the campaign's name and its schema."""

    conninfo: str
    campaign: str

    @property
    def schema(self) -> str:
        return SCHEMA_PREFIX + self.campaign

    def url(self, campaign: str | None = None) -> str:
        """The target URL of ``campaign`` (default: this one) on the same database."""
        parts = urlsplit(self.conninfo)
        query = [*parse_qsl(parts.query), ("campaign", campaign or self.campaign)]
        return urlunsplit(parts._replace(query=urlencode(query)))

    @property
    def shown(self) -> str:
        """The URL as messages show it: without a password."""
        parts = urlsplit(self.url())
        netloc = parts.netloc
        if "@" in netloc:
            user, _, host = netloc.rpartition("@")
            netloc = f"{user.split(':', 1)[0]}@{host}"
        return urlunsplit(parts._replace(netloc=netloc))


def parse_target(target: str) -> Target:
    """Split ``campaign=NAME`` off a PostgreSQL URL; a bad name is one sentence."""
    parts = urlsplit(target)
    query = parse_qsl(parts.query, keep_blank_values=True)
    names = [v for k, v in query if k == "campaign"]
    rest = [(k, v) for k, v in query if k != "campaign"]
    name = names[-1] if names else DEFAULT_CAMPAIGN
    if not _NAME.match(name):
        raise CristalError(_("A campaign name in a PostgreSQL URL is 1 to 40 lowercase letters, digits or '_', "
                             "starting with a letter; got {name!r}.").format(name=name))
    return Target(urlunsplit(parts._replace(query=urlencode(rest))), name)


def _psycopg() -> Any:
    try:
        import psycopg
    except ImportError:
        raise StoreUnavailable(_("A PostgreSQL campaign needs psycopg 3: pip install 'cristal-events[postgres]'.")) from None
    return psycopg


def connect(target: Target, *, timeout: float | None = None, readonly: bool = False) -> Any:
    """An autocommit connection to the target's database; the campaign's schema first on its search_path
    (``readonly``: every transaction read-only, as SQLite's ``mode=ro``)."""
    psycopg = _psycopg()
    if timeout is None:
        timeout = float(os.environ.get("CRISTAL_BUSY_TIMEOUT", "5"))
    lock_ms = max(1, int(timeout * 1000))
    try:
        return psycopg.connect(target.conninfo, autocommit=True, connect_timeout=max(2, int(timeout)),
                               options=f"-c search_path={target.schema} -c lock_timeout={lock_ms}"
                                       + (" -c default_transaction_read_only=on" if readonly else ""))
    except psycopg.Error as exc:
        raise StoreUnavailable(_("The PostgreSQL server of {target} cannot be reached: {reason}; nothing was "
                                 "written.").format(target=target.shown, reason=_first_line(exc))) from None


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0].rstrip(".")


def translate(exc: Exception, shown: str) -> CristalError:
    """One sentence for a psycopg failure, by its SQLSTATE class (never by its message)."""
    state = getattr(exc, "sqlstate", None) or ""
    if state == "42501" or state.startswith("23") and "append-only" in str(exc):
        return IntegrityError(_("The event log of {path} is append-only; events cannot be changed or removed.").format(
            path=shown))
    if state in ("55P03", "40P01", "57014"):
        return StoreUnavailable(_("The campaign {path} is locked by another writer past the timeout; nothing was "
                                  "written.").format(path=shown))
    if state == "53100":
        return StoreUnavailable(_("The disk of the PostgreSQL server of {path} is full; nothing was written.").format(
            path=shown))
    if state == "25006":
        return StoreUnavailable(_("The campaign {path} is read-only; nothing was written.").format(path=shown))
    return StoreUnavailable(_("The campaign {path} could not be used: {reason}; nothing was written.").format(
        path=shown, reason=_first_line(exc)))


def available() -> list[tuple[int, str, str]]:
    """The PostgreSQL migrations shipped with this engine: (number, name, sql), in order."""
    import cristal_events.migrations as package

    folder = Path(package.__file__).parent / "postgres"
    out = []
    for entry in folder.iterdir():
        m = _MIGRATION.match(entry.name)
        if m:
            out.append((int(m.group(1)), entry.name, entry.read_text(encoding="utf-8")))
    return sorted(out)


def _checksum(sql: str) -> str:
    return hashlib.sha256(sql.encode()).hexdigest()


def _chain(prev: str, head: int, ids: Sequence[str], stream: str, version: int, types: Sequence[str],
           versions: Sequence[int], payloads: Sequence[str], when: str, session: int | None, actor: str,
           causes: Sequence[str | None], correlation: str | None) -> list[str]:
    """The hashes of rows appended after ``(head, prev)`` to a stream at ``version``: the canonical
    array of :func:`cristal_events.store.row_hash`, so the chain is SQLite's."""
    enc, sha = hash_encoder.encode, hashlib.sha256
    out = []
    for i, eid in enumerate(ids):
        prev = sha(enc((prev, head + i + 1, eid, stream, version + i + 1, types[i], versions[i], payloads[i], when,
                        session, actor, causes[i], correlation))).hexdigest()
        out.append(prev)
    return out


def _some_known(known: int, total: int) -> str:
    return _("{len} of the {len2} event ids are already stored; a retry must resend the same batch.").format(
        len=known, len2=total)


def _stale(stream: str, current: int, expected: int) -> str:
    return _("Stream {stream} is at version {current}, not {expected_version}: someone else wrote first; "
             "retry.").format(stream=stream, current=current, expected_version=expected)


def _lock_key(schema: str) -> int:
    """The advisory-lock key of a campaign: 63 bits of the SHA-256 of its schema's name."""
    return int.from_bytes(hashlib.sha256(schema.encode()).digest()[:8], "big") >> 1


_peeks: dict[str, Any] = {}
_peeks_lock = threading.Lock()


def peek_rows(target: Target, sql: str, args: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
    """The rows of one read through a read-only connection kept per campaign for the peeks: the web
    table asks who holds a token and where the log ends on every request and every 0.2 s of a live
    page, and a new connection costs the server a process each time. A connection the server closed
    is opened again once."""
    psycopg = _psycopg()
    key = target.url()
    for attempt in (0, 1):
        with _peeks_lock:
            conn = _peeks.get(key)
            if conn is None or conn.closed:
                conn = _peeks[key] = connect(target, timeout=2, readonly=True)
        try:
            return conn.execute(sql, args).fetchall()
        except psycopg.OperationalError:
            with _peeks_lock:
                _peeks.pop(key, None)
            conn.close()
            if attempt:
                raise
    return []


def campaigns(target: str) -> list[str]:
    """The names of the campaigns of the database a PostgreSQL URL names, sorted."""
    rows = peek_rows(parse_target(target),
                     "SELECT n.nspname FROM pg_namespace n JOIN pg_class c ON c.relnamespace = n.oid "
                     "WHERE c.relname = 'events' AND c.relkind = 'r' AND n.nspname LIKE %s ORDER BY 1",
                     (SCHEMA_PREFIX.replace("_", "\\_") + "%",))
    return [r[0][len(SCHEMA_PREFIX):] for r in rows]


def campaign_of_token(target: str, token_hash: str) -> str | None:
    """The campaign of the database ``target`` names whose live access holds ``token_hash`` (one
    query over every campaign's access table), or None. For ``cristal serve --all``, which routes
    each request to the campaign of its token."""
    names = campaigns(target)
    if not names:
        return None
    t = parse_target(target)
    sql = " UNION ALL ".join(
        f"SELECT %s FROM \"{ident(SCHEMA_PREFIX + n)}\".access_tokens WHERE token_hash = %s AND revoked_at IS NULL"
        for n in names)
    args: list[Any] = [x for n in names for x in (n, token_hash)]
    try:
        rows = peek_rows(t, sql + " LIMIT 1", args)
    except Exception:  # noqa: BLE001 - a campaign of an older engine without the table: nothing to route to
        return None
    return rows[0][0] if rows else None


def local_base(target: Target | str) -> Path:
    """The local stem of a PostgreSQL campaign's files that must not live in the database (its holders
    must not read them) or in the working folder (a URL is no file name): ``$CRISTAL_SECRETS_DIR``
    (default ``~/.cristal/secrets``, mode 0700) / ``HOST-DATABASE-CAMPAIGN``; the service adds
    ``.secrets`` (the open session's dice secret) and ``.sealed`` (the sealed rolls), the console
    ``.history``. Read without connecting."""
    t = parse_target(target) if isinstance(target, str) else target
    parts = urlsplit(t.conninfo)
    host = dict(parse_qsl(parts.query)).get("host") or parts.hostname or "local"
    db = parts.path.strip("/") or "postgres"
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", f"{host}-{db}-{t.campaign}").strip("_")
    folder = Path(os.environ.get("CRISTAL_SECRETS_DIR") or Path.home() / ".cristal" / "secrets")
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    return folder / name


class PgStore:
    """An append-only event log in one schema of a PostgreSQL database (see the module's docstring)."""

    def __init__(self, conn: Any, target: Target, codec: Codec | None = None, *, readonly: bool = False):
        self.conn = conn
        self.target = target
        self.path = target.shown  # what messages call the campaign
        self.codec = codec
        self.readonly = readonly
        self._depth = 0
        self._lock = _lock_key(target.schema)
        self._pks: dict[str, list[str]] = {}
        #: the head (position, hash) and the (stream, version) the last append left: what the next
        #: append chains from (a guess; the function refuses it when the log has moved)
        self._tip: tuple[int, str] | None = None
        self._stream_tip: tuple[str, int] | None = None

    @property
    def secrets_base(self) -> Path:
        """Where the open session's dice secret is kept (see :func:`local_base`)."""
        return local_base(self.target)

    # ------------------------------------------------------------------ opening
    @classmethod
    def create(cls, target: str, codec: Codec | None = None, *, timeout: float | None = None) -> PgStore:
        """Create a new, empty campaign (refuses one that exists)."""
        t = parse_target(target)
        conn = connect(t, timeout=timeout)
        try:
            with conn.transaction():
                conn.execute("SELECT pg_advisory_xact_lock(%s)", (_lock_key(t.schema),))
                if conn.execute("SELECT 1 FROM pg_namespace WHERE nspname = %s", (t.schema,)).fetchone():
                    raise CristalError(_("The campaign {name} already exists in {target}; choose another "
                                         "?campaign=NAME or drop its schema first.").format(name=t.campaign,
                                                                                            target=t.shown))
                conn.execute(f'CREATE SCHEMA "{ident(t.schema)}"')
                _migrate(conn, t)
        except CristalError:
            conn.close()
            raise
        except Exception as exc:  # noqa: BLE001 - psycopg's errors become one sentence
            conn.close()
            raise translate(exc, t.shown) from None
        return cls(conn, t, codec)

    @classmethod
    def open(cls, target: str, codec: Codec | None = None, *, timeout: float | None = None,
             readonly: bool = False) -> PgStore:
        """Open an existing campaign, applying pending migrations (unless read-only)."""
        t = parse_target(target)
        conn = connect(t, timeout=timeout, readonly=readonly)
        try:
            has = conn.execute("SELECT 1 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                               "WHERE n.nspname = %s AND c.relname = 'schema_migrations'", (t.schema,)).fetchone()
            if not has:
                raise NotACampaign(_("No campaign {name} in {target}; create one with "
                                     "'cristal init {url} --name NAME'.").format(name=t.campaign, target=t.shown,
                                                                                url=t.url()))
            if readonly:
                _pending(conn)
            else:
                with conn.transaction():
                    conn.execute("SELECT pg_advisory_xact_lock(%s)", (_lock_key(t.schema),))
                    _migrate(conn, t)
        except CristalError:
            conn.close()
            raise
        except Exception as exc:  # noqa: BLE001
            conn.close()
            raise translate(exc, t.shown) from None
        return cls(conn, t, codec, readonly=readonly)

    def close(self) -> None:
        self.conn.close()

    def drop_campaign(self) -> None:
        """Remove this campaign's schema (a copy that could not finish; its log is not a campaign's yet)."""
        self._rollback()
        self._sql(f'DROP SCHEMA "{ident(self.target.schema)}" CASCADE')

    # ------------------------------------------------------------ transactions
    @contextmanager
    def transaction(self) -> Iterator[None]:
        """A write transaction holding the campaign's advisory lock; re-entrant (inner calls join)."""
        if self._depth:
            self._depth += 1
            try:
                yield
            finally:
                self._depth -= 1
            return
        try:
            # one round trip: two statements of the simple query protocol (the key is this module's integer)
            self.conn.execute(f"BEGIN; SELECT pg_advisory_xact_lock({int(self._lock)})")
        except Exception as exc:  # noqa: BLE001
            self._rollback()
            raise translate(exc, self.path) from None
        self._depth = 1
        try:
            yield
        except BaseException:
            self._depth = 0
            self._rollback()
            raise
        self._depth = 0
        try:
            self.conn.execute("COMMIT")
        except Exception as exc:  # noqa: BLE001
            self._rollback()
            raise translate(exc, self.path) from None

    def _rollback(self) -> None:
        try:
            self.conn.execute("ROLLBACK")
        except Exception:  # noqa: BLE001 - a broken connection has nothing left to roll back
            pass

    def _sql(self, sql: str, args: Sequence[Any] | None = None) -> Any:
        """Run one statement; psycopg's errors become the one-sentence CristalErrors."""
        try:
            return self.conn.execute(sql, args)
        except Exception as exc:
            if isinstance(exc, CristalError):
                raise
            raise translate(exc, self.path) from None

    # ------------------------------------------------------------------ writing
    def stream_version(self, stream: str) -> int:
        return self._sql(_STREAM_VERSION, (stream,)).fetchone()[0]

    def append(self, stream: str, events: Sequence[Event], expected_version: int | None = ANY, *,
               event_ids: Sequence[str] | None = None, actor: str = "GM", session: int | None = None,
               causation_id: str | None = None, correlation_id: str | None = None,
               recorded_at: str | None = None, causation_ids: Sequence[str | None] | None = None) -> list[int]:
        """As :meth:`cristal_events.store.Store.append`. A command's few events: one call of the
        function ``cristal_append`` (migration 0003), one statement and, in autocommit, one round trip
        and one transaction, the rows chained from the head this store last saw (when the log has
        moved, the function refuses them and returns the head: they are chained again, under the
        lock). A batch (from 16 events): binary COPY inside a transaction holding the lock
        (docs/architecture.md, "PostgreSQL")."""
        if not events:
            return []
        ids = list(event_ids) if event_ids is not None else new_event_ids(len(events))
        if len(ids) != len(events):
            raise ValueError("event_ids and events differ in length")
        psycopg = _psycopg()
        causes = list(causation_ids) if causation_ids is not None else [causation_id] * len(events)
        try:
            payloads = [encode(e).decode() for e in events]
            types = [str(e.__struct_config__.tag) for e in events]
            versions = [type(e).version for e in events]
            if len(events) >= _COPY_FROM:
                return self._append_batch(stream, expected_version, event_ids is not None, ids, types, versions,
                                          payloads, recorded_at, session, actor, causes, correlation_id)
            return self._append_call(stream, expected_version, event_ids is not None, ids, types, versions,
                                     payloads, recorded_at, session, actor, causes, correlation_id)
        except psycopg.errors.UniqueViolation as exc:
            raise ConcurrencyConflict(_("Stream {stream} moved while appending ({exc}); retry.").format(
                stream=stream, exc=_first_line(exc))) from None
        except UnicodeEncodeError:
            raise CristalError(_("Text with characters that are not valid Unicode cannot be stored; nothing was "
                                 "written.")) from None
        except psycopg.Error as exc:
            raise translate(exc, self.path) from None

    def _append_call(self, stream: str, expected: int | None, check_ids: bool, ids: list[str], types: list[str],
                     versions: list[int], payloads: list[str], recorded_at: str | None, session: int | None,
                     actor: str, causes: list[str | None], correlation: str | None) -> list[int]:
        """The few rows of a command through ``cristal_append``: the function takes the campaign's
        lock, answers a retry by its ids, checks the stream's version and the head the rows were
        chained from, inserts them and moves the head, in one statement."""
        head, prev = self._tip if self._tip is not None else (-1, GENESIS)
        version = expected if expected is not None else (
            self._stream_tip[1] if self._stream_tip is not None and self._stream_tip[0] == stream else 0)
        with ExitStack() as locked:
            for attempt in range(4):
                when = recorded_at or utc_now()
                hashes = _chain(prev, head, ids, stream, version, types, versions, payloads, when, session, actor,
                                causes, correlation)
                rows = _json_encode(list(zip(ids, types, versions, payloads, causes, hashes))).decode()
                # a time taken before the lock must not precede the head's (p_now); one taken inside a
                # transaction holding the lock is the SQLite store's own, whatever another machine's clock said
                status, current, head, prev, known = self._sql(_APPEND, (
                    self._lock, stream, version, head, prev, check_ids, recorded_at is None and not self._depth,
                    when, session, actor, correlation, rows)).fetchone()
                if status == _KNOWN:
                    return list(known)
                if status == _SOME_KNOWN:
                    raise ConcurrencyConflict(_some_known(current, len(ids)))
                self._tip, self._stream_tip = (head, prev), (stream, current)
                if status == _APPENDED:
                    return list(range(head - len(ids) + 1, head + 1))
                if status == _STALE_VERSION and expected is not None:
                    raise ConcurrencyConflict(_stale(stream, current, expected))
                # the rows were numbered, chained or stamped from a state the log has left: again from the
                # state the function returned (a store just opened knows no head: its second call is
                # the one that writes); after two refusals inside a transaction holding the campaign's
                # lock (re-entrant), so the state the next call returns cannot move before the one after
                version = current
                if attempt == 1 and not self._depth:
                    locked.enter_context(self.transaction())
        raise StoreUnavailable(_("The campaign {path} could not be used: {reason}; nothing was written.").format(
            path=self.path, reason="its head moved under the campaign's lock"))

    def _append_batch(self, stream: str, expected: int | None, check_ids: bool, ids: list[str], types: list[str],
                      versions: list[int], payloads: list[str], recorded_at: str | None, session: int | None,
                      actor: str, causes: list[str | None], correlation: str | None) -> list[int]:
        """A batch: its own transaction (or the caller's) holding the campaign's lock, the state read,
        the rows chained and written with binary COPY, the head moved."""
        with self.transaction():
            if check_ids:
                known = self._positions_of(ids)
                if len(known) == len(ids):
                    return [known[i] for i in ids]
                if known:
                    raise ConcurrencyConflict(_some_known(len(known), len(ids)))
            current, position, prev = self._state_of(stream)
            if expected is not None and current != expected:
                raise ConcurrencyConflict(_stale(stream, current, expected))
            when = recorded_at or utc_now()
            enc, sha = hash_encoder.encode, hashlib.sha256
            n = len(ids)
            # each row is hashed and handed to COPY at once: psycopg sends a buffer of rows every 32 kB,
            # so the server inserts the first rows while this process hashes the next ones (on two
            # cores the batch costs the longer of the two, not their sum; benchmarks/pg_append.py)
            with self.conn.cursor() as cur, cur.copy(_COPY) as copy:
                copy.set_types(_COPY_TYPES)
                write = copy.write_row
                for pos, ver, eid, typ, sv, payload, cause in zip(range(position + 1, position + n + 1),
                                                                   range(current + 1, current + n + 1), ids,
                                                                   types, versions, payloads, causes):
                    h = sha(enc((prev, pos, eid, stream, ver, typ, sv, payload, when, session, actor, cause,
                                 correlation))).hexdigest()
                    write((pos, eid, stream, ver, typ, sv, payload, when, session, actor, cause, correlation, prev,
                           h))
                    prev = h
            self.conn.execute("UPDATE log_head SET position = GREATEST(position, %s)", (position + n,))
        self._tip, self._stream_tip = (position + n, prev), (stream, current + n)
        return list(range(position + 1, position + n + 1))

    def append_rows(self, rows: Iterable[dict[str, Any]]) -> int:
        return self.import_rows(tuple(map(r.__getitem__, IMPORT_FIELDS)) for r in rows)

    def import_rows(self, rows: Iterable[Sequence[Any]], *, validate: Callable[[str, int, str], Any] | None = None) -> int:
        """As :meth:`cristal_events.store.Store.import_rows`: rows re-chained at the end of the log, in
        one transaction, written with COPY in chunks of 5,000 (the iterable is consumed as it goes);
        ``validate`` as there (a big import validates in a worker process, :func:`log_rows.validated`)."""
        psycopg = _psycopg()
        n = 0
        try:
            with self.transaction(), closing(validated(rows, validate)) as checked:
                position, prev = self._head()
                for chunk in chained(checked, position, prev, _PAGE):
                    self._copy(chunk)
                    n += len(chunk)
                    position = chunk[-1][0]
                if n:
                    self.conn.execute("UPDATE log_head SET position = GREATEST(position, %s)", (position,))
        except psycopg.errors.UniqueViolation as exc:
            raise ConcurrencyConflict(_("An imported event is already stored ({reason}).").format(
                reason=_first_line(exc))) from None
        except psycopg.Error as exc:
            raise translate(exc, self.path) from None
        return n

    def _copy(self, rows: Sequence[tuple[Any, ...]]) -> None:
        """COPY in binary format with the column types set once: psycopg packs each row in C, no SQL
        text is built and no value is escaped (the lever benchmarks/postgres.py measures)."""
        with self.conn.cursor() as cur, cur.copy(_COPY) as copy:
            copy.set_types(_COPY_TYPES)
            for r in rows:
                copy.write_row(r)

    def _positions_of(self, ids: Sequence[str]) -> dict[str, int]:
        # one index probe per id (a parameterized nested loop), whatever plan the table's size suggested
        return dict(self._sql("SELECT i.id, e.position FROM unnest(%s::text[]) AS i(id) CROSS JOIN LATERAL "
                              "(SELECT position FROM events WHERE event_id = i.id) e", (list(ids),)).fetchall())

    def _state_of(self, stream: str) -> tuple[int, int, str]:
        """(the stream's version, the head's position, its hash) in one statement (one round trip)."""
        version, seq, last, h = self._sql(
            "SELECT COALESCE((SELECT version FROM events WHERE stream = %s ORDER BY stream DESC, version DESC LIMIT 1), 0), "
            "(SELECT position FROM log_head), "
            "e.position, e.hash FROM (SELECT 1) one LEFT JOIN LATERAL "
            "(SELECT position, hash FROM events ORDER BY position DESC LIMIT 1) e ON true", (stream,)).fetchone()
        if last is None:
            return version, seq, GENESIS
        return version, max(seq, last), h

    def _head(self) -> tuple[int, str]:
        seq = self._sql("SELECT position FROM log_head").fetchone()[0]
        last = self._sql("SELECT position, hash FROM events ORDER BY position DESC LIMIT 1").fetchone()
        if last is None:
            return seq, GENESIS
        return max(seq, last[0]), last[1]

    # ------------------------------------------------------------------ reading
    def last_position(self) -> int:
        return self._sql(_LAST_POSITION).fetchone()[0]

    def count(self) -> int:
        return self._sql("SELECT COUNT(*) FROM events").fetchone()[0]

    def last_hash(self) -> str:
        return self.head()[1]

    def hash_at(self, position: int) -> str | None:
        if not 0 < position <= _PG_MAX_INT:
            return None
        row = self._sql("SELECT hash FROM events WHERE position = %s", (position,)).fetchone()
        return row[0] if row else None

    def head(self) -> tuple[int, str]:
        row = self._sql("SELECT position, hash FROM events ORDER BY position DESC LIMIT 1").fetchone()
        return (row[0], row[1]) if row else (0, GENESIS)

    def session_ends(self) -> dict[int, tuple[int, str]]:
        return {s: (p, h) for s, p, h in self._sql(SESSION_ENDS).fetchall()}

    def read_all(self, after: int = 0, *, until: int | None = None, stream: str | None = None,
                 type: str | None = None, session: int | None = None, decode: bool = True,
                 hashes: bool = True) -> Iterator[RecordedEvent]:
        """Events after ``after`` (up to ``until``), in log order, optionally filtered; read in keyset
        pages of positions, so any other statement may run on this connection between two rows."""
        where: list[str] = []
        args: list[Any] = []
        if until is not None:
            where.append("position <= %s")
            args.append(min(until, _PG_MAX_INT))
        for column, value in (("stream", stream), ("type", type), ("session", session)):
            if value is not None:
                where.append(f"{column} = %s")
                args.append(value)
        columns = _COLUMNS if hashes else _COLUMNS_NO_HASHES
        tail = "".join(f" AND {w}" for w in where)
        sql = f"SELECT {columns} FROM events WHERE position > %s{tail} ORDER BY position LIMIT {_PAGE}"
        last = max(-1, min(after, _PG_MAX_INT))
        while True:
            rows = self._sql(sql, [last, *args]).fetchall()
            yield from self._records(rows, decode, hashes)
            if len(rows) < _PAGE:
                return
            last = rows[-1][0]

    def read_stream(self, stream: str, after_version: int = 0, *, decode: bool = True) -> Iterator[RecordedEvent]:
        rows = self._sql(f"SELECT {_COLUMNS} FROM events WHERE stream = %s AND version > %s ORDER BY version",
                         (stream, after_version)).fetchall()
        yield from self._records(rows, decode, True)

    def get(self, position: int) -> RecordedEvent | None:
        if not 0 < position <= _PG_MAX_INT:
            return None
        rows = self._sql(f"SELECT {_COLUMNS} FROM events WHERE position = %s", (position,)).fetchall()
        return next(self._records(rows, True, True), None)

    def _records(self, rows: list[tuple[Any, ...]], decode: bool, hashes: bool) -> Iterator[RecordedEvent]:
        """The rows as recorded events; decoded as :meth:`Store._rows` decodes them (the same hot path)."""
        return decoded(rows, self.codec if decode else None, () if hashes else ("", ""))

    # -------------------------------------------------------------- snapshots
    def snapshots(self, state_version: str, *, upto: int | None = None,
                  newest_first: bool = False) -> Iterator[tuple[int, str, str, bytes]]:
        sql = "SELECT position, event_hash, digest, state FROM snapshots WHERE state_version = %s"
        args: list[Any] = [state_version]
        if upto is not None:
            sql += " AND position <= %s"
            args.append(max(-1, min(upto, _PG_MAX_INT)))
        sql += " ORDER BY position DESC" if newest_first else " ORDER BY position"
        yield from self._sql(sql, args).fetchall()

    def snapshot_state(self, state_version: str, position: int) -> bytes | None:
        row = self._sql("SELECT state FROM snapshots WHERE state_version = %s AND position = %s",
                        (state_version, min(position, _PG_MAX_INT))).fetchone()
        return row[0] if row else None

    def snapshot_positions(self, state_version: str) -> list[int]:
        return [p for (p,) in self._sql("SELECT position FROM snapshots WHERE state_version = %s ORDER BY position",
                                        (state_version,)).fetchall()]

    def put_snapshot(self, position: int, state_version: str, event_hash: str, digest: str, state: bytes) -> None:
        self._sql("INSERT INTO snapshots (position, state_version, event_hash, digest, state) VALUES (%s, %s, %s, %s, %s) "
                  "ON CONFLICT (state_version, position) DO UPDATE SET event_hash = EXCLUDED.event_hash, "
                  "digest = EXCLUDED.digest, state = EXCLUDED.state", (position, state_version, event_hash, digest, state))

    def drop_snapshots(self, state_version: str, positions: Iterable[int]) -> None:
        self._sql("DELETE FROM snapshots WHERE state_version = %s AND position = ANY(%s)", (state_version, list(positions)))

    def drop_other_snapshots(self, state_version: str) -> None:
        self._sql("DELETE FROM snapshots WHERE state_version != %s", (state_version,))

    # ------------------------------------------------------- sessions, streams, secrets
    def session_span(self, session: int) -> tuple[int, int] | None:
        if not 0 <= session <= _PG_MAX_INT:
            return None
        row = self._sql("SELECT MIN(position), MAX(position) FROM events WHERE session = %s", (session,)).fetchone()
        return None if row[0] is None else (row[0], row[1])

    def stream_exists(self, stream: str) -> bool:
        return self._sql("SELECT 1 FROM events WHERE stream = %s LIMIT 1", (stream,)).fetchone() is not None

    def legacy_secrets(self) -> dict[int, str]:
        return dict(self._sql("SELECT session, secret FROM session_secrets").fetchall())

    def legacy_secret(self, session: int) -> str | None:
        if not 0 <= session <= _PG_MAX_INT:
            return None
        row = self._sql("SELECT secret FROM session_secrets WHERE session = %s", (session,)).fetchone()
        return row[0] if row else None

    def has_legacy_secrets(self) -> bool:
        return self._sql("SELECT 1 FROM session_secrets LIMIT 1").fetchone() is not None

    def clear_legacy_secrets(self) -> None:
        self._sql("DELETE FROM session_secrets")

    def checkpoint_wal(self) -> None:
        """Nothing to fold: the server owns its write-ahead log."""

    # ------------------------------------------------------------ read models
    def table_names(self) -> set[str]:
        return {n for (n,) in self._sql("SELECT tablename FROM pg_tables WHERE schemaname = %s",
                                        (self.target.schema,)).fetchall()}

    def create_read_tables(self, tables: dict[str, tuple[dict[str, str], tuple[str, ...]]], *,
                           replace: bool = False) -> None:
        """Create each read table ``name -> (columns: name -> SQLite type, primary key)`` missing (with
        ``replace``: drop and create it again, empty), SQLite's types mapped to PostgreSQL's."""
        missing = tables if replace else {n: t for n, t in tables.items() if n not in self.table_names()}
        for name, (columns, pk) in missing.items():
            if replace:
                self._sql(f'DROP TABLE IF EXISTS "{ident(name)}"')
            cols = ", ".join(f'"{ident(c)}" {_TYPES.get(t.upper(), "text")}' for c, t in columns.items())
            keys = ", ".join(f'"{ident(c)}"' for c in pk)
            self._sql(f'CREATE TABLE "{ident(name)}" ({cols}, PRIMARY KEY ({keys}))')
            self._pks[name] = list(pk)

    def _pk(self, table: str) -> list[str]:
        if table not in self._pks:
            rows = self._sql("SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid "
                             "AND a.attnum = ANY(i.indkey) WHERE i.indrelid = to_regclass(%s) AND i.indisprimary "
                             "ORDER BY array_position(i.indkey, a.attnum)", (f'"{ident(table)}"',)).fetchall()
            self._pks[table] = [r[0] for r in rows]
        return self._pks[table]

    def clear_rows(self, table: str) -> None:
        self._sql(f'DELETE FROM "{ident(table)}"')

    def delete_rows(self, table: str, pk: Sequence[str], keys: Iterable[Sequence[Any]]) -> None:
        where = " AND ".join(f'"{ident(c)}" = %s' for c in pk)
        try:
            with self.conn.cursor() as cur:
                cur.executemany(f'DELETE FROM "{ident(table)}" WHERE {where}', [tuple(k) for k in keys])
        except _psycopg().Error as exc:
            raise translate(exc, self.path) from None

    def replace_rows(self, table: str, columns: Sequence[str], values: Sequence[Sequence[Any]]) -> None:
        """INSERT ... ON CONFLICT DO UPDATE, rows replacing each other in order as SQLite's INSERT OR
        REPLACE (PostgreSQL refuses one statement touching a row twice: the last of each key is kept)."""
        if not values:
            return
        cols = list(columns)
        pk = self._pk(table)
        at = [cols.index(c) for c in pk]
        kept: dict[tuple[Any, ...], Sequence[Any]] = {}
        for v in values:
            kept[tuple(v[i] for i in at)] = v
        rows = [tuple(int(x) if isinstance(x, bool) else x for x in v) for v in kept.values()]
        names = ", ".join(f'"{ident(c)}"' for c in cols)
        update = ", ".join(f'"{c}" = EXCLUDED."{c}"' for c in cols if c not in pk)
        conflict = f'ON CONFLICT ({", ".join(chr(34) + c + chr(34) for c in pk)}) ' + (
            f"DO UPDATE SET {update}" if update else "DO NOTHING")
        marks = "(" + ",".join(["%s"] * len(cols)) + ")"
        for i in range(0, len(rows), 500):
            part = rows[i:i + 500]
            self._sql(f'INSERT INTO "{ident(table)}" ({names}) VALUES {",".join([marks] * len(part))} {conflict}',
                      list(itertools.chain.from_iterable(part)))

    @contextmanager
    def page_cache(self, kib: int | None) -> Iterator[None]:
        """As on SQLite, where it bounds the connection's page cache; PostgreSQL's buffers are the
        server's (``shared_buffers``), not this connection's: nothing to change here."""
        yield

    def copy_log_rows(self, table: str, columns: Sequence[str], sources: Sequence[str], after: int,
                      until: int) -> int:
        """As :meth:`cristal_events.store.Store.copy_log_rows`: one INSERT ... SELECT of the envelope's
        ``sources`` columns (the events after ``after`` up to ``until``), a row already there replaced."""
        from .log_rows import LOG_COPY_COLUMNS

        if not set(sources) <= LOG_COPY_COLUMNS or len(sources) != len(columns):
            raise ValueError(f"not columns of the log's envelope: {', '.join(sources)}")
        pk = self._pk(table)
        names = ", ".join(f'"{ident(c)}"' for c in columns)
        update = ", ".join(f'"{c}" = EXCLUDED."{c}"' for c in columns if c not in pk)
        conflict = f'ON CONFLICT ({", ".join(chr(34) + c + chr(34) for c in pk)}) ' + (
            f"DO UPDATE SET {update}" if update else "DO NOTHING")
        cur = self._sql(f'INSERT INTO "{ident(table)}" ({names}) SELECT {", ".join(sources)} FROM events '
                        f"WHERE position > %s AND position <= %s ORDER BY position {conflict}", (after, until))
        return cur.rowcount

    def table_rows(self, table: str, columns: Sequence[str], order_by: Sequence[str]) -> list[tuple[Any, ...]]:
        if table not in self.table_names():
            return []
        select = ", ".join(f'"{ident(c)}"' for c in columns)
        order = ", ".join(f'"{ident(c)}"' for c in order_by)
        return [tuple(r) for r in self._sql(f'SELECT {select} FROM "{ident(table)}"'
                                            + (f" ORDER BY {order}" if order else "")).fetchall()]

    def read_model_rows(self, table: str, *, where: dict[str, Any] | None = None,
                        order_by: Sequence[str] = ()) -> list[dict[str, Any]]:
        if table not in self.table_names():
            return []
        clause = " AND ".join(f'"{ident(c)}" = %s' for c in where or {})
        order = ", ".join(f'"{ident(c)}"' for c in order_by)
        cur = self._sql(f'SELECT * FROM "{ident(table)}"' + (f" WHERE {clause}" if clause else "")
                        + (f" ORDER BY {order}" if order else ""), list((where or {}).values()))
        names = [d.name for d in cur.description]
        return [dict(zip(names, r)) for r in cur.fetchall()]

    def read_model_current(self, name: str, version: int) -> bool:
        row = self._sql("SELECT version, position FROM projection_checkpoints WHERE name = %s", (name,)).fetchone()
        return row is not None and row[0] == version and row[1] == self.last_position()

    @contextmanager
    def savepoint(self, name: str = "read_model_row") -> Iterator[None]:
        self._sql(f"SAVEPOINT {ident(name)}")
        try:
            yield
        except BaseException:
            self._sql(f"ROLLBACK TO SAVEPOINT {ident(name)}")
            self._sql(f"RELEASE SAVEPOINT {ident(name)}")
            raise
        self._sql(f"RELEASE SAVEPOINT {ident(name)}")

    def checkpoint(self, name: str) -> tuple[int, int, bytes | None] | None:
        row = self._sql("SELECT version, position, state FROM projection_checkpoints WHERE name = %s", (name,)).fetchone()
        return None if row is None else (row[0], row[1], row[2])

    def checkpoint_head(self, name: str) -> tuple[int, int] | None:
        """Read model ``name``'s checkpoint ``(version, position)`` without its state (as on SQLite)."""
        row = self._sql("SELECT version, position FROM projection_checkpoints WHERE name = %s", (name,)).fetchone()
        return None if row is None else (row[0], row[1])

    def move_checkpoint(self, name: str, version: int, position: int) -> None:
        """Move read model ``name``'s checkpoint to ``position``, its stored state unchanged (as on SQLite)."""
        self._sql("UPDATE projection_checkpoints SET position = %s WHERE name = %s AND version = %s",
                  (position, name, version))

    def put_checkpoint(self, name: str, version: int, position: int, state: bytes | None) -> None:
        self._sql("INSERT INTO projection_checkpoints VALUES (%s, %s, %s, %s) ON CONFLICT (name) DO UPDATE SET "
                  "version = EXCLUDED.version, position = EXCLUDED.position, state = EXCLUDED.state",
                  (name, version, position, state))

    def drop_checkpoint(self, name: str) -> None:
        self._sql("DELETE FROM projection_checkpoints WHERE name = %s", (name,))

    # ------------------------------------------------------------ peeks (the CLI, the web table)
    @staticmethod
    def _peek(target: str, sql: str, args: Sequence[Any] = ()) -> Any:
        """One row read through the campaign's peek connection (:func:`peek_rows`); None when it cannot be read."""
        try:
            rows = peek_rows(parse_target(target), sql, args)
        except Exception:  # noqa: BLE001 - no server, or not a campaign (no such schema or table): nothing to peek at
            return None
        return rows[0] if rows else None

    @staticmethod
    def _peek_all(target: str, sql: str, args: Sequence[Any] = ()) -> list[Any] | None:
        """Every row read through the campaign's peek connection; None when it cannot be read."""
        try:
            return list(peek_rows(parse_target(target), sql, args))
        except Exception:  # noqa: BLE001 - no server, or not a campaign: nothing to peek at
            return None

    @staticmethod
    def peek_header(target: str) -> str | None:
        row = PgStore._peek(target, "SELECT payload FROM events WHERE position = 1")
        return row[0] if row else None

    @staticmethod
    def peek_last_position(target: str) -> int:
        row = PgStore._peek(target, _LAST_POSITION)
        if row is None:
            raise StoreUnavailable(_("The campaign {path} cannot be read.").format(path=target))
        return row[0]

    @staticmethod
    def peek_last_stream(target: str, prefix: str) -> str | None:
        like = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        row = PgStore._peek(target, "SELECT stream FROM events WHERE stream LIKE %s ORDER BY position DESC LIMIT 1",
                            (like,))
        return row[0] if row else None

    @staticmethod
    def peek_access(target: str, token_hash: str) -> dict[str, Any] | None:
        row = PgStore._peek(target, "SELECT name, characters, gm, granted_at FROM access_tokens "
                                    "WHERE token_hash = %s AND revoked_at IS NULL", (token_hash,))
        return access_row(row) if row else None

    #: as :data:`Store._LAST_SESSION_START` and :data:`Store._SEALED_ROWS`, both read through the one
    #: partial index of the rows looked up by type (migration 0004 of PostgreSQL, ``events_marked``)
    _LAST_SESSION_START = ("SELECT (SELECT position FROM events WHERE type = 'session.started' "
                           "ORDER BY position DESC LIMIT 1)")
    _SEALED_ROWS = ("SELECT position, type, payload FROM events WHERE position > %s "
                    "AND type IN ('roll.sealed', 'roll.revealed') ORDER BY position")

    @staticmethod
    def sealed_of(target: str) -> list[int]:
        """The secret rolls of the last session no ``roll.revealed`` names (as :meth:`Store.sealed_of`)."""
        start = PgStore._peek(target, PgStore._LAST_SESSION_START)
        if start is None or start[0] is None:
            return []
        rows = PgStore._peek_all(target, PgStore._SEALED_ROWS, (start[0],))
        return still_sealed(rows or [])

    def last_session_start(self) -> int | None:
        """The position of the last ``session.started``, or None (as :meth:`Store.last_session_start`)."""
        return self._sql(PgStore._LAST_SESSION_START).fetchone()[0]

    @staticmethod
    def ruleset_of(target: str) -> str | None:
        header = PgStore.peek_header(target)
        try:
            return msgspec.json.decode(header).get("ruleset") if header else None
        except (msgspec.DecodeError, AttributeError):
            return None

    # ---------------------------------------------------------------- verifying
    def verify(self, *, workers: int | None = None,
               progress: Callable[[int, int], None] | None = None) -> VerifyReport:
        """Recompute the hash chain (the same canonical encoding as on SQLite), check the positions,
        the end of the log, the append-only triggers, the revoked privileges and the migrations.
        ``workers`` is accepted for the same call as on SQLite: the walk is one keyset scan here."""
        from .log_rows import gap_problem, unlinked_problem

        last_pos = self.last_position()
        sql = f"SELECT {_CANONICAL}, hash FROM events WHERE position > %s ORDER BY position LIMIT {_PAGE}"
        enc, sha = hash_encoder.encode, hashlib.sha256
        prev, expected, n, first_bad, problems = GENESIS, 1, 0, None, []
        cursor = 0
        while True:
            rows = self._sql(sql, (cursor,)).fetchall()
            for r in rows:
                n += 1
                if first_bad is None:
                    pos, h = r[1], r[13]
                    if pos != expected:
                        first_bad = expected
                        problems.append(gap_problem(expected, pos))
                    elif r[0] != prev:
                        first_bad = pos
                        problems.append(unlinked_problem(pos))
                    elif sha(enc(r[:13])).hexdigest() != h:
                        first_bad = pos
                        problems.append(f"position {pos} was altered after it was written (hash mismatch)")
                    prev, expected = h, pos + 1
            if progress is not None:
                progress(min(n, last_pos), last_pos)
            if len(rows) < _PAGE:
                break
            cursor = rows[-1][1]
        seq = self._sql("SELECT position FROM log_head").fetchone()[0]
        if first_bad is None and seq > expected - 1:
            first_bad = expected
            problems.append(f"the log ends at position {expected - 1} but position {seq} was written: events were removed from its end")
        triggers = {t for (t,) in self._sql(
            "SELECT tgname FROM pg_trigger WHERE tgrelid = to_regclass('events') AND NOT tgisinternal").fetchall()}
        for t in ("events_no_update", "events_no_delete", "events_no_truncate"):
            if t not in triggers:
                problems.append(f"the append-only trigger {t} is missing")
        role, superuser = self._sql("SELECT current_user, rolsuper FROM pg_roles WHERE rolname = current_user").fetchone()
        if not superuser:
            for what in ("UPDATE", "DELETE", "TRUNCATE"):
                if self._sql("SELECT has_table_privilege('events', %s)", (what,)).fetchone()[0]:
                    problems.append(f"the role {role} may {what} the event log (the privilege was granted back)")
        try:
            if _pending(self.conn):
                problems.append("migration(s) were never applied")
        except CristalError as exc:
            problems.append(str(exc).rstrip("."))
        return VerifyReport(ok=not problems, events=n, first_bad_position=first_bad, problems=problems)

    # ---------------------------------------------------------------- web access tokens
    def grant_access(self, name: str, token_hash: str, characters: Sequence[str], gm: bool) -> None:
        self._sql("DELETE FROM access_tokens WHERE name = %s AND revoked_at IS NOT NULL", (name,))
        self._sql("INSERT INTO access_tokens (name, token_hash, characters, gm, granted_at) VALUES (%s, %s, %s, %s, %s)",
                  (name, token_hash, msgspec.json.encode(list(characters)).decode(), int(gm), datetime.now(UTC).isoformat()))

    def revoke_access(self, name: str) -> None:
        self._sql("UPDATE access_tokens SET revoked_at = %s WHERE name = %s AND revoked_at IS NULL",
                  (datetime.now(UTC).isoformat(), name))

    def access_holder(self, name: str) -> dict[str, Any] | None:
        row = self._sql("SELECT name, characters, gm, granted_at FROM access_tokens WHERE name = %s "
                        "AND revoked_at IS NULL", (name,)).fetchone()
        return access_row(row) if row else None

    def access_by_hash(self, token_hash: str) -> dict[str, Any] | None:
        row = self._sql("SELECT name, characters, gm, granted_at FROM access_tokens WHERE token_hash = %s "
                        "AND revoked_at IS NULL", (token_hash,)).fetchone()
        return access_row(row) if row else None

    def access_list(self) -> list[dict[str, Any]]:
        rows = self._sql("SELECT name, characters, gm, granted_at, revoked_at FROM access_tokens ORDER BY name").fetchall()
        return [{**access_row(r[:4]), "revoked_at": r[4]} for r in rows]


def _recorded(conn: Any) -> dict[int, tuple[str, str]]:
    return {n: (name, cs) for n, name, cs in conn.execute("SELECT number, name, checksum FROM schema_migrations")}


def _pending(conn: Any) -> list[tuple[int, str, str]]:
    """The shipped migrations not yet applied; a newer or changed one is one sentence (as SQLite's)."""
    shipped = {n: (n, name, sql) for n, name, sql in available()}
    recorded = _recorded(conn)
    newer = sorted(n for n in recorded if n not in shipped)
    if newer and newer[-1] > max(shipped):
        raise SchemaTooNew(_("This campaign uses schema version {recorded}, newer than this engine's "
                             "{shipped}; upgrade cristal-events to open it (it was not touched).").format(
                                 recorded=max(recorded), shipped=max(shipped)))
    for n, (name, cs) in sorted(recorded.items()):
        m = shipped.get(n)
        if m is None:
            raise MigrationError(_("Migration {name} is recorded in the campaign but missing from this engine.").format(
                name=name))
        if _checksum(m[2]) != cs:
            raise MigrationError(_("Migration {name} was changed after it was applied (checksum mismatch).").format(
                name=name))
    return [m for n, m in sorted(shipped.items()) if n not in recorded]


def _migrate(conn: Any, target: Target) -> None:
    """Apply the pending migrations inside the caller's transaction (which holds the campaign's lock)."""
    conn.execute("CREATE TABLE IF NOT EXISTS schema_migrations (number integer PRIMARY KEY, name text NOT NULL, "
                 "checksum text NOT NULL, applied_at text NOT NULL)")
    for number, name, sql in _pending(conn):
        conn.execute(sql)  # a whole file: psycopg sends a statement without parameters as one simple query
        conn.execute("INSERT INTO schema_migrations VALUES (%s, %s, %s, %s)",
                     (number, name, _checksum(sql), datetime.now(UTC).isoformat(timespec="microseconds")))
