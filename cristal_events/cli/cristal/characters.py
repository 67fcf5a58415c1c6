"""Lois du Cristal character commands: creation, equipment, gold, rest, health, sheets, content packs
(the XP commands are in :mod:`.xp`).

Each command parses its arguments into a command Struct of :mod:`.characters`, runs it through
``Campaign.execute`` and prints what was recorded (``--json`` for scripts). Signed amounts such as
``-5`` are arguments, not options.
"""

from __future__ import annotations

from typing import Any

import click

from cristal_events.cli.common import (
    INT,
    REAL,
    IntPair,
    dice_option_with,
    echo,
    emit_json,
    json_option,
    open_campaign,
    run,
)
from cristal_events.errors import CristalError, RuleError
from cristal_events.rulesets.cristal import characters as C
from cristal_events.rulesets.cristal.content import parse_file, provenance
from cristal_events.rulesets.cristal.texts import N_, _

SIGNED = {"ignore_unknown_options": True}


#: a fixed-state adjustment ``STAT=N`` (--set, --mod, --penalty) and a potion's ``NAME=PM``
STAT_PAIR = IntPair("STAT=N like FRC=+1")
PM_PAIR = IntPair("NAME=PM")


# ---------------------------------------------------------------------------- character
@click.group("character")
def character_group() -> None:
    """Create Lois du Cristal characters.

    Example: cristal character create thor --race Humain --name Thor --set FRC=+1 --gold 100
    """


@character_group.command("create")
@click.argument("character_id")
@click.option("--race", required=True, help="Humain, Elfe, Nain or a race of a loaded content pack.")
@click.option("--name", default="", help="The character's name (default: the id).")
@click.option("--sex", default="", help="F or M (matters only through the race's sex adjustments, L413).")
@click.option("--set", "adjust", type=STAT_PAIR, multiple=True, metavar="STAT=N",
              help="A fixed-state adjustment the GM allows at creation (L1466), e.g. FRC=+1 INT=-1.")
@click.option("--roll", "roll_adj", is_flag=True, help="Roll [1d4 -2] on each fixed state (L1466).")
@click.option("--alignment", type=INT.named(N_("Alignment")), default=0, help="Starting alignment (0 by the book, L1464).")
@click.option("--luck", type=INT.named(N_("Chance")), default=0, help="Chance, the optional rule (L56).")
@click.option("--gold", type=INT.named(N_("Gold")), default=0, help="Starting gold in PO (50 to 200 suggested, L1474).")
@click.option("--player", default="", help="The player's name.")
@dice_option_with("Faces of the --roll dice, FRC to CHAR.")
@json_option
@click.pass_context
def create_cmd(ctx: click.Context, character_id: str, race: str, name: str, sex: str, adjust: tuple[tuple[str, int], ...],
               roll_adj: bool, alignment: int, luck: int, gold: int, player: str, dice: list[int] | None,
               as_json: bool) -> None:
    """Create a character: race bases plus the GM's adjustments, senses from the race.

    Example: cristal character create lia --race Elfe --sex F --set INT=+1 --set CHAR=-1
    """
    cmd = C.CreateCharacter(id=character_id, race=race, name=name, sex=sex, adjustments=dict(adjust),
                            roll_adjustments=roll_adj, alignment=alignment,
                            luck=luck, gold=gold, player=player)
    run(ctx, cmd, as_json, dice)


@character_group.command("ready")
@click.argument("character_id")
@json_option
@click.pass_context
def ready_cmd(ctx: click.Context, character_id: str, as_json: bool) -> None:
    """Close a character's creation phase (L1448-L1482): its PV and PM equal PVmax and PMmax.

    Until then (or the first 'session start', which closes every open creation) PV and PM follow the
    maxima as starting levels, items and alterations change them (L1478: XP given at creation).

    Example: cristal character ready thor
    """
    run(ctx, C.MarkReady(character=character_id), as_json)


# ---------------------------------------------------------------------------- checks
@click.group("check")
def check_group() -> None:
    """Rolls outside a fight: the Jet de Technique (L763-L776) and the Sur-Effort (L233-L242).

    Example: cristal check technique thor Natation --difficulty 10
    """


