"""Dé100 checks: skills, acuities, search, skinning, lockpicking, blindness, senses, throws, falls.

Each comparison keeps the operator the text writes (catalogue A22): search and skinning are strict
("obtenir moins que" I-L101, "faire moins de" I-L104), lockpicking is inclusive ("moins ou autant que"
I-L106), skills and attacks are inclusive. Pure functions take the die face; ``roll_*`` helpers take
a :class:`~cristal_events.dice.Dice` and return the :class:`Roll` with the result.
"""

from collections.abc import Mapping
from fractions import Fraction

import msgspec

from cristal_events.dice import Dice
from cristal_events.errors import RuleError
from cristal_events.rolls import Roll
from cristal_events.rulesets.illergan.settings import DEFAULT, IllerganSettings, round_gap

from .texts import _

FUMBLE_FACES = (99, 100)  # I-L488, I-L497


class Check(msgspec.Struct, frozen=True, kw_only=True):
    """One Dé100 roll against a threshold."""

    face: int
    threshold: int | float | Fraction  # a blind hero's threshold may be a decimal (I-L413)
    success: bool
    critical: bool = False
    fumble: bool = False
    minor_info: bool = False  # I-L492: failed only because of the GM's malus
    roll: Roll | None = None


def _face(face: int) -> int:
    if face == 0:  # "99 et 100 (00)" I-L316
        return 100
    if not 1 <= face <= 100:
        raise RuleError(_('A Dé100 face must be 01 to 100, not {face}.').format(face=face))
    return face


def skill_check(face: int, threshold: int | float | Fraction, *, critical_ceiling: int = 2) -> Check:
    """Skill roll: 01-02 (or up to the class ceiling, I-L502) always succeed, 99-100 always fail (I-L488).

    >>> skill_check(2, 0).success, skill_check(99, 150).success, skill_check(40, 40).success
    (True, False, True)
    """
    f = _face(face)
    if f in FUMBLE_FACES:
        return Check(face=f, threshold=threshold, success=False, fumble=True)
    if f <= critical_ceiling:
        return Check(face=f, threshold=threshold, success=True, critical=True)
    return Check(face=f, threshold=threshold, success=f <= threshold)


def characteristic_with_skill(characteristic: int, skill_pct: int) -> int:
    """A skill tied to a characteristic adds its % to it (I-L489)."""
    return characteristic + skill_pct


def acuity_check(face: int, acuity: int, malus: int = 0) -> Check:
    """Acuity roll with a GM malus; a roll that only the malus made fail still gives minor info (I-L492)."""
    result = skill_check(face, acuity - malus)
    if result.success or result.fumble:
        return result
    without = skill_check(face, acuity)
    return msgspec.structs.replace(result, minor_info=without.success)


def search(face: int, dex: int, acuity: int, maluses: Mapping[str, int]) -> dict[str, bool]:
    """One search roll per zone, compared with each hidden object's malus: found iff d100 < Dex + Acuité − Malus (I-L101).

    >>> search(45, 40, 50, {"X": 20, "Y": 50})
    {'X': True, 'Y': False}
    """
    f = _face(face)
    for name, malus in maluses.items():
        if not 0 <= malus <= 200:
            raise RuleError(_('The search malus of {name!r} must be 0 to 200 (I-L101), not {malus}.').format(name=name, malus=malus))
    return {name: f < dex + acuity - malus for name, malus in maluses.items()}


def skinning(face: int, dex: int, anatomie: int, malus: int) -> Check:
    """Skinning: success iff d100 < Dex + Anatomie − Malus; a failure destroys the part (I-L104)."""
    if not 0 <= malus <= 200:
        raise RuleError(_('The skinning malus must be 0 to 200 (I-L104), not {malus}.').format(malus=malus))
    f = _face(face)
    threshold = dex + anatomie - malus
    return Check(face=f, threshold=threshold, success=f < threshold)


def lockpick_threshold(dex: int, sav: int, malus: int, settings: IllerganSettings = DEFAULT) -> int | Fraction:
    """[(Dex + Sav)/2 − Malus] (I-L106); the halving's rounding is the ``lockpick_rounding`` setting."""
    return round_gap(Fraction(dex + sav, 2), settings.lockpick_rounding) - malus


