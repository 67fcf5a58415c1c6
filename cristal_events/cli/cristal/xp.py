"""Lois du Cristal XP commands: ``xp award`` and ``xp buy``.

A module of their own (not :mod:`.characters`, whose command groups a one-shot ``xp award`` would
build at import for nothing): the CLI imports only the module of the command typed (``PARTS``).
"""

from __future__ import annotations

from typing import Any

import click

from cristal_events.cli.common import INT, json_option, run
from cristal_events.errors import RuleError
from cristal_events.rulesets.cristal import characters as C
from cristal_events.rulesets.cristal.content import FIXED_STATES
from cristal_events.rulesets.cristal.texts import N_, _

SIGNED = {"ignore_unknown_options": True}  # as in .characters: ``-5`` is an argument, not an option
XP_AMOUNT = INT.named(N_("XP amount"))


# ---------------------------------------------------------------------------- xp
@click.group("xp")
def xp_group() -> None:
    """Award and spend experience points (L383-L395).

    Example: cristal xp award --all 600 --reason "Starting XP (L1478)"
    """


@xp_group.command("award", context_settings=SIGNED)
@click.argument("args", nargs=-1)
@click.option("--all", "all_", is_flag=True, help="Every living character.")
@click.option("--reason", default="", help="Why the XP is given (required).")
@json_option
@click.pass_context
def award_cmd(ctx: click.Context, args: tuple[str, ...], all_: bool, reason: str, as_json: bool) -> None:
    """Award XP to characters: ID... AMOUNT, or --all AMOUNT.

    Example: cristal xp award thor lia 60 --reason "Goblins of the inn"
    """
    if not args:
        raise RuleError(_("xp award needs an AMOUNT (and character ids or --all)."))
    ids, amount = tuple(args[:-1]), XP_AMOUNT.convert(args[-1], None, ctx)  # the variadic ids come first
    run(ctx, C.AwardXp(characters=ids, all=all_, amount=amount, reason=reason), as_json)


@xp_group.command("buy")
@click.argument("character_id")
@click.argument("kind", type=click.Choice(["level", "technique", "spell"]))
@click.argument("name")
@click.option("--stat", default=None, help="For a level: the fixed state that gains +1 (L66).")
@click.option("--cost", type=INT.named(N_("Cost")), default=None, help="For a spell: the GM's price when the book prints none.")
@json_option
@click.pass_context
def buy_cmd(ctx: click.Context, character_id: str, kind: str, name: str, stat: str | None, cost: int | None,
            as_json: bool) -> None:
    """Spend XP on a global level (to CLASS), a technique's next level, or a spell.

    Example: cristal xp buy thor level Guerrier --stat FRC
    """
    if kind == "level":
        if not stat:
            raise RuleError(_("A level needs --stat, one of {fixed_states} (L66).").format(fixed_states=', '.join(FIXED_STATES)))
        cmd: Any = C.BuyLevel(character=character_id, class_name=name, stat=stat)
    elif kind == "technique":
        cmd = C.BuyTechnique(character=character_id, technique=name)
    else:
        cmd = C.LearnSpell(character=character_id, spell=name, cost=cost)
    run(ctx, cmd, as_json)


COMMANDS = [xp_group]