@check_group.command("technique")
@click.argument("character_id")
@click.argument("technique")
@click.option("--difficulty", type=INT.named(N_("Difficulty")), default=5, show_default=True,
              help="The obstacle's difficulty: 5 standard (L770), 10 a raging river.")
@click.option("--reason", default="", help="What the character attempts.")
@dice_option_with("One face: the 1d6.")
@json_option
@click.pass_context
def check_technique_cmd(ctx: click.Context, character_id: str, technique: str, difficulty: int, reason: str,
                        dice: list[int] | None, as_json: bool) -> None:
    """A Technique roll: level + adjustment + 1d6 >= difficulty (L766). A character without the technique
    rolls at level 0 and without adjustment (L774); the GM may still rule that a failure (L776).

    Example: cristal check technique lia Forestier --difficulty 8 --dice 4
    """
    run(ctx, C.CheckTechnique(character=character_id, technique=technique,
                              difficulty=difficulty, reason=reason), as_json, dice)


@check_group.command("sur-effort")
@click.argument("character_id")
@click.argument("stat")
@click.option("--reason", default="", help="Why the GM grants it (required, L237: life in danger, anger ...).")
@dice_option_with("One face: the band's die (1d2 to 1d12 by the state's value, L239-L242).")
@json_option
@click.pass_context
def sur_effort_cmd(ctx: click.Context, character_id: str, stat: str, reason: str, dice: list[int] | None,
                   as_json: bool) -> None:
    """A Sur-Effort (L233-L242): the band's die added to one fixed state for one action only (it is gone
    when the action ends); the event records the table value reached (FRC 4 lifts 240 kg, L235).

    Example: cristal check sur-effort thor FRC --reason "La herse tombe sur Lia" --dice 5
    """
    run(ctx, C.SurEffort(character=character_id, stat=stat, reason=reason), as_json, dice)


# ---------------------------------------------------------------------------- items
@click.group("item")
def item_group() -> None:
    """Carry, equip, unequip and drop items (L801-L927).

    Example: cristal item add thor "Épée longue"
    """


@item_group.command("add", context_settings=SIGNED)
@click.argument("character_id")
@click.argument("item")
@click.option("--qty", type=INT.named(N_("Quantity")), default=1, help="Quantity (QTÉ).")
@click.option("--from-pack", is_flag=True, help="Take the item from the content pack (the default without properties).")
@click.option("--category", default=None, help="Principale, Projectiles, Poisons, Objets de Valeurs, Cristal Magique, Autres.")
@click.option("--att", type=INT.named(N_("--att")), default=None, help="ATT bonus when used.")
@click.option("--dmg", default=None, help="DMG, e.g. 1d8.")
@click.option("--mag", type=INT.named(N_("--mag")), default=None, help="The item's own MAG.")
@click.option("--dp", type=INT.named(N_("--dp")), default=None, help="DP when worn.")
@click.option("--dm", type=INT.named(N_("--dm")), default=None, help="DM bonus to the wearer.")
@click.option("--mod", "mods", type=STAT_PAIR, multiple=True, metavar="STATE=N", help="Bonus/Handicap, e.g. FRC=-6 (L865).")
@click.option("--weight", type=REAL.named(N_("--weight (kg)")), default=None, help="Poids in kg.")
@click.option("--it", type=INT.named(N_("--it")), default=None, help="Seconds to use it (IT).")
@click.option("--special", default=None, help="Spéciale (free text).")
@click.option("--crystal-pm", "crystal_pm", type=INT.named(N_("--crystal-pm")), default=None,
              help="A Cristal Magique's PM max (L919); price and size from the band table (L1083-L1089).")
@click.option("--price", type=INT.named(N_("--price")), default=None, help="Prix in PO (a crystal's defaults to its band's).")
@click.option("--manual", is_flag=True, help="A manual magic item: its power must be understood to be used (L1145).")
@click.option("--potion", "potion_spell", default=None, help="A potion holding this spell (at most 15 PM, L1184).")
@click.option("--potion-effect", "potion_effects", type=PM_PAIR, multiple=True, metavar="NAME=PM",
              help="The PM of the potion's spell per variable effect (fixed when made, L1177).")
@click.option("--trigger", type=click.Choice(["ingestion", "contact", "ouverture"]), default="ingestion",
              help="What sets the potion off (L1173-L1175).")
