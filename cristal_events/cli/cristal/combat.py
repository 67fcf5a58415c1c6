"""``cristal combat ...``: fights on the Indice de Temps timeline (seed 000, L1195-L1425).

Each write command parses its arguments into a command of :mod:`.fights`, runs it through
``Campaign.execute`` and prints the events recorded and who acts next (``--json`` for scripts).
``--dice F[,F...]`` gives the faces rolled at the table in the order each command's help states;
without it the engine rolls and records its dice.
"""

from __future__ import annotations

import re
from typing import Any, Literal

import click

from cristal_events import bounds
from cristal_events.cli import views
from cristal_events.cli.common import (
    INT,
    REAL,
    IntPair,
    dice_option_with,
    echo,
    emit_json,
    emit_lines,
    json_option,
    open_campaign,
    read_model_rows,
    refuse_value,
    run,
)
from cristal_events.errors import RuleError, UnknownEntity
from cristal_events.rulesets.cristal import fights as F
from cristal_events.rulesets.cristal.texts import N_, _

_dice = dice_option_with("Faces rolled at the table, in the order given above; without it the engine rolls.")
#: a turn command's faces: the tie-break d6 first when the next actors are tied on IT and REF (L1202)
_turn_dice = dice_option_with("Faces rolled at the table, in the order given above; without it the engine rolls. "
                              "When the next actors are tied on IT and REF, their tie-break d6 come first "
                              "(one per tied combatant, in join order, round after round while level; L1202).")


def _split(values: tuple[str, ...]) -> list[str]:
    return [v.strip() for raw in values for v in raw.split(",") if v.strip()]


#: ``ID=N`` / ``NAME=PM`` (--it, --effect, --lower-dm)
PAIR = IntPair("NAME=N", quote=repr)


class StatEntry(click.ParamType):
    """A click type, a GM number of a combatant: ``ID:KEY=VALUE`` (``start``) or ``KEY=VALUE`` (``join``,
    ``with_id=False``) -> ``(id, key, value)``; a VALUE of digits is a whole number within the bounds of the
    log, any other VALUE stays text (a DMG like 1d6+1, a race)."""

    name = "ID:KEY=VALUE"

    def __init__(self, *, with_id: bool = True):
        self.with_id = with_id

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> tuple[str, str, int | str]:
        if isinstance(value, tuple):
            return value
        item = str(value)
        who, colon, rest = item.partition(":") if self.with_id else ("-", ":", item)
        key, sep, raw = rest.partition("=")
        if not colon or not sep or not who.strip() or not key.strip():
            form = _("ID:KEY=VALUE like york:DP=10") if self.with_id else _("KEY=VALUE like DP=10")
            refuse_value(_("--stat expects {form}, got {item!r}.").format(form=form, item=item), ctx)
        raw = raw.strip()
        if re.fullmatch(r"[+-]?[0-9]+", raw, re.ASCII) is None:
            return who.strip(), key.strip(), raw
        try:
            return who.strip(), key.strip(), bounds.parse_int(raw, f"--stat {key.strip()}")
        except bounds.OutOfBounds as exc:
            refuse_value(str(exc), ctx)


def _stats(values: tuple[tuple[str, str, int | str], ...]) -> dict[str, dict[str, int | str]]:
    """``(id, KEY, value)`` entries -> {id: {KEY: value}} (a later KEY wins)."""
    out: dict[str, dict[str, int | str]] = {}
    for who, key, value in values:
        out.setdefault(who, {})[key] = value
    return out


def _run(ctx: click.Context, command: Any, as_json: bool, dice: list[int] | None = None) -> None:
    """:func:`~cristal_events.cli.common.run`, then the combat as it stands (JSON ``combat``, text: whose turn)."""
    def then(camp: Any) -> tuple[dict[str, Any], Any]:
        state = camp.state().rules
        v = (F.view(state, command.combat, camp.header.rounding) if command.combat in state.combats
             else {"combat": command.combat, "active": False, "next": None, "waiting": "", "participants": []})
        return {"combat": v}, lambda: _next_line(v)

    run(ctx, command, as_json, dice, then=then)


def _next_line(v: dict[str, Any]) -> None:
    if not v["active"]:
        return
    its = ", ".join(f"{p['id']} {p['it']}" for p in v["participants"])
    who = v["next"] or v["waiting"]
    echo(_("IT: {its}. Next: {who}").format(its=its, who=who))


