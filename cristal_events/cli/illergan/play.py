"""Illergan play commands: Dé100 checks, fights, spells, destiny points and the tavern.

Each command parses its arguments into a command Struct (:mod:`.trials`, :mod:`.fights`,
:mod:`.tavern`), runs it through ``Campaign.execute`` with the faces rolled at the table (``--dice``)
or the engine's seeded dice, and prints what was recorded (``--json`` for scripts).
"""

from __future__ import annotations

import re
from typing import Any

import click

from cristal_events import bounds
from cristal_events.cli.common import (
    INT,
    REAL,
    dice_option,
    echo,
    emit_json,
    json_option,
    open_campaign,
    read_model_rows,
    refuse_value,
    run,
)
from cristal_events.errors import CristalError
from cristal_events.rulesets.illergan import faith as Fa
from cristal_events.rulesets.illergan import fights as F
from cristal_events.rulesets.illergan import spellbook as S
from cristal_events.rulesets.illergan import tavern as T
from cristal_events.rulesets.illergan import trials as R
from cristal_events.rulesets.illergan.combat import Defence
from cristal_events.rulesets.illergan.state import content_of
from cristal_events.rulesets.illergan.texts import _

from .common import PAIR, STARLS, Coins

SIGNED = {"ignore_unknown_options": True}
DEFENCES: list[Defence] = ["esquive", "parade", "blocage", "vivacite_elfique", "magique"]


class OtherTargetType(click.ParamType):
    """A click type: ``lysa``, ``lysa:parade:ok`` or ``lysa:esquive:60`` -> :class:`~.fights.OtherTarget`
    (I-L292); the defence % is plain digits within the bounds of the log (the rules check the rest)."""

    name = "ID[:DEFENCE[:ok|PCT]]"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> F.OtherTarget:
        if isinstance(value, F.OtherTarget):
            return value
        text = str(value)
        parts = [p.strip() for p in text.split(":")]
        if not parts[0] or len(parts) > 3 or (len(parts) > 1 and parts[1] not in DEFENCES):
            refuse_value(_("--also takes ID[:DEFENCE[:ok|PCT]] with a defence among {defences}, not {text!r}.").format(
                defences=", ".join(DEFENCES), text=text), ctx)
        defence = next(d for d in DEFENCES if d == parts[1]) if len(parts) > 1 else None
        if len(parts) < 3:
            return F.OtherTarget(target=parts[0], defence=defence)
        if parts[2] == "ok":
            return F.OtherTarget(target=parts[0], defence=defence, defended=True)
        if not re.fullmatch(r"[0-9]+", parts[2], re.ASCII):
            refuse_value(_("--also ends with ok or a defence %, not {text!r}.").format(text=parts[2]), ctx)
        try:
            pct = bounds.parse_int(parts[2], "--also defence %")
        except bounds.OutOfBounds as exc:
            refuse_value(str(exc), ctx)
        return F.OtherTarget(target=parts[0], defence=defence, defence_pct=pct)


# ---------------------------------------------------------------------------- checks
@click.group("check")
def check_group() -> None:
    """Dé100 checks: 01-02 always succeed, 99-100 always fail (I-L488).

    Example: cristal check skill thor Esquive --malus 10
    """


@check_group.command("skill")
@click.argument("character_id")
@click.argument("what")
@click.option("--malus", type=INT, default=0, show_default=True, help="The game master's malus.")
@click.option("--with-characteristic", is_flag=True, help="Add the skill's characteristic (I-L489).")
@click.option("--bonus", type=INT, default=0, show_default=True,
              help="A bonus to the skill from an effect; a skill not on the sheet is unlocked at 0% (I-L490).")
@dice_option
@json_option
@click.pass_context
def check_skill_cmd(ctx: click.Context, character_id: str, what: str, malus: int, with_characteristic: bool,
                    bonus: int, dice: list[int] | None, as_json: bool) -> None:
    """Roll a skill, an acuity (minor information when only the malus failed it, I-L492) or a characteristic.

    Example: cristal check skill lysa "Acuité visuelle" --malus 20 --dice 35
    """
    run(ctx, R.RollCheck(character=character_id, what=what, malus=malus, with_characteristic=with_characteristic,
                         bonus=bonus), as_json, dice)


@check_group.command("search")
@click.argument("character_id")
@click.option("--hidden", type=PAIR, multiple=True, metavar="OBJECT=MALUS", required=True,
              help="A hidden object and its malus (0 to 200).")
@click.option("--acuity", default="Acuité visuelle", show_default=True, help="The acuity used.")
@dice_option
@json_option
@click.pass_context
def check_search_cmd(ctx: click.Context, character_id: str, hidden: tuple[tuple[str, int], ...], acuity: str, dice: list[int] | None,
                     as_json: bool) -> None:
    """Search a zone: found iff Dé100 < Dex + Acuité − Malus (I-L101).

    Example: cristal check search thor --hidden coffre=20 --hidden clé=50
    """
    run(ctx, R.RollCheck(character=character_id, kind="search", what=acuity, hidden=dict(hidden)),
        as_json, dice)