@click.option("--brewed", type=INT.named(N_("--brewed (in-game day)")), default=None, help="The in-game day the potion was made (it fades after potion_fade_days, L1182).")
@json_option
@click.pass_context
def item_add_cmd(ctx: click.Context, character_id: str, item: str, qty: int, from_pack: bool, category: str | None,
                 att: int | None, dmg: str | None, mag: int | None, dp: int | None, dm: int | None,
                 mods: tuple[tuple[str, int], ...], weight: float | None, it: int | None, special: str | None,
                 crystal_pm: int | None, price: int | None, manual: bool, potion_spell: str | None,
                 potion_effects: tuple[tuple[str, int], ...], trigger: str, brewed: int | None, as_json: bool) -> None:
    """Give an item to a character, from the content pack or described by its properties.

    A magic item has MAG > 0 (its own DM = MAG, L851); only it can raise DM (L861). A crystal is written
    with its PM max (L921).

    Example: cristal item add thor "Excalibur" --dmg 1d10 --att 1 --mag 3 --weight 2
    Example: cristal item add lia "Cristal bleu" --crystal-pm 19
    Example: cristal item add lia "Fiole de feu" --potion "Boule de Feu" --potion-effect Dommage=4 --trigger contact --brewed 12
    """
    props: dict[str, Any] = {}
    if potion_spell is not None:
        props["potion"] = {"spell": potion_spell, "spends": dict(potion_effects),
                           "trigger": trigger,
                           "brewed_day": brewed}
    elif potion_effects or brewed is not None:
        raise RuleError(_("--potion-effect and --brewed describe a potion: name its spell with --potion."))
    if manual:
        props["activation"] = "manual"
    for key, raw in (("att", att), ("mag", mag), ("dp", dp), ("dm", dm), ("it", it), ("crystal_pm", crystal_pm),
                     ("price_po", price)):
        if raw is not None:
            props[key] = raw
    if dmg is not None:
        props["dmg"] = dmg
    if category is not None:
        props["category"] = category
    if special is not None:
        props["special"] = special
    if weight is not None:
        props["weight_kg"] = weight
    if mods:
        props["modifiers"] = dict(mods)
    if from_pack and props:
        raise RuleError(_("Give either --from-pack or item properties, not both."))
    run(ctx, C.AddItem(character=character_id, item=item, qty=qty,
                        properties=props or None), as_json)


@item_group.command("equip")
@click.argument("character_id")
@click.argument("item")
@click.option("--gm-allow", "gm_allow", default="", metavar="REASON",
              help="The GM lets the character use an item whose handicap leaves a fixed state below 0 (L801, L871).")
@click.option("--penalty", "penalties", type=STAT_PAIR, multiple=True, metavar="STATE=N",
              help="A penalty the GM adds while it is worn (L871), e.g. ATT=-2; with --gm-allow.")
@json_option
@click.pass_context
def item_equip_cmd(ctx: click.Context, character_id: str, item: str, gm_allow: str, penalties: tuple[tuple[str, int], ...],
                   as_json: bool) -> None:
    """Equip an item (EQ, L877). An item whose handicap leaves a fixed state below 0 "should not" be used
    (L871), yet no item is ever forbidden (L801): the GM allows it with --gm-allow and adds penalties.

    Example: cristal item equip thor "Épée à deux mains" --gm-allow "Il insiste" --penalty ATT=-2
    """
    run(ctx, C.EquipItem(character=character_id, item=item, gm_allowed=gm_allow,
                         penalties=dict(penalties)), as_json)


@item_group.command("unequip")
@click.argument("character_id")
@click.argument("item")
@json_option
@click.pass_context
def item_unequip_cmd(ctx: click.Context, character_id: str, item: str, as_json: bool) -> None:
    """Unequip an item (it stays carried). Example: cristal item unequip thor "Épée longue" """
    run(ctx, C.UnequipItem(character=character_id, item=item), as_json)


@item_group.command("drop")
@click.argument("character_id")
@click.argument("item")
@click.option("--qty", type=INT.named(N_("Quantity")), default=None, help="How many (default: all).")
@click.option("--reason", default="", help="Why (sold, lost, thrown ...).")
@json_option
@click.pass_context
def item_drop_cmd(ctx: click.Context, character_id: str, item: str, qty: int | None, reason: str,
                  as_json: bool) -> None:
    """Drop, sell or lose an item. Example: cristal item drop thor "Flèche" --qty 3 --reason "tirées" """
    run(ctx, C.DropItem(character=character_id, item=item, qty=qty,
                         reason=reason), as_json)


