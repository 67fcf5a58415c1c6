"""Illergan hero commands: content packs, creation, the sheet, xp, Starls and gear.

Each command parses its arguments into a command Struct of :mod:`.heroes`, runs it through
``Campaign.execute`` and prints what was recorded (``--json`` for scripts).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

import click
import msgspec

from cristal_events.cli.common import (
    INT,
    dice_option_with,
    echo,
    emit_json,
    json_option,
    open_campaign,
    run,
)
from cristal_events.errors import ContentError, CristalError
from cristal_events.rulesets.illergan import heroes as H
from cristal_events.rulesets.illergan.character import Choices
from cristal_events.rulesets.illergan.content import DATA, decode_pack, load_pack, provenance
from cristal_events.rulesets.illergan.locations import Body
from cristal_events.rulesets.illergan.money import from_copper
from cristal_events.rulesets.illergan.state import content_of
from cristal_events.rulesets.illergan.texts import N_, _

from .common import PAIR, STARLS, Coins

SIGNED = {"ignore_unknown_options": True}


# ---------------------------------------------------------------------------- content packs
@click.group("content")
def content_group() -> None:
    """The game master's content pack (races, classes, skills, gifts, power dice, ...).

    Example: cristal content load --example
    """


@content_group.command("load")
@click.argument("file", required=False, type=click.Path(dir_okay=False))
@click.option("--example", is_flag=True, help="Load the packaged EXAMPLE pack (the authors' choices, not the text's).")
@click.option("--name", default=None, help="The pack's name (default: the file name).")
@json_option
@click.pass_context
def content_load_cmd(ctx: click.Context, file: str | None, example: bool, name: str | None, as_json: bool) -> None:
    """Load a JSON or TOML pack into the campaign log; replay never reads the file again.

    An entry that changes what the text (or an earlier pack) states must say "override": true; the
    event records what it overrides.

    Example: cristal content load packs/ma_campagne.json
    """
    if example == (file is not None):
        raise CristalError(_("Give either a pack FILE or --example."))
    path = DATA / "example_pack.json" if example else Path(file or "")
    if not path.is_file():
        raise ContentError(_("{name}: the content pack does not exist.").format(name=path.name))
    pack = load_pack(path)
    data = msgspec.to_builtins(pack)
    run(ctx, H.LoadPack(name=name or ("example" if example else path.name), data=data), as_json)


@content_group.command("show")
@json_option
@click.pass_context
def content_show_cmd(ctx: click.Context, as_json: bool) -> None:
    """The campaign's content: every named entry (races, classes, skills, spells, weapons ...) with the
    text and the packs that state it, overridden entries marked.

    Example: cristal content show
    """
    camp = open_campaign(ctx)
    loaded = camp.state().rules.packs
    table = provenance([(p.name, decode_pack(msgspec.json.encode(p.data), source=p.name)) for p in loaded])
    if as_json:
        emit_json({"packs": [p.name for p in loaded],
                   **{section: [{"name": n, "source": src, "overrides": old} for n, src, old in rows]
                      for section, rows in table.items()}})
        return
    echo(_("Packs: {packs}").format(packs=", ".join(p.name for p in loaded) or _("none (the text only)")))
    for section, rows in table.items():
        if not rows:
            continue
        echo(_("{section} ({n}):").format(section=section.replace('_', ' ').capitalize(), n=len(rows)))
        for n, src, old in rows:
            echo(f"  {n:<28} {src}" + ("  " + _("OVERRIDES {old}").format(old=old) if old else ""))


# ---------------------------------------------------------------------------- characters
@click.group("character")
def character_group() -> None:
    """Create Illergan heroes and creatures.

    Example: cristal character create thor --name Thor --race Humain --class Guerrier --heritage "Enfant des rues" --stat Fo=4 ...
    """


@character_group.command("create")
@click.argument("character_id")
@click.option("--name", default="", help="The hero's name (default: the id).")
@click.option("--race", required=True, help="A race of the content pack.")
@click.option("--class", "class_name", required=True, help="A class of the content pack.")
@click.option("--heritage", required=True, help="A heritage of the content pack (400 xp, I-L352).")
@click.option("--stat", "stats", type=PAIR, multiple=True, metavar="NAME=N", help="Each characteristic: Fo Dex Vit Vol Mana E Cha Sav Dep Agilité Adresse.")
@click.option("--pv", required=True, type=INT, help="Starting PV (the GM's value: the text has no formula, G12).")
@click.option("--pm", default=0, type=INT, show_default=True, help="Starting PM (G12).")
@click.option("--rn", default=0, type=INT, show_default=True, help="Résistance Naturelle in % (G12).")
@click.option("--cult", default=None, help="The cult followed (religious classes must choose one, I-L569).")
@click.option("--god", default=None, help="The god (a paladin chooses one, I-L333).")
@click.option("--magic", "magics", multiple=True, help="A magic known at level 1 (I-L213).")
@click.option("--spell", "spells", multiple=True, help="A spell mastered at creation (the GM's choice, I-L338).")
@click.option("--skill", "skills", multiple=True, help="A chosen skill, written at 0% (I-L350).")
@click.option("--language", "languages", multiple=True, help="A language spoken fluently (at most 2, I-L382).")
@click.option("--trait", "traits", multiple=True, help="A personality trait (at most 2, I-L386).")
@click.option("--alc-min", default=0, type=INT, show_default=True, help="The Alc minimum from the background, written negatively (I-L346).")
@click.option("--hand", type=click.Choice(["droite", "gauche"]), default="droite", show_default=True, help="Preferred hand.")
@click.option("--gift", "gift_face", type=INT, default=None, help="The d8 face of the gift when rolled at the table (I-L380).")
@click.option("--kit", "kits", multiple=True, help="A starting kit profile: mage, guerrier, roublard, archer, paladin ... (I-L164).")
@click.option("--starls", type=STARLS, default="0", help="Starting Starls, e.g. \"2'O 15'A\".")
@click.option("--fp", default=1, type=INT, show_default=True, help="Facteur de puissance (I-L294).")
@click.option("--rank", "power_rank", default=1, type=INT, show_default=True, help="Rang de puissance (I-L297).")
@click.option("--player", default="", help="The player's name.")
@dice_option_with("The gift's d8 face rolled at the table.", metavar="F")
@json_option
@click.pass_context
def create_cmd(ctx: click.Context, character_id: str, name: str, race: str, class_name: str, heritage: str,
               stats: tuple[tuple[str, int], ...], pv: int, pm: int, rn: int, cult: str | None, god: str | None,
               magics: tuple[str, ...], spells: tuple[str, ...], skills: tuple[str, ...],
               languages: tuple[str, ...], traits: tuple[str, ...], alc_min: int, hand: Literal["gauche", "droite"], gift_face: int | None,
               kits: tuple[str, ...], starls: Coins, fp: int, power_rank: int, player: str, dice: list[int] | None,
               as_json: bool) -> None:
    """Create a hero: race, class and heritage from the pack, 2 destiny points, the d8 gift, cult and
    faith, magics at level 1, 400 heritage xp, charge limit [10 + Fo].

    Example: cristal character create lysa --name Lysa --race Elfe --class Mage --heritage "Apprenti d'académie" --magic Yarlysy --stat Fo=2 ... --pv 45 --pm 60
    """
    camp = open_campaign(ctx, write=True)
    ratio = content_of(camp.state().rules).pack.coin_ratio or 30
    choices = Choices(name=name or character_id, race=race, class_name=class_name, heritage=heritage, cult=cult,
                      god=god, magics=magics, alc_min=alc_min, preferred_hand=hand, languages=languages,
                      traits=traits, skills=skills)
    cmd = H.CreateHero(character=character_id, choices=choices, characteristics=dict(stats), pv=pv, pm=pm,
                       rn=rn, player=player, gift_face=gift_face, fp=fp, power_rank=power_rank, kit=kits,
                       copper=starls.copper(ratio), spells=spells)
    run(ctx, cmd, as_json, dice)




@character_group.command("creature")
@click.argument("character_id")
@click.option("--name", default="", help="The creature's name (default: the id).")
@click.option("--stat", "stats", type=PAIR, multiple=True, metavar="NAME=N", help="At least Fo, Dex, Vol, Vit and Adresse.")
@click.option("--pv", required=True, type=INT, help="Its PV.")
@click.option("--rn", default=0, type=INT, show_default=True, help="Its Résistance Naturelle in %.")
@click.option("--pm", default=0, type=INT, show_default=True, help="Its PM.")
@click.option("--fp", default=1, type=INT, show_default=True, help="Facteur de puissance.")
@click.option("--rank", "power_rank", default=1, type=INT, show_default=True, help="Rang de puissance.")
@click.option("--weapon", default=None, help="A weapon of the pack.")
@click.option("--armour", default=None, help="An armour of the pack.")
@click.option("--body", "body", type=PAIR, multiple=True, metavar="PART=N",
              help="A non-humanoid body (I-L630): anterior_left, anterior_right, posterior_left, posterior_right, "
                   "wings_left, wings_right, tails, heads.")
@click.option("--natural-weapon", "natural_weapons", multiple=True,
              help="A natural weapon (a weapon of the pack), used in turn (I-L445-449).")
@click.option("--attacks", "attacks_per_turn", default=0, type=INT, show_default=True,
              help="The bestiary's fixed number of attacks a turn, in its one major action (I-L447, I-L452).")
@click.option("--family", default="", help="The bestiary family; végétal: an animated plant (I-L625-628).")
@click.option("--spell", "spells", type=PAIR, multiple=True, metavar="SPELL=LEVEL",
              help="A spell of the creature and the level shown in brackets (its own magic, I-L619-623).")
@json_option
@click.pass_context
def creature_cmd(ctx: click.Context, character_id: str, name: str, stats: tuple[tuple[str, int], ...], pv: int, rn: int, pm: int,
                 fp: int, power_rank: int, weapon: str | None, armour: str | None, body: tuple[tuple[str, int], ...],
                 natural_weapons: tuple[str, ...], attacks_per_turn: int, family: str, spells: tuple[tuple[str, int], ...],
                 as_json: bool) -> None:
    """Create a creature of the game master (humanoid unless --body is given).

    Example: cristal character creature loup --stat Fo=3 --stat Dex=40 --stat Vol=10 --stat Vit=30 --stat Adresse=50 --pv 35 --body anterior_left=1 --body anterior_right=1 --body posterior_left=1 --body posterior_right=1 --body tails=1
    """
    shape = None
    if body:
        parts = dict(body)
        unknown = [k for k in parts if k not in Body.__struct_fields__]
        if unknown:
            raise CristalError(_("Unknown body part {part!r}; use {parts}.").format(
                part=unknown[0], parts=", ".join(Body.__struct_fields__)))
        shape = Body(**{"heads": 1, **parts})
    cmd = H.CreateCreature(character=character_id, name=name or character_id, characteristics=dict(stats),
                           pv=pv, rn=rn, pm=pm, fp=fp, power_rank=power_rank, weapon=weapon, armour=armour, body=shape,
                           natural_weapons=natural_weapons, attacks_per_turn=attacks_per_turn, family=family,
                           spells=dict(spells))
    run(ctx, cmd, as_json)


# ---------------------------------------------------------------------------- xp
@click.group("xp")
def xp_group() -> None:
    """Award and spend xp (skills, pp, magics, characteristics, faith).

    Example: cristal xp skill thor Esquive 30
    """


@xp_group.command("award", context_settings=SIGNED)
@click.argument("character_id")
@click.argument("amount", type=INT.named(N_("The amount")))
@click.option("--reason", required=True, help="Why (I-L590: the GM notes the actions rewarded).")
@json_option
@click.pass_context
def xp_award_cmd(ctx: click.Context, character_id: str, amount: int, reason: str, as_json: bool) -> None:
    """Give xp to a hero. Example: cristal xp award thor 150 --reason "Les gobelins du gué" """
    run(ctx, H.AwardXp(character=character_id, amount=amount, reason=reason), as_json)


_pool = click.option("--heritage", is_flag=True, help="Pay with the heritage xp (its constraints apply, I-L352).")
_charge = click.option("--charge", type=INT, default=None, help="The price the GM charged, if not the rules' (flagged by the audit).")


def _buy(ctx: click.Context, as_json: bool, **kw: Any) -> None:
    run(ctx, H.BuyXp(**kw), as_json)


@xp_group.command("skill")
@click.argument("character_id")
@click.argument("skill")
@click.argument("target", type=INT)
@click.option("--unlock", default="", help="A weapon mastery raised to 100% unlocks another, chosen, at 50% (I-L491).")
@_pool
@_charge
@json_option
@click.pass_context
def xp_skill_cmd(ctx: click.Context, character_id: str, skill: str, target: int, unlock: str, heritage: bool,
                 charge: int | None, as_json: bool) -> None:
    """Acquire a skill (100 xp, innate ones free) and/or raise it to TARGET % (I-L481-487).

    Example: cristal xp skill thor "Maîtrise des épées" 100 --unlock "Maîtrise des arcs"
    """
    _buy(ctx, as_json, character=character_id, kind="skill", target=skill, value=target, heritage=heritage,
         charge=charge, unlock=unlock)


@xp_group.command("pp")
@click.argument("character_id")
@click.argument("magic")
@click.argument("pp", type=INT)
@_pool
@_charge
@json_option
@click.pass_context
def xp_pp_cmd(ctx: click.Context, character_id: str, magic: str, pp: int, heritage: bool, charge: int | None,
              as_json: bool) -> None:
    """Buy power points for a magic at 20 xp each (I-L208). Example: cristal xp pp lysa Yarlysy 5"""
    _buy(ctx, as_json, character=character_id, kind="pp", target=magic, value=pp, heritage=heritage, charge=charge)


@xp_group.command("magic")
@click.argument("character_id")
@click.argument("magic")
@click.option("--teacher-level", type=INT, required=True, help="The teaching mage's level (5 or more, I-L586).")
@_pool
@_charge
@json_option
@click.pass_context
def xp_magic_cmd(ctx: click.Context, character_id: str, magic: str, teacher_level: int, heritage: bool,
                 charge: int | None, as_json: bool) -> None:
    """Learn a new magic for 100 xp (I-L586). Example: cristal xp magic lysa Yarlysy --teacher-level 6"""
    _buy(ctx, as_json, character=character_id, kind="magic", target=magic, value=teacher_level, heritage=heritage,
         charge=charge)


@xp_group.command("characteristic")
@click.argument("character_id")
@click.argument("name")
@click.argument("points", type=INT, default=1)
@_pool
@_charge
@json_option
@click.pass_context
def xp_char_cmd(ctx: click.Context, character_id: str, name: str, points: int, heritage: bool, charge: int | None,
                as_json: bool) -> None:
    """Raise a characteristic at the class's xp cost per point (G13). Example: cristal xp characteristic thor Fo 1 --heritage"""
    _buy(ctx, as_json, character=character_id, kind="characteristic", target=name, value=points, heritage=heritage,
         charge=charge)


