"""Illergan care commands: consumables (potions, antidote, poisons) and PV / PM given back.

``use`` spends a consumable the hero carries (I-L190-192; in a fight a minor action from the belt,
I-L249); ``recover`` records PV and PM a healing spell, a rest or care gives back (ruling I19).
"""

from __future__ import annotations

from typing import Literal

import click

from cristal_events.cli.common import INT, json_option, run
from cristal_events.rulesets.illergan import care as K


@click.command("use")
@click.argument("character_id")
@click.argument("item")
@click.option("--target", default="", help="Who receives it (default: the user himself).")
@click.option("--fight", default="", help="The fight: a minor action, from the belt (I-L249).")
@json_option
@click.pass_context
def use_cmd(ctx: click.Context, character_id: str, item: str, target: str, fight: str, as_json: bool) -> None:
    """Use a consumable: a potion de soin gives 20 PV, a potion de mana 40 PM, up to the maximum (I-L190-191).

    Example: cristal use lysa "Potion de soin" --fight gue
    """
    run(ctx, K.UseConsumable(character=character_id, item=item, target=target, fight=fight), as_json)


@click.command("recover")
@click.argument("character_id")
@click.option("--pv", type=INT, default=0, help="PV given back (capped at PVmax).")
@click.option("--pm", type=INT, default=0, help="PM given back (capped at PMmax).")
@click.option("--source", type=click.Choice(["soin", "repos", "autre"]), required=True,
              help="soin = a healing spell or power (I-L479); repos = a rest (the game master's amount); autre = care.")
@click.option("--reason", required=True, help="The spell, the rest or the care.")
@json_option
@click.pass_context
def recover_cmd(ctx: click.Context, character_id: str, pv: int, pm: int, source: Literal["soin", "repos", "autre"], reason: str,
                as_json: bool) -> None:
    """PV and PM given back by a healing spell, a rest or care, up to the maximum (ruling I19).

    Example: cristal recover thor --pv 12 --source soin --reason "Main apaisante"
    """
    run(ctx, K.Recover(character=character_id, pv=pv, pm=pm, source=source, reason=reason), as_json)


COMMANDS = [use_cmd, recover_cmd]
