"""``cristal sheet`` and ``cristal characters``: one command for every ruleset, over the ruleset's
``sheet`` / ``render_sheet`` and ``party`` / ``party_line`` (:class:`~cristal_events.ruleset.Ruleset`).
Both open the campaign read-only."""

from __future__ import annotations

from typing import Any

import click
import msgspec

from ..errors import RuleError
from ..i18n import _
from ..service import Campaign
from .common import POSITION, echo, emit_json, json_option, open_campaign
from .views import party_lines


def _world(ctx: click.Context, at: int | None, session: int | None) -> tuple[Campaign, Any, Any]:
    """The campaign, its world now (or right after ``at``, or at the end of ``session``) and its typed
    settings as they stood then."""
    camp = open_campaign(ctx, readonly=True)
    if at is not None and session is not None:
        raise RuleError(_("Give --at or --session, not both."))
    if at is not None:
        last = camp.store.last_position()
        if at < 1 or at > last:
            raise RuleError(_("Position {at} is outside the log (1 to {last}).").format(at=at, last=last))
        world = camp.state_at(at)
    elif session is not None:
        world = camp.state_at_session_end(session)
    else:
        world = camp.state()
    settings = camp.ruleset.settings(msgspec.structs.replace(camp.header, settings=world.core.settings))
    return camp, world, settings


@click.command("sheet")
@click.argument("character_id")
@click.option("--at", "at", type=POSITION, default=None, help="As it was right after this log position (time travel).")
@click.option("--session", type=POSITION, default=None, help="As it was at the end of this session.")
@json_option
@click.pass_context
def sheet_cmd(ctx: click.Context, character_id: str, at: int | None, session: int | None, as_json: bool) -> None:
    """Print a character sheet, now or at an earlier point of the log.

    Example: cristal sheet thor --at 42 --json
    """
    camp, world, settings = _world(ctx, at, session)
    data = camp.ruleset.sheet(world.rules, character_id, settings=settings, rounding=camp.header.rounding)
    if as_json:
        emit_json(data)
    else:
        for line in camp.ruleset.render_sheet(data):
            echo(line)


@click.command("characters")
@json_option
@click.pass_context
def characters_cmd(ctx: click.Context, as_json: bool) -> None:
    """The party at a glance. Example: cristal characters --json"""
    camp, world, settings = _world(ctx, None, None)
    rows = camp.ruleset.party(world.rules, settings=settings, rounding=camp.header.rounding)
    if as_json:
        emit_json(rows)
        return
    if not rows:
        echo(_("No character yet."))
    for line in party_lines([camp.ruleset.party_cells(r) for r in rows]):
        echo(line)


COMMANDS = [sheet_cmd, characters_cmd]