# ---------------------------------------------------------------------------- gold, health, alignment, states
@click.command("gold", context_settings=SIGNED)
@click.argument("character_id")
@click.argument("amount", type=INT.named(N_("Gold amount")))
@click.option("--reason", default="", help="Why (required).")
@json_option
@click.pass_context
def gold_cmd(ctx: click.Context, character_id: str, amount: int, reason: str, as_json: bool) -> None:
    """Add (+N) or pay (-N) gold pieces. Example: cristal gold thor -15 --reason "Chambre à l'auberge" """
    run(ctx, C.ChangeGold(character=character_id, amount=amount, reason=reason), as_json)


@click.command("rest")
@click.argument("character_ids", nargs=-1)
@click.option("--all", "all_", is_flag=True, help="Every living character.")
@click.option("--days", type=INT.named(N_("Days")), default=1, show_default=True, help="Days of rest.")
@json_option
@click.pass_context
def rest_cmd(ctx: click.Context, character_ids: tuple[str, ...], all_: bool, days: int, as_json: bool) -> None:
    """Rest: PV regenerate the race's % of PVmax a day, PM are full, daily pools renew (L367, L377, L491).

    Example: cristal rest --all --days 2
    """
    run(ctx, C.Rest(characters=character_ids, all=all_, days=days), as_json)


@click.command("damage", context_settings=SIGNED)
@click.argument("character_id")
@click.argument("amount", type=INT.named(N_("Damage")))
@click.option("--reason", default="", help="What hurt (required).")
@json_option
@click.pass_context
def damage_cmd(ctx: click.Context, character_id: str, amount: int, reason: str, as_json: bool) -> None:
    """PV lost outside combat (a fall, a trap). Example: cristal damage thor 4 --reason "Chute" """
    run(ctx, C.Damage(character=character_id, amount=amount, reason=reason), as_json)


@click.command("heal", context_settings=SIGNED)
@click.argument("character_id")
@click.argument("amount", type=INT.named(N_("Healing")))
@click.option("--source", default="", help="What heals, one of: natural, care, alignment (with --by), divine; never magic (L1190).")
@click.option("--by", "healer", default="", help="The healer's id (alignment healing uses their pool, L1419).")
@click.option("--reason", default="", help="Why (required).")
@json_option
@click.pass_context
def heal_cmd(ctx: click.Context, character_id: str, amount: int, source: str, healer: str, reason: str,
             as_json: bool) -> None:
    """Heal PV up to PVmax, recording who or what healed.

    Example: cristal heal thor 6 --source alignment --by lia --reason "Imposition des mains"
    """
    run(ctx, C.Heal(character=character_id, amount=amount, source=source, reason=reason,
                     healer=healer), as_json)


@click.command("alignment", context_settings=SIGNED)
@click.argument("character_id")
@click.argument("amount", type=INT.named(N_("Alignment change")))
@click.option("--reason", default="", help="The deed (required).")
@json_option
@click.pass_context
def alignment_cmd(ctx: click.Context, character_id: str, amount: int, reason: str, as_json: bool) -> None:
    """Change a character's alignment by ±N (L1369). Example: cristal alignment thor +1 --reason "Sauve l'enfant" """
    run(ctx, C.ChangeAlignment(character=character_id, amount=amount, reason=reason),
         as_json)


@click.command("state", context_settings=SIGNED)
@click.argument("character_id")
@click.argument("stat", required=False)
@click.argument("delta", type=INT.named(N_("Alteration")), required=False)
@click.option("--until", default="", help="When it ends (free text: 'antidote', 'session 4' ...).")
@click.option("--end", "end", type=INT.named(N_("Position")), default=None, help="End the alteration applied at this position instead.")
@click.option("--reason", default="", help="The cause (required for a new alteration).")
@json_option
@click.pass_context
def state_cmd(ctx: click.Context, character_id: str, stat: str | None, delta: int | None, until: str,
              end: int | None, reason: str, as_json: bool) -> None:
    """A temporary alteration of a fixed state (L1468), or --end one.

    Example: cristal state thor FRC -3 --until antidote --reason "Poison du serpent"
    """
    if end is not None:
        run(ctx, C.EndAlteration(character=character_id, since=end, reason=reason), as_json)
        return
    if stat is None or delta is None:
        raise RuleError(_("state needs STAT and DELTA (e.g. FRC -3), or --end POSITION."))
    run(ctx, C.AlterState(character=character_id, stat=stat, delta=delta, until=until,
                           reason=reason), as_json)


