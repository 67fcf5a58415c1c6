"""Spells of *Les Lois du Cristal* (seed 000, L929-L1069, L1186-L1193); crystals, artefacts and potions
(L1071-L1184) live in :mod:`.crystals`, which builds on this module (import them from there).

Pure functions over plain values: a spell is described by its numbers (base PM, CNC, Temps, the
variable effects and the PM the caster puts in each), never by a content-pack object, so these
rules work whatever the pack schema is. Functions that roll take a ``dice`` object (``roll(expr,
purpose=...) -> Roll``) and return the :class:`~cristal_events.rolls.Roll` they made in their
result, so an event can store it and a replay never rolls again.

Tables (CNC penalties, crystal bands, the crystal and artefact spells, potion limits) are data in
``data/cnc_penalties.json`` and ``data/crystals.json``, loaded and validated once.
"""

import re
from collections.abc import Iterable, Sequence
from functools import cache
from typing import Literal

import msgspec

import cristal_events.rounding as rounding
from cristal_events.dice import Dice
from cristal_events.errors import ContentError, RuleError, UnknownEntity
from cristal_events.patterns import pattern, unicode_data  # made when first used
from cristal_events.rolls import Roll
from cristal_events.rounding import RoundingMode

from . import datafiles
from .texts import N_, _

__all__ = [  # the crystal, artefact and potion names are in .crystals
    "Scale", "VariableEffect", "EffectSpend", "EffectOutcome", "SpellTime", "ConcentrationResult", "Overdraw",
    "CastResult", "SpellDurations", "parse_scale", "check_allocation", "spell_pm_cost", "effect_outcome",
    "reduce_effects", "dm_after_reduction", "roll_effect", "cnc_penalty", "concentration",
    "roll_concentration", "pm_overdraw", "cast_spell", "deconcentrates", "parse_spell_time",
    "spell_durations", "check_magic_can", "FORBIDDEN_EFFECTS",
]



# --------------------------------------------------------------------------- variable effects

class Scale(msgspec.Struct, frozen=True, kw_only=True):
    """An Échelle split into what one step produces and how many PM one step costs (L1006).

    ``[1d6]`` -> amount ``1d6`` per 1 PM; ``[1/4]`` -> amount ``1`` per 4 PM; ``[(1d6)/3]`` -> ``1d6``
    per 3 PM; ``5`` -> ``5`` per 1 PM.
    """

    amount: str
    per_pm: int = 1


class VariableEffect(msgspec.Struct, frozen=True, kw_only=True):
    """One row of a spell's Effet Variable table (Nom, Échelle, Unité, Réduction; L997-L1014)."""

    name: str
    scale: str
    unit: str = ""
    reduction: int = 0


class EffectSpend(msgspec.Struct, frozen=True, kw_only=True):
    """The PM a caster puts in one variable effect (step 2 of the casting procedure, L1043)."""

    effect: VariableEffect
    pm: int


class EffectOutcome(msgspec.Struct, frozen=True, kw_only=True):
    """An effect after the target's DM: the PM left, the whole steps they buy, and the value.

    ``amount`` is a number (``"15"``) or a dice expression (``"4d6"``); ``"0"`` when absorbed.
    """

    name: str
    unit: str
    pm_allocated: int
    pm_after: int
    steps: int
    amount: str
    absorbed: bool = False


_FRACTION_SCALE = pattern(r"^\(?\s*(?P<amount>[^()/]+?)\s*\)?\s*/\s*(?P<den>\d+)$")
SIMPLE_DICE = pattern(r"^(?P<count>\d*)d(?P<faces>\d+)$")


def parse_scale(text: str | int) -> Scale:
    """Split an Échelle as the book prints it (``5``, ``[1d6]``, ``[1/4]``, ``[(1d6) /3]``) into a Scale."""
    raw = str(text).strip()
    if raw.startswith("[") and raw.endswith("]"):
        raw = raw[1:-1].strip()
    raw = raw.replace(" ", "")
    if not raw:
        raise ContentError(_("An Échelle is empty."))
    match = _FRACTION_SCALE.match(raw)
    if match:
        per_pm = int(match["den"])
        if per_pm < 1:
            raise ContentError(_("The Échelle {text!r} divides by zero.").format(text=text))
        return Scale(amount=match["amount"], per_pm=per_pm)
    return Scale(amount=raw.strip("()"), per_pm=1)


