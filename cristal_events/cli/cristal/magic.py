"""Lois du Cristal magic-item commands outside a fight: Détection Magique, Analyse Magique, manual
artefacts (seed 000, L1137-L1167). Each parses its arguments into a command of
:mod:`cristal_events.rulesets.cristal.artefacts` and prints what was recorded (``--json`` for scripts)."""

from __future__ import annotations

import click

from cristal_events.cli.common import INT, IntPair, dice_option_with, json_option, run
from cristal_events.rulesets.cristal import artefacts as A

#: the PM put in a variable effect: ``NAME=PM``
PM_PAIR = IntPair("NAME=PM")
_dice = dice_option_with("The d20 of concentration rolled at the table; without it the engine rolls.")


@click.group("magic")
def magic_group() -> None:
    """Magic items: Détection Magique, Analyse Magique, manual artefacts (L1137-L1167).

    Example: cristal magic detect lia "Bâton de feu" --owner thor --dice 12
    """


@magic_group.command("detect")
@click.argument("character_id")
@click.argument("item")
@click.option("--owner", default="", help="The character who carries the item (default: the caster).")
@_dice
@json_option
@click.pass_context
def detect_cmd(ctx: click.Context, character_id: str, item: str, owner: str, dice: list[int] | None, as_json: bool) -> None:
    """Cast Détection Magique (1 PM, CNC 4, L1151) on a carried item: on a success, its MAG if it is magic.

    --dice: one d20 (concentration: CNC + d20 >= 4).

    Example: cristal magic detect lia "Bâton de feu" --owner thor --dice 12
    """
    run(ctx, A.DetectMagic(character=character_id, item=item, owner=owner), as_json, dice)


@magic_group.command("analyse")
@click.argument("character_id")
@click.argument("item")
@click.option("--pm", "pm", type=INT, required=True, help="PM in the Magie effect: 4 per MAG of the artefact (L1167).")
@click.option("--owner", default="", help="The character who carries the item (default: the caster).")
@_dice
@json_option
@click.pass_context
def analyse_cmd(ctx: click.Context, character_id: str, item: str, pm: int, owner: str, dice: list[int] | None,
                as_json: bool) -> None:
    """Cast Analyse Magique (2 PM + the Magie PM, CNC 8, L1161): with 4 PM per MAG and a success, the
    caster understands the artefact and can set off a manual one.

    --dice: one d20 (concentration: CNC + d20 >= 8).

    Example: cristal magic analyse lia "Bâton de feu" --pm 8 --owner thor --dice 15
    """
    run(ctx, A.AnalyseMagic(character=character_id, item=item, pm=pm, owner=owner), as_json, dice)


@magic_group.command("activate")
@click.argument("character_id")
@click.argument("item")
@click.option("--what", default="", help="What the power does this time (free text).")
@json_option
@click.pass_context
def activate_cmd(ctx: click.Context, character_id: str, item: str, what: str, as_json: bool) -> None:
    """Set off a manual artefact's power (L1145): only a character who understood it with Analyse Magique.

    Example: cristal magic activate lia "Bâton de feu" --what "une flamme jaillit"
    """
    run(ctx, A.ActivateItem(character=character_id, item=item, what=what), as_json)


@magic_group.command("break")
@click.argument("character_id")
@click.argument("item")
@click.option("--reason", default="", help="What broke the vial (a fall, a blow ...).")
@json_option
@click.pass_context
def break_cmd(ctx: click.Context, character_id: str, item: str, reason: str, as_json: bool) -> None:
    """A carried potion's fragile vial breaks (L1181): one is lost; a contact or ouverture potion goes off on
    its holder (L1174-L1177), an ingestion one is simply lost.

    Example: cristal magic break lia "Fiole de feu" --reason "chute dans l'escalier"
    """
    run(ctx, A.BreakPotion(character=character_id, item=item, reason=reason), as_json)


@magic_group.command("target")
@click.argument("character_id")
@click.argument("item")
@click.argument("spell")
@click.option("--effect", "effects", type=PM_PAIR, multiple=True, metavar="NAME=PM", help="PM put in a variable effect.")
@click.option("--owner", default="", help="The character who carries the item (default: the caster).")
@_dice
@json_option
@click.pass_context
def target_cmd(ctx: click.Context, character_id: str, item: str, spell: str, effects: tuple[tuple[str, int], ...], owner: str,
               dice: list[int] | None, as_json: bool) -> None:
    """Cast SPELL against an item: its own DM = its MAG reduces the effects (L851, L1024-L1034).

    --dice: the d20 of concentration, then the dice of each effect left after the item's DM.

    Example: cristal magic target lia "Bouclier runique" "Boule de Feu" --owner thor --effect Dommage=8 --dice 15,3,4
    """
    run(ctx, A.CastOnItem(character=character_id, item=item, spell=spell, owner=owner,
                          effects=dict(effects)), as_json, dice)


COMMANDS = [magic_group]
