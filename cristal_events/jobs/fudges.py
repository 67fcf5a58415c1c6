"""What the game master did to the dice, counted and listed (issue 21): every override (a fudge,
``cristal override``), every re-roll and the roll it replaces (Chance, a tie-break's next round,
``cristal reroll``), and the secret rolls still sealed. ``cristal audit dice`` prints it; the
Markdown and HTML exports carry the same section.

Python API::

    report = dice_audit(camp.store.read_all())   # DiceAudit: overrides, rerolls, sealed
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import msgspec

from ..events import DiceRecorded, ResultOverridden, RollRevealed, RollSealed
from ..i18n import _
from ..records import RecordedEvent


class DiceAudit(msgspec.Struct, kw_only=True):
    """``overrides``: one dict per ``result.overridden`` (position, overridden position, changes, reason,
    policy, actor); ``rerolls``: one per roll that names the roll it replaces (position of its record,
    index, expression, total, the replaced record's position and index, purpose); ``sealed``: the
    positions of the secret rolls not revealed."""

    overrides: list[dict[str, Any]] = []
    rerolls: list[dict[str, Any]] = []
    sealed: list[int] = []


def dice_audit(recs: Iterable[RecordedEvent]) -> DiceAudit:
    """The overrides, re-rolls and sealed rolls of ``recs`` (decoded records, in log order)."""
    out = DiceAudit(overrides=[], rerolls=[], sealed=[])
    for rec in recs:
        ev = rec.event
        if isinstance(ev, ResultOverridden):
            out.overrides.append({"position": rec.position, "overridden": ev.position, "changes": dict(ev.changes),
                                  "reason": ev.reason, "policy": ev.policy, "actor": rec.actor})
        elif isinstance(ev, DiceRecorded):
            for i, r in enumerate(ev.rolls):
                if r.replaces >= 0:
                    out.rerolls.append({"position": rec.position, "roll": i, "expr": r.expr, "total": r.total,
                                        "purpose": r.purpose, "replaces_position": r.replaces_position or rec.position,
                                        "replaces": r.replaces})
        elif isinstance(ev, RollSealed):
            out.sealed.append(rec.position)
        elif isinstance(ev, RollRevealed):
            out.sealed = [p for p in out.sealed if p != ev.sealed]
    return out


def text_lines(report: DiceAudit) -> list[str]:
    """The report as lines of text (the audit's and the Markdown export's; the caller escapes them)."""
    lines = [_("GM's overrides: {count}").format(count=len(report.overrides))]
    for o in report.overrides:
        changes = ", ".join(f"{k} = {v}" for k, v in o["changes"].items())
        lines.append(_("  #{position} ({policy}) position {overridden}: {changes} — {reason}").format(
            position=o["position"], policy=o["policy"], overridden=o["overridden"], changes=changes, reason=o["reason"]))
    lines.append(_("Re-rolls: {count}").format(count=len(report.rerolls)))
    for r in report.rerolls:
        lines.append(_("  #{position} roll {roll} {expr} = {total} replaces roll {replaces} of position {of}").format(
            position=r["position"], roll=r["roll"], expr=r["expr"], total=r["total"], replaces=r["replaces"],
            of=r["replaces_position"]) + (f" ({r['purpose']})" if r["purpose"] else ""))
    where = f" (positions {', '.join(map(str, report.sealed))})" if report.sealed else ""
    lines.append(_("Secret rolls still sealed: {count}{where}").format(count=len(report.sealed), where=where))
    return lines