def check_allocation(spend: EffectSpend) -> None:
    """Refuse fewer than 1 PM in an effect (L993) or PM that are not a multiple of the scale's denominator (L1006)."""
    scale = parse_scale(spend.effect.scale)
    if spend.pm < 1:
        raise RuleError(
            _("The effect {spend_effect} needs at least 1 PM (got {spend_pm}); no effect may be left at 0 PM.").format(spend_effect=spend.effect.name, spend_pm=spend.pm)
        )
    if spend.pm % scale.per_pm:
        raise RuleError(
            _("The effect {spend_effect} takes PM in multiples of {scale_per_pm} (got {spend_pm}).").format(spend_effect=spend.effect.name, scale_per_pm=scale.per_pm, spend_pm=spend.pm)
        )


def spell_pm_cost(base_pm: int, spends: Sequence[EffectSpend], pm_max: int | None = None) -> int:
    """Total PM of a cast: PM de Base + the PM of every variable effect (L989), never above PM MAX (L1018).

    >>> rayon = [EffectSpend(effect=VariableEffect(name="Distance", scale="5"), pm=3),
    ...          EffectSpend(effect=VariableEffect(name="Dommage", scale="[1d6/2]", reduction=2), pm=8)]
    >>> spell_pm_cost(0, rayon)
    11
    """
    for spend in spends:
        check_allocation(spend)
    total = base_pm + sum(spend.pm for spend in spends)
    if pm_max is not None and total > pm_max:
        raise RuleError(_("The spell costs {total} PM, above its PM MAX of {pm_max}.").format(total=total, pm_max=pm_max))
    return total


def _scaled_amount(scale: Scale, steps: int) -> str:
    if steps <= 0:
        return "0"
    dice = SIMPLE_DICE.match(scale.amount)
    if dice:
        count = int(dice["count"] or 1)
        return f"{count * steps}d{dice['faces']}"
    if "d" in scale.amount:
        # A compound per-step expression is rolled once per step, as [1d6] per PM is (L1006).
        return "+".join([f"({scale.amount})"] * steps)
    value = rounding.to_fraction(scale.amount) * steps
    return str(value.numerator) if value.denominator == 1 else str(value)


def effect_outcome(effect: VariableEffect, pm_allocated: int, pm_after: int | None = None) -> EffectOutcome:
    """The value an effect produces with ``pm_after`` PM (default: all it was given), in whole steps.

    A partial step left by the DM is lost (ruling D-scale): 2 PM of ``[1d6/2]`` give 1d6, 3 PM too.
    """
    scale = parse_scale(effect.scale)
    pm = pm_allocated if pm_after is None else pm_after
    pm = max(pm, 0)
    steps = pm // scale.per_pm
    return EffectOutcome(
        name=effect.name, unit=effect.unit, pm_allocated=pm_allocated, pm_after=pm, steps=steps,
        amount=_scaled_amount(scale, steps), absorbed=pm == 0,
    )


def dm_after_reduction(pm: int, dm: int, reduction: int) -> int:
    """``[PM après défense] = [(PM de l'effet) - ((DM de la cible) * (réduction de l'effet))]`` (L1028), >= 0."""
    if reduction <= 0 or dm <= 0:
        return pm
    return max(pm - dm * reduction, 0)