@check_group.command("skinning")
@click.argument("character_id")
@click.option("--malus", type=INT, default=0, show_default=True, help="The part's malus (0 to 200).")
@click.option("--part", default="", help="What is taken from the corpse.")
@dice_option
@json_option
@click.pass_context
def check_skinning_cmd(ctx: click.Context, character_id: str, malus: int, part: str, dice: list[int] | None,
                       as_json: bool) -> None:
    """Skin a corpse: success iff Dé100 < Dex + Anatomie − Malus (I-L104).

    Example: cristal check skinning thor --malus 30 --part "peau de loup"
    """
    run(ctx, R.RollCheck(character=character_id, kind="skinning", what=part, malus=malus), as_json, dice)


@check_group.command("lockpick")
@click.argument("character_id")
@click.option("--lock", default=None, help="The lock type of the pack (communes, complexes ...).")
@click.option("--malus", type=INT, default=0, show_default=True, help="An extra malus.")
@click.option("--name", "lock_name", default="", help="The lock itself (a door, a chest): its attempts are counted (I-L108).")
@dice_option
@json_option
@click.pass_context
def check_lockpick_cmd(ctx: click.Context, character_id: str, lock: str | None, malus: int, lock_name: str,
                       dice: list[int] | None, as_json: bool) -> None:
    """Pick a lock with a crochet: success iff Dé100 ≤ (Dex + Sav)/2 − Malus (I-L106); the lock type's time,
    maximum attempts and backlash on a failure (I-L108).

    Example: cristal check lockpick thor --lock complexes --name "coffre du passeur"
    """
    run(ctx, R.RollCheck(character=character_id, kind="lockpick", lock=lock, malus=malus, lock_name=lock_name),
        as_json, dice)


@click.command("strike")
@click.argument("character_id")
@click.argument("what")
@click.option("--ps", type=INT, required=True, help="The object's PS now (the game master's estimate, I-L407).")
@click.option("--sr", type=INT, required=True, help="The object's SR (I-L407).")
@click.option("--weapon", default=None, help="The weapon (default: the one held).")
@click.option("--unarmed", is_flag=True, help="Bare hands.")
@click.option("--fight", default="", help="In a fight: a major action.")
@dice_option
@json_option
@click.pass_context
def strike_cmd(ctx: click.Context, character_id: str, what: str, ps: int, sr: int, weapon: str | None, unarmed: bool,
               fight: str, dice: list[int] | None, as_json: bool) -> None:
    """Strike an object to break it: [damage − SR] off its PS, broken at 0 PS (I-L407-409).

    Example: cristal strike thor "porte de chêne" --ps 30 --sr 20 --dice 4
    """
    run(ctx, R.StrikeObject(character=character_id, what=what, ps=ps, sr=sr, weapon="" if unarmed else weapon,
                            fight=fight), as_json, dice)


@click.command("throw")
@click.argument("character_id")
@click.argument("what")
@click.option("--distance", type=REAL, required=True, help="Metres to the target (1 m minimum, I-L402).")
@click.option("--range", "max_range", type=REAL, required=True, help="The object's range set by the GM, 10 to 30 m (I-L403).")
@click.option("--fight", default="", help="The fight it is thrown in (a major action).")
@dice_option
@json_option
@click.pass_context
def throw_cmd(ctx: click.Context, character_id: str, what: str, distance: float, max_range: float, fight: str,
              dice: list[int] | None, as_json: bool) -> None:
    """Throw an object: it lands |50 − Dé100| / 10 m from its target (I-L400-405).

    Example: cristal throw thor "une pierre" --distance 8 --range 15 --dice 30
    """
    run(ctx, R.Throw(character=character_id, what=what, distance=distance, max_range=max_range, fight=fight),
        as_json, dice)


@click.command("fall")
@click.argument("character_id")
@click.argument("height", type=REAL)
@click.option("--fight", default="", help="The fight it happens in: knocked down, a major action lost (I-L416).")
@json_option
@click.pass_context
def fall_cmd(ctx: click.Context, character_id: str, height: float, fight: str, as_json: bool) -> None:
    """Fall or jump HEIGHT metres: no harm up to [1 + Agilité/20] m, beyond it knocked down and
    [5 × (extra m)²] PV lost (I-L428).

    Example: cristal fall thor 5
    """
    run(ctx, R.TakeFall(character=character_id, height=height, fight=fight), as_json)


@click.command("condition")
@click.argument("character_id")
@click.argument("condition", type=click.Choice(list(R.CONDITIONS)))
@click.option("--off", is_flag=True, help="The condition ends.")
@click.option("--reason", default="", help="What caused it.")
@json_option
@click.pass_context
def condition_cmd(ctx: click.Context, character_id: str, condition: R.ConditionName, off: bool, reason: str, as_json: bool) -> None:
    """Blind: Dex, Agilité and Adresse rolls divided by 5 − (1 per 50% of olfactory + auditory acuities);
    invisible: whoever attacks him does so as if blind (I-L413).

    Example: cristal condition thor aveuglé --reason "sable dans les yeux"
    """
    run(ctx, R.SetCondition(character=character_id, condition=condition, on=not off, reason=reason), as_json)


# ---------------------------------------------------------------------------- fights
@click.group("combat")
def combat_group() -> None:
    """Fights: initiative, attacks with hit locations, destiny points.

    Example: cristal combat start gue thor lysa gobelin
    """


