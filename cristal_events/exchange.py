"""The JSONL exchange format: one event per line, verifiable away from the database.

Each line holds the envelope (position, event_id, stream, version, type, schema_version,
recorded_at, session, actor, causation_id, correlation_id, prev_hash, hash), the payload as a
JSON object, and readable extras (summary, in_game_date) that the hash does not cover. The hash is
recomputed from the envelope and the payload re-encoded compactly, exactly as the store hashed it.
An export ends with its receipt, ``{"receipt": "POSITION:HASH"}`` naming its last event (see
:mod:`cristal_events.receipts`).

The import side (:class:`HistoryCheck`, :func:`check_jsonl`, :func:`import_lines`) checks that a file
is a history the engine could have written before ``cristal import`` builds anything from it.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from datetime import datetime
from typing import Any

import msgspec

from .errors import CristalError
from .events import (
    CORE_EVENTS,
    CampaignCreated,
    CorrectionRecorded,
    NoteRecorded,
    SessionEnded,
    SessionStarted,
    SettingChanged,
)
from .i18n import _
from .receipts import Receipt, parse_receipt, verify_receipts
from .records import RecordedEvent
from .rounding import MODES
from .store import GENESIS, VerifyReport, row_hash

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
        raise CristalError(_("Cannot read {path}: {strerror}.").format(path=path, strerror=exc.strerror)) from None
    with fh:
        for lineno, raw in enumerate(fh, 1):
            if not raw.strip():
                continue
            if own is not None:
                problems.append(_("line {lineno} follows the receipt line, which must be the file's last").format(lineno=lineno))
                first_bad = first_bad or expected
                break
            try:
                d = msgspec.json.decode(raw)
                if is_trailer(d):
                    own = str(d[TRAILER_KEY])
                    continue
                if not isinstance(d, dict):
                    raise ValueError(_("not an object"))
                missing = [k for k in ENVELOPE + ("payload",) if k not in d]
                if missing:
                    raise ValueError(f"missing {', '.join(missing)}")
                pos = d["position"]
                h = row_hash(d["prev_hash"], pos, d["event_id"], d["stream"], d["version"], d["type"],
                             d["schema_version"], payload_text(d["payload"]), d["recorded_at"], d["session"],
                             d["actor"], d["causation_id"], d["correlation_id"])
            except (msgspec.DecodeError, ValueError, TypeError) as exc:
                problems.append(_("line {lineno} is not a valid exported event ({exc})").format(lineno=lineno, exc=exc))
                first_bad = first_bad or (expected or lineno)
                break
            n += 1
            if prev is None:
                prev = d["prev_hash"] if pos != 1 else GENESIS
                expected = first_pos = pos
            if pos != expected:
                problems.append(_("position {expected} is missing from the file (line {lineno} holds {pos})").format(expected=expected, lineno=lineno, pos=pos))
                first_bad = expected
                break
            if d["prev_hash"] != prev:
                problems.append(_("position {pos} does not follow the previous line (chain broken)").format(pos=pos))
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
        problems.append(_("the file holds no event"))
    if own is not None and not problems and last is not None:
        try:
            mine = parse_receipt(own)
        except CristalError:
            problems.append(f"the file's receipt line {own[:90]!r} is not POSITION:HASH")
        else:
            if (mine.position, mine.hash) != last:
                problems.append(_("the file's receipt {short} does not name its last event (position {last})").format(short=mine.short, last=last[0]))
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


# ------------------------------------------------------------------------------------ import side
class ExportedLine(msgspec.Struct):
    """One event line of the exchange format, typed: what an import reads (``summary`` and
    ``in_game_date``, readable extras, are ignored)."""

    position: int
    event_id: str
    stream: str
    version: int
    type: str
    schema_version: int
    recorded_at: str
    session: int | None
    actor: str
    causation_id: str | None
    correlation_id: str | None
    prev_hash: str
    hash: str
    payload: dict[str, Any]


class ReceiptLine(msgspec.Struct, forbid_unknown_fields=True):
    """The trailer a JSONL export ends with: ``{"receipt": "POSITION:HASH"}`` of its last event."""

    receipt: str


_line_decoder = msgspec.json.Decoder(ExportedLine)
_receipt_decoder = msgspec.json.Decoder(ReceiptLine)


class ImportRefused(CristalError):
    """A line of a JSONL file cannot be imported (the message names the line)."""


class HistoryCheck:
    """Checks, line by line, that a JSONL file is a history the engine could have written, before an
    import writes anything (docs/exports.md, "What an import checks").

    Each line must chain (position, previous hash, hash), carry a well-formed envelope (a non-empty
    actor, an ISO-8601 ``recorded_at``, a unique event id, stream versions 1, 2, 3 … without a gap),
    decode with the campaign's rules (msgspec types and bounds, upcasting), fit the sessions (numbered
    1, 2, 3 …, never overlapping; every event stamped with the open session or none), pass the core's
    decision rules for its own events, the ruleset's :meth:`~cristal_events.ruleset.Ruleset.admit`
    for the others, and fold. ``line`` raises :class:`ImportRefused` naming the line; ``finish``
    refuses a file without events or whose last session is still open.
    """

    def __init__(self, source: str | os.PathLike[str]):
        self.source = str(source)
        self.ruleset: Any = None
        self.codec: Any = None
        self.header: Any = None
        self.world: Any = None
        self.events = 0
        self.prev = GENESIS
        self.last_hash = GENESIS
        self.versions: dict[str, int] = {}
        self.ids: set[str] = set()
        self.open_session: tuple[int, int] | None = None  # (number, line that started it)
        self.receipt_line: int | None = None
        self._evolvers: dict[type, Any] = {}

    def refuse(self, lineno: int, reason: str) -> ImportRefused:
        return ImportRefused(_("Line {lineno} of {source}: {reason}; nothing was imported.").format(lineno=lineno, source=self.source, reason=reason))

    # ----------------------------------------------------------------------------- one line
    def line(self, lineno: int, raw: bytes) -> ExportedLine | None:
        """Check one non-blank line; return it typed, or None for the receipt trailer."""
        if self.receipt_line is not None:
            raise self.refuse(lineno, _("nothing may follow the receipt line (line {receipt_line})").format(receipt_line=self.receipt_line))
        try:
            d = _line_decoder.decode(raw)
        except RecursionError:
            raise self.refuse(lineno, _("it is not an exported event (its JSON nests too deeply)")) from None
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            self._receipt_or_refuse(lineno, raw, exc)
            return None
        text = payload_text(d.payload)
        self._chain(lineno, d, text)
        self._envelope(lineno, d)
        try:
            event = self.codec.decode(d.type, d.schema_version, text)
        except CristalError as exc:
            raise self.refuse(lineno, str(exc).rstrip(".")) from None
        rec = RecordedEvent(d.position, d.event_id, d.stream, d.version, d.type, d.schema_version, text,
                            d.recorded_at, d.session, d.actor, d.causation_id, d.correlation_id, d.prev_hash,
                            d.hash, event)
        self._history(lineno, rec)
        self.prev = self.last_hash = d.hash
        self.events += 1
        return d

    def _receipt_or_refuse(self, lineno: int, raw: bytes, exc: Exception) -> None:
        try:
            trailer = _receipt_decoder.decode(raw)
        except (msgspec.DecodeError, msgspec.ValidationError):
            raise self.refuse(lineno, _("it is not an exported event ({str})").format(str=str(exc).rstrip('.'))) from None
        if self.events == 0:
            raise self.refuse(lineno, _("a receipt line must follow the events it vouches for"))
        pos, sep, digest = trailer.receipt.strip().partition(":")
        mine = f"{self.events}:{self.last_hash}"
        if (not sep or not pos.isascii() or not pos.isdigit() or int(pos) != self.events
                or digest.lower() != self.last_hash):
            raise self.refuse(lineno, _("the receipt {receipt!r} does not match the chain above it, which ends "
                                        "on {mine}").format(receipt=trailer.receipt, mine=mine))
        self.receipt_line = lineno

    def _chain(self, lineno: int, d: ExportedLine, text: str) -> None:
        if self.events == 0:
            if d.position != 1 or d.type != "campaign.created":
                raise ImportRefused(_("{source} does not start with the campaign's first event (position 1, "
                                      "campaign.created); export the whole timeline to import it.").format(source=self.source))
            self._header(lineno, d, text)
        expected = self.events + 1
        if d.position != expected:
            raise self.refuse(lineno, _("the file does not verify: position {expected} is missing (the line "
                                        "holds position {position})").format(expected=expected, position=d.position))
        if d.prev_hash != self.prev:
            raise self.refuse(lineno, _("the file does not verify: position {position} does not follow the "
                                        "previous line (chain broken)").format(position=d.position))
        h = row_hash(d.prev_hash, d.position, d.event_id, d.stream, d.version, d.type, d.schema_version, text,
                     d.recorded_at, d.session, d.actor, d.causation_id, d.correlation_id)
        if h != d.hash:
            raise self.refuse(lineno, _("the file does not verify: position {position} was altered (hash "
                                        "mismatch)").format(position=d.position))

    def _header(self, lineno: int, d: ExportedLine, text: str) -> None:
        from .rulesets import get as get_ruleset
        from .service import CoreState, World, codec_for

        try:
            self.ruleset = get_ruleset(str(d.payload.get("ruleset", "")))
            self.codec = codec_for(self.ruleset)
            self.header = self.codec.decode(d.type, d.schema_version, text)
            self.ruleset.settings(self.header)
        except CristalError as exc:
            raise self.refuse(lineno, str(exc).rstrip(".")) from None
        if self.header.rounding not in MODES:
            raise self.refuse(lineno, _("the rounding mode {rounding!r} is neither 'round' nor 'truncate'").format(rounding=self.header.rounding))
        self.world = World(CoreState(header=self.header, settings=dict(self.header.settings)),
                           self.ruleset.initial_state(self.header))

    def _envelope(self, lineno: int, d: ExportedLine) -> None:
        if not d.actor.strip():
            raise self.refuse(lineno, _("the event has no actor (who recorded it)"))
        try:
            datetime.fromisoformat(d.recorded_at)
        except ValueError:
            raise self.refuse(lineno, _("recorded_at {recorded_at!r} is not an ISO-8601 date and time").format(recorded_at=d.recorded_at)) from None
        if not d.event_id.strip():
            raise self.refuse(lineno, _("the event has no event_id"))
        if d.event_id in self.ids:
            raise self.refuse(lineno, _("the event_id {event_id} was already used by an earlier line").format(event_id=d.event_id))
        self.ids.add(d.event_id)
        if not d.stream.strip():
            raise self.refuse(lineno, _("the event has no stream"))
        want = self.versions.get(d.stream, 0) + 1
        if d.version != want:
            raise self.refuse(lineno, _("the stream {stream} is at version {value}, so its next event is "
                                        "version {want}, not {version}").format(stream=d.stream, value=want - 1, want=want, version=d.version))
        self.versions[d.stream] = want

    def _history(self, lineno: int, rec: RecordedEvent) -> None:
        from .service import CAMPAIGN_STREAM, core_evolve

        ev, world = rec.event, self.world
        core = world.core
        is_core = isinstance(ev, CORE_EVENTS)
        if is_core and rec.stream != CAMPAIGN_STREAM:
            raise self.refuse(lineno, _("a {type} event belongs on the campaign stream, not on {stream}").format(type=rec.type, stream=rec.stream))
        problem: str | None = None
        match ev:
            case CampaignCreated() if rec.position != 1:
                problem = _("a campaign has one campaign.created event, on line 1")
            case SessionStarted():
                if core.session is not None:
                    problem = _("session {number} starts while session {session} is still open").format(number=ev.number, session=core.session)
                elif ev.number != core.sessions + 1:
                    after = _("the session after session {sessions}").format(sessions=core.sessions) if core.sessions else _("the first session")
                    problem = f"{after} is number {core.sessions + 1}, not {ev.number}"
                elif rec.session != ev.number:
                    problem = _("the start of session {number} is stamped with session {session}").format(number=ev.number, session=rec.session)
            case SessionEnded():
                if core.session != ev.number:
                    problem = (_("session {number} ends but it is not open").format(number=ev.number) if core.session is None else
                               _("session {number} ends while session {session} is the open one").format(number=ev.number, session=core.session))
                elif rec.session != ev.number:
                    problem = _("the end of session {number} is stamped with session {session}").format(number=ev.number, session=rec.session)
            case NoteRecorded() if not ev.text.strip():
                problem = _("a note needs some text")
            case SettingChanged():
                problem = self._setting_problem(ev)
            case CorrectionRecorded():
                if not ev.reason.strip():
                    problem = _("a correction needs a reason")
                elif not ev.amends or any(p < 1 or p >= rec.position for p in ev.amends):
                    problem = _("a correction amends earlier positions, not {amends}").format(amends=ev.amends)
        if problem is None and not isinstance(ev, (SessionStarted, SessionEnded)) and rec.session != core.session:
            problem = (_("the event is stamped with session {session} but no session is open there").format(session=rec.session)
                       if core.session is None else
                       _("the event is stamped with session {session} but session {session2} is the open one").format(session=rec.session, session2=core.session))
        if problem is None and not is_core:
            problem = self.ruleset.admit(world.rules, rec)
        if problem is not None:
            raise self.refuse(lineno, problem)
        evolve = self._evolvers.get(type(ev))
        if evolve is None:
            evolve = self._evolvers[type(ev)] = self.ruleset.typed_evolver(type(ev))
        try:
            self.world = type(world)(core_evolve(core, rec), evolve(world.rules, ev, rec))
        except Exception as exc:  # noqa: BLE001 - a fold never raises on a history the engine wrote
            why = (_("it names {args!r}, unknown at that point of the campaign").format(args=exc.args[0])
                   if isinstance(exc, KeyError) and exc.args else f"{type(exc).__name__}: {exc}")
            raise self.refuse(lineno, _("the {name} rules cannot fold this {type} event ({why})").format(name=self.ruleset.name, type=rec.type, why=why)) from None
        if isinstance(ev, SessionStarted):
            self.open_session = (ev.number, lineno)
        elif isinstance(ev, SessionEnded):
            self.open_session = None

    def _setting_problem(self, ev: SettingChanged) -> str | None:
        if ev.key == "rounding":
            return _("the rounding mode is fixed for the whole campaign")
        if ev.key not in self.ruleset.default_settings():
            return _("{key!r} is not a {name} setting").format(key=ev.key, name=self.ruleset.name)
        header = msgspec.structs.replace(self.header, settings=self.world.core.settings)
        try:
            self.ruleset.settings(header, {ev.key: ev.value})
        except CristalError as exc:
            return str(exc).rstrip(".")
        return None

    # --------------------------------------------------------------------------- the whole file
    def finish(self) -> None:
        """Refuse a file that held no event, or whose last session is still open."""
        if self.events == 0:
            raise ImportRefused(_("{source} holds no event; nothing was imported.").format(source=self.source))
        if self.open_session is not None:
            number, lineno = self.open_session
            raise ImportRefused(
                _("{source} stops in the middle of session {number} (started on line {lineno}), whose dice "
                  "secret is not in the export, so its rolls could not be verified after an import: end the "
                  "session ('cristal session end'), export again and import that file; nothing was imported.").format(source=self.source, number=number, lineno=lineno))


def check_jsonl(path: str | os.PathLike[str], *, progress: Any = None, every: int = 5000) -> HistoryCheck:
    """Run :class:`HistoryCheck` over a whole file (raises on the first refused line); ``progress(done,
    total)`` is called in bytes read every ``every`` lines."""
    check = HistoryCheck(path)
    try:
        fh = open(path, "rb")
        total = os.fstat(fh.fileno()).st_size
    except OSError as exc:
        raise CristalError(_("Cannot read {path}: {strerror}.").format(path=path, strerror=exc.strerror)) from None
    with fh:
        done = 0
        for lineno, raw in enumerate(fh, 1):
            done += len(raw)
            if raw.strip():
                check.line(lineno, raw)
            if progress is not None and lineno % every == 0:
                progress(done, total)
    check.finish()
    return check


def import_lines(path: str | os.PathLike[str]) -> Any:
    """Yield each event line of a checked file, typed (the receipt trailer skipped)."""
    try:
        fh = open(path, "rb")
    except OSError as exc:
        raise CristalError(_("Cannot read {path}: {strerror}.").format(path=path, strerror=exc.strerror)) from None
    with fh:
        for lineno, raw in enumerate(fh, 1):
            if not raw.strip():
                continue
            try:
                yield _line_decoder.decode(raw)
            except (msgspec.DecodeError, msgspec.ValidationError):
                try:
                    _receipt_decoder.decode(raw)
                except (msgspec.DecodeError, msgspec.ValidationError):
                    raise ImportRefused(_("Line {lineno} of {path} changed while it was imported; nothing was "
                                          "imported.").format(lineno=lineno, path=path)) from None


def line_row(d: ExportedLine) -> tuple[Any, ...]:
    """The store row (the values of ``IMPORT_FIELDS``, for ``Store.import_rows``) of one typed line."""
    return (d.event_id, d.stream, d.version, d.type, d.schema_version, payload_text(d.payload), d.recorded_at,
            d.session, d.actor, d.causation_id, d.correlation_id)
