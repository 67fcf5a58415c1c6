"""Verifiable dice: re-derive every engine roll of the closed sessions from their revealed seeds.

The scheme (docs/verifiable-dice.md): ``session start`` draws a secret seed and stores only its
SHA-256 (``seed_commitment``) in the log; ``session end`` reveals the seed (``seed_reveal``). Every
command decided in the session rolls with ``random.Random(derive_seed(secret, p))`` where ``p`` is
the position of the command's first event, one ``randint(1, sides)`` per die, in the order the
rules rolled them, and stores each :class:`~cristal_events.rolls.Roll` in its events.

:func:`verify_rolls` needs nothing but the log: it checks each reveal against its commitment,
groups the stored rolls per command (``correlation_id``), replays the RNG and compares every face
(and the total, when the expression has no sheet variable). Rolls entered at the table
(``source = entered``) are counted and skipped: only the table saw them.

Python API::

    report = verify_rolls(campaign)   # FairnessReport: ok, sessions, checked, entered, problems
"""

import hashlib
import random
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import msgspec

from .dice import BinOp, Dice, DiceError, Neg, Var, dice_in, evaluate, parse
from .ruleset import derive_seed

if TYPE_CHECKING:
    from .service import Campaign

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

    ``checked``: engine rolls re-derived and matched or not; ``entered``: table rolls skipped;
    ``pending``: engine rolls of a session still open (its seed is not revealed yet);
    ``unverifiable``: engine rolls outside any session of a campaign without a public seed.
    """

    ok: bool
    sessions: int = 0
    commands: int = 0
    checked: int = 0
    entered: int = 0
    pending: int = 0
    unverifiable: int = 0
    mismatches: list[RollMismatch] = []
    problems: list[str] = []


def stored_rolls(payload: Any) -> Iterator[dict[str, Any]]:
    """Every Roll stored in a decoded payload, depth first, in field order (the order rules roll)."""
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


def _rederive(material: str, first: int, rolls: list[tuple[int, dict[str, Any]]], rounding: str,
              session: int | None) -> list[RollMismatch]:
    """Replay one command's RNG and compare it with its stored rolls, in order."""
    dice = Dice.seeded(random.Random(derive_seed(material, first)))
    out: list[RollMismatch] = []
    for position, roll in rolls:
        expr, stored = str(roll["expr"]), list(roll["faces"])
        try:
            sides = dice_in(expr)
            derived = [dice.take(s) for s in sides]
        except DiceError as exc:
            out.append(RollMismatch(position=position, session=session, expr=expr, stored=stored, derived=[],
                                    reason=f"the stored expression cannot be re-rolled ({exc})"))
            continue
        if derived != stored:
            out.append(RollMismatch(position=position, session=session, expr=expr, stored=stored, derived=derived,
                                    reason="the faces differ from those the revealed seed gives"))
            continue
        try:
            if not _has_variables(expr):
                total = evaluate(expr, faces=stored, rounding=rounding).total  # type: ignore[arg-type]
                if total != roll["total"]:
                    out.append(RollMismatch(position=position, session=session, expr=expr, stored=stored,
                                            derived=derived, reason=f"the total {roll['total']} should be {total}"))
        except DiceError as exc:
            out.append(RollMismatch(position=position, session=session, expr=expr, stored=stored, derived=derived,
                                    reason=f"the total cannot be recomputed ({exc})"))
    return out


def verify_rolls(campaign: "Campaign", *, progress: Any = None) -> FairnessReport:
    """Re-derive every engine roll of the closed sessions from the log alone and report mismatches.

    Engine rolls outside sessions are re-derived too when the campaign has a public ``--seed``.
    ``progress(done, total)`` is called every 1,000 events read.
    """
    report = FairnessReport(ok=True)
    header = campaign.header
    secrets: dict[int, str] = {}
    commitments: dict[int, str] = {}
    # correlation id -> (session, first position, [(position, roll)])
    commands: dict[str, tuple[int | None, int, list[tuple[int, dict[str, Any]]]]] = {}
    total = campaign.store.last_position() if progress is not None else 0
    for rec in campaign.store.read_all(decode=False):
        if progress is not None and not rec.position % 1000:
            progress(rec.position, total)
        payload = msgspec.json.decode(rec.payload)
        if rec.type == "session.started":
            commitments[payload.get("number", rec.session)] = payload.get("seed_commitment", "")
        elif rec.type == "session.ended":
            secrets[payload.get("number", rec.session)] = payload.get("seed_reveal", "")
        key = rec.correlation_id or rec.event_id
        entry = commands.get(key)
        if entry is None:
            entry = commands[key] = (rec.session, rec.position, [])
        for roll in stored_rolls(payload):
            entry[2].append((rec.position, roll))
    report.sessions = len(secrets)
    for number, secret in sorted(secrets.items()):
        commitment = commitments.get(number, "")
        if not commitment:
            report.problems.append(f"session {number} was started without a dice commitment")
        elif hashlib.sha256(secret.encode()).hexdigest() != commitment:
            report.problems.append(f"session {number}: the revealed seed does not match the commitment made at its start")
    public = f"campaign-seed:{header.seed}" if header.seed is not None else None
    for session, first, rolls in commands.values():
        engine = [(p, r) for p, r in rolls if r.get("source") != "entered"]
        report.entered += len(rolls) - len(engine)
        if not engine:
            continue
        if session is None:
            material = public
        elif session in secrets:
            material = secrets[session] if commitments.get(session) else None
        else:
            report.pending += len(engine)
            continue
        if material is None:
            report.unverifiable += len(engine)
            continue
        report.commands += 1
        report.checked += len(engine)
        report.mismatches.extend(_rederive(material, first, engine, header.rounding, session))
    report.mismatches.sort(key=lambda m: m.position)
    for m in report.mismatches:
        report.problems.append(f"position {m.position} ({m.expr}): {m.reason}")
    report.ok = not report.problems
    if progress is not None:
        progress(total, total)
    return report