def reduce_effects(
    spends: Sequence[EffectSpend], target_dm: int, *, lowered_dm: int | None = None
) -> tuple[EffectOutcome, ...]:
    """Apply one target's DM to every effect with Réduction > 0 (L1026-L1034).

    ``lowered_dm`` is the DM the target chooses to oppose, from 0 to its DM (L1036), e.g. 0 for a
    spell it welcomes. Effects with Réduction 0 (range, distance) are never touched.
    """
    dm = target_dm
    if lowered_dm is not None:
        if not 0 <= lowered_dm <= target_dm:
            raise RuleError(_("A target may lower its DM to between 0 and {target_dm}, not {lowered_dm}.").format(target_dm=target_dm, lowered_dm=lowered_dm))
        dm = lowered_dm
    return tuple(
        effect_outcome(s.effect, s.pm, dm_after_reduction(s.pm, dm, s.effect.reduction)) for s in spends
    )


def roll_effect(dice: Dice, outcome: EffectOutcome, *, purpose: str = "") -> Roll | None:
    """Roll an effect's dice (e.g. Taz's ``[1d6]``); None when the effect has no dice or was absorbed."""
    if outcome.absorbed or "d" not in outcome.amount:
        return None
    return dice.roll(outcome.amount, purpose=purpose or outcome.name.lower())


# --------------------------------------------------------------------------- concentration