@click.group("combat")
def combat_group() -> None:
    """Fights on the Indice de Temps timeline: the smallest IT acts (L1200).

    Example: cristal combat start taverne --with thor,york --it york=2
    """


@combat_group.command("start")
@click.argument("name")
@click.option("--with", "fighters", multiple=True, required=True, metavar="ID[,ID...]",
              help="The combatants: characters, or extras described with --stat.")
@click.option("--it", "its", type=PAIR, multiple=True, metavar="ID=N", help="A base IT set by the GM (initiative method 1, L1317).")
@click.option("--stat", "stats", type=StatEntry(), multiple=True, metavar="ID:KEY=VALUE",
              help="A GM number (overrides the sheet): ATT, DP, DM, CNC, DMG, PV, PM, PVmax, PMmax, REF, CON, FRC, "
                   "PVrace, race, ALIGN, CHANCE, VOLEUR, VOL, IT.")  # every F.STAT_KEYS (a test checks)
@json_option
@click.pass_context
def start_cmd(ctx: click.Context, name: str, fighters: tuple[str, ...], its: tuple[tuple[str, int], ...],
              stats: tuple[tuple[str, str, int | str], ...], as_json: bool) -> None:
    """Start the combat NAME; every IT is 0 unless set.

    Example: cristal combat start taverne --with thor,york --it york=2 --stat york:DP=10 --stat york:PV=15
    """
    _run(ctx, F.StartCombat(combat=name, fighters=_split(fighters), its=dict(its), stats=_stats(stats)),
         as_json)


@combat_group.command("join")
@click.argument("name")
@click.argument("fighter")
@click.option("--it", type=INT, default=None, help="Its IT (default: the average IT of those present, L1220).")
@click.option("--stat", "stats", type=StatEntry(with_id=False), multiple=True, metavar="KEY=VALUE", help="A GM number, as for start.")
@json_option
@click.pass_context
def join_cmd(ctx: click.Context, name: str, fighter: str, it: int | None, stats: tuple[tuple[str, str, int | str], ...],
             as_json: bool) -> None:
    """A newcomer joins the fight.

    Example: cristal combat join taverne gustave
    """
    _run(ctx, F.JoinCombat(combat=name, fighter=fighter, it=it, stats={key: value for _who, key, value in stats}),
         as_json)


@combat_group.command("initiative")
@click.argument("name")
@click.argument("fighters", nargs=-1)
@_dice
@json_option
@click.pass_context
def initiative_cmd(ctx: click.Context, name: str, fighters: tuple[str, ...], dice: list[int] | None, as_json: bool) -> None:
    """Initiative rolls: IT = base IT - ([1d6] + REF x 2) (L1319), once, at the start.

    --dice: one d6 per combatant, in the order named (default: the order they joined).

    Example: cristal combat initiative taverne thor york --dice 4,2
    """
    _run(ctx, F.RollInitiative(combat=name, fighters=list(fighters)), as_json, dice)


@combat_group.command("next")
@click.argument("name")
@_dice
@json_option
@click.pass_context
def next_cmd(ctx: click.Context, name: str, dice: list[int] | None, as_json: bool) -> None:
    """Who acts now: the smallest IT; ties go to the higher REF, then to a recorded die (L1202).

    --dice (only on a tie of IT and REF): one d6 per tied combatant in join order, then rerolls.

    Example: cristal combat next taverne
    """
    _run(ctx, F.NextTurn(combat=name), as_json, dice)


@combat_group.command("act")
@click.argument("name")
@click.argument("fighter")
@click.argument("what", required=False, default="")
@click.option("--duration", "seconds", type=INT, default=None, help="Seconds the GM gives the action (L1259).")
@click.option("--action", default="", help="A key of the duration table (marcher_5m, ouvrir_porte, chercher_sac ...).")
@click.option("--times", type=INT, default=1, show_default=True, help="Repeat a table action (run 10 m = courir_5m x 2).")
@click.option("--aid", default="", help="Help an unconscious combatant: the bleeding stops (L371).")
@click.option("--move", "move_m", type=REAL, default=None, metavar="METRES",
              help="Move this far at the race's speed: seconds = 3.6 x metres / km/h (L1286-L1290).")
@click.option("--pace", type=click.Choice(["cruise", "top"]), default="cruise", show_default=True,
              help="With --move: the race's cruise or top speed.")