@combat_group.command("start")
@click.argument("fight")
@click.argument("participants", nargs=-1, required=True)
@json_option
@click.pass_context
def combat_start_cmd(ctx: click.Context, fight: str, participants: tuple[str, ...], as_json: bool) -> None:
    """Start a fight between heroes and creatures. Example: cristal combat start gue thor lysa gobelin"""
    run(ctx, F.StartFight(fight=fight, participants=participants), as_json)


@combat_group.command("initiative")
@click.argument("fight")
@click.option("--malus", "maluses", type=PAIR, multiple=True, metavar="ID=N", help="A situation malus 0 to 100 (I-L5).")
@click.option("--unspotted", multiple=True, metavar="ID=A,B",
              help="A stealthy attacker and those who have not spotted him: he goes before them (I-L8).")
@dice_option
@json_option
@click.pass_context
def combat_initiative_cmd(ctx: click.Context, fight: str, maluses: tuple[tuple[str, int], ...], unspotted: tuple[str, ...],
                          dice: list[int] | None, as_json: bool) -> None:
    """Roll initiative for a new turn: [Dex + Vol + Dé100] − malus; 50 or less does nothing (I-L3-8).

    Example: cristal combat initiative gue --malus gobelin=10 --dice 40,12,77
    """
    hidden: dict[str, tuple[str, ...]] = {}
    for item in unspotted:
        who, sep, rest = item.partition("=")
        if not sep or not who.strip() or not rest.strip():
            raise CristalError(_("--unspotted takes ID=A,B like thor=gob,loup, not {item!r}.").format(item=item))
        hidden[who.strip()] = tuple(x.strip() for x in rest.split(",") if x.strip())
    run(ctx, F.RollInitiative(fight=fight, maluses=dict(maluses), unspotted_by=hidden), as_json, dice)


@combat_group.command("attack")
@click.argument("fight")
@click.argument("attacker")
@click.argument("target")
@click.option("--weapon", default=None, help="The weapon (default: the one held).")
@click.option("--unarmed", is_flag=True, help="Bare hands: [Fo × 5] + [FP], contondant (I-L290).")
@click.option("--hands", type=click.IntRange(1, 2), default=1, show_default=True, help="Hands on the weapon.")
@click.option("--off-hand", is_flag=True, help="Off the preferred hand (−40, I-L87-89).")
@click.option("--distance", type=REAL, default=None,
              help="Metres to the target: required for a ranged or thrown weapon (I-L95-99).")
@click.option("--thrown", is_flag=True, help="Throw a pure melee weapon as a last resort: −40 Dex (I-L99).")
@click.option("--letalite", type=INT, default=None,
              help="A coup précis of this Létalité: its critical Hémorragie is −[Létalité × 2] PV a turn (I-L507).")
@click.option("--also", type=OtherTargetType(), multiple=True, metavar="ID[:DEFENCE[:ok|PCT]]",
              help="Another target of the same attack, with its own defence: ok = succeeded, PCT = rolled (I-L292).")
@click.option("--power-dice", type=INT, default=None, help="Fewer power dice for a non-lethal blow (I-L457).")
@click.option("--flat", is_flag=True, help="The flat of the weapon: Fo / 3, contondant (I-L458).")
@click.option("--zone", default=None, help="The zone the attacker picks when the table lets him (I-L315).")
@click.option("--defence", type=click.Choice(DEFENCES), default=None,
              help="The defence tried against the hit: one block, one magic and one parry or dodge a turn (I-L543).")
@click.option("--defender", default="", help="An ally acting in defence for the target: costs him a major action (I-L552).")
@click.option("--defended", is_flag=True,
              help="The defence succeeded: no damage, except a block, whose damage the shield takes first (I-L273).")
@click.option("--defence-pct", type=INT, default=None,
              help="The defender's defence skill %: the engine rolls it, −40 after a critical (I-L504).")
@click.option("--action", type=click.Choice(["major", "extra_major"]), default="major", show_default=True,
              help="The action the attack takes (I-L260, I-L265).")
@dice_option
@json_option
@click.pass_context
def combat_attack_cmd(ctx: click.Context, fight: str, attacker: str, target: str, weapon: str | None, unarmed: bool,
                      hands: int, off_hand: bool, distance: float | None, power_dice: int | None, flat: bool,
                      zone: str | None, defence: Defence | None, defender: str, defended: bool, action: F.AttackSlot,
                      thrown: bool, letalite: int | None, defence_pct: int | None, also: tuple[F.OtherTarget, ...],
                      dice: list[int] | None, as_json: bool) -> None:
    """Attack: Dé100 ≤ Adresse hits (01-02 critical and a new Dé100 for the zone, 99-100 fumble); damage
    [Fo × 10] + semi-open power dice, minus the zone's SR, minus RN %, rounded up (I-L267-318).

    A critical's rider runs for the victim's next 3 turns: Hémorragie −Fo PV at each initiative, Handicap
    −2Fo Dex (I-L507-509). A block needs the Blocage skill and a shield; the damage goes through the
    shield's SR, then off its PS, the rest to the character (I-L273, I-L547, A13).

    Example: cristal combat attack gue thor gobelin --hands 2 --dice 35,6,3
    Example: cristal combat attack gue gob thor --unarmed --defence esquive --defence-pct 60 --dice 1,50,30
    """
    run(ctx, F.Attack(fight=fight, attacker=attacker, target=target, weapon="" if unarmed else weapon, hands=hands,
                      off_hand=off_hand, distance=distance, thrown=thrown, power_dice=power_dice, flat=flat, zone=zone,
                      defended=defended, defence=defence, defence_pct=defence_pct, defender=defender, action=action,
                      others=also, letalite=letalite),
        as_json, dice)