@xp_group.command("faith")
@click.argument("character_id")
@click.option("--cult", default="", help="The cult added to the Ancêtres: its level at the non-religious costs (I-L573).")
@_pool
@_charge
@json_option
@click.pass_context
def xp_faith_cmd(ctx: click.Context, character_id: str, cult: str, heritage: bool, charge: int | None,
                 as_json: bool) -> None:
    """Raise the faith level by one (the GM's xp table, G18/G19). Example: cristal xp faith brother"""
    _buy(ctx, as_json, character=character_id, kind="faith", target=cult or "foi", value=1, heritage=heritage,
         charge=charge)


# ---------------------------------------------------------------------------- money and gear
@click.group("money")
def money_group() -> None:
    """Starls: gains, expenses, purchases and resales (1'O = 30'A, 1'A = 30'C, I-L24).

    Example: cristal money change thor "+2'A 15'C" --reason "prime"
    """


@money_group.command("change", context_settings=SIGNED)
@click.argument("character_id")
@click.argument("amount", type=STARLS)
@click.option("--reason", required=True, help="Why the Starls change hands.")
@json_option
@click.pass_context
def money_change_cmd(ctx: click.Context, character_id: str, amount: Coins, reason: str, as_json: bool) -> None:
    """Add (or, with a minus sign, take) Starls. Example: cristal money change thor "-1'A" --reason "une chambre" """
    camp = open_campaign(ctx, write=True)
    ratio = content_of(camp.state().rules).pack.coin_ratio or 30
    run(ctx, H.ChangeMoney(character=character_id, amount_c=amount.copper(ratio), reason=reason), as_json)


