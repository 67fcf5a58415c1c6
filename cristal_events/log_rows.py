"""The rows of the event log as both stores keep them (SQLite, :mod:`.store`; PostgreSQL,
:mod:`.store_pg`): the genesis hash and a row's hash (the same canonical encoding on either, so a
campaign verifies the same), time-ordered event ids, the record time, the fields of an imported row,
the verify report and its sentences, an access-token row, a usable SQL name. Below both stores, so
that neither imports the other's module to share them."""

from __future__ import annotations

import hashlib
import itertools
import os
import time
from collections.abc import Iterable, Iterator, Sequence
from datetime import UTC, datetime
from typing import Any

import msgspec

from .i18n import _
from .records import RecordedEvent

_encoder = msgspec.json.Encoder()

GENESIS = "0" * 64
ANY = None  # expected_version that skips the concurrency check
#: the fields of a row given to :meth:`Store.import_rows` (the envelope and payload of an exported event)
IMPORT_FIELDS = ("event_id", "stream", "version", "type", "schema_version", "payload", "recorded_at", "session",
                 "actor", "causation_id", "correlation_id")
class VerifyReport(msgspec.Struct, kw_only=True):
    """The outcome of :meth:`Store.verify`. ``ok`` is False when any problem was found."""

    ok: bool
    events: int
    first_bad_position: int | None = None
    problems: list[str] = []


def row_hash(prev_hash: str, position: int, event_id: str, stream: str, version: int, type_: str,
             schema_version: int, payload: str, recorded_at: str, session: int | None, actor: str,
             causation_id: str | None, correlation_id: str | None) -> str:
    """SHA-256 over the canonical JSON array of the envelope and the payload text."""
    canonical = _encoder.encode([
        prev_hash, position, event_id, stream, version, type_, schema_version, payload, recorded_at,
        session, actor, causation_id, correlation_id,
    ])
    return hashlib.sha256(canonical).hexdigest()


_id_counter = itertools.count(int.from_bytes(os.urandom(2), "big"))


def new_event_ids(n: int) -> list[str]:
    """``n`` time-ordered UUIDs (version 7 layout, RFC 9562): 48-bit Unix ms, a 12-bit counter, 62 random bits.

    Ids that grow with time land at the end of the unique index on ``event_id`` instead of at
    random places, which keeps appends fast as the log grows (see benchmarks/README.md, 'time-ordered ids').
    """
    ms = f"{time.time_ns() // 1_000_000:012x}"
    head = f"{ms[:8]}-{ms[8:12]}-7"
    rand = os.urandom(8 * n)
    out = []
    for i in range(n):
        r = int.from_bytes(rand[8 * i:8 * i + 8], "big") >> 2 | 0x8000000000000000
        tail = f"{r:016x}"
        out.append(f"{head}{next(_id_counter) & 0xFFF:03x}-{tail[:4]}-{tail[4:]}")
    return out


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


def decoded(rows: Iterable[Sequence[Any]], codec: Any, tail: tuple[str, ...]) -> Iterator[RecordedEvent]:
    """The log's rows as recorded events (``codec`` None: not decoded), the replay's hot path for both
    stores: a row of a type already decoded at its class's schema version goes straight to that class's
    decoder; anything else (a type not seen yet, an older version to upcast, a newer one, an invalid
    payload) goes through ``Codec.read``, which builds the decoder, upcasts or raises the one-sentence
    EventDecodeError. ``tail``: the two hashes as empty strings when the rows were read without them."""
    if codec is None:
        for r in rows:
            yield RecordedEvent(*r, *tail)
        return
    current, slow, errors = codec.current, codec.read, (msgspec.ValidationError, msgspec.DecodeError)
    for r in rows:
        entry = current.get(r[4])
        if entry is not None and entry[0] == r[5]:
            try:
                ev = entry[1](r[6])
            except errors:
                ev = slow(r[4], r[5], r[6])
        else:
            ev = slow(r[4], r[5], r[6])
        yield RecordedEvent(*r, *tail, ev)  # type: ignore[call-arg]  # the row's 14 columns, then the event