@combat_group.command("act")
@click.argument("fight")
@click.argument("character_id")
@click.argument("action", type=click.Choice(["major", "minor", "skill", "forgo_major", "extra_major", "knocked_down",
                                             "disarmed", "pick_up"]))
@click.option("--what", default="", help="What the action is (Sprint, se relever, a skill, the effect giving an extra action ...).")
@click.option("--by", default="", help="knocked_down by this combatant's physical action: limited by Vit (I-L416).")
@json_option
@click.pass_context
def combat_act_cmd(ctx: click.Context, fight: str, character_id: str, action: F.Action, what: str, by: str,
                   as_json: bool) -> None:
    """Spend an action of the turn: 1 major, 1 minor and 1 skill (a second skill takes the minor); forgo the
    major for 2 more minors; gain an extra major from an effect; knocked down loses a major (I-L241-265, I-L416).

    Example: cristal combat act gue thor minor --what "se relever"
    Example: cristal combat act gue gob knocked_down --by thor
    """
    run(ctx, F.TakeAction(fight=fight, character=character_id, action=action, what=what, by=by), as_json)


@combat_group.command("move")
@click.argument("fight")
@click.argument("character_id")
@click.option("--metres", type=REAL, default=0, show_default=True, help="Horizontal metres.")
@click.option("--vertical", "vertical_m", type=REAL, default=0, show_default=True,
              help="Vertical metres (climbing, jumping): they may spill into the next turn (I-L428).")
@click.option("--sprint", type=REAL, default=None,
              help="Sprint as the major action: the Sprint written on the sheet, in metres (I-L258, I-L358).")
@click.option("--u-turns", type=INT, default=0, show_default=True, help="U-turns in flight: 2 m more each (I-L564).")
@json_option
@click.pass_context
def combat_move_cmd(ctx: click.Context, fight: str, character_id: str, metres: float, vertical_m: float,
                    sprint: float | None, u_turns: int, as_json: bool) -> None:
    """Move in a fight: the Dep before the attack (never between two attacks), or the Sprint as the major
    action (I-L258-263); doubled in flight (I-L560-561).

    Example: cristal combat move gue thor --metres 3 --vertical 2
    """
    run(ctx, F.Move(fight=fight, character=character_id, metres=metres, vertical_m=vertical_m, sprint=sprint,
                    u_turns=u_turns), as_json)


@combat_group.command("fly")
@click.argument("fight")
@click.argument("character_id")
@click.option("--land", is_flag=True, help="Land instead of taking off.")
@click.option("--means", default="", help="What lets a character without wings fly (I-L556).")
@click.option("--passenger", "passengers", multiple=True, help="A passenger carried: Vitalités at most 6 × Fo (I-L566).")
@click.option("--hover", default="", help="Taking off: the bonus that allows stationary flight, so the movement "
              "need not all be used (I-L564).")
@click.option("--held-by", "held", default="", help="The opponent on the ground who imposes a malus de fuite the flyer "
              "cannot get away from: he lands at the end of his turn (I-L565).")
@dice_option
@json_option
@click.pass_context
def combat_fly_cmd(ctx: click.Context, fight: str, character_id: str, land: bool, means: str,
                   passengers: tuple[str, ...], hover: str, held: str, dice: list[int] | None, as_json: bool) -> None:
    """Take off: a pure Dex roll, a minor action either way; success doubles the movement left (I-L558).
    In flight all the movement must be used each turn unless a bonus allows hovering (I-L564); a flyer held
    from the ground (--held-by) lands at the end of his turn (I-L565).

    Example: cristal combat fly gue aigle --dice 30
    """
    run(ctx, F.Fly(fight=fight, character=character_id, land=land, means=means, passengers=passengers,
                   hover=hover, held=held), as_json, dice)


@combat_group.command("poison")
@click.argument("fight")
@click.argument("character_id")
@click.argument("poison")
@click.option("--pv", "pv_per_turn", type=INT, required=True, help="PV lost at each of the victim's turns.")
@click.option("--turns", type=INT, required=True, help="How many turns it lasts.")
@json_option
@click.pass_context
def combat_poison_cmd(ctx: click.Context, fight: str, character_id: str, poison: str, pv_per_turn: int, turns: int,
                      as_json: bool) -> None:
    """Poison a combatant: irreducible PV (no armour, RN or Volonté) at each new turn; poisons add up (I-L415).

    Example: cristal combat poison gue thor "Venin d'araignée" --pv 5 --turns 3
    """
    run(ctx, F.ApplyPoison(fight=fight, character=character_id, poison=poison, pv_per_turn=pv_per_turn, turns=turns),
        as_json)