@click.option("--movement", default="", help="With --move: the race's movement mode (Bipède, Nage ...).")
@_turn_dice
@json_option
@click.pass_context
def act_cmd(ctx: click.Context, name: str, fighter: str, what: str, seconds: int | None, action: str, times: int,
            aid: str, move_m: float | None, pace: Literal["cruise", "top"], movement: str, dice: list[int] | None, as_json: bool) -> None:
    """Any action; its duration is added to the actor's IT.

    --dice: the faces of a rolled duration (chercher_sac = [1d4]+4: one d4; each repetition rolls again).

    Example: cristal combat act taverne thor "cherche sa potion" --action chercher_sac --dice 2
    """
    _run(ctx, F.TakeAction(combat=name, actor=fighter, what=what, action=action, seconds=seconds, times=times,
                           aid=aid, move_m=move_m, pace=pace, movement=movement), as_json, dice)


@combat_group.command("pass")
@click.argument("name")
@click.argument("fighter")
@_turn_dice
@json_option
@click.pass_context
def pass_cmd(ctx: click.Context, name: str, fighter: str, dice: list[int] | None, as_json: bool) -> None:
    """Pass: +1 IT at a time until the actor no longer holds the turn (L1292).

    --dice: none, but a tie-break's d6 when the next actors are tied on IT and REF.

    Example: cristal combat pass taverne thor
    """
    _run(ctx, F.PassTurn(combat=name, actor=fighter), as_json, dice)


@combat_group.command("attack")
@click.argument("name")
@click.argument("fighter")
@click.argument("target")
@click.option("--weapon", default="", help="The weapon (its ATT bonus, DMG and IT); a propulsor for projectiles.")
@click.option("--projectile", default="", help="The projectile shot or thrown (no FRC bonus to its DMG, L1340).")
@click.option("--distance", type=INT, default=None, help="Metres to the target: -1 ATT per 2 m beyond the range.")
@click.option("--chain", is_flag=True, help="Chained attacks in one IT on one target: the campaign's chain_attacks (2 by the book), "
              "each (ATT + d20) / 2 (/ N for N attacks) (L1363).")
@click.option("--back", is_flag=True, help="Voleur's Attaque de dos: damage x 2, 5 Vol*, Voleur level 5 (L735).")
@click.option("--natural", default="", help="A natural weapon of the attacker's race (its DMG, IT and recovery, "
              "L463-L469, L1263).")
@_turn_dice
@json_option
@click.pass_context
def attack_cmd(ctx: click.Context, name: str, fighter: str, target: str, weapon: str, projectile: str,
               distance: int | None, chain: bool, back: bool, natural: str, dice: list[int] | None, as_json: bool) -> None:
    """ATT + 1d20 > DP (L1334); on a hit the DMG roll is taken from the target's PV.

    --dice: the d20, then the damage dice if it hits (a d8 weapon: 2 faces on a hit); with --chain the
    N d20 (chain_attacks, 2 by the book), then the damage dice of each hit, in order.

    Example: cristal combat attack taverne gustave rodrigue --dice 13,3,3
    """
    _run(ctx, F.Attack(combat=name, actor=fighter, target=target, weapon=weapon, projectile=projectile,
                       distance=distance, chain=chain, back=back, natural=natural), as_json, dice)


@combat_group.command("cast")
@click.argument("name")
@click.argument("fighter")
@click.argument("spell")
@click.option("--effect", "effects", type=PAIR, multiple=True, metavar="NAME=PM", help="PM put in a variable effect.")
@click.option("--target", "targets", multiple=True, metavar="ID", help="A target (each opposes its DM).")
@click.option("--penalty", "penalties", multiple=True, metavar="KEY",
              help="A CNC situation: armure_rigide, armure_lourde, main_occupee, pieds_lies, mains_liees, baillonne.")
@click.option("--lower-dm", "lowered", type=PAIR, multiple=True, metavar="ID=N", help="A target that welcomes the spell lowers its DM.")
@click.option("--time", "time_", default="", help="The spell's Temps when the book does not print it (seconds or INSTANTANÉ).")
@click.option("--with-action", "accompanying", type=INT, default=None,
              help="SIMULTANÉ: seconds of the accompanying action (replaces the combustion).")
