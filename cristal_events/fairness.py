"""Verifiable dice: re-derive every engine die of the closed sessions from their revealed seeds.

The scheme (docs/verifiable-dice.md): ``session start`` draws a secret seed ``S``, keeps it in the
owner-only file beside the campaign and stores only ``SHA-256(S)`` (``seed_commitment``) in the log;
the players may add a salt (``--salt``, ``session salt``) before the first engine die; ``session end``
reveals ``S`` (``seed_reveal``) and the number of engine dice drawn (``engine_dice``). Engine die
number ``n`` of a session (counting from 0) is :func:`~cristal_events.dice.engine_face` ``(S, salt, n,
sides)``. Every command that took dice ends with one ``dice.rolled`` record (:class:`DiceRecorded`):
every die in the order rolled, its sides, its face and its source, and the counter of its first
engine die.

:func:`verify_rolls` needs nothing but the log. It reads only those records for the dice: it checks
each reveal against its commitment, the counter's continuity (each record starts where the last one
ended, and the session's end names the last count), every engine face against the revealed seed and
the salt, each total (when the expression has no sheet variable), and that every roll a ruleset event
stores is made of dice its command's record holds. Commands written before the records existed (no
record, in a session started without the ``hmac-counter`` scheme, or outside sessions before the
log's first record) are checked with the legacy scheme: ``random.Random(derive_seed(S, p))``, ``p``
the command's first position, faces read from the payload in field order.

Python API::

    report = verify_rolls(campaign)   # FairnessReport: ok, sessions, checked, entered, problems
"""

import hashlib
import random
from collections import Counter
from collections.abc import Iterator
from functools import partial
from typing import TYPE_CHECKING, Any, Protocol

import msgspec

from .dice import BinOp, Dice, DiceError, Neg, Var, dice_in, engine_face, evaluate, parse
from .errors import CristalError
from .events import CampaignCreated, DiceRecorded
from .i18n import _
from .ruleset import derive_seed
from .session_dice import joined_salt, sealed_commitment

if TYPE_CHECKING:
    from .store import Store


class CampaignLog(Protocol):
    """What :func:`verify_rolls` reads of a campaign (a :class:`cristal_events.service.Campaign`): its
    header and its store. A protocol, so that this check, which the service calls, never imports it."""

    @property
    def header(self) -> CampaignCreated: ...

    @property
    def store(self) -> "Store": ...


_ROLL_KEYS = frozenset({"expr", "faces", "total", "source"})


class RollMismatch(msgspec.Struct, kw_only=True):
    """One stored engine roll that the revealed seed does not reproduce."""

    position: int
    session: int | None
    expr: str
    stored: list[int]
    derived: list[int]
    reason: str


class FairnessReport(msgspec.Struct, kw_only=True):
    """The outcome of :func:`verify_rolls`; ``ok`` is False when any problem or mismatch was found.

    ``checked``: engine rolls re-derived and matched or not (``legacy`` of them with the scheme
    before dice records); ``entered``: table rolls skipped; ``pending``: engine rolls of a session
    still open (its seed is not revealed yet); ``unverifiable``: engine rolls outside any session of a
    campaign without a public seed.
    """

    ok: bool
    sessions: int = 0
    commands: int = 0
    checked: int = 0
    legacy: int = 0
    entered: int = 0
    pending: int = 0
    unverifiable: int = 0
    #: secret rolls (``roll.sealed``) still sealed in an open session, and those revealed and checked
    sealed: int = 0
    revealed: int = 0
    mismatches: list[RollMismatch] = []
    problems: list[str] = []


def stored_rolls(payload: Any) -> Iterator[dict[str, Any]]:
    """Every Roll stored in a decoded payload, depth first, in field order (the legacy reader)."""
    if isinstance(payload, dict):
        if _ROLL_KEYS <= payload.keys() and isinstance(payload.get("faces"), list):
            yield payload
            return
        for value in payload.values():
            yield from stored_rolls(value)
    elif isinstance(payload, list):
        for value in payload:
            yield from stored_rolls(value)