@money_group.command("buy")
@click.argument("character_id")
@click.argument("item")
@click.option("--piece", default=None, help="One armour piece only: cuirasse (40%) or another piece (20%) (I-L79).")
@click.option("--price", type=STARLS, default=None, help="A negotiated price in Starls instead of the list price.")
@json_option
@click.pass_context
def money_buy_cmd(ctx: click.Context, character_id: str, item: str, piece: str | None, price: Coins | None,
                  as_json: bool) -> None:
    """Buy an item of the pack at its list price. Example: cristal money buy thor "Cotte de mailles" --piece cuirasse"""
    camp = open_campaign(ctx, write=True)
    ratio = content_of(camp.state().rules).pack.coin_ratio or 30
    run(ctx, H.Trade(character=character_id, item=item, piece=piece,
                     price_c=None if price is None else price.copper(ratio)), as_json)


@money_group.command("sell")
@click.argument("character_id")
@click.argument("item")
@click.option("--price", type=STARLS, default=None, help="The negotiated price in Starls (default: 25% of the new price, I-L26).")
@click.option("--jewel", is_flag=True, help="A jewel keeps its value (I-L27).")
@click.option("--piece", default=None, help="One armour piece bought alone: 25% of its 40% / 20% price (I-L26, I-L79).")
@json_option
@click.pass_context
def money_sell_cmd(ctx: click.Context, character_id: str, item: str, price: Coins | None, jewel: bool,
                   piece: str | None, as_json: bool) -> None:
    """Sell a carried item (worn or held, it is taken off). Example: cristal money sell thor "Cotte de mailles" --piece casque"""
    camp = open_campaign(ctx, write=True)
    ratio = content_of(camp.state().rules).pack.coin_ratio or 30
    run(ctx, H.Trade(character=character_id, item=item, sell=True, jewel=jewel, piece=piece,
                     price_c=None if price is None else price.copper(ratio)), as_json)


