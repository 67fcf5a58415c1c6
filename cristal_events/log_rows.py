"""The rows of the event log as both stores keep them (SQLite, :mod:`.store`; PostgreSQL,
:mod:`.store_pg`): the genesis hash and a row's hash (the same canonical encoding on either, so a
campaign verifies the same), time-ordered event ids, the record time, the fields of an imported row,
the verify report and its sentences, an access-token row, a usable SQL name. Below both stores, so
that neither imports the other's module to share them."""

from __future__ import annotations

import collections
import itertools
import os
import sys
import threading
import time
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from datetime import UTC, datetime
from typing import Any

import msgspec

from .i18n import _
from .records import RecordedEvent

#: the canonical encoding of the hash chain (:func:`row_hash`): the one encoder both stores hash with,
#: so that a campaign verifies the same on SQLite and PostgreSQL
hash_encoder = msgspec.json.Encoder()

GENESIS = "0" * 64
ANY = None  # expected_version that skips the concurrency check
#: each session's end (:meth:`Store.session_ends`), the same query on both stores: its WHERE repeats the
#: term of the partial index that serves it (SQLite migration 0008; PostgreSQL's ``events_marked``,
#: postgres/0005); a SQLite file opened read-only before that migration scans
SESSION_ENDS = ("SELECT session, position, hash FROM events WHERE type = 'session.ended' "
                "AND session IS NOT NULL ORDER BY position")
#: the fields of a row given to :meth:`Store.import_rows` (the envelope and payload of an exported event)
IMPORT_FIELDS = ("event_id", "stream", "version", "type", "schema_version", "payload", "recorded_at", "session",
                 "actor", "causation_id", "correlation_id")
class VerifyReport(msgspec.Struct, kw_only=True):
    """The outcome of :meth:`Store.verify`. ``ok`` is False when any problem was found."""

    ok: bool
    events: int
    first_bad_position: int | None = None
    problems: list[str] = []


#: the envelope columns a read model may copy from the log as they are (``Store.copy_log_rows`` on both stores)
LOG_COPY_COLUMNS = frozenset({"position", "event_id", "stream", "version", "type", "schema_version", "recorded_at",
                              "session", "actor", "causation_id", "correlation_id"})

#: at or beyond this many hashes (or :data:`BULK_BYTES` hashed), :func:`sha256` is OpenSSL's
BULK_HASHES = 4096
BULK_BYTES = 1 << 20
_openssl: Callable[..., Any] | None = None
_builtin: Callable[..., Any] | None = None


def sha256(hashes: int = 1, size: int = 0) -> Callable[..., Any]:
    """The SHA-256 constructor for ``hashes`` inputs of about a row's size (``size``: bytes in all, when
    larger): the one place that chooses. OpenSSL's (``hashlib``) hashes a row 2-3 times faster than the
    interpreter's own module (0.36-0.47 us against 0.85-1.43 us for 200-400 bytes here), but loading
    ``_hashlib`` (libcrypto) costs a process 2-4 ms, what about 4,000 rows' or 1 MB's difference: so a
    process that hashes a few things (a one-shot command: its row, a snapshot's digest, the migrations)
    takes the built-in ``_sha2``/``_sha256``, and a bulk path (an import, a verify) or a process that has
    loaded hashlib already takes OpenSSL's. The digests are the same (benchmarks/README.md, "Ninth
    session: the one-shot CLI write")."""
    global _openssl, _builtin
    if _openssl is None and hashes < BULK_HASHES and size < BULK_BYTES and "hashlib" not in sys.modules:
        if _builtin is None:
            # Python 3.12 merged _sha256 into _sha2 (a module not found costs a search of the whole path)
            for name in ("_sha2", "_sha256") if sys.version_info >= (3, 12) else ("_sha256",):
                try:
                    _builtin = __import__(name).sha256
                    break
                except (ImportError, AttributeError):
                    continue
        if _builtin is not None:
            return _builtin
    if _openssl is None:
        import hashlib

        _openssl = hashlib.sha256
    return _openssl


def row_hash(prev_hash: str, position: int, event_id: str, stream: str, version: int, type_: str,
             schema_version: int, payload: str, recorded_at: str, session: int | None, actor: str,
             causation_id: str | None, correlation_id: str | None) -> str:
    """SHA-256 over the canonical JSON array of the envelope and the payload text."""
    canonical = hash_encoder.encode([
        prev_hash, position, event_id, stream, version, type_, schema_version, payload, recorded_at,
        session, actor, causation_id, correlation_id,
    ])
    return sha256(BULK_HASHES)(canonical).hexdigest()  # called row after row (an exported file's check)


_id_counter = itertools.count(int.from_bytes(os.urandom(2), "big"))


