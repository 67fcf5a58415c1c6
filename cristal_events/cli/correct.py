"""The generic correction command: amend an earlier event with a visible, compensating one."""

from __future__ import annotations

from typing import Any

import click
import msgspec

from ..errors import CristalError
from ..i18n import _
from .common import POSITION, actor, echo, emit_json, json_option, open_campaign


def parse_changes(pairs: tuple[str, ...]) -> dict[str, Any]:
    """``("amount=60",)`` -> ``{"amount": 60}``; values are JSON when they parse, else text."""
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key.strip():
            raise CristalError(_("--set expects FIELD=VALUE like amount=60, got '{pair}'.").format(pair=pair))
        try:
            out[key.strip()] = msgspec.json.decode(raw.strip())
        except msgspec.DecodeError:
            out[key.strip()] = raw.strip()
    return out


@click.command("correct")
@click.argument("position", type=POSITION)
@click.option("--reason", default="", help="Why the original was wrong (required).")
@click.option("--set", "changes", multiple=True, metavar="FIELD=VALUE",
              help="The corrected field value of the original event, e.g. amount=60.")
@json_option
@click.pass_context
def correct_cmd(ctx: click.Context, position: int, reason: str, changes: tuple[str, ...], as_json: bool) -> None:
    """Correct the event at POSITION: the original stays, a correction and its compensation are appended.

    Example: cristal correct 14 --reason "600 XP entered instead of 60" --set amount=60
    """
    camp = open_campaign(ctx, write=True)
    recs = camp.correct(position, reason, parse_changes(changes), actor=actor(ctx))
    if as_json:
        emit_json([{"position": r.position, "type": r.type, "event": msgspec.to_builtins(r.event),
                    "summary": camp.summarize(r)} for r in recs])
    else:
        for r in recs:
            echo(f"{r.position:>6}  {camp.summarize(r)}")


COMMANDS = [correct_cmd]