@money_group.command("convert", context_settings=SIGNED)
@click.argument("amount", type=STARLS)
@json_option
@click.pass_context
def money_convert_cmd(ctx: click.Context, amount: Coins, as_json: bool) -> None:
    """Show an amount in the largest coins (nothing is recorded). Example: cristal money convert "2260'C" """
    camp = open_campaign(ctx)
    content = content_of(camp.state().rules)
    copper = amount.copper(content.pack.coin_ratio or 30)
    coins = from_copper(copper, content)
    if as_json:
        emit_json({"copper": copper, "O": coins.O, "A": coins.A, "C": coins.C})
    else:
        echo(f"{coins} = {copper}'C")


@click.command("equip")
@click.argument("character_id")
@click.argument("slot", type=click.Choice(["weapon", "armour", "shield"]))
@click.argument("item")
@click.option("--piece", type=click.Choice(["cuirasse", "casque", "brassards", "jambières"]), default=None,
              help="Wear one armour piece bought alone; it protects its zone only (I-L75-77).")
@json_option
@click.pass_context
def equip_cmd(ctx: click.Context, character_id: str, slot: Literal["weapon", "armour", "shield"], item: str, piece: str | None, as_json: bool) -> None:
    """Hold a weapon, wear an armour or a piece of one, or carry a shield the hero carries (I-L47-48;
    ITEM "none" to remove it). The Dex and Dep maluses are the cuirasse's (I-L78).

    Example: cristal equip thor armour "Cotte de mailles" --piece casque
    """
    run(ctx, H.Equip(character=character_id, slot=slot, item=None if item == "none" else item,
                     piece=piece), as_json)


@click.command("carry", context_settings=SIGNED)
@click.argument("character_id")
@click.argument("item")
@click.argument("qty", type=INT.named(N_("The quantity")))
@click.option("--reason", default="", help="Where it comes from or where it is left.")
@json_option
@click.pass_context
def carry_cmd(ctx: click.Context, character_id: str, item: str, qty: int, reason: str, as_json: bool) -> None:
    """Pick up objects (or, with a minus sign, leave them): the bag and satchel hold [10 + Fo] charges (I-L43).

    Example: cristal carry thor "Corde de 10 mètres" 1 --reason "le grenier du moulin"
    """
    run(ctx, H.Carry(character=character_id, item=item, qty=qty, reason=reason), as_json)


COMMANDS = [content_group, character_group, xp_group, money_group, equip_cmd, carry_cmd]