@_turn_dice
@json_option
@click.pass_context
def cast_cmd(ctx: click.Context, name: str, fighter: str, spell: str, effects: tuple[tuple[str, int], ...],
             targets: tuple[str, ...], penalties: tuple[str, ...], lowered: tuple[tuple[str, int], ...], time_: str,
             accompanying: int | None, dice: list[int] | None, as_json: bool) -> None:
    """Cast a spell: pay the PM, roll CNC + 1d20 >= the spell's CNC; the incantation is added at once.

    With an incantation the effects wait for 'combat release'; INSTANTANÉ and SIMULTANÉ go off at once.
    --dice: the d20 of concentration; then, without incantation, the effect dice target by target,
    effect by effect. An effect rolls the dice its PM buy on its scale, less the target's DM
    (L1024-L1036): Boule de Feu's Dommage is 1d6 per 2 PM, so 6 PM of Dommage on a DM 0 target take
    3 faces (3d6), on a DM 1 target 2 faces (its Réduction: 2 PM per DM point).

    Example: cristal combat cast duel xar "Rayon Magique" --effect Distance=3 --effect Dommage=8 --target taz --time INSTANTANÉ --dice 8,4
    """
    _run(ctx, F.CastSpell(combat=name, actor=fighter, spell=spell, effects=dict(effects),
                          targets=_split(targets), penalties=_split(penalties), lowered_dm=dict(lowered),
                          time=time_, accompanying=accompanying), as_json, dice)


@combat_group.command("release")
@click.argument("name")
@click.argument("fighter")
@_turn_dice
@json_option
@click.pass_context
def release_cmd(ctx: click.Context, name: str, fighter: str, dice: list[int] | None, as_json: bool) -> None:
    """The incantation is over: the effects apply per target after its DM, then the combustion (L1269-L1271).

    --dice: the effect dice, target by target, effect by effect: the dice each effect's PM buy on its
    scale, less the target's DM (Boule de Feu, 6 PM of Dommage on DM 0: 3 faces, 3d6; L1024-L1036).

    Example: cristal combat release duel york --dice 3,4
    """
    _run(ctx, F.ReleaseSpell(combat=name, actor=fighter), as_json, dice)


@combat_group.command("store")
@click.argument("name")
@click.argument("fighter")
@click.argument("crystal")
@click.argument("spell")
@click.option("--effect", "effects", type=PAIR, multiple=True, metavar="NAME=PM", help="PM put in a variable effect.")
@click.option("--capacity", type=INT, default=None,
              help="The crystal's capacity in PM (first use; a crystal the caster carries gives its own PM max).")
@click.option("--penalty", "penalties", multiple=True, metavar="KEY", help="A CNC situation (see cast).")
@click.option("--time", "time_", default="", help="The spell's Temps when the book does not print it.")
@click.option("--within", "within", multiple=True, metavar="ID",
              help="A combatant within 6 m of the crystal: an explosion hits it too (L1093).")
@_turn_dice
@json_option
@click.pass_context
def store_cmd(ctx: click.Context, name: str, fighter: str, crystal: str, spell: str, effects: tuple[tuple[str, int], ...],
              capacity: int | None, penalties: tuple[str, ...], time_: str, within: tuple[str, ...],
              dice: list[int] | None, as_json: bool) -> None:
    """Cast SPELL with Fermeture Cristalline into CRYSTAL: both must succeed; over capacity it explodes (L1093).

    The caster must know both spells (L1077). An explosion deals [1d4] per PM of the spell, one total to the
    caster and to every combatant named with --within (6 m, no DP nor DM).
    --dice: the spell's d20, Fermeture Cristalline's d20, then the explosion's d4s (one per PM) when over capacity.

    Example: cristal combat store duel xar bleu "Rayon Magique" --effect Distance=3 --effect Dommage=8 --capacity 9 --time 4 --dice 8,12
    """
    _run(ctx, F.StoreInCrystal(combat=name, actor=fighter, crystal=crystal, spell=spell,
                               effects=dict(effects), capacity=capacity, penalties=_split(penalties),
                               time=time_, within=_split(within)), as_json, dice)