#: the first hex digit of the UUID's variant field: its two high bits 10 (RFC 9562), its two low bits random
_VARIANT = {c: "89ab"[int(c, 16) & 3] for c in "0123456789abcdef"}


def new_event_ids(n: int) -> list[str]:
    """``n`` time-ordered UUIDs (version 7 layout, RFC 9562): 48-bit Unix ms, a 12-bit counter, 62 random bits.

    Ids that grow with time land at the end of the unique index on ``event_id`` instead of at
    random places, which keeps appends fast as the log grows (see benchmarks/README.md, 'time-ordered ids').
    The random bits are cut from one hex string (0.55 us an id against 1.4 us through an int each: a
    batch of 1,000 to PostgreSQL spends its time in Python on the ids and the hashes).
    """
    ms = f"{time.time_ns() // 1_000_000:012x}"
    head = f"{ms[:8]}-{ms[8:12]}-7"
    h = os.urandom(8 * n).hex()
    counter, variant = _id_counter, _VARIANT
    return [f"{head}{next(counter) & 0xFFF:03x}-{variant[h[i]]}{h[i + 1:i + 4]}-{h[i + 4:i + 16]}"
            for i in range(0, 16 * n, 16)]


def new_event_id() -> str:
    """One time-ordered UUID; see :func:`new_event_ids`."""
    return new_event_ids(1)[0]


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


def access_row(row: Sequence[Any]) -> dict[str, Any]:
    return {"name": row[0], "characters": msgspec.json.decode(row[1]), "gm": bool(row[2]), "granted_at": row[3]}


def gap_problem(expected: int, found: int) -> str:
    return _("position {expected} is missing (next stored event is {found}): an event was removed").format(expected=expected, found=found)


def unlinked_problem(position: int) -> str:
    return _("position {position} does not follow the previous event (chain broken: reordered or removed)").format(position=position)


def ident(name: str) -> str:
    """A table, column or savepoint name put in SQL text: read models name their own tables, so a
    name holding a double quote is a bug, refused before it reaches SQLite."""
    if '"' in name or "\x00" in name:
        raise ValueError(f"not a usable SQL name: {name!r}")
    return name




def still_sealed(rows: Iterable[Sequence[Any]]) -> list[int]:
    """The positions of the secret rolls no ``roll.revealed`` names, from ``(position, type, payload)``
    rows of ``roll.sealed`` / ``roll.revealed`` in log order (both stores' ``sealed_of`` peek)."""
    sealed: list[int] = []
    for position, type_, payload in rows:
        if type_ == "roll.sealed":
            sealed.append(position)
            continue
        try:
            at = msgspec.json.decode(payload).get("sealed")
        except (msgspec.DecodeError, AttributeError):
            continue
        sealed = [q for q in sealed if q != at]
    return sealed


def decoded(rows: Iterable[Sequence[Any]] | Callable[[], Iterable[Sequence[Any]]], codec: Any, tail: tuple[str, ...],
            *, errors: tuple[type[Exception], ...] = (),
            translate: Callable[[Exception], Exception] | None = None) -> Iterator[RecordedEvent]:
    """The log's rows as recorded events (``codec`` None: not decoded), the replay's hot path for both
    stores: a row of a type already decoded at its class's schema version goes straight to that class's
    decoder; anything else (a type not seen yet, an older version to upcast, a newer one, an invalid
    payload) goes through ``Codec.read``, which builds the decoder, upcasts or raises the one-sentence
    EventDecodeError. ``tail``: the two hashes as empty strings when the rows were read without them.

    ``rows`` may be a function returning them (the store's query), called at the first step, so that
    nothing is read before the caller iterates; an exception of ``errors`` raised while reading (the
    driver's) is raised as ``translate(exc)``. That way the store returns this generator itself and a
    replay resumes one frame per event, not one per level of generators wrapping it (measured:
    benchmarks/README.md, "Eighth session")."""
    try:
        if callable(rows):
            rows = rows()
        if codec is None:
            for r in rows:
                yield RecordedEvent(*r, *tail)
            return
        current, slow, invalid = codec.current, codec.read, (msgspec.ValidationError, msgspec.DecodeError)
        for r in rows:
            entry = current.get(r[4])
            if entry is not None and entry[0] == r[5]:
                try:
                    ev = entry[1](r[6])
                except invalid:
                    ev = slow(r[4], r[5], r[6])
            else:
                ev = slow(r[4], r[5], r[6])
            yield RecordedEvent(*r, *tail, ev)  # type: ignore[call-arg]  # the row's 14 columns, then the event
    except errors as exc:
        if translate is None:
            raise
        raise translate(exc) from None