# ---------------------------------------------------------------------------- content packs
@click.group("content")
def content_group() -> None:
    """Campaign content packs (races, classes, techniques, items, spells).

    Example: cristal content load packs/orques.toml
    """


@content_group.command("load")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--name", default=None, help="The pack's name (default: the file name).")
@json_option
@click.pass_context
def content_load_cmd(ctx: click.Context, file: str, name: str | None, as_json: bool) -> None:
    """Load a JSON or TOML content pack into the campaign log (replay never reads the file again).

    An entry that replaces one the campaign already has (a race, class, technique, item or spell of the
    book or of an earlier pack) must say "override": true; the event records what it overrides.

    Example: cristal content load packs/orques.json
    """
    from pathlib import Path

    path = Path(file)
    data = parse_file(path)
    if not isinstance(data, dict):
        raise CristalError(_("{path}: a pack must be a table with sections races, classes, techniques, items, spells.").format(path=path.name))
    run(ctx, C.LoadContentPack(name=name or path.name, data=data), as_json)


_NOUNS = {"races": N_("Races"), "classes": N_("Classes"), "techniques": N_("Techniques"), "items": N_("Items"),
          "spells": N_("Spells")}


@content_group.command("show")
@json_option
@click.pass_context
def content_show_cmd(ctx: click.Context, as_json: bool) -> None:
    """The campaign's content: every race, class, technique, item and spell with where it comes from (the
    core rules or a pack), overridden entries marked.

    Example: cristal content show
    """
    camp = open_campaign(ctx)
    packs = [(p.name, p.data) for p in camp.state().rules.packs]
    table = provenance(packs)
    if as_json:
        emit_json({"packs": [name for name, _pack in packs],
                   **{section: [{"name": n, "source": src, "overrides": old} for n, src, old in entries]
                      for section, entries in table.items()}})
        return
    echo(_("Packs: {packs}").format(packs=", ".join(name for name, _pack in packs) or _("none (the core rules only)")))
    for section, entries in table.items():
        echo(_("{section} ({count}):").format(section=_(_NOUNS[section]), count=len(entries)))
        for n, src, old in entries:
            mark = ("  " + (_("OVERRIDES the core rules") if old == "core" else _("OVERRIDES pack {pack}").format(pack=old))
                    if old else "")
            echo(f"  {n:<28} {src}{mark}")


@click.command("ability")
@click.argument("character_id")
@click.argument("ability")
@click.option("--target", default="", help="Who or what it is used on.")
@click.option("--reason", default="", help="What it is for (free text).")
@json_option
@click.pass_context
def ability_cmd(ctx: click.Context, character_id: str, ability: str, target: str, reason: str,
                as_json: bool) -> None:
    """A class ability outside a fight, "à tout moment au cours du jeu" (L664), paid from the day's
    points (Voleur's Vol*, L666-L668); in a fight use 'combat ability'. No dice.

    Example: cristal ability taz "Serrure simple" --reason "la porte de l'auberge"
    """
    run(ctx, C.UseClassAbility(character=character_id, ability=ability, target=target, reason=reason), as_json)


@click.command("bleed")
@click.argument("character_id")
@click.argument("minutes", type=INT.named(N_("Minutes")))
@json_option
@click.pass_context
def bleed_cmd(ctx: click.Context, character_id: str, minutes: int, as_json: bool) -> None:
    """MINUTES an unconscious character spends unaided outside a fight: 1 PV a minute until death (L371).

    Example: cristal bleed thor 5
    """
    run(ctx, C.Bleed(character=character_id, minutes=minutes), as_json)


COMMANDS = [character_group, check_group, item_group, gold_cmd, rest_cmd, damage_cmd, heal_cmd, alignment_cmd,
            state_cmd, content_group, ability_cmd, bleed_cmd]