@combat_group.command("defend")
@click.argument("fight")
@click.argument("character_id")
@click.argument("defence", type=click.Choice(DEFENCES))
@click.option("--for-ally", is_flag=True, help="Acting in defence for an ally: costs a major action (I-L552).")
@click.option("--against-magic", is_flag=True, help="Against magic damage: only a block (I-L439).")
@json_option
@click.pass_context
def combat_defend_cmd(ctx: click.Context, fight: str, character_id: str, defence: Defence, for_ally: bool,
                      against_magic: bool, as_json: bool) -> None:
    """Record a defence outside an attack of the log, within the per-turn limit (I-L543, I-L553).

    Example: cristal combat defend gue lysa magique --for-ally
    """
    run(ctx, F.Defend(fight=fight, character=character_id, defence=defence, for_ally=for_ally,
                      against_magic=against_magic), as_json)


@combat_group.command("destiny")
@click.argument("character_id")
@click.option("--narrative", default="", help="How the game master rewrites the cause (I-L377).")
@json_option
@click.pass_context
def combat_destiny_cmd(ctx: click.Context, character_id: str, narrative: str, as_json: bool) -> None:
    """Spend a destiny point to cancel the last death or lost limb (I-L318, I-L377).

    Example: cristal combat destiny thor --narrative "La lame glisse sur la boucle de ceinture"
    """
    run(ctx, F.SpendDestiny(character=character_id, narrative=narrative), as_json)


@combat_group.command("end")
@click.argument("fight")
@json_option
@click.pass_context
def combat_end_cmd(ctx: click.Context, fight: str, as_json: bool) -> None:
    """End a fight. Example: cristal combat end gue"""
    run(ctx, F.EndFight(fight=fight), as_json)


def _secondaries(items: tuple[tuple[str, int], ...]) -> tuple[F.SecondaryCast, ...]:
    """``("Flamme vive=1",)`` -> the secondary spells and their levels (I-L226-228)."""
    return tuple(F.SecondaryCast(spell=name, level=level) for name, level in dict(items).items())


@click.command("cast")
@click.argument("caster")
@click.argument("spell")
@click.option("--level", "cast_level", type=INT, required=True, help="The cast level (min level ≤ it ≤ magic level, I-L219).")
@click.option("--fight", default="", help="The fight it is cast in (1 pp without counter-effect, I-L198).")
@click.option("--modifier", "modifiers", multiple=True, type=INT, help="A % modifier of the PM cost (summed, I-L17).")
@click.option("--whisper", is_flag=True, help="Whispered: the PM cost doubles; oral incantation only (I-L113).")
@click.option("--target", default="", help="The target of the spell.")
@click.option("--damage", type=INT, default=0, help="The spell's magic damage, reduced by the target's Volonté up to 90% (I-L437).")
@click.option("--blocked", is_flag=True,
              help="The target blocked it: its shield's SRM, then its PS, the rest by Volonté (I-L439).")
@click.option("--action", type=click.Choice(["major", "minor", "extra_major"]), default="major", show_default=True,
              help="In a fight: the action it takes (an amélioration spell may be minor, I-L253).")
@click.option("--secondary", "secondaries", type=PAIR, multiple=True,
              help="A secondary spell cast with this primary, NAME=LEVEL (≤ the primary's level, I-L226-237).")
@click.option("--on-primary", default="", help="SPELL is a secondary added to this primary cast at an earlier turn (I-L227).")
@click.option("--primary-level", type=INT, default=0, help="The cast level of that earlier primary.")
@click.option("--sense", type=click.Choice(["sight", "hearing", "smell", "touch"]), default="sight", show_default=True,
              help="How the mage locates the target (I-L10-15).")
@click.option("--distance", type=REAL, default=None, help="Metres to the target: [5 + E] seen, [5 + 0,25 × acuity] heard or smelt (I-L10-15, I-L161).")
@click.option("--stealth", is_flag=True, help="Cast stealthily: the target has no Volonté roll (I-L20).")
@click.option("--spotted", is_flag=True, help="The target spotted the stealthy mage all the same (I-L462).")
@click.option("--accept/--refuse", "accept", default=None, help="A benefic spell's target accepts or refuses it (I-L465).")
@click.option("--gagged", is_flag=True, help="The mage is gagged (I-L113).")
@click.option("--paralysed", is_flag=True, help="The mage is paralysed (I-L113-117).")
@click.option("--without-canalisateur", is_flag=True, help="The canalisateur is not in hand (I-L117).")
@click.option("--not-relevant", is_flag=True, help="Out of combat: the GM deems this cast not relevant (no pp, I-L207).")
@click.option("--duration", type=INT, default=0, help="The duration its description gives, in turns (or --minutes).")
@click.option("--minutes", "in_minutes", is_flag=True, help="That duration is in minutes: invariable (I-L495).")
@click.option("--concentrate", is_flag=True, help="Keep it by concentration: n turns become n minutes (I-L494); "
              "attacking, defending, casting, a skill or a sprint converts the minutes left into turns.")