def _has_variables(expr: str) -> bool:
    def walk(node: Any) -> bool:
        match node:
            case Var():
                return True
            case BinOp(left=left, right=right):
                return walk(left) or walk(right)
            case Neg(operand=operand):
                return walk(operand)
        return False

    return walk(parse(expr))


def _total_problem(expr: str, faces: list[int], total: int, rounding: str) -> str | None:
    try:
        if not _has_variables(expr):
            expected = evaluate(expr, faces=faces, rounding=rounding).total  # type: ignore[arg-type]
            if expected != total:
                return f"the total {total} should be {expected}"
    except DiceError as exc:
        return _("the total cannot be recomputed ({exc})").format(exc=exc)
    return None


def _rederive_legacy(material: str, first: int, rolls: list[tuple[int, dict[str, Any]]], rounding: str,
                     session: int | None) -> list[RollMismatch]:
    """Replay one legacy command's RNG (seeded by its first position) and compare its stored rolls."""
    dice = Dice.seeded(random.Random(derive_seed(material, first)))
    out: list[RollMismatch] = []
    for position, roll in rolls:
        expr, stored = str(roll["expr"]), list(roll["faces"])
        try:
            derived = [dice.take(s) for s in dice_in(expr)]
        except DiceError as exc:
            out.append(RollMismatch(position=position, session=session, expr=expr, stored=stored, derived=[],
                                    reason=_("the stored expression cannot be re-rolled ({exc})").format(exc=exc)))
            continue
        if derived != stored:
            out.append(RollMismatch(position=position, session=session, expr=expr, stored=stored, derived=derived,
                                    reason=_("the faces differ from those the revealed seed gives")))
            continue
        problem = _total_problem(expr, stored, roll["total"], rounding)
        if problem:
            out.append(RollMismatch(position=position, session=session, expr=expr, stored=stored, derived=derived,
                                    reason=problem))
    return out


def _rederive(key: str, salt: str, position: int, ev: DiceRecorded, rounding: str,
              session: int | None) -> list[RollMismatch]:
    """Re-derive every engine die of one record from its stream and compare faces and totals."""
    out: list[RollMismatch] = []
    n = ev.first
    for roll in ev.rolls:
        stored = [d.face for d in roll.dice]
        derived = []
        for d in roll.dice:
            derived.append(engine_face(key.encode(), salt, n, d.sides))
            n += 1

        # this roll's mismatch, its reason still to say (bound now: a closure would read the loop's last roll)
        bad = partial(_mismatch, out, RollMismatch(position=position, session=session, expr=roll.expr,
                                                   stored=stored, derived=derived, reason=""))

        try:
            sides = dice_in(roll.expr)
        except DiceError as exc:
            bad(_("the stored expression cannot be re-rolled ({exc})").format(exc=exc))
            continue
        if sides != [d.sides for d in roll.dice]:
            bad(_("the record's dice (d{items}) are not those of the expression").format(items=', d'.join(str(d.sides) for d in roll.dice)))
        elif derived != stored:
            bad(_("the faces differ from those the revealed seed gives"))
        elif problem := _total_problem(roll.expr, stored, roll.total, rounding):
            bad(problem)
    return out


def _mismatch(out: list[RollMismatch], mismatch: RollMismatch, reason: str) -> None:
    out.append(msgspec.structs.replace(mismatch, reason=reason))


class _Session(msgspec.Struct, kw_only=True):
    commitment: str
    legacy: bool
    salt: str
    counter: int = 0
    ended: bool = False
    reveal: str = ""
    engine_dice: int = 0


class _Sealed(msgspec.Struct, kw_only=True):
    commitment: str
    purpose: str
    session: int | None
    first: int
    engine_dice: int
    salt: str
    revealed: bool = False


class _Command(msgspec.Struct, kw_only=True):
    session: int | None
    first: int
    rolls: list[tuple[int, dict[str, Any]]] = []
    record: tuple[int, DiceRecorded] | None = None


