"""``cristal requests``: the players' requests the game master approves or refuses (issue 21, item 6).

At the web table a player's action that the rules leave to the game master (an XP purchase, a heal
outside a fight, a correction) becomes a ``request.made`` event when the campaign's setting for its
kind (:data:`cristal_events.service.APPROVAL_KINDS`: ``approval_xp_purchase``, ``approval_heal``,
``approval_correction``) is ``gm``. ``requests approve N`` runs the request's command as its holder,
then records ``request.approved`` naming the positions that command appended; a command the state no
longer allows is refused with the rules' own sentence, recorded as ``request.refused``. ``requests
refuse N [--reason R]`` records the refusal and nothing else.
"""

from __future__ import annotations

import contextlib
import io
from typing import Any

import click
import msgspec

from ..errors import RuleError
from ..i18n import _
from ..service import DecideRequest
from .common import POSITION, actor, echo, emit_json, json_option, open_campaign
from .inprocess import Kept, invoke

#: the commands a request may hold -> (the kind of action, the parameter naming its character or None)
APPROVAL_COMMANDS: dict[tuple[str, ...], tuple[str, str | None]] = {
    ("xp", "buy"): ("xp_purchase", "character_id"),
    **{("xp", kind): ("xp_purchase", "character_id") for kind in ("skill", "pp", "magic", "characteristic", "faith")},
    ("heal",): ("heal", "character_id"),        # Lois du Cristal: PV given back outside a fight
    ("recover",): ("heal", "character_id"),     # Illergan: PV and PM given back by a spell, a rest or care
    ("correct",): ("correction", None),
}
#: the kind of action -> the setting that says whether it needs the game master's approval
KIND_SETTINGS = {"xp_purchase": "approval_xp_purchase", "heal": "approval_heal", "correction": "approval_correction"}


def pending(camp: Any) -> list[dict[str, Any]]:
    """The requests not answered yet, oldest first: position, holder, character, kind, words, summary."""
    out = []
    for position in camp.state().core.requests:
        rec = camp.store.get(position)
        if rec is None:
            continue
        ev = rec.event
        out.append({"position": position, "holder": ev.holder, "character": ev.character, "kind": ev.kind,
                    "words": list(ev.words), "summary": camp.summarize(rec), "session": rec.session})
    return out


def _request(camp: Any, position: int) -> Any:
    if position not in camp.state().core.requests:
        raise RuleError(_("There is no pending request at position {position} ('cristal requests' lists "
                          "them).").format(position=position))
    rec = camp.store.get(position)
    assert rec is not None
    return rec.event


def _record(ctx: click.Context, camp: Any, decision: DecideRequest, as_json: bool, extra: dict[str, Any]) -> None:
    recs = camp.execute(decision, actor=actor(ctx))
    if as_json:
        emit_json({"request": decision.request, "approved": decision.approve, "positions": list(decision.positions),
                   "reason": decision.reason, "decision": recs[0].position, **extra})
        return
    for r in recs:
        echo(f"{r.position:>6}  {camp.summarize(r)}")


@click.group("requests", invoke_without_command=True)
@json_option
@click.pass_context
def requests_group(ctx: click.Context, as_json: bool) -> None:
    """The players' requests waiting for the game master (oldest first, as 'requests list'); approve
    or refuse them.

    Example: cristal requests
    """
    if ctx.invoked_subcommand is None:
        _list(ctx, as_json)


@requests_group.command("list")
@json_option
@click.pass_context
def list_cmd(ctx: click.Context, as_json: bool) -> None:
    """The players' requests waiting for the game master, oldest first.

    Example: cristal requests list --json
    """
    _list(ctx, as_json)


def _list(ctx: click.Context, as_json: bool) -> None:
    camp = open_campaign(ctx, readonly=True)
    rows = pending(camp)
    if as_json:
        emit_json(rows)
        return
    if not rows:
        echo(_("No request waits for the game master."))
    for row in rows:
        echo(f"{row['position']:>6}  {row['summary']}")


@requests_group.command("approve")
@click.argument("position", type=POSITION)
@json_option
@click.pass_context
def approve_cmd(ctx: click.Context, position: int, as_json: bool) -> None:
    """Approve the request at POSITION: its command runs as the player who asked, then the approval
    names the events it recorded. A command the state no longer allows is refused with the rules'
    own sentence, and the refusal is recorded.

    Example: cristal requests approve 42
    """
    camp = open_campaign(ctx, write=True)
    ev = _request(camp, position)
    kept = ctx.obj.get("shared_campaign")
    if kept is None:  # the terminal: the command runs over the campaign this one opened
        kept = Kept(ctx.obj["db"])
        kept.campaign, kept.attached = camp, True
    out = io.StringIO()
    recs: list[Any] = []
    camp.appended = recs  # what the command appends, exactly (Campaign.appended)
    try:
        with contextlib.redirect_stdout(out):
            invoke(kept, [*ev.words, *([] if "--json" in ev.words else ["--json"])], actor=ev.holder)
    except click.ClickException as exc:
        _record(ctx, camp, DecideRequest(request=position, approve=False, reason=exc.format_message()), as_json,
                {"events": []})
        return
    finally:
        camp.appended = None
    events = [{"position": r.position, "type": r.type, "event": msgspec.to_builtins(r.event),
               "summary": camp.summarize(r)} for r in recs]
    if not as_json:
        for r in recs:
            echo(f"{r.position:>6}  {camp.summarize(r)}")
    _record(ctx, camp, DecideRequest(request=position, approve=True, positions=[r.position for r in recs]),
            as_json, {"events": events})


@requests_group.command("refuse")
@click.argument("position", type=POSITION)
@click.option("--reason", default="", help="Why (shown to the player in the log).")
@json_option
@click.pass_context
def refuse_cmd(ctx: click.Context, position: int, reason: str, as_json: bool) -> None:
    """Refuse the request at POSITION: the refusal is recorded, nothing else.

    Example: cristal requests refuse 42 --reason "not before the end of the chapter"
    """
    camp = open_campaign(ctx, write=True)
    _request(camp, position)
    _record(ctx, camp, DecideRequest(request=position, approve=False, reason=reason), as_json, {"events": []})


COMMANDS = [requests_group]