@dice_option
@json_option
@click.pass_context
def cast_cmd(ctx: click.Context, caster: str, spell: str, cast_level: int, fight: str, modifiers: tuple[int, ...],
             whisper: bool, target: str, damage: int, blocked: bool, action: F.CastSlot, secondaries: tuple[tuple[str, int], ...],
             on_primary: str, primary_level: int, sense: F.Sense, distance: float | None, stealth: bool, spotted: bool,
             accept: bool | None, gagged: bool, paralysed: bool, without_canalisateur: bool, not_relevant: bool,
             duration: int, in_minutes: bool, concentrate: bool, dice: list[int] | None, as_json: bool) -> None:
    """Cast a spell: Dé100 ≤ magic level is a critical ([50 + 10 × Dé10]% of the PM back), from 95 (+1 per
    level above 5) a counter-effect (Dé20), 100 always fails (I-L520-527). Only a learned spell (I-L17);
    an altération or projection target rolls Volonté (Dé100 ≤ Vol) unless the mage is stealthy (I-L462).

    Example: cristal cast lysa Embrasement --level 1 --fight gue --target gobelin --damage 30 --distance 10 --dice 1,7
    """
    run(ctx, F.CastSpell(caster=caster, spell=spell, cast_level=cast_level, fight=fight, modifiers_pct=modifiers,
                         whispered=whisper, target=target, damage=damage, blocked=blocked,
                         action=action, secondaries=_secondaries(secondaries), on_primary=on_primary,
                         on_primary_level=primary_level,
                         sense=sense, distance=distance, stealth=stealth, spotted=spotted,
                         accept=accept, gagged=gagged, paralysed=paralysed, canalisateur=not without_canalisateur,
                         relevant=not not_relevant, duration=duration,
                         duration_unit="minutes" if in_minutes else "tours", concentrate=concentrate), as_json, dice)


@click.group("spell")
def spell_group() -> None:
    """A character's spells: learn one from a teacher (I-L443), break a concentration (I-L494), cancel a
    spell in effect (I-L515).

    Example: cristal spell learn lysa Fièvre --teacher "Maître Orvan"
    """


@spell_group.command("learn")
@click.argument("character_id")
@click.argument("spell")
@click.option("--teacher", required=True, help="A mage of the campaign (checked: knows it, Enseignement magique, "
                                               "higher level) or the name of a teacher of the world.")
@click.option("--price", type=STARLS, default=None, help="The price agreed, e.g. \"2'O\" (default: [minimum level]'O, I-L443).")
@json_option
@click.pass_context
def spell_learn_cmd(ctx: click.Context, character_id: str, spell: str, teacher: str, price: Coins | None,
                    as_json: bool) -> None:
    """Learn a spell of a known magic whose minimum level the magic has reached (I-L443, TX-20).

    Example: cristal spell learn lysa Fièvre --teacher "Maître Orvan" --price "1'O"
    """
    price_c = None
    if price is not None:
        camp = open_campaign(ctx, write=True)
        price_c = price.copper(content_of(camp.state().rules).pack.coin_ratio or 30)
    run(ctx, S.LearnSpell(character=character_id, spell=spell, teacher=teacher, price_c=price_c), as_json)


@spell_group.command("break")
@click.argument("caster")
@click.argument("spell")
@click.option("--remaining", "remaining_minutes", type=REAL, required=True,
              help="Minutes of the spell left: they become turns, rounded down (I-L494).")
@click.option("--target", default="", help="The character the spell is on (default: the caster).")
@json_option
@click.pass_context
def spell_break_cmd(ctx: click.Context, caster: str, spell: str, remaining_minutes: float, target: str,
                    as_json: bool) -> None:
    """Stop concentrating on a spell kept in minutes: the minutes left become turns (I-L494). Attacks,
    defences, casts, skill checks and sprints do it on their own; this is for the GM's other cases.

    Example: cristal spell break lysa Ardeur --remaining 2.5
    """
    run(ctx, S.BreakConcentration(caster=caster, spell=spell, remaining_minutes=remaining_minutes, target=target),
        as_json)


@spell_group.command("cancel")
@click.argument("caster")
@click.argument("spell")
@click.option("--target", default="", help="The character the spell is on (default: the caster).")
@json_option
@click.pass_context
def spell_cancel_cmd(ctx: click.Context, caster: str, spell: str, target: str, as_json: bool) -> None:
    """Stop one's own spell at any time (I-L515).

    Example: cristal spell cancel lysa Embrasement --target thor
    """
    run(ctx, S.CancelSpell(caster=caster, spell=spell, target=target), as_json)


# ---------------------------------------------------------------------------- faith
@click.group("faith")
def faith_group() -> None:
    """Faith points: divine powers, the Harmonisation, bonus points (I-L531-617).

    Example: cristal faith invoke anselme "Main apaisante" --level 1
    """


@faith_group.command("invoke")
@click.argument("character_id")
@click.argument("power")
@click.option("--level", "cast_level", type=INT, required=True, help="The cast level (PD level ≤ it ≤ faith level, I-L609).")
@click.option("--target", default="", help="Another character (same cult, a Prêtre: anyone, I-L607).")
@click.option("--distance", type=REAL, default=0, help="Metres to the target: at most 5 × faith level (I-L607).")
@click.option("--fight", default="", help="The fight it is used in: a minor action, once a turn per PD (I-L605).")
@click.option("--defence", "in_defence", is_flag=True, help="Used in defence: this turn's minor action or the next one (I-L605).")
@click.option("--pfb", "from_pfb", type=INT, default=None, help="How many of the PF the bonus points pay (I-L597).")
@json_option
@click.pass_context
def faith_invoke_cmd(ctx: click.Context, character_id: str, power: str, cast_level: int, target: str, distance: float,
                     fight: str, in_defence: bool, from_pfb: int | None, as_json: bool) -> None:
    """Cast a divine power of the character's cult for its PF cost.

    Example: cristal faith invoke anselme "Main apaisante" --level 1 --target thor --distance 4
    """
    run(ctx, Fa.InvokePower(character=character_id, power=power, cast_level=cast_level, target=target,
                            distance=distance, fight=fight, in_defence=in_defence, from_pfb=from_pfb), as_json)


