"""The JSONL exchange format: one event per line, verifiable away from the database.

Each line holds the envelope (position, event_id, stream, version, type, schema_version,
recorded_at, session, actor, causation_id, correlation_id, prev_hash, hash), the payload as a
JSON object, and readable extras (summary, in_game_date) that the hash does not cover. The hash is
recomputed from the envelope and the payload re-encoded compactly, exactly as the store hashed it.
"""

from __future__ import annotations

import os
from typing import Any

import msgspec

from .errors import CristalError
from .store import GENESIS, IMPORT_FIELDS, VerifyReport, row_hash

ENVELOPE = ("position", "event_id", "stream", "version", "type", "schema_version", "recorded_at", "session",
            "actor", "causation_id", "correlation_id", "prev_hash", "hash")


def payload_text(payload: Any) -> str:
    """The stored text of a payload object (compact, key order kept)."""
    return msgspec.json.encode(payload).decode()


def verify_jsonl(path: str | os.PathLike[str]) -> VerifyReport:
    """Recompute the hash chain of an exported JSONL file; report the first bad position or line."""
    problems: list[str] = []
    first_bad: int | None = None
    prev, expected, n = None, None, 0
    try:
        fh = open(path, "rb")
    except OSError as exc:
        raise CristalError(f"Cannot read {path}: {exc.strerror}.") from None
    with fh:
        for lineno, raw in enumerate(fh, 1):
            if not raw.strip():
                continue
            n += 1
            try:
                d = msgspec.json.decode(raw)
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
            if prev is None:
                prev = d["prev_hash"] if pos != 1 else GENESIS
                expected = pos
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
            prev, expected = d["hash"], pos + 1
    if n == 0:
        problems.append("the file holds no event")
    return VerifyReport(ok=not problems, events=n, first_bad_position=first_bad, problems=problems)


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
