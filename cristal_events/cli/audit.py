"""``cristal audit xp``: how experience was earned and spent, and every anomaly (exit 1)."""

from __future__ import annotations

import click

from ..jobs.audit import audit_rows, find_ledger, ledger_rows
from ..jobs.audit import text_lines as audit_lines
from ..service import Campaign
from .common import emit_json, emit_lines, json_option, tty_progress


def run_audit(camp: Campaign, character: str | None = None):
    """The XP audit of an open campaign, over the caught-up ``xp_ledger`` read model (or, when it is
    behind the log, the rows a rebuild would write, computed in memory)."""
    from cristal_events import projections

    ledger = find_ledger(projections.for_campaign(camp))
    rows = ledger_rows(camp, ledger, progress=tty_progress("audit"))
    chars = camp.ruleset.characters(camp.state().rules)
    names = {cid: str(getattr(c, "name", cid) or cid) for cid, c in chars.items()}
    return audit_rows(rows, names=names, character=character)


@click.group("audit")
def audit_group() -> None:
    """Audit the campaign's log.

    Example: cristal audit xp thor
    """


@audit_group.command("xp")
@click.argument("character", required=False, metavar="[ID]")
@json_option
@click.pass_context
def audit_xp(ctx: click.Context, character: str | None, as_json: bool) -> None:
    """Every XP award and spend per character, corrections beside what they amend, totals per
    session, and the anomalies (a charge that differs from the rule, a balance below zero, a level
    past the race limit, a purchase by a dead character, an award with no reason).

    Exits 1 when it finds any anomaly, so it can gate a script. Works on logs written by older
    engines: when the stored ledger is behind the log, it is computed from the events.

    Example: cristal audit xp thor --json
    """
    camp = Campaign.open(ctx.obj["db"], readonly=True)
    ctx.call_on_close(camp.close)
    report = run_audit(camp, character)
    if as_json:
        emit_json({"ok": report.ok, "characters": report.characters, "anomalies": report.anomalies})
    else:
        emit_lines(audit_lines(report))
    if not report.ok:
        ctx.exit(1)


@audit_group.command("dice")
@json_option
@click.pass_context
def audit_dice(ctx: click.Context, as_json: bool) -> None:
    """Every override of a result (a fudge) with its reason and policy, every re-roll and the roll it
    replaces, and the secret rolls still sealed (docs/verifiable-dice.md).

    Example: cristal audit dice --json
    """
    from ..jobs.fudges import dice_audit
    from ..jobs.fudges import text_lines as dice_lines

    camp = Campaign.open(ctx.obj["db"], readonly=True)
    ctx.call_on_close(camp.close)
    report = dice_audit(camp.store.read_all(hashes=False))
    if as_json:
        emit_json({"overrides": report.overrides, "rerolls": report.rerolls, "sealed": report.sealed,
                   "counts": {"overrides": len(report.overrides), "rerolls": len(report.rerolls),
                              "sealed": len(report.sealed)}})
    else:
        emit_lines(dice_lines(report))


COMMANDS = [audit_group]