@faith_group.command("harmonise")
@click.argument("character_id")
@click.option("--at", default="", help="The time the prayer starts, HH:MM (within the cult's hour, I-L531).")
@click.option("--sunrise", default="", help="Sunrise, HH:MM (Toh-Argan).")
@click.option("--sunset", default="", help="Sunset, HH:MM (Déesse Noire).")
@json_option
@click.pass_context
def faith_harmonise_cmd(ctx: click.Context, character_id: str, at: str, sunrise: str, sunset: str, as_json: bool) -> None:
    """Pray the Harmonisation: all the day's PF come back, once a day on the log's clock (wait) (I-L531-540).

    Example: cristal faith harmonise anselme --at 19:20
    """
    run(ctx, Fa.Harmonise(character=character_id, at=at, sunrise=sunrise, sunset=sunset), as_json)


@faith_group.command("change")
@click.argument("character_id")
@click.argument("cult")
@click.option("--god", default=None, help="The god, for a Paladin.")
@click.option("--add", is_flag=True, help="Add a second cult, keeping the Ancêtres (I-L573, I-L582).")
@click.option("--reason", default="", help="Why the character turns to this cult.")
@json_option
@click.pass_context
def faith_change_cmd(ctx: click.Context, character_id: str, cult: str, god: str | None, add: bool, reason: str,
                     as_json: bool) -> None:
    """Change cult: the first cult's levels are lost; religious classes start at 2 if they passed that level,
    the others at 0 (I-L571, I-L580); --add keeps the Ancêtres and starts the new cult at 0 (I-L573).

    Example: cristal faith change anselme "Dieu ailé" --reason "une vision"
    """
    run(ctx, Fa.ChangeCult(character=character_id, cult=cult, god=god, add=add, reason=reason), as_json)


@faith_group.command("learn")
@click.argument("character_id")
@click.argument("power")
@click.option("--book", "from_book", is_flag=True, help="Learned from a book.")
@click.option("--teacher-level", type=INT, default=None, help="The teaching faithful's level (6 or more, I-L611).")
@json_option
@click.pass_context
def faith_learn_cmd(ctx: click.Context, character_id: str, power: str, from_book: bool, teacher_level: int | None,
                    as_json: bool) -> None:
    """Learn a divine power of an unlocked level, from a book or a faithful of level 6 or more (I-L611).

    Example: cristal faith learn bertrand "Main apaisante" --teacher-level 6
    """
    run(ctx, Fa.LearnPower(character=character_id, power=power, from_book=from_book, teacher_level=teacher_level),
        as_json)


@faith_group.command("adjust", context_settings=SIGNED)
@click.argument("character_id")
@click.option("--pfb", type=INT, default=0, help="PFb granted (or, negative, taken).")
@click.option("--pf", type=INT, default=0, help="PF taken for grave impious acts (negative).")
@click.option("--reason", required=True, help="The pious or impious act.")
@json_option
@click.pass_context
def faith_adjust_cmd(ctx: click.Context, character_id: str, pfb: int, pf: int, reason: str, as_json: bool) -> None:
    """Grant or take bonus faith points, or take PF (I-L597).

    Example: cristal faith adjust anselme --pfb 2 --reason "a veillé les morts"
    """
    run(ctx, Fa.AdjustFaith(character=character_id, pfb=pfb, pf=pf, reason=reason), as_json)


# ---------------------------------------------------------------------------- tavern
@click.command("drink", context_settings=SIGNED)
@click.argument("character_id")
@click.argument("beverage")
@click.option("--alc", type=INT, default=None, help="Alc of the drink when the pack has none for it (G8).")
@click.option("--shift", type=INT, default=0, help="Move the event die by up to 1 per −10 Alc minimum acquired (I-L124).")
@dice_option
@json_option
@click.pass_context
def drink_cmd(ctx: click.Context, character_id: str, beverage: str, alc: int | None, shift: int, dice: list[int] | None,
              as_json: bool) -> None:
    """Drink: Alc rises, thresholds cross, an event die every 3 Alc from Gaieté (I-L121-159).

    Example: cristal drink thor Bière --dice 4
    """
    run(ctx, T.Drink(character=character_id, beverage=beverage, alc=alc, shift=shift), as_json, dice)


@click.command("wait")
@click.argument("minutes", type=INT)
@click.option("--reason", default="", help="What the time was spent on.")
@json_option
@click.pass_context
def wait_cmd(ctx: click.Context, minutes: int, reason: str, as_json: bool) -> None:
    """Let time pass: every drinker loses 1 Alc per 45 minutes down to the minimum (I-L123).

    Example: cristal wait 90 --reason "une partie de dés"
    """
    run(ctx, T.PassTime(minutes=minutes, reason=reason), as_json)