@combat_group.command("unleash")
@click.argument("name")
@click.argument("fighter")
@click.argument("crystal")
@click.option("--target", "targets", multiple=True, metavar="ID", help="A target of the stored spell.")
@click.option("--lower-dm", "lowered", type=PAIR, multiple=True, metavar="ID=N", help="A target lowers its DM.")
@click.option("--penalty", "penalties", multiple=True, metavar="KEY", help="A CNC situation (see cast).")
@_turn_dice
@json_option
@click.pass_context
def unleash_cmd(ctx: click.Context, name: str, fighter: str, crystal: str, targets: tuple[str, ...],
                lowered: tuple[tuple[str, int], ...], penalties: tuple[str, ...], dice: list[int] | None, as_json: bool) -> None:
    """Libération Cristalline: release the spell stored in CRYSTAL (no CNC roll nor PM for it, L1105).

    --dice: Libération Cristalline's d20, then the stored spell's effect dice target by target.

    Example: cristal combat unleash duel xar bleu --target taz --dice 11,2
    """
    _run(ctx, F.ReleaseCrystal(combat=name, actor=fighter, crystal=crystal, targets=_split(targets),
                               lowered_dm=dict(lowered), penalties=_split(penalties)), as_json, dice)


@combat_group.command("lock")
@click.argument("name")
@click.argument("fighter")
@click.argument("crystal")
@click.option("--penalty", "penalties", multiple=True, metavar="KEY", help="A CNC situation (see cast).")
@_turn_dice
@json_option
@click.pass_context
def lock_cmd(ctx: click.Context, name: str, fighter: str, crystal: str, penalties: tuple[str, ...],
             dice: list[int] | None, as_json: bool) -> None:
    """Verrou Cristallin on CRYSTAL (5 PM, CNC 16, 60 s): only FIGHTER can then release its spell (L1129-L1135).

    --dice: the d20 of concentration.

    Example: cristal combat lock duel xar bleu --dice 14
    """
    _run(ctx, F.LockCrystal(combat=name, actor=fighter, crystal=crystal, penalties=_split(penalties)), as_json, dice)


@combat_group.command("unlock")
@click.argument("name")
@click.argument("fighter")
@click.argument("crystal")
@click.option("--duration", "seconds", type=INT, default=0, show_default=True,
              help="Seconds the GM gives it (L1259).")
@_turn_dice
@json_option
@click.pass_context
def unlock_cmd(ctx: click.Context, name: str, fighter: str, crystal: str, seconds: int, dice: list[int] | None,
               as_json: bool) -> None:
    """Lift FIGHTER's own Verrou Cristallin from CRYSTAL: only the mage who laid it can (L1135); no PM, no roll.

    --dice: none, but a tie-break's d6 when the next actors are tied on IT and REF.

    Example: cristal combat unlock duel xar bleu --duration 2
    """
    _run(ctx, F.UnlockCrystal(combat=name, actor=fighter, crystal=crystal, seconds=seconds), as_json, dice)


@combat_group.command("inspect")
@click.argument("name")
@click.argument("fighter")
@click.argument("crystal")
@click.option("--penalty", "penalties", multiple=True, metavar="KEY", help="A CNC situation (see cast).")
@_turn_dice
@json_option
@click.pass_context
def inspect_cmd(ctx: click.Context, name: str, fighter: str, crystal: str, penalties: tuple[str, ...],
                dice: list[int] | None, as_json: bool) -> None:
    """Vision Cristalline on CRYSTAL (1 PM, CNC 8, 20 s): the stored spell and its PM per effect (L1119-L1125).

    A Verrou Cristallin hides the spell (L1135). --dice: the d20 of concentration.

    Example: cristal combat inspect duel taz bleu --dice 9
    """
    _run(ctx, F.InspectCrystal(combat=name, actor=fighter, crystal=crystal, penalties=_split(penalties)), as_json,
         dice)


@combat_group.command("potion")
@click.argument("name")
@click.argument("fighter")
@click.argument("spell")
@click.option("--effect", "effects", type=PAIR, multiple=True, metavar="NAME=PM", help="The PM of the potion's spell per effect.")
@click.option("--trigger", type=click.Choice(["ingestion", "contact", "ouverture"]), default="ingestion",
              show_default=True, help="ingestion = drink it (8 s); contact/ouverture = set it off on --target.")
@click.option("--target", default="", help="Who the potion acts on (default: the one who drinks it).")
@click.option("--duration", "seconds", type=INT, default=None, help="Seconds, when not drinking (default 3: throw).")
@click.option("--carried", is_flag=True,
              help="SPELL names a potion the fighter carries: its spell, PM and trigger are the potion's; one is used up.")