class _Penalty(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    key: str
    label: str
    penalty: int
    line: int
    exclusive_group: str | None = None


class _PenaltyFile(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    source: str
    penalties: tuple[_Penalty, ...]


@cache
def _penalties() -> dict[str, _Penalty]:
    try:
        data = msgspec.json.decode(datafiles.read("cnc_penalties.json"), type=_PenaltyFile)
    except msgspec.ValidationError as exc:
        raise ContentError(_("cnc_penalties.json is malformed: {exc}.").format(exc=exc)) from exc
    return {p.key: p for p in data.penalties}


def cnc_penalty(situations: Iterable[str]) -> int:
    """Sum of the CNC penalty table (L943-L950) for the situations at hand (a negative number or 0).

    Rows of one exclusive group (the two armours; one hand busy vs both hands tied) do not stack:
    the worse one counts (ruling D20). A situation named twice counts once.
    """
    table = _penalties()
    worst: dict[str, int] = {}
    total = 0
    for key in dict.fromkeys(situations):
        row = table.get(key)
        if row is None:
            raise UnknownEntity(_("Unknown CNC situation {key!r}; known: {table}.").format(key=key, table=', '.join(table)))
        if row.exclusive_group is None:
            total += row.penalty
        else:
            worst[row.exclusive_group] = min(worst.get(row.exclusive_group, 0), row.penalty)
    return total + sum(worst.values())


class ConcentrationResult(msgspec.Struct, frozen=True, kw_only=True):
    """``[CNC du mage] + [1d20] >= [CNC du sort]`` (L1020); ``margin`` = total - spell CNC."""

    cnc: int
    penalty: int
    die: int
    total: int
    spell_cnc: int
    success: bool
    margin: int
    roll: Roll | None = None


def concentration(
    cnc: int, die: int, spell_cnc: int, *, situations: Iterable[str] = (), alignment_penalty: int = 0,
    roll: Roll | None = None,
) -> ConcentrationResult:
    """Judge a concentration roll from a known d20 face.

    Situational penalties (L941) and the alignment penalty (L1415, whose size is subtracted
    whatever its sign, ruling D4) lower the caster's CNC before the die is added.
    """
    penalty = cnc_penalty(situations) - abs(alignment_penalty)
    total = cnc + penalty + die
    return ConcentrationResult(
        cnc=cnc, penalty=penalty, die=die, total=total, spell_cnc=spell_cnc,
        success=total >= spell_cnc, margin=total - spell_cnc, roll=roll,
    )


def roll_concentration(
    dice: Dice, cnc: int, spell_cnc: int, *, situations: Iterable[str] = (), alignment_penalty: int = 0
) -> ConcentrationResult:
    """Roll the 1d20 of a concentration check and judge it (see :func:`concentration`)."""
    roll = dice.roll("1d20", purpose="concentration")
    return concentration(
        cnc, roll.total, spell_cnc, situations=situations, alignment_penalty=alignment_penalty, roll=roll
    )


class Overdraw(msgspec.Struct, frozen=True, kw_only=True):
    """PM left after paying, and the PV damage for PM drawn below 0 (``1 PM contre 2 PV``, L379)."""

    pm_after: int
    overdrawn_pm: int
    pv_damage: int


def pm_overdraw(current_pm: int, cost: int) -> Overdraw:
    """Pay ``cost`` PM; each PM missing costs 2 PV instead (L379, ruling D6).

    >>> pm_overdraw(3, 11)
    Overdraw(pm_after=0, overdrawn_pm=8, pv_damage=16)
    """
    if cost < 0:
        raise RuleError(_("A spell cannot cost a negative number of PM ({cost}).").format(cost=cost))
    missing = max(cost - max(current_pm, 0), 0)
    return Overdraw(pm_after=max(current_pm, 0) - (cost - missing), overdrawn_pm=missing, pv_damage=2 * missing)


class CastResult(msgspec.Struct, frozen=True, kw_only=True):
    """Steps 3-5 of the casting procedure (L1044-L1046): PM paid, then the concentration roll.

    On a failed roll no effect happens but the PM stay spent (L1022).
    """

    pm_cost: int
    pm_before: int
    pm_after: int
    pv_damage: int
    concentration: ConcentrationResult

    @property
    def success(self) -> bool:
        return self.concentration.success


def cast_spell(
    *, caster_pm: int, caster_cnc: int, base_pm: int, spell_cnc: int, spends: Sequence[EffectSpend] = (),
    die: int | None = None, dice: Dice | None = None, pm_max: int | None = None,
    situations: Iterable[str] = (), alignment_penalty: int = 0, allow_overdraw: bool = True,
    magic_capable: bool = True, predefined_pm: int | None = None,
) -> CastResult:
    """Pay for a spell and roll its concentration (give the d20 face as ``die``, or a ``dice``).

    ``predefined_pm`` is the total of a Prédéfini description, which skips steps 2-3 (L1050).
    A race with PM initial 0 cannot practise magic at all (L493); overdraw needs ``allow_overdraw``.
    """
    if not magic_capable:
        raise RuleError(_("This character's race has PM initial 0 and can never cast a spell."))
    cost = predefined_pm if predefined_pm is not None else spell_pm_cost(base_pm, spends, pm_max)
    if cost > caster_pm and not allow_overdraw:
        raise RuleError(_("The spell costs {cost} PM and the caster has only {caster_pm}.").format(cost=cost, caster_pm=caster_pm))
    paid = pm_overdraw(caster_pm, cost)
    if die is not None:
        check = concentration(caster_cnc, die, spell_cnc, situations=situations, alignment_penalty=alignment_penalty)
    elif dice is not None:
        check = roll_concentration(
            dice, caster_cnc, spell_cnc, situations=situations, alignment_penalty=alignment_penalty
        )
    else:
        raise RuleError(_("A concentration roll needs either the d20 face or dice to roll it."))
    return CastResult(
        pm_cost=cost, pm_before=caster_pm, pm_after=paid.pm_after, pv_damage=paid.pv_damage, concentration=check
    )


# --------------------------------------------------------------------------- timing

SpellTimeKind = Literal["incantation", "instantane", "simultane"]


class SpellTime(msgspec.Struct, frozen=True, kw_only=True):
    """A spell's Temps: an incantation in seconds, INSTANTANÉ or SIMULTANÉ (L962-L967)."""

    kind: SpellTimeKind
    seconds: int = 0


def _fold(text: str) -> str:
    if text.isascii():  # as name_key: ASCII has nothing to decompose
        return text.lower()
    ud = unicode_data()
    return "".join(c for c in ud.normalize("NFKD", text) if not ud.combining(c)).lower()


def parse_spell_time(text: str | int) -> SpellTime:
    """Read a Temps as printed: ``10``, ``"4 secondes"``, ``"1 minute (60 secondes)"``, ``"INSTANTANÉ"``."""
    if isinstance(text, int):
        return SpellTime(kind="incantation", seconds=text)
    folded = _fold(text)
    if folded.startswith("instantan"):
        return SpellTime(kind="instantane")
    if folded.startswith("simultan"):
        return SpellTime(kind="simultane")
    seconds = re.findall(r"(\d+)\s*seconde", folded)
    if seconds:
        return SpellTime(kind="incantation", seconds=int(seconds[-1]))
    minutes = re.match(r"^\s*(\d+)\s*minute", folded)
    if minutes:
        return SpellTime(kind="incantation", seconds=60 * int(minutes[1]))
    if folded.strip().isdigit():
        return SpellTime(kind="incantation", seconds=int(folded))
    raise ContentError(_("Cannot read the spell Temps {text!r}.").format(text=text))


class SpellDurations(msgspec.Struct, frozen=True, kw_only=True):
    """IT a spell costs its caster: incantation when it starts, combustion after the effects (L1267-L1271)."""

    incantation: int
    combustion: int

    @property
    def total(self) -> int:
        return self.incantation + self.combustion


def spell_durations(
    time: SpellTime | str | int, spell_cnc: int, mode: RoundingMode, *, success: bool = True,
    accompanying_seconds: int | None = None,
) -> SpellDurations:
    """Incantation = Temps (0 for INSTANTANÉ and SIMULTANÉ); combustion = CNC du sort / 2, rounded (L1271).

    SIMULTANÉ replaces the combustion by the duration of the accompanying action (ruling D23).
    A failed spell still pays the incantation, never the combustion (L1284).
    """
    spell_time = time if isinstance(time, SpellTime) else parse_spell_time(time)
    incantation = spell_time.seconds if spell_time.kind == "incantation" else 0
    if not success:
        return SpellDurations(incantation=incantation, combustion=0)
    if spell_time.kind == "simultane":
        if accompanying_seconds is None:
            raise RuleError(_("A SIMULTANÉ spell takes the duration of the action that accompanies it; give it."))
        return SpellDurations(incantation=0, combustion=accompanying_seconds)
    return SpellDurations(incantation=incantation, combustion=rounding.divide(spell_cnc, 2, mode))


def deconcentrates(damage: int, check: ConcentrationResult, time: SpellTime | str | int) -> bool:
    """``[Dommage pour déconcentrer] > ([CNC du mage] + [d20]) - [CNC du sort]`` (L972).

    The d20 is the casting roll's own (ruling D5), so the threshold is the roll's margin. INSTANTANÉ
    and SIMULTANÉ spells have no incantation and cannot be deconcentrated (L966).
    """
    spell_time = time if isinstance(time, SpellTime) else parse_spell_time(time)
    if spell_time.kind != "incantation" or not check.success:
        return False
    return damage > check.margin

# --------------------------------------------------------------------------- limits

FORBIDDEN_EFFECTS: dict[str, str] = {
    "guerison": N_("Magic can never heal, cure or regenerate a living being (L1190)."),
    "resurrection": N_("Magic can never give life or raise the dead (L1191)."),
    "temps": N_("Magic has no control over time (L1192)."),
    "ame": N_("Magic can never affect souls or Extra-Sensory powers (L1193)."),
    "alignement": N_("Magic has no power over Alignment (L1423)."),
}
_SYNONYMS = {
    "healing": "guerison", "heal": "guerison", "soin": "guerison", "soigner": "guerison",
    "regeneration": "guerison", "guerir": "guerison", "resurrect": "resurrection", "vie": "resurrection",
    "time": "temps", "soul": "ame", "ames": "ame", "extra-sensoriel": "ame", "alignment": "alignement",
}


def check_magic_can(effect_kinds: Iterable[str]) -> None:
    """Refuse a spell or potion whose effects include what magic can never do (L1186-L1193)."""
    for kind in effect_kinds:
        folded = _fold(kind).strip()
        key = _SYNONYMS.get(folded, folded)
        if key in FORBIDDEN_EFFECTS:
            raise RuleError(_(FORBIDDEN_EFFECTS[key]))