def verify_rolls(campaign: CampaignLog, *, progress: Any = None) -> FairnessReport:
    """Check every dice record of the log against the revealed seeds (see the module's docstring).

    Engine dice outside sessions are re-derived too when the campaign has a public ``--seed``.
    ``progress(done, total)`` is called every 1,000 events read.
    """
    report = FairnessReport(ok=True)
    header = campaign.header
    problems = report.problems
    sessions: dict[int, _Session] = {}
    # (position, session, record, salt when it was rolled)
    records: list[tuple[int, int | None, DiceRecorded, str]] = []
    commands: dict[str, _Command] = {}
    seed_counter = 0
    first_record: int | None = None
    codec = campaign.store.codec
    assert codec is not None  # a campaign's store decodes with the ruleset's codec
    total = campaign.store.last_position() if progress is not None else 0
    sealed: dict[int, _Sealed] = {}
    revealing: dict[str, int] = {}  # a command's correlation -> the sealed roll whose events it is appending
    #: each reveal's sealed events as committed, and the events its command appended: [(stream, payload)]
    reveals: dict[int, tuple[int, list[tuple[str, str]], list[tuple[str, str]]]] = {}
    for rec in campaign.store.read_all(decode=False):
        if progress is not None and not rec.position % 1000:
            progress(rec.position, total)
        corr = rec.correlation_id or rec.event_id
        if rec.type in ("roll.revealed", "session.ended"):
            revealing.pop(corr, None)
        elif corr in revealing:
            reveals[revealing[corr]][2].append((rec.stream, rec.payload))
        # the events a reveal appends are a command of their own (the one sealed), so each is checked
        # against its own dice record even when a session's end reveals several
        key = f"{corr}#{revealing[corr]}" if corr in revealing else corr
        cmd = commands.get(key)
        if cmd is None:
            cmd = commands[key] = _Command(session=rec.session, first=rec.position)
        if rec.type == "dice.rolled":
            try:
                ev = codec.decode(rec.type, rec.schema_version, rec.payload)
            except CristalError as exc:
                problems.append(_("position {position}: the dice record cannot be read ({str})").format(position=rec.position, str=str(exc).rstrip('.')))
                continue
            assert isinstance(ev, DiceRecorded)
            first_record = rec.position if first_record is None else first_record
            cmd.record = (rec.position, ev)
            count = sum(1 for r in ev.rolls for d in r.dice if d.source == "rolled")
            sources = {d.source for r in ev.rolls for d in r.dice}
            if ev.scheme == "entered" and sources != {"entered"} or ev.scheme != "entered" and sources != {"rolled"}:
                problems.append((_("position {position}: the dice record's faces do not all come from its table")
                                 if ev.scheme == "entered" else
                                 _("position {position}: the dice record's faces do not all come from its engine")
                                 ).format(position=rec.position))
            if ev.sealed:
                sp = sealed.get(ev.sealed)
                if sp is None or not sp.revealed or corr not in revealing:
                    problems.append(f"position {rec.position}: a dice record of a secret roll outside its reveal")
                    continue
                if ev.scheme != "entered" and (ev.first != sp.first or count != sp.engine_dice):
                    problems.append(f"position {rec.position}: the revealed roll's dice (n° {ev.first}, {count} "
                                    f"engine dice) are not those sealed at position {ev.sealed} (n° {sp.first}, "
                                    f"{sp.engine_dice})")
                if ev.scheme == "session":
                    records.append((rec.position, sp.session, ev, sp.salt))
                elif ev.scheme == "entered":
                    report.entered += len(ev.rolls)
                else:
                    problems.append(f"position {rec.position}: a secret roll's dice must come from its session")
                continue
            if ev.scheme == "session":
                s = sessions.get(rec.session) if rec.session is not None else None
                if s is None or s.ended:
                    problems.append(_("position {position}: a record of session dice outside an open session").format(position=rec.position))
                    continue
                if ev.first != s.counter:
                    problems.append(_("position {position}: the record starts at engine die n° {first} of "
                                      "session {session} but n° {counter} was next (a record was removed, "
                                      "moved or added)").format(position=rec.position, first=ev.first, session=rec.session, counter=s.counter))
                s.counter = ev.first + count
                records.append((rec.position, rec.session, ev, s.salt))
            elif ev.scheme == "seed":
                if rec.session is not None or header.seed is None:
                    where = "inside a session" if header.seed is not None else "in a campaign without --seed"
                    problems.append(_("position {position}: a record of public-seed dice {where}").format(position=rec.position, where=where))
                    continue
                if ev.first != seed_counter:
                    problems.append(_("position {position}: the record starts at public-seed die n° {first} "
                                      "but n° {seed_counter} was next (a record was removed, moved or added)").format(position=rec.position, first=ev.first, seed_counter=seed_counter))
                seed_counter = ev.first + count
                records.append((rec.position, None, ev, ""))
            elif ev.scheme == "fresh":
                if rec.session is not None or header.seed is not None:
                    problems.append(_("position {position}: a record claims unverifiable dice where the engine "
                                      "rolls verifiable ones").format(position=rec.position))
                    continue
                report.unverifiable += len(ev.rolls)
            else:
                report.entered += len(ev.rolls)
            continue
        payload = msgspec.json.decode(rec.payload)
        if rec.type == "session.started":
            number = payload.get("number", rec.session)
            sessions[number] = _Session(commitment=payload.get("seed_commitment", ""), legacy=not payload.get("dice"),
                                        salt=payload.get("salt", ""))
        elif rec.type == "session.salted":
            s = sessions.get(payload.get("number"))
            if s is None or s.ended:
                problems.append(_("position {position}: a salt for a session that is not open").format(position=rec.position))
            elif s.counter:
                problems.append(_("position {position}: a salt added to session {payload} after its first "
                                  "engine die").format(position=rec.position, payload=payload.get('number')))
            else:
                s.salt = joined_salt(s.salt, payload.get("salt", ""))
        elif rec.type == "roll.sealed":
            s = sessions.get(rec.session) if rec.session is not None else None
            if s is None or s.ended:
                problems.append(f"position {rec.position}: a secret roll outside an open session")
            else:
                first, n = payload.get("first", 0), payload.get("engine_dice", 0)
                if n and first != s.counter:
                    problems.append(f"position {rec.position}: the secret roll starts at engine die n° {first} of "
                                    f"session {rec.session} but n° {s.counter} was next")
                s.counter = first + n if n else s.counter
                sealed[rec.position] = _Sealed(commitment=payload.get("commitment", ""),
                                               purpose=payload.get("purpose", ""), session=rec.session,
                                               first=first, engine_dice=n, salt=s.salt)
        elif rec.type == "roll.revealed":
            at = payload.get("sealed")
            sp = sealed.get(at) if isinstance(at, int) else None
            if sp is None or sp.revealed:
                problems.append(f"position {rec.position}: a reveal of position {at}, which holds no secret roll "
                                f"{'left to reveal' if sp is not None else 'sealed'}")
            elif sealed_commitment(at, sp.purpose, str(payload.get("nonce", "")),
                                   str(payload.get("events", ""))) != sp.commitment:
                problems.append(f"position {rec.position}: the reveal of the secret roll at position {at} does not "
                                f"match its commitment (a forged reveal)")
                sp.revealed = True
            else:
                sp.revealed = True
                report.revealed += 1
                try:
                    committed = [(str(a), str(b)) for a, b in msgspec.json.decode(payload["events"])]
                except (msgspec.DecodeError, TypeError, ValueError):
                    committed = []
                revealing[corr] = at
                reveals[at] = (rec.position, committed, [])
        elif rec.type == "session.ended":
            s = sessions.get(payload.get("number", rec.session))
            if s is not None:
                s.ended, s.reveal, s.engine_dice = True, payload.get("seed_reveal", ""), payload.get("engine_dice", 0)
        cmd.rolls.extend((rec.position, roll) for roll in stored_rolls(payload))

    for at, sp in sorted(sealed.items()):
        if sp.revealed:
            continue
        if sp.session is not None and sessions[sp.session].ended:
            problems.append(f"position {at}: the secret roll was never revealed, although its session "
                            f"{sp.session} has ended")
        else:
            report.sealed += 1
    for at, (reveal_at, committed, appended) in sorted(reveals.items()):
        if appended != committed:
            problems.append(f"position {reveal_at}: the events the reveal of position {at} appended are not "
                            f"the ones sealed there")

    verified: dict[int, bool] = {}
    for number, s in sorted(sessions.items()):
        if not s.ended:
            continue
        report.sessions += 1
        if not s.commitment:
            problems.append(_("session {number} was started without a dice commitment").format(number=number))
        elif not s.reveal:
            if s.counter or s.legacy:
                problems.append(_("session {number} ended without revealing its seed (its secret was lost): "
                                  "its engine dice cannot be checked").format(number=number))
        elif hashlib.sha256(s.reveal.encode()).hexdigest() != s.commitment:
            problems.append(_("session {number}: the revealed seed does not match the commitment made at its "
                              "start").format(number=number))
        else:
            verified[number] = True
        if not s.legacy and s.engine_dice != s.counter:
            problems.append(_("session {number} ended after {engine_dice} engine dice but its records hold "
                              "{counter} (a record was removed or added)").format(number=number, engine_dice=s.engine_dice, counter=s.counter))

    public = f"campaign-seed:{header.seed}" if header.seed is not None else None
    for position, session, ev, salt in records:
        if session is None:
            material = public
        else:
            s = sessions[session]
            if not s.ended:
                report.pending += len(ev.rolls)
                continue
            material = s.reveal if verified.get(session) else None
        if material is None:
            report.unverifiable += len(ev.rolls)
            continue
        report.commands += 1
        report.checked += len(ev.rolls)
        report.mismatches.extend(_rederive(material, salt, position, ev, header.rounding, session))

    earlier: set[tuple[Any, ...]] = set()  # every roll stored by the commands before, for copies of them
    for cmd in commands.values():
        if cmd.record is not None:
            _cross_check(cmd, earlier, problems)
        earlier.update(_roll_key(r) for _, r in cmd.rolls)
        if cmd.record is not None:
            continue
        engine = [(p, r) for p, r in cmd.rolls if r.get("source") != "entered"]
        report.entered += len(cmd.rolls) - len(engine)
        if not engine:
            continue
        session = cmd.session
        legacy = (sessions[session].legacy if session in sessions
                  else first_record is None or cmd.first < first_record)
        if not legacy:
            problems.append(_("position {engine}: {len} engine roll(s) stored without the command's dice "
                              "record (a record was removed)").format(engine=engine[0][0], len=len(engine)))
            continue
        if session is None:
            material = public
        elif session in sessions and sessions[session].ended:
            material = sessions[session].reveal if verified.get(session) else None
        else:
            report.pending += len(engine)
            continue
        if material is None:
            report.unverifiable += len(engine)
            continue
        report.commands += 1
        report.checked += len(engine)
        report.legacy += len(engine)
        report.mismatches.extend(_rederive_legacy(material, cmd.first, engine, header.rounding, session))
    report.mismatches.sort(key=lambda m: m.position)
    for m in report.mismatches:
        problems.append(f"position {m.position} ({m.expr}): {m.reason}")
    report.ok = not problems
    if progress is not None:
        progress(total, total)
    return report


def _roll_key(roll: dict[str, Any]) -> tuple[Any, ...]:
    return (roll.get("expr"), tuple(roll.get("faces", ())), roll.get("total"), roll.get("source"))


def _cross_check(cmd: _Command, earlier: set[tuple[Any, ...]], problems: list[str]) -> None:
    """Every roll a ruleset event of the command stores must be made of dice its record holds, or be an
    exact copy of a roll an earlier command stored (the ``old`` roll a Chance reroll keeps)."""
    assert cmd.record is not None
    ev = cmd.record[1]
    held: Counter[tuple[int, Any]] = Counter((d.face, d.source) for r in ev.rolls for d in r.dice)
    for position, roll in cmd.rolls:
        need: Counter[tuple[int, Any]] = Counter((f, roll.get("source")) for f in roll.get("faces", []))
        if need - held and _roll_key(roll) not in earlier:
            problems.append(_("position {position} ({roll}): the stored faces {list} are not dice of the "
                              "command's record").format(position=position, roll=roll.get('expr'), list=list(roll.get('faces', []))))