@click.option("--day", type=INT, default=None, help="Today's in-game day, for a carried potion's fading (L1182).")
@_turn_dice
@json_option
@click.pass_context
def potion_cmd(ctx: click.Context, name: str, fighter: str, spell: str, effects: tuple[tuple[str, int], ...], trigger: str,
               target: str, seconds: int | None, carried: bool, day: int | None, dice: list[int] | None,
               as_json: bool) -> None:
    """Drink (8 s) or trigger a potion holding SPELL (at most 15 PM, L1184).

    With --carried, SPELL is a potion of the fighter's bag (single use, L1181), refused once faded (L1182).
    --dice: the effect dice of the potion's spell on its target.

    Example: cristal combat potion duel thor "Boule de Feu" --effect Dommage=4 --trigger contact --target york --dice 2,5
    Example: cristal combat potion duel lia "Fiole de feu" --carried --day 30 --target york --dice 2,5
    """
    if carried:
        _run(ctx, F.UsePotion(combat=name, actor=fighter, spell="", item=spell, target=target, seconds=seconds,
                              day=day), as_json, dice)
        return
    _run(ctx, F.UsePotion(combat=name, actor=fighter, spell=spell, effects=dict(effects),
                          trigger=trigger, target=target, seconds=seconds), as_json, dice)


@combat_group.command("ability")
@click.argument("name")
@click.argument("fighter")
@click.argument("ability")
@click.option("--duration", "seconds", type=INT, required=True, help="Seconds the GM gives it (15 s pickpocket ...).")
@click.option("--target", default="", help="Who it is used on.")
@_turn_dice
@json_option
@click.pass_context
def ability_cmd(ctx: click.Context, name: str, fighter: str, ability: str, seconds: int, target: str,
                dice: list[int] | None, as_json: bool) -> None:
    """A Voleur ability in a fight, paid from the day's Vol* points (L728-L741); outside a fight: 'voleur'.

    --dice: none, but a tie-break's d6 when the next actors are tied on IT and REF.

    Example: cristal combat ability taverne taz "Pickpocket (personne occupée)" --duration 15 --target york
    """
    _run(ctx, F.UseAbility(combat=name, actor=fighter, ability=ability, seconds=seconds, target=target), as_json,
         dice)


@combat_group.command("align")
@click.argument("name")
@click.argument("fighter")
@click.argument("target")
@click.option("--heal", type=INT, default=None, help="PV healed (blessed alignment).")
@click.option("--harm", type=INT, default=None, help="PV dealt (cursed alignment).")
@_turn_dice
@json_option
@click.pass_context
def align_cmd(ctx: click.Context, name: str, fighter: str, target: str, heal: int | None, harm: int | None,
              dice: list[int] | None, as_json: bool) -> None:
    """The alignment pool by touch: 1 PV per second, at most 20 per action, no DP nor DM (L1417-L1421).

    --dice: none, but a tie-break's d6 when the next actors are tied on IT and REF.

    Example: cristal combat align taverne paladin thor --heal 6
    """
    if heal is not None and harm is None:
        cmd = F.UseAlignment(combat=name, actor=fighter, target=target, kind="heal", points=heal)
    elif harm is not None and heal is None:
        cmd = F.UseAlignment(combat=name, actor=fighter, target=target, kind="harm", points=harm)
    else:
        raise RuleError(_("Give either --heal N or --harm N."))
    _run(ctx, cmd, as_json, dice)


@combat_group.command("reroll")
@click.argument("name")
@click.argument("fighter")
@click.option("--gm", is_flag=True, help="The GM orders the reroll (negative Chance, L58).")
@_dice
@json_option
@click.pass_context
def reroll_cmd(ctx: click.Context, name: str, fighter: str, gm: bool, dice: list[int] | None, as_json: bool) -> None:
    """Chance: redo FIGHTER's last roll, any kind (L56-L58); both stay in the log.

    Attack d20, damage dice, concentration d20, initiative d6, a released spell's effect dice, a table
    action's duration dice, its own tie-break d6, a crystal's explosion dice (everyone it hit, L1093), a
    Verrou, Vision, Fermeture or Libération Cristalline d20 (L1099-L1135). One
    of the day's |Chance| rerolls: the player's for a positive Chance, the GM's (--gm) for a negative one.
    --dice: the new roll, as many faces as the roll redone (d20; the DMG dice; a d6; the effect dice
    target by target, e.g. 2 for a Boule de Feu of 4 PM of Dommage; the duration dice of each
    repetition; 1d4 per PM of an explosion, 11 for 11 PM), then the damage dice if an attack now hits, or the effect dice if an INSTANTANÉ spell
    now succeeds, the explosion's 1d4 per PM if a Fermeture now overfills its crystal, or the stored spell's
    effect dice if a Libération now succeeds; a tie-break still level takes one d6 more for each of those level.

    Example: cristal combat reroll taverne thor --dice 17,6
    """
    _run(ctx, F.Reroll(combat=name, actor=fighter, gm=gm), as_json, dice)