@click.command("evening")
@click.argument("character_id", required=False)
@json_option
@click.pass_context
def evening_cmd(ctx: click.Context, character_id: str | None, as_json: bool) -> None:
    """The evening at the tavern from the evening read model: each drink, each wait and what it did.

    Example: cristal evening thor
    """
    camp = open_campaign(ctx, readonly=True)  # a read command writes nothing, not even its read model
    rows = read_model_rows(camp, "illergan_evening", "illergan_evening",
                           where={"character": character_id} if character_id else None, order_by=("position", "seq"))
    if as_json:
        emit_json(rows)
        return
    if not rows:
        echo(_("Nobody has had a drink yet."))
    for r in rows:
        what = {"drink": _("drinks {beverage} (+{alc})").format(beverage=r["beverage"], alc=r["alc_gained"]),
                "wait": _("waits {minutes} min").format(minutes=r["minutes"]),
                "event_die": _("event die {result}: {action}").format(result=r["result"], action=r["action"]),
                "alc_min_lowered": _("Alc minimum lowered"), "band_up": _("up one threshold"),
                "band_down": _("down one threshold"), "memory_loss": r["detail"]}.get(r["what"], r["what"])
        alc = f"{round(r['alc'], 2):g}"  # an exact threshold (76/15) shown as 5.07, as the sheet does
        echo(f"{r['position']:>6}  {r['character']:<10} {what:<40} Alc {alc} (min {r['alc_min']}) {r['band']}")


# ------------------------------------------------------------------ combat show / combat log (issue 19)
# (a block of its own: the fight as the table sees it, read from the stream ``fight:NAME`` and the party,
# folded by the same panel the web table draws, cristal_events.cli.fight_panel.panel)
def _fight_view(ctx: click.Context, fight: str) -> tuple[Any, list[Any], dict[str, Any]]:
    """The fight's records, and its panel: ``active`` (started, not ended), the turn, the order, who
    acts next and each fighter (an ended fight: as it stood at its end)."""
    from cristal_events.cli.campaign import record_json
    from cristal_events.cli.fight_panel import panel
    from cristal_events.i18n import _

    camp = open_campaign(ctx, readonly=True)
    recs = list(camp.store.read_all(stream=f"fight:{fight}"))
    if not any(r.type == "fight.started" for r in recs):
        raise CristalError(_("There is no fight named '{fight}' ('cristal log --type fight.started' lists them).")
                           .format(fight=fight))
    events = [record_json(camp, r) for r in recs]
    world = camp.state()
    import msgspec

    settings = camp.ruleset.settings(msgspec.structs.replace(camp.header, settings=world.core.settings))
    party = camp.ruleset.party(world.rules, settings=settings, rounding=camp.header.rounding)
    ended = events[-1]["type"] == "fight.ended"
    shown = panel(fight, events[:-1] if ended else events, party)
    assert shown is not None  # the fight started (checked above) and its end is left out
    return camp, recs, {**shown, "active": not ended, **({"next": None, "waiting": ""} if ended else {})}


@combat_group.command("show")
@click.argument("fight")
@json_option
@click.pass_context
def combat_show_cmd(ctx: click.Context, fight: str, as_json: bool) -> None:
    """The fight as the table sees it: the turn, the initiative order (first to act at the top), each
    fighter's PV, PM, destiny points and actions left, and who acts next.

    Example: cristal combat show gue --json
    """
    from cristal_events.cli.views import Fighter, timeline_lines
    from cristal_events.i18n import _

    _camp, _recs, view = _fight_view(ctx, fight)
    if as_json:
        emit_json(view)
        return
    title = _("Fight {fight}, turn {turn}").format(fight=fight, turn=view["turn"]) if view["active"] \
        else _("Fight {fight} (ended after turn {turn})").format(fight=fight, turn=view["turn"])
    # the rank in the turn's order stands in the timeline's IT column: Illergan's initiative is an order
    fighters = [Fighter(name=f["name"], it=rank, pv=f"{f['pv']}/{f['pv_max']}" if f["pv"] is not None else "",
                        pm=str(f["pm"]) if f["pm"] is not None else "",
                        note=" · ".join(x for x in (_("initiative {score}").format(score=f["score"])
                                                    if f["score"] is not None else "",
                                                    _("dead") if f["dead"] else f["actions"]) if x),
                        next=f["next"])
                for rank, f in enumerate(view["participants"], 1)]
    for line in timeline_lines(title, fighters, after=view["waiting"]):
        echo(line)


@combat_group.command("log")
@click.argument("fight")
@json_option
@click.pass_context
def combat_log_cmd(ctx: click.Context, fight: str, as_json: bool) -> None:
    """The fight's events in order, one line each (JSON Lines with --json, as 'cristal log').

    Example: cristal combat log gue
    """
    from cristal_events.cli.campaign import record_json
    from cristal_events.cli.common import to_json

    camp, recs, _view = _fight_view(ctx, fight)
    for r in recs:
        if as_json:
            click.echo(to_json(record_json(camp, r)))
        else:
            echo(f"#{r.position:<5} {camp.summarize(r)}")


COMMANDS = [check_group, strike_cmd, throw_cmd, fall_cmd, condition_cmd, combat_group, cast_cmd, spell_group, faith_group,
            drink_cmd,
            wait_cmd, evening_cmd]
