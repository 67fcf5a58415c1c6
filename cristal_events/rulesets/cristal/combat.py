"""Combat mode of *Les Lois du Cristal* (seed 000, L1195-L1367): the Indice de Temps, attacks, damage.

There are no rounds: each combatant has an IT in seconds, the smallest IT acts, and the action's
duration is added to it (L1200-L1210). Everything here is a pure function over plain values; a
timeline is a tuple of :class:`Combatant` that each step returns anew. Functions that roll take a
``dice`` object and return the :class:`~cristal_events.rolls.Roll` they made.

The action duration table (L1230-L1257) is data in ``data/actions.json``.
"""

from collections.abc import Mapping, Sequence
from fractions import Fraction
from functools import cache
from typing import Literal

import msgspec

import cristal_events.rounding as rounding
from cristal_events.dice import Dice
from cristal_events.errors import ContentError, DiceError, RuleError, UnknownEntity
from cristal_events.rolls import Roll
from cristal_events.rounding import RoundingMode, to_fraction
from cristal_events.rulesets.cristal.magic import SpellDurations

from . import datafiles
from .texts import _

__all__ = [
    "DEFAULT_ATTACK_IT", "ActionDef", "ActionDuration", "Initiative", "Casting", "Combatant",
    "AttackCheck", "Damage", "Vitals", "action", "actions", "action_duration", "initiative",
    "roll_initiative", "next_actor", "tied_for_dice", "roll_tie_break", "tie_winner", "tie_scores",
    "take_action", "begin_spell",
    "complete_spell", "interrupt_spell", "pass_turn", "newcomer_it", "attack_duration", "thrown_range",
    "range_penalty", "attack_check", "roll_attack", "chained_attack", "roll_chained_attack",
    "damage_amount", "roll_damage", "death_threshold", "vital_state", "change_pv", "apply_damage", "bleed",
]

DEFAULT_ATTACK_IT = 6  # L1263: bare hands or no IT defined
SECONDS_PER_BLEED = 60  # L371: 1 PV per minute unconscious


# --------------------------------------------------------------------------- action durations