@combat_group.command("end")
@click.argument("name")
@json_option
@click.pass_context
def end_cmd(ctx: click.Context, name: str, as_json: bool) -> None:
    """End the combat: every IT goes back to 0 (L1222).

    Example: cristal combat end taverne
    """
    _run(ctx, F.EndCombat(combat=name), as_json)


@combat_group.command("show")
@click.argument("name")
@json_option
@click.pass_context
def show_cmd(ctx: click.Context, name: str, as_json: bool) -> None:
    """The combat state: IT, PV/PM, conditions, incantations, who acts next.

    Example: cristal combat show taverne --json
    """
    camp = open_campaign(ctx)
    v = F.view(camp.state().rules, name, camp.header.rounding)
    if as_json:
        emit_json(v)
        return
    names = views.display_names(camp.ruleset.characters(camp.state().rules))
    fighters = [views.Fighter(names.get(p["id"], p["id"]), p["it"], "" if p["pv"] is None else str(p["pv"]),
                              "" if p["pm"] is None else str(p["pm"]), _condition(p), bool(p["next"]))
                for p in v["participants"]]
    title = (_("Fight « {name} »") if v["active"] else _("Fight « {name} » (over)")).format(name=name)
    emit_lines(views.timeline_lines(title, fighters, after=v["waiting"] if v["active"] and not v["next"] else ""))


#: a combatant's condition as ``combat show`` writes it (the state keeps the book's condition as a key)
_CONDITIONS = {"conscious": N_("conscious"), "unconscious": N_("unconscious"), "dead": N_("dead")}


def _condition(p: dict[str, Any]) -> str:
    cond = p["condition"]
    text = _(_CONDITIONS[cond]) if cond in _CONDITIONS else cond
    if p["incanting"]:
        text += _(", incanting {spell} until IT {until}").format(spell=p["incanting"], until=p["until"])
    return text


@combat_group.command("log")
@click.argument("name")
@json_option
@click.pass_context
def log_cmd(ctx: click.Context, name: str, as_json: bool) -> None:
    """The combat log like the book's table: IT before, who acts, the action, its duration, IT after.

    Example: cristal combat log taverne
    """
    camp = open_campaign(ctx, readonly=True)  # a read command writes nothing, not even its read model
    rows = log_rows(camp, name)
    if as_json:
        emit_json(rows)
        return
    emit_lines(views.combat_log_lines(rows, views.display_names(camp.ruleset.characters(camp.state().rules))))


def log_rows(camp: Any, name: str) -> list[dict[str, Any]]:
    """The book's table of the fight ``name`` (``combat log``'s rows: position, actor, action, duration,
    it_before, it_after), computed from the combat read model's facts and the fight's events: the read
    model stores no text, so each line is its event's summary in the reader's language."""
    from cristal_events.projections.cristal_combats import combat_log  # the read side, not every command's import

    actions = read_model_rows(camp, "cristal_combats", "cristal_combat_log", where={"combat": name},
                              order_by=("position",))
    if not actions and name not in camp.state().rules.combats:  # an ended fight keeps its rows in the read model
        raise UnknownEntity(_("There is no combat named {name!r}, in progress or ended.").format(name=name))
    if not actions:
        return []
    its = read_model_rows(camp, "cristal_combats", "cristal_combat_its", where={"combat": name},
                          order_by=("position", "seq"))
    events = {rec.position: rec for rec in camp.store.read_all(
        actions[0]["position"] - 1, until=actions[-1]["position"], stream=F.stream(name), hashes=False)}
    for a in actions:
        if a["position"] not in events:  # a turn recorded in another stream (an imported log)
            events[a["position"]] = camp.store.get(a["position"])
    return combat_log(actions, its, events)


COMMANDS = [combat_group]