# ------------------------------------------------------------------------------ the import pipeline
#: an import of more rows than this validates its payloads in a worker process (below, in this one:
#: the fork and the worker's start cost more than they save; benchmarks/README.md, "Levers, A/B")
IMPORT_PARALLEL_MIN = int(os.environ.get("CRISTAL_IMPORT_PARALLEL_MIN", "20000"))
_VALIDATE_CHUNK = 1000  # rows sent to a worker at once
_IN_FLIGHT = 3  # chunks each worker may hold ahead of the chain (so many chunks are held in memory)


def chained(rows: Iterable[Sequence[Any]], position: int, prev: str, size: int) -> Iterator[list[tuple[Any, ...]]]:
    """Rows of :data:`IMPORT_FIELDS` re-numbered after ``position``, chained after ``prev`` and hashed,
    as full rows of the events table (the 14 columns, the two hashes last) in chunks of ``size``: the
    sequential link of an import, both stores'."""
    enc, sha = hash_encoder.encode, sha256(BULK_HASHES)  # an import: a bulk path
    chunk: list[tuple[Any, ...]] = []
    for eid, stream, version, type_, sv, payload, when, session, actor, cause, corr in rows:
        position += 1
        # = row_hash(prev, position, ...); the row built as a literal (not sliced from the canonical
        # tuple): 10 % of the chain's time (benchmarks/README.md, "Eighth session")
        h = sha(enc((prev, position, eid, stream, version, type_, sv, payload, when, session, actor, cause,
                     corr))).hexdigest()
        chunk.append((position, eid, stream, version, type_, sv, payload, when, session, actor, cause, corr, prev, h))
        prev = h
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def validated(rows: Iterable[Sequence[Any]], validate: Callable[[str, int, str], Any] | None, *,
              parallel_min: int | None = None, workers: int | None = None) -> Generator[Sequence[Any], None, None]:
    """``rows`` (of :data:`IMPORT_FIELDS`) in order, each passed to ``validate(type, schema_version,
    payload)`` (e.g. ``Codec.decode``, which raises the one-sentence EventDecodeError) before it is
    yielded; ``validate`` None: the rows as they are.

    An import of more than ``parallel_min`` rows (default :data:`IMPORT_PARALLEL_MIN`) validates in
    ``workers`` forked processes (default :func:`import_workers`, 0 on two cores or a busy machine) while this one
    chains and inserts: decoding a payload to its typed event needs the GIL, so a thread would not help. A worker only
    says which row of its chunk failed first; that row is validated again here, so the exception is
    exactly the one the validation raises in this process, and the first bad row in log order is the
    one reported (also when the iterable itself raises later on). The workers are forked before any
    row is yielded, so before the store's writer thread starts; where forking is not safe (another
    thread runs, not Linux) or fails, every row is validated here, as it is when a worker dies."""
    if validate is None:
        yield from rows
        return
    limit = IMPORT_PARALLEL_MIN if parallel_min is None else parallel_min
    it = iter(rows)
    head: list[Sequence[Any]] = []
    try:
        for r in itertools.islice(it, limit + 1):  # read ahead: is this import a big one?
            head.append(r)
    except BaseException:
        for r in head:  # an earlier bad row is reported before the iterable's own error
            validate(r[3], r[4], r[5])
        raise
    pool = _fork_validators(validate, import_workers() if workers is None else workers) if len(head) > limit else []
    if not pool:
        for r in itertools.chain(head, it):
            validate(r[3], r[4], r[5])
            yield r
        return
    # the rows in chunks sent to the workers in turn, each chunk yielded once its worker answered
    rows_in = itertools.chain(head, it)
    pending: collections.deque[tuple[list[Sequence[Any]], _Validator | None]] = collections.deque()
    turn = itertools.cycle(pool)
    ahead = _IN_FLIGHT * len(pool)
    try:
        while True:
            try:
                chunk = list(itertools.islice(rows_in, _VALIDATE_CHUNK))
            except BaseException:
                for waiting in pending:  # an earlier bad row is reported before the iterable's own error
                    _settle(*waiting, validate)
                raise
            if chunk:
                worker: _Validator | None = next(turn)
                if not worker.send(chunk):  # type: ignore[union-attr]
                    worker = None
                pending.append((chunk, worker))
            if pending and (len(pending) > ahead or not chunk):
                done, worker = pending.popleft()
                _settle(done, worker, validate)
                yield from done
            elif not chunk:
                return
    finally:
        for w in pool:
            w.close()


def _settle(chunk: list[Sequence[Any]], worker: _Validator | None, validate: Callable[..., Any]) -> None:
    """Raise the validation error of the chunk's first bad row, if any, validated again here (every
    row from the first when the worker is gone)."""
    bad = worker.answer() if worker is not None else 0
    if bad is not None:
        for r in chunk[bad:]:
            validate(r[3], r[4], r[5])