class ActionDef(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One row of the duration table: seconds, or a dice expression rolled each time (``[1d4]+4``)."""

    key: str
    group: str
    label: str
    duration: int | str
    line: int


class _ActionFile(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    source: str
    actions: tuple[ActionDef, ...]


@cache
def actions() -> dict[str, ActionDef]:
    """Every action of the table by key (loaded and validated once)."""
    try:
        data = msgspec.json.decode(datafiles.read("actions.json"), type=_ActionFile)
    except msgspec.ValidationError as exc:
        raise ContentError(_("actions.json is malformed: {exc}.").format(exc=exc)) from exc
    return {a.key: a for a in data.actions}


def action(key: str) -> ActionDef:
    """The table row ``key`` (e.g. ``ouvrir_porte``)."""
    try:
        return actions()[key]
    except KeyError:
        raise UnknownEntity(_("Unknown action {key!r}; the GM sets the duration of actions not in the table.").format(key=key)) from None


class ActionDuration(msgspec.Struct, frozen=True, kw_only=True):
    """Seconds an action adds to the IT, with the rolls a dice duration needed."""

    key: str
    seconds: int
    rolls: tuple[Roll, ...] = ()


def action_duration(key: str, dice: Dice | None = None, *, times: int = 1) -> ActionDuration:
    """Duration of ``times`` repetitions of a table action; dice durations are rolled each time, floored at 0.

    Running 10 m is ``courir_5m`` twice: 2 s (L1232, L1311).
    """
    if times < 1:
        raise RuleError(_("An action is done at least once, not {times} times.").format(times=times))
    row = action(key)
    if isinstance(row.duration, int):
        return ActionDuration(key=key, seconds=row.duration * times)
    if dice is None:
        raise RuleError(_("The duration of {row_label} is {row_duration}: roll it or enter the faces.").format(row_label=row.label, row_duration=row.duration))
    rolls = tuple(dice.roll(row.duration, purpose="duration") for _ in range(times))
    return ActionDuration(key=key, seconds=sum(max(r.total, 0) for r in rolls), rolls=rolls)


# --------------------------------------------------------------------------- initiative and turn order

class Initiative(msgspec.Struct, frozen=True, kw_only=True):
    """``IT = IT de base - ([1d6] + REF * 2)`` (L1319); negative is normal."""

    base_it: int
    ref: int
    die: int
    it: int
    roll: Roll | None = None


def initiative(base_it: int, ref: int, die: int, roll: Roll | None = None) -> Initiative:
    """Initiative from a known d6 face; ``base_it`` is the GM's method-1 IT (0 when none, L1317-L1321)."""
    return Initiative(base_it=base_it, ref=ref, die=die, it=base_it - (die + 2 * ref), roll=roll)


def roll_initiative(dice: Dice, ref: int, base_it: int = 0) -> Initiative:
    """Roll ``[1d6]`` and subtract ``1d6 + REF * 2`` from the base IT."""
    roll = dice.roll("1d6", purpose="initiative")
    return initiative(base_it, ref, roll.total, roll)


class Casting(msgspec.Struct, frozen=True, kw_only=True):
    """A spell whose incantation has been paid; its effects wait for the caster's next turn (ruling D21)."""

    spell: str
    combustion: int
    success: bool = True


class Combatant(msgspec.Struct, frozen=True, kw_only=True):
    """One participant's IT; inactive ones (unconscious, dead, gone) are skipped."""

    name: str
    it: int
    ref: int = 0
    active: bool = True
    casting: Casting | None = None


def _lowest(combatants: Sequence[Combatant]) -> list[Combatant]:
    live = [c for c in combatants if c.active]
    if not live:
        raise RuleError(_("No combatant is able to act."))
    low = min(c.it for c in live)
    tied = [c for c in live if c.it == low]
    best_ref = max(c.ref for c in tied)
    return [c for c in tied if c.ref == best_ref]


def tied_for_dice(combatants: Sequence[Combatant]) -> tuple[str, ...]:
    """Names tied on the smallest IT and on REF, who must roll to decide (L1202); empty if none."""
    top = _lowest(combatants)
    return tuple(c.name for c in top) if len(top) > 1 else ()


def next_actor(combatants: Sequence[Combatant], tie_rolls: Mapping[str, int] | None = None) -> str:
    """Who acts: the smallest IT; on a tie the higher REF; then the higher recorded tie-break die (L1200-L1202)."""
    top = _lowest(combatants)
    if len(top) == 1:
        return top[0].name
    rolls = tie_rolls or {}
    missing = [c.name for c in top if c.name not in rolls]
    if missing:
        raise RuleError(_("{values} are tied on IT and REF; roll a die for each to decide.").format(values=', '.join(c.name for c in top)))
    best = max(rolls[c.name] for c in top)
    winners = [c.name for c in top if rolls[c.name] == best]
    if len(winners) > 1:
        raise RuleError(_("The tie-break dice are tied again between {winners}; roll again.").format(winners=', '.join(winners)))
    return winners[0]


TieRounds = list[dict[str, Roll]]


def roll_tie_break(dice: Dice, names: Sequence[str]) -> TieRounds:
    """Each tied combatant rolls 1d6; those level at the top roll again, round after round, until one
    is highest (ruling: tie-break die). Every round's faces are returned, in the order rolled.

    With engine dice this always ends with a winner; with entered faces that run out while the dice
    are still level, one sentence says how many more faces the next round needs.
    """
    rounds: TieRounds = []
    contenders = list(names)
    while len(contenders) > 1:
        this: dict[str, Roll] = {}
        for name in contenders:
            try:
                this[name] = dice.roll("1d6", purpose="tie-break", replaces=rounds[-1][name] if rounds else None)
            except DiceError:
                if dice.engine:
                    raise
                given = len(dice.used)
                more = len(contenders) - len(this)
                level = " and ".join(contenders)
                raise DiceError(
                    _("The tie-break dice are level between {level}: enter {more} more d6 face{value} ({given} entered so far; one d6 each for {level}, in that order).").format(level=level, more=more, value='s' if more > 1 else '', given=given)
                ) from None
        rounds.append(this)
        best = max(r.total for r in this.values())
        contenders = [n for n in contenders if this[n].total == best]
    return rounds


def tie_winner(rounds: TieRounds) -> str:
    """The one left highest by the last round."""
    last = rounds[-1]
    best = max(r.total for r in last.values())
    top = [n for n, r in last.items() if r.total == best]
    if len(top) != 1:
        raise RuleError(_("The tie-break dice are level between {top}; roll again.").format(top=' and '.join(top)))
    return top[0]


def tie_scores(rounds: TieRounds) -> dict[str, int]:
    """An order of the tied combatants that the rounds decided, as scores for :func:`next_actor`:
    one eliminated in a later round beats one eliminated earlier; in one round the higher face wins.
    (A contender's face of an earlier round never outranks the rounds that came after it.)"""
    scores: dict[str, int] = {}
    for k, this in enumerate(rounds):
        for name, roll in this.items():
            scores[name] = k * 7 + roll.total
    return scores


def _replace(combatants: Sequence[Combatant], name: str, **changes: object) -> tuple[Combatant, ...]:
    if not any(c.name == name for c in combatants):
        raise UnknownEntity(_("{name} is not in this combat.").format(name=name))
    return tuple(msgspec.structs.replace(c, **changes) if c.name == name else c for c in combatants)


def _get(combatants: Sequence[Combatant], name: str) -> Combatant:
    for c in combatants:
        if c.name == name:
            return c
    raise UnknownEntity(_("{name} is not in this combat.").format(name=name))


def _require_turn(combatants: Sequence[Combatant], name: str, tie_rolls: Mapping[str, int] | None) -> Combatant:
    actor = next_actor(combatants, tie_rolls)
    if actor != name:
        raise RuleError(_("It is {actor}'s turn (smallest IT), not {name}'s.").format(actor=actor, name=name))
    return _get(combatants, name)


def take_action(
    combatants: Sequence[Combatant], name: str, seconds: int, *, tie_rolls: Mapping[str, int] | None = None
) -> tuple[Combatant, ...]:
    """``name`` acts now and the action's duration is added to its IT (L1206-L1216)."""
    actor = _require_turn(combatants, name, tie_rolls)
    if actor.casting is not None:
        raise RuleError(_("{name} is incanting {actor_casting_spell} and can do nothing else until it is released.").format(name=name, actor_casting_spell=actor.casting.spell))
    if seconds < 0:
        raise RuleError(_("An action cannot last {seconds} seconds.").format(seconds=seconds))
    return _replace(combatants, name, it=actor.it + seconds)


def begin_spell(
    combatants: Sequence[Combatant], name: str, spell: str, durations: SpellDurations, *,
    success: bool = True, tie_rolls: Mapping[str, int] | None = None,
) -> tuple[Combatant, ...]:
    """Start a spell: the incantation is added at once (L1267) and the effects wait for the caster's
    next turn (L1306-L1310). With no incantation (INSTANTANÉ, SIMULTANÉ) the effects happen now and
    the combustion is added at once; a failed spell never pays combustion (L1284).
    """
    actor = _require_turn(combatants, name, tie_rolls)
    if actor.casting is not None:
        raise RuleError(_("{name} is already incanting {actor_casting_spell}.").format(name=name, actor_casting_spell=actor.casting.spell))
    if durations.incantation == 0:
        return _replace(combatants, name, it=actor.it + (durations.combustion if success else 0))
    pending = Casting(spell=spell, combustion=durations.combustion if success else 0, success=success)
    return _replace(combatants, name, it=actor.it + durations.incantation, casting=pending)


def complete_spell(
    combatants: Sequence[Combatant], name: str, *, tie_rolls: Mapping[str, int] | None = None
) -> tuple[Combatant, ...]:
    """At the caster's next turn the incantation is over: effects apply, then combustion is added (L1269-L1271)."""
    actor = _require_turn(combatants, name, tie_rolls)
    if actor.casting is None:
        raise RuleError(_("{name} is not incanting any spell.").format(name=name))
    return _replace(combatants, name, it=actor.it + actor.casting.combustion, casting=None)


def interrupt_spell(combatants: Sequence[Combatant], name: str) -> tuple[Combatant, ...]:
    """Deconcentration during the incantation (L969): the spell is lost, with no combustion to pay."""
    if _get(combatants, name).casting is None:
        raise RuleError(_("{name} is not incanting any spell.").format(name=name))
    return _replace(combatants, name, casting=None)


def pass_turn(
    combatants: Sequence[Combatant], name: str, *, tie_rolls: Mapping[str, int] | None = None
) -> tuple[Combatant, ...]:
    """Pass: +1 IT at a time while the passer still holds the turn (L1292, ruling D25).

    At an equal IT the passer still holds the turn unless someone level with it has a higher REF, so
    the turn really goes to another combatant without a die.
    """
    actor = _require_turn(combatants, name, tie_rolls)
    others = [c for c in combatants if c.active and c.name != name]
    if not others:
        raise RuleError(_("{name} is alone in the combat; there is nobody to pass the turn to.").format(name=name))
    it = actor.it
    while True:
        low = min(c.it for c in others)
        if it < low or (it == low and actor.ref >= max(c.ref for c in others if c.it == low)):
            it += 1
            continue
        return _replace(combatants, name, it=it)


def newcomer_it(its: Sequence[int], mode: RoundingMode) -> int:
    """IT of a combatant who joins mid-combat: the average IT of those already fighting, rounded (L1220, D24)."""
    if not its:
        raise RuleError(_("A newcomer's IT is the average of the combatants' IT, and there are none."))
    return rounding.divide(sum(its), len(its), mode)


# --------------------------------------------------------------------------- attacks

def attack_duration(weapon_it: int | None = None, propulsor_it: int | None = None) -> int:
    """An attack lasts the weapon's IT, or 6 s bare-handed / undefined (L1261-L1263); a propulsor's IT adds."""
    base = DEFAULT_ATTACK_IT if weapon_it is None else weapon_it
    return base + (propulsor_it or 0)


def thrown_range(frc: int) -> int:
    """Metres a projectile thrown by hand reaches without penalty: FRC * 2, never below 0 (L1344, D15)."""
    return max(2 * frc, 0)


def range_penalty(distance_m: int | Fraction, *, frc: int | None = None, propulsor_range_m: int | None = None) -> int:
    """ATT penalty: -1 per full slice of 2 m beyond the range (L1348-L1350, ruling D15).

    >>> range_penalty(30, propulsor_range_m=20)
    -5
    """
    if propulsor_range_m is None and frc is None:
        raise RuleError(_("A range penalty needs the thrower's FRC or the propulsor's range."))
    reach = propulsor_range_m if propulsor_range_m is not None else thrown_range(frc or 0)
    excess = Fraction(distance_m) - reach
    return -(excess // 2) if excess > 0 else 0


class AttackCheck(msgspec.Struct, frozen=True, kw_only=True):
    """``[ATT de l'attaquant + 1d20] > [DP de la cible]`` (L1334); ``att`` already holds every modifier."""

    att: int
    die: int
    total: int
    dp: int
    hit: bool
    halved: bool = False
    roll: Roll | None = None


def _modified_att(att: int, weapon_att: int, range_pen: int, alignment_penalty: int) -> int:
    # L1415: the alignment penalty's size is subtracted from the ATT total (ruling D4).
    return att + weapon_att + range_pen - abs(alignment_penalty)


def attack_check(
    att: int, die: int, dp: int, *, weapon_att: int = 0, range_penalty: int = 0, alignment_penalty: int = 0,
    roll: Roll | None = None,
) -> AttackCheck:
    """Judge one attack from a known d20 face (strictly greater than the DP hits, L1336)."""
    total_att = _modified_att(att, weapon_att, range_penalty, alignment_penalty)
    total = total_att + die
    return AttackCheck(att=total_att, die=die, total=total, dp=dp, hit=total > dp, roll=roll)


def roll_attack(
    dice: Dice, att: int, dp: int, *, weapon_att: int = 0, range_penalty: int = 0, alignment_penalty: int = 0
) -> AttackCheck:
    """Roll the d20 of an attack and judge it."""
    roll = dice.roll("1d20", purpose="attack")
    return attack_check(
        att, roll.total, dp, weapon_att=weapon_att, range_penalty=range_penalty,
        alignment_penalty=alignment_penalty, roll=roll,
    )


def chained_attack(
    att: int, dies: Sequence[int], dp: int, mode: RoundingMode, *, weapon_att: int = 0, range_penalty: int = 0,
    alignment_penalty: int = 0, rolls: Sequence[Roll] = (),
) -> tuple[AttackCheck, ...]:
    """N attacks in one weapon IT on one target, each ``(ATT + d20) / N`` with its own d20 (L1363-L1365, D14):
    the book's chain is 2 attacks, each halved; a campaign's ``chain_attacks`` may allow more.

    The full modified ATT is added to the die, then divided and rounded (ruling D14).
    """
    n = len(dies)
    if n < 2:
        raise RuleError(_("A chained attack is at least 2 attacks, not {n}.").format(n=n))
    total_att = _modified_att(att, weapon_att, range_penalty, alignment_penalty)
    checks = []
    for i, die in enumerate(dies):
        total = rounding.divide(total_att + die, n, mode)
        checks.append(AttackCheck(
            att=total_att, die=die, total=total, dp=dp, hit=total > dp, halved=True,
            roll=rolls[i] if i < len(rolls) else None,
        ))
    return tuple(checks)


def roll_chained_attack(
    dice: Dice, att: int, dp: int, mode: RoundingMode, *, weapon_att: int = 0, range_penalty: int = 0,
    alignment_penalty: int = 0, attacks: int = 2,
) -> tuple[AttackCheck, ...]:
    """Roll the ``attacks`` d20 of a chained attack (the die is rerolled for each attack, L1363)."""
    rolls = [dice.roll("1d20", purpose="chained attack") for _ in range(attacks)]
    return chained_attack(
        att, [r.total for r in rolls], dp, mode, weapon_att=weapon_att, range_penalty=range_penalty,
        alignment_penalty=alignment_penalty, rolls=rolls,
    )


class Damage(msgspec.Struct, frozen=True, kw_only=True):
    """Damage dealt by a hit: the rolled total, floored at 0, doubled by an Attaque de dos (L735)."""

    rolled: int
    amount: int
    backstab: bool = False
    roll: Roll | None = None


def damage_amount(rolled: int, *, backstab: bool = False) -> int:
    """PV a hit removes: the DMG roll floored at 0 (ruling D2), doubled for an Attaque de dos (L735)."""
    return max(rolled, 0) * (2 if backstab else 1)


def roll_damage(dice: Dice, expr: str, mode: RoundingMode, *, backstab: bool = False) -> Damage:
    """Roll the attacker's DMG expression (e.g. ``[2d6+2]``, L1361)."""
    roll = dice.roll(expr, rounding=mode, purpose="damage")
    return Damage(rolled=roll.total, amount=damage_amount(roll.total, backstab=backstab), backstab=backstab, roll=roll)


# --------------------------------------------------------------------------- vitals

VitalState = Literal["conscious", "unconscious", "dead"]


class Vitals(msgspec.Struct, frozen=True, kw_only=True):
    """Current PV, state, and the seconds of unconsciousness not yet turned into a lost PV."""

    pv: int
    state: VitalState = "conscious"
    bleed_seconds: int = 0


def death_threshold(race_pv: int, con: int) -> int:
    """``-[(PV initiaux de la race) + (CON * 2)]`` (L373), never above 0 (ruling D33)."""
    return min(-(race_pv + 2 * con), 0)


def vital_state(pv: int, *, race_pv: int, con: int, was_unconscious: bool = False) -> VitalState:
    """Dead below the death threshold; unconscious below 0, and until PV are back above 0 (L369, D8)."""
    if pv < death_threshold(race_pv, con):
        return "dead"
    if pv < 0 or (was_unconscious and pv <= 0):
        return "unconscious"
    return "conscious"


def change_pv(vitals: Vitals, delta: int, *, race_pv: int, con: int, pv_max: int | None = None) -> Vitals:
    """Add ``delta`` PV (negative for damage), capped at PVmax; death is final (L373)."""
    if vitals.state == "dead":
        raise RuleError(_("A dead character's PV can no longer change."))
    pv = vitals.pv + delta
    if pv_max is not None:
        pv = min(pv, pv_max)
    state = vital_state(pv, race_pv=race_pv, con=con, was_unconscious=vitals.state == "unconscious")
    return Vitals(pv=pv, state=state, bleed_seconds=vitals.bleed_seconds if state == "unconscious" else 0)


def apply_damage(vitals: Vitals, damage: int, *, race_pv: int, con: int) -> Vitals:
    """Subtract a hit's damage from the PV (L1354) and update the state."""
    if damage < 0:
        raise RuleError(_("Damage cannot be negative ({damage}).").format(damage=damage))
    return change_pv(vitals, -damage, race_pv=race_pv, con=con)


def bleed(vitals: Vitals, seconds: int, *, race_pv: int, con: int) -> Vitals:
    """An unconscious character loses 1 PV per 60 s of IT, unaided (L371); partial minutes carry over."""
    if vitals.state != "unconscious" or seconds <= 0:
        return vitals
    total = vitals.bleed_seconds + seconds
    lost, carried = divmod(total, SECONDS_PER_BLEED)
    pv = vitals.pv - lost
    state = vital_state(pv, race_pv=race_pv, con=con, was_unconscious=True)
    return Vitals(pv=pv, state=state, bleed_seconds=carried if state == "unconscious" else 0)


# ----------------------------------------------------------------------------- speeds (L1286-L1290)

def metres_per_second(kmh: float | Fraction) -> Fraction:
    """(Nombre de mètres parcourus par seconde) = (Vitesse en km/h) / 3.6 (L1288), exact."""
    return to_fraction(kmh) * 10 / 36


def travel_seconds(distance_m: float | Fraction, kmh: float | Fraction, mode: RoundingMode) -> int:
    """Seconds to cover ``distance_m`` at ``kmh``: t = 3.6 × d / v (D11).

    The book prints ``distance / vitesse / 3.6`` (L1290), which gives 0.46 s for 5 m at 3 km/h; the
    conversion it states one line above (L1288) gives 6 s, close to the table's "marcher 5 m = 5"
    (L1231). We use the correct conversion, rounded with the campaign's mode.
    """
    speed = to_fraction(kmh)
    if speed <= 0:
        raise RuleError(_("A speed of {kmh} km/h covers no distance.").format(kmh=kmh))
    if to_fraction(distance_m) < 0:
        raise RuleError(_("A distance cannot be negative ({distance_m} m).").format(distance_m=distance_m))
    return rounding.apply(to_fraction(distance_m) * 36 / (10 * speed), mode)
