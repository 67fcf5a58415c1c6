"""The JSONL exchange format: one event per line, verifiable away from the database.

Each line holds the envelope (position, event_id, stream, version, type, schema_version,
recorded_at, session, actor, causation_id, correlation_id, prev_hash, hash), the payload as a
JSON object, and readable extras (summary, in_game_date) that the hash does not cover. The hash is
recomputed from the envelope and the payload re-encoded compactly, exactly as the store hashed it.
An export ends with its receipt, ``{"receipt": "POSITION:HASH"}`` naming its last event (see
:mod:`cristal_events.receipts`).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

import msgspec

from .errors import CristalError
from .receipts import Receipt, parse_receipt, verify_receipts
from .store import GENESIS, IMPORT_FIELDS, VerifyReport, row_hash

ENVELOPE = ("position", "event_id", "stream", "version", "type", "schema_version", "recorded_at", "session",
            "actor", "causation_id", "correlation_id", "prev_hash", "hash")


def payload_text(payload: Any) -> str:
    """The stored text of a payload object (compact, key order kept)."""
    return msgspec.json.encode(payload).decode()


class FileReport(VerifyReport, kw_only=True):
    """The outcome of :func:`verify_jsonl`: the chain of the file and its receipts.

    ``receipt``: the file's own receipt trailer (``POSITION:HASH`` of its last event), None when the
    file has none (an export made before receipts existed); ``receipts``: how many receipts given by
    the caller were checked against the file."""

    receipt: str | None = None
    receipts: int = 0


#: the key of the final line of a JSONL export, ``{"receipt": "POSITION:HASH"}``
TRAILER_KEY = "receipt"


def is_trailer(d: Any) -> bool:
    """True for the receipt trailer line of an export (``{"receipt": "POSITION:HASH"}``)."""
    return isinstance(d, dict) and d.keys() == {TRAILER_KEY}


def trailer(rec: Any) -> dict[str, str]:
    """The receipt trailer naming ``rec`` (the last exported event)."""
    return {TRAILER_KEY: f"{rec.position}:{rec.hash}"}


def verify_jsonl(path: str | os.PathLike[str], receipts: Iterable[Receipt] = ()) -> FileReport:
    """Recompute the hash chain of an exported JSONL file; report the first bad position or line.

    The file's receipt trailer, when present, must be its last line and name its last event; each
    of ``receipts`` must find its hash at its position in the file (:func:`verify_receipts`)."""
    receipts = list(receipts)
    wanted = {r.position for r in receipts}
    found: dict[int, str] = {}
    problems: list[str] = []
    first_bad: int | None = None
    prev, expected, n, first_pos = None, None, 0, None
    own: str | None = None
    last: tuple[int, str] | None = None
    try:
        fh = open(path, "rb")
    except OSError as exc:
        raise CristalError(f"Cannot read {path}: {exc.strerror}.") from None
    with fh:
        for lineno, raw in enumerate(fh, 1):
            if not raw.strip():
                continue
            if own is not None:
                problems.append(f"line {lineno} follows the receipt line, which must be the file's last")
                first_bad = first_bad or expected
                break
            try:
                d = msgspec.json.decode(raw)
                if is_trailer(d):
                    own = str(d[TRAILER_KEY])
                    continue
                if not isinstance(d, dict):
                    raise ValueError("not an object")
                missing = [k for k in ENVELOPE + ("payload",) if k not in d]
                if missing:
                    raise ValueError(f"missing {', '.join(missing)}")
                pos = d["position"]
                h = row_hash(d["prev_hash"], pos, d["event_id"], d["stream"], d["version"], d["type"],
                             d["schema_version"], payload_text(d["payload"]), d["recorded_at"], d["session"],
                             d["actor"], d["causation_id"], d["correlation_id"])
            except (msgspec.DecodeError, ValueError, TypeError) as exc:
                problems.append(f"line {lineno} is not a valid exported event ({exc})")
                first_bad = first_bad or (expected or lineno)
                break
            n += 1
            if prev is None:
                prev = d["prev_hash"] if pos != 1 else GENESIS
                expected = first_pos = pos
            if pos != expected:
                problems.append(f"position {expected} is missing from the file (line {lineno} holds {pos})")
                first_bad = expected
                break
            if d["prev_hash"] != prev:
                problems.append(f"position {pos} does not follow the previous line (chain broken)")
                first_bad = pos
                break
            if h != d["hash"]:
                problems.append(f"position {pos} was altered (hash mismatch)")
                first_bad = pos
                break
            if pos in wanted:
                found[pos] = h
            prev, expected, last = d["hash"], pos + 1, (pos, h)
    if n == 0 and not problems:
        problems.append("the file holds no event")
    if own is not None and not problems and last is not None:
        try:
            mine = parse_receipt(own)
        except CristalError:
            problems.append(f"the file's receipt line {own[:90]!r} is not POSITION:HASH")
        else:
            if (mine.position, mine.hash) != last:
                problems.append(f"the file's receipt {mine.short} does not name its last event (position {last[0]})")
                first_bad = first_bad or min(mine.position, last[0])
    if not problems and receipts:
        bad = verify_receipts(receipts, found.get, last[0] if last else 0, first=first_pos or 1, where="the file")
        problems += [b.problem for b in bad]
        if bad:
            first_bad = min(b.position for b in bad)
    return FileReport(ok=not problems, events=n, first_bad_position=first_bad, problems=problems,
                      receipt=own, receipts=len(receipts))


def export_record(rec: Any, *, summary: str = "", in_game_date: str = "") -> dict[str, Any]:
    """One JSONL line of the exchange format for a stored event (envelope, payload, readable extras)."""
    out: dict[str, Any] = {k: getattr(rec, k) for k in ENVELOPE}
    out["payload"] = msgspec.json.decode(rec.payload)
    out["summary"] = summary
    out["in_game_date"] = in_game_date
    return out


def read_jsonl(path: str | os.PathLike[str]) -> Any:
    """Yield ``(line number, object)`` for each non-blank line of an exported file."""
    try:
        fh = open(path, "rb")
    except OSError as exc:
        raise CristalError(f"Cannot read {path}: {exc.strerror}.") from None
    with fh:
        for lineno, raw in enumerate(fh, 1):
            if raw.strip():
                try:
                    yield lineno, msgspec.json.decode(raw)
                except msgspec.DecodeError as exc:
                    raise CristalError(f"Line {lineno} of {path} is not JSON ({exc}).") from None


def store_row(d: dict[str, Any]) -> tuple[Any, ...]:
    """The store row (for ``Store.import_rows``: the values of ``IMPORT_FIELDS``) of one exported line;
    the payload text is re-encoded compactly, exactly as the hash covers it."""
    return tuple(payload_text(d["payload"]) if k == "payload" else d[k] for k in IMPORT_FIELDS)