def lockpick(face: int, dex: int, sav: int, malus: int, settings: IllerganSettings = DEFAULT) -> Check:
    """Lockpicking: success iff d100 ≤ (Dex + Sav)/2 − Malus (I-L106)."""
    f = _face(face)
    threshold = lockpick_threshold(dex, sav, malus, settings)
    return Check(face=f, threshold=threshold, success=f <= threshold)


def blind_divisor(olfactory: int, auditory: int, settings: IllerganSettings = DEFAULT) -> int:
    """5 − (1 per full 50% in olfactory + auditory acuities), at least ``blind_divisor_min`` (I-L413).

    >>> blind_divisor(100, 100), blind_divisor(0, 0), blind_divisor(30, 40)
    (1, 5, 4)
    """
    return max(settings.blind_divisor_min, 5 - (olfactory + auditory) // 50)


def blinded_threshold(threshold: int, olfactory: int, auditory: int, settings: IllerganSettings = DEFAULT) -> int | Fraction:
    """A blinded Dex / Agilité / Adresse threshold, divided by :func:`blind_divisor` (I-L413, A29)."""
    return round_gap(Fraction(threshold, blind_divisor(olfactory, auditory, settings)), settings.blind_threshold_rounding)


def cast_range(energie: int) -> int:
    """Spell casting range and zone of influence: [5 + Énergie] m (I-L161, I-L474)."""
    return 5 + energie


def sense_range(acuity: int) -> Fraction:
    """Hearing or smell range for casting: [5 + 0,25 × Acuité] m (I-L12-13); no acuity shown = 0% (I-L441)."""
    return 5 + Fraction(acuity, 4)


def casting_range_by_sense(sense: str, energie: int, acuity: int = 0, settings: IllerganSettings = DEFAULT) -> Fraction | int:
    """Range at which the mage can cast on a target he locates by ``sense`` (I-L10-15, A3)."""
    match sense:
        case "sight":
            return cast_range(energie)
        case "hearing" | "smell":
            r = sense_range(acuity)
            cap = cast_range(energie)
            return cap if settings.sense_range_capped_by_cast_range and cap < r else r
        case "touch":
            return 0
    raise RuleError(_('Unknown sense {sense!r}; use sight, hearing, smell or touch.').format(sense=sense))


def throw_offset(face: int, settings: IllerganSettings = DEFAULT) -> Fraction:
    """A thrown object lands [(50 − Dé100)/10] m from its target (I-L404); A21 takes the absolute value."""
    raw = Fraction(50 - _face(face), 10)
    return abs(raw) if settings.throw_offset_abs else raw


class Fall(msgspec.Struct, frozen=True, kw_only=True):
    safe_height: Fraction
    extra: Fraction
    pv_lost: int | Fraction
    knocked_down: bool


def fall(agilite: int, height: int | Fraction, settings: IllerganSettings = DEFAULT) -> Fall:
    """Safe height [1 + Agilité/20] m; beyond it knocked down and [5 × (extra m)²] PV lost (I-L428)."""
    safe = 1 + Fraction(agilite, 20)
    extra = max(Fraction(0), Fraction(height) - safe)
    pv = round_gap(5 * extra * extra, settings.fall_pv_rounding)
    return Fall(safe_height=safe, extra=extra, pv_lost=pv, knocked_down=extra > 0)


def can_knock_down(attacker_vit: int, target_vit: int, *, legs: int) -> bool:
    """A physical action cannot knock down a biped above 4 × the attacker's Vit, nor a quadruped (or more) above it (I-L416)."""
    limit = 4 * attacker_vit if legs <= 2 else attacker_vit
    return target_vit <= limit


def roll_d100(dice: Dice, purpose: str) -> Roll:
    return dice.roll("1d100", purpose=purpose)


def roll_skill(dice: Dice, threshold: int, *, critical_ceiling: int = 2, purpose: str = "skill") -> Check:
    """Roll a Dé100 skill check with ``dice``; the Roll is kept in the result."""
    r = roll_d100(dice, purpose)
    return msgspec.structs.replace(skill_check(r.total, threshold, critical_ceiling=critical_ceiling), roll=r)
