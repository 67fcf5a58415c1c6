"""The game master's secret rolls, fudges and re-rolls (docs/verifiable-dice.md, "Secret rolls"):
``reveal``, ``override`` and ``reroll``. ``--secret`` itself is on every rolling command (the shared
``--dice`` option of :mod:`cristal_events.cli.common`)."""

from __future__ import annotations

import click
import msgspec

from ..i18n import _
from ..service import Override, Reroll, RevealRoll
from .common import INT, POSITION, actor, echo, emit_json, json_option, open_campaign, parse_faces
from .correct import parse_changes


def _print(ctx: click.Context, recs: list, as_json: bool) -> None:
    camp = open_campaign(ctx, write=True)
    if as_json:
        emit_json([{"position": r.position, "type": r.type, "event": msgspec.to_builtins(r.event),
                    "summary": camp.summarize(r)} for r in recs])
        return
    for r in recs:
        echo(f"{r.position:>6}  {camp.summarize(r)}")


@click.command("reveal")
@click.argument("position", type=POSITION)
@json_option
@click.pass_context
def reveal_cmd(ctx: click.Context, position: int, as_json: bool) -> None:
    """Reveal the secret roll sealed at POSITION now (its events take effect; 'session end' reveals
    every one of the session). Example: cristal reveal 42"""
    camp = open_campaign(ctx, write=True)
    recs = camp.execute(RevealRoll(position=position), actor=actor(ctx))
    _print(ctx, recs, as_json)


@click.command("override")
@click.argument("position", type=POSITION)
@click.option("--set", "changes", multiple=True, metavar="FIELD=VALUE",
              help="The result as the game master sets it, e.g. damage=4 or die=12 (the fields 'correct' takes).")
@click.option("--reason", default="", help="Why the result is overridden (required).")
@json_option
@click.pass_context
def override_cmd(ctx: click.Context, position: int, changes: tuple[str, ...], reason: str, as_json: bool) -> None:
    """Override the result at POSITION (a fudge): an event of its own, never an edit, under the
    campaign's fudge_policy (forbidden: refused; disclosed: shown to everyone now; sealed: revealed
    with the session's secret rolls). The result is applied where it is used (damage moves PV).

    Example: cristal override 57 --set damage=4 --reason "the dragon spares the bard"
    """
    camp = open_campaign(ctx, write=True)
    recs = camp.execute(Override(position=position, changes=parse_changes(changes), reason=reason),
                        actor=actor(ctx))
    if camp.last_sealed:
        if as_json:
            emit_json({"events": [{"position": r.position, "type": r.type, "event": msgspec.to_builtins(r.event),
                                   "summary": camp.summarize(r)} for r in recs],
                       "sealed": {"position": recs[0].position,
                                  "events": [{"type": r.type, "summary": camp.summarize(r)} for r in camp.last_sealed]}})
            return
        _print(ctx, recs, False)
        echo(_("The override is sealed at position {position} (fudge policy 'sealed'); it takes effect at "
               "'session end' or 'cristal reveal {position}':").format(position=recs[0].position))
        for r in camp.last_sealed:
            echo(f"{_('sealed'):>6}  {camp.summarize(r)}")
        return
    _print(ctx, recs, as_json)


@click.command("reroll")
@click.argument("position", type=POSITION)
@click.option("--roll", "roll", type=INT, default=-1, show_default=False,
              help="Which roll of the record (0 for the first; default: its last).")
@click.option("--reason", default="", help="Why the game master rolls again (required).")
@click.option("--dice", "dice", metavar="F[,F...]", default=None,
              help="The faces rolled again at the table; without it the engine rolls.")
@json_option
@click.pass_context
def reroll_cmd(ctx: click.Context, position: int, roll: int, reason: str, dice: str | None, as_json: bool) -> None:
    """Roll again the roll of the dice record at POSITION (the game master's "roll again"): the new
    roll names the one it replaces, so replay and the exports show the chain. The rules' outcome of
    the old roll stands: use 'override' to apply the new one.

    Example: cristal reroll 42 --reason "the die fell off the table"
    """
    faces = parse_faces(dice)
    camp = open_campaign(ctx, write=True)
    recs = camp.execute(Reroll(position=position, reason=reason, roll=roll), actor=actor(ctx), faces=faces)
    _print(ctx, recs, as_json)


COMMANDS = [reveal_cmd, override_cmd, reroll_cmd]