def import_workers() -> int:
    """The worker processes an import validates in: one per core left idle beside the two this
    process keeps busy (its thread chaining and binding the rows, and SQLite's inserts on its writer
    thread, :meth:`Store._pipelined`; ``cristal_events.cores.idle`` counts this process as one), at
    most two; 0 (validate here) on a machine of two cores, or a busy one. A worker costs more CPU
    than it takes off this process (the hand-over, and the copy-on-write of the pages this process
    touches after the fork: 100k rows, 0.62 s in the worker for 0.15 s less here; 1M, 5.4 s for
    1.9 s), so it pays only on a core nobody else needs (benchmarks/README.md, "Eighth session");
    as the rebuild decides for its second process (``projections.runner._free_core``)."""
    from . import cores  # a big import only (a one-shot command imports no more than it uses)

    return min(max(cores.idle() - 1, 0), 2)


class _Validator:
    """One forked worker validating chunks of rows sent down a pipe (msgpack, length first; the whole
    rows: encoding them costs this process less than picking their three fields), answering on another pipe with the index of each chunk's first bad row
    (-1: none). The answers are 4 bytes, so neither side ever blocks writing while the other does:
    this process may send the next chunks before reading an answer. (A pool of
    ``concurrent.futures`` costs a manager and a feeder thread here, fighting the chain and the
    store's writer thread for the GIL: measured slower, benchmarks/README.md "Levers, A/B".)"""

    def __init__(self, validate: Callable[..., Any], others: Sequence[_Validator]):
        down_r, down_w = os.pipe()
        up_r, up_w = os.pipe()
        try:  # room for a few chunks in the pipe: this process does not wait for the worker to read
            import fcntl

            fcntl.fcntl(down_w, getattr(fcntl, "F_SETPIPE_SZ", 1031), 1 << 20)
        except OSError:
            pass
        try:
            pid = os.fork()
        except OSError:
            for fd in (down_r, down_w, up_r, up_w):
                os.close(fd)
            raise
        if pid == 0:  # pragma: no cover - the child's coverage is not collected
            code = 1
            try:
                for other in others:  # the earlier workers' pipes: they see their end when this process goes
                    other.close_fds()
                os.close(down_w)
                os.close(up_r)
                _serve(validate, os.fdopen(down_r, "rb"), up_w)
                code = 0
            finally:
                os._exit(code)
        os.close(down_r)
        os.close(up_w)
        self.pid, self.down, self.up = pid, os.fdopen(down_w, "wb"), os.fdopen(up_r, "rb")

    def send(self, items: list[Sequence[Any]]) -> bool:
        try:
            data = msgspec.msgpack.encode(items)
            self.down.write(len(data).to_bytes(4, "little") + data)
            self.down.flush()
        except (OSError, TypeError, OverflowError):  # the worker is gone, or a value msgpack cannot carry:
            return False  # this process validates the chunk
        return True

    def answer(self) -> int | None:
        """The first bad row of the oldest chunk sent (0 when the worker is gone), or None."""
        try:
            got = self.up.read(4)
        except OSError:
            got = b""
        if len(got) < 4:
            return 0
        bad = int.from_bytes(got, "little", signed=True)
        return None if bad < 0 else bad

    def close_fds(self) -> None:
        for f in (self.down, self.up):
            try:
                f.close()
            except OSError:
                pass

    def close(self) -> None:
        self.close_fds()  # the worker reads the end of its pipe and leaves
        try:
            os.waitpid(self.pid, 0)
        except ChildProcessError:
            pass


def _serve(validate: Callable[..., Any], down: Any, up: int) -> None:  # pragma: no cover - in the child
    decode = msgspec.msgpack.Decoder().decode
    while True:
        head = down.read(4)
        if len(head) < 4:
            return
        bad = -1
        for i, r in enumerate(decode(down.read(int.from_bytes(head, "little")))):
            try:
                validate(r[3], r[4], r[5])
            except Exception:  # noqa: BLE001 - the parent validates that row again and raises what it raises
                bad = i
                break
        os.write(up, bad.to_bytes(4, "little", signed=True))


def _fork_validators(validate: Callable[..., Any], n: int) -> list[_Validator]:
    """``n`` workers holding ``validate`` (inherited by the fork, never pickled), or none where a fork
    is not safe: another thread runs (its locks would be copied held), or not Linux (a fork without
    exec is not safe everywhere)."""
    if not sys.platform.startswith("linux") or threading.active_count() > 1:
        return []
    pool: list[_Validator] = []
    while len(pool) < n:
        try:
            pool.append(_Validator(validate, pool))
        except OSError:
            break
    return pool
