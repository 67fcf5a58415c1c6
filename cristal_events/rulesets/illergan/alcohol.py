"""Alcohol (I-L119-159, I-L345-347): thresholds, band effects, decay, Alc minimum, event dice.

:func:`evening` is a pure fold over drinks and waits that returns every intermediate state and the
events (thresholds crossed, minimum lowered, event dice with their Rolls, memory loss window).
"""

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Literal

import msgspec

from cristal_events.dice import Dice
from cristal_events.errors import RuleError
from cristal_events.rolls import Roll
from cristal_events.rulesets.illergan.content import Content
from cristal_events.rulesets.illergan.settings import DEFAULT, IllerganSettings, round_gap

from .texts import _

Band = Literal["gaiete", "troublitude", "titubage", "oubli"]
BANDS: tuple[Band, ...] = ("gaiete", "troublitude", "titubage", "oubli")
DECAY_MINUTES = 45  # I-L123
EVENT_STEP = 3  # I-L138
OUBLI_GAP = 7  # I-L129


class Thresholds(msgspec.Struct, frozen=True, kw_only=True):
    gaiete: int | Fraction
    troublitude: int | Fraction
    titubage: int | Fraction
    oubli: int | Fraction


def thresholds(*, vit: int, vol: int, fo: int, e: int, settings: IllerganSettings = DEFAULT) -> Thresholds:
    """G = [Vit/25], T = G + [Vol/15], Ti = T + [(Fo+E)/4], O = Ti + 7 (I-L126-129); each bracket
    rounded with ``alc_threshold_rounding`` (A25, default: exact)."""
    r = settings.alc_threshold_rounding
    g = round_gap(Fraction(vit, 25), r)
    t = g + round_gap(Fraction(vol, 15), r)
    ti = t + round_gap(Fraction(fo + e, 4), r)
    return Thresholds(gaiete=g, troublitude=t, titubage=ti, oubli=ti + OUBLI_GAP)


def band(alc: int | Fraction, th: Thresholds) -> Band | None:
    """The active band: threshold ≤ Alc < next threshold; nothing below Gaieté (I-L136)."""
    current: Band | None = None
    for name in BANDS:
        if alc >= getattr(th, name):
            current = name
    return current


class Effects(msgspec.Struct, frozen=True, kw_only=True):
    """One band's effects (I-L131-134); they do not stack, only the active band applies."""

    dex: int = 0
    cha: int = 0
    sav: int = 0
    acuities: int = 0
    fo: int = 0
    vol: int = 0
    dep_factor: Fraction = Fraction(1)
    mana_divisor: int = 1
    spell_level: int = 0
    alc_min_drop: int = 0
    notes: str = ""


EFFECTS: dict[Band, Effects] = {
    "gaiete": Effects(dex=-10, cha=-10, acuities=-10, notes="Humeur joyeuse"),
    "troublitude": Effects(dex=-20, cha=-20, sav=-20, acuities=-20, dep_factor=Fraction(3, 4),
                           notes="Difficultés de concentration"),
    "titubage": Effects(fo=-3, mana_divisor=2, vol=-5, dex=-40, cha=-40, sav=-40, acuities=-40,
                        dep_factor=Fraction(1, 2), alc_min_drop=1,
                        notes="Difficultés de concentration et de mouvements"),
    "oubli": Effects(fo=2, mana_divisor=3, spell_level=1, vol=-10, dex=-60, cha=-60, sav=-60, acuities=-60,
                     dep_factor=Fraction(1, 2), alc_min_drop=1,
                     notes="Difficultés de concentration et de mouvements, perte de mémoire"),
}


def affected(chars: Mapping[str, int], b: Band | None) -> dict[str, int | Fraction]:
    """Characteristics under a band: Dex, Cha, Sav, Fo, Vol added; Dep multiplied; Mana divided (A27: the characteristic)."""
    out: dict[str, int | Fraction] = dict(chars)
    if b is None:
        return out
    fx = EFFECTS[b]
    for key, delta in (("Dex", fx.dex), ("Cha", fx.cha), ("Sav", fx.sav), ("Fo", fx.fo), ("Vol", fx.vol)):
        if key in out:
            out[key] = out[key] + delta
    for key in [k for k in out if k.startswith("Acuité")]:
        out[key] = out[key] + fx.acuities
    if "Dep" in out:
        out["Dep"] = out["Dep"] * fx.dep_factor
    if "Mana" in out:
        out["Mana"] = Fraction(out["Mana"], fx.mana_divisor)
    return out


def event_shift_max(acquired_drop: int, background_min: int = 0, settings: IllerganSettings = DEFAULT) -> int:
    """Every −10 Alc acquired lets the player move the event die by 1 (I-L124); A23: background excluded."""
    total = acquired_drop + (abs(background_min) if settings.alc_shift_counts_background else 0)
    return total // 10


def alc_min_change(*, oubli_reached: int, titubage_only_reached: int) -> int:
    """−1 per Titubage reached, −1 more per Oubli reached (I-L124): Oubli 2× and Titubage 1× → −5."""
    return -(2 * oubli_reached + titubage_only_reached)


def event_action(result: int, content: Content) -> tuple[str, bool, bool]:
    """(action, d4 target, coma) for an event-die result, clamped to 1..24 (I-L146-159)."""
    r = min(max(result, 1), 24)
    for row in content.pack.alc_events:
        if row.low <= r <= row.high:
            return row.action, row.d4_target, row.coma
    raise RuleError(_('No alcohol event covers the result {result}.').format(result=result))


def coma_hours(alc: int | Fraction, settings: IllerganSettings = DEFAULT) -> int | Fraction:
    """Coma éthylique pendant [Alc/5] h (I-L159)."""
    return round_gap(Fraction(alc) / 5, settings.coma_hours_rounding)


# ---------------------------------------------------------------- the fold


class Drink(msgspec.Struct, frozen=True, kw_only=True, tag="drink"):
    alc: int
    name: str = ""
    shift: int = 0  # the player's move of this step's event dice (I-L124)


class Wait(msgspec.Struct, frozen=True, kw_only=True, tag="wait"):
    minutes: int


Step = Drink | Wait


class AlcState(msgspec.Struct, frozen=True, kw_only=True):
    alc: int
    alc_min: int
    acquired_drop: int = 0
    carry_minutes: int = 0
    band: Band | None = None
    forgetting: bool = False


class AlcEvent(msgspec.Struct, frozen=True, kw_only=True):
    step: int
    kind: Literal["band_up", "band_down", "alc_min_lowered", "event_die", "memory_loss"]
    band: Band | None = None
    alc: int | Fraction = 0
    result: int = 0
    action: str = ""
    nearest: int = 0
    coma_hours: int | Fraction = 0
    rolls: tuple[Roll, ...] = ()
    detail: str = ""


class Evening(msgspec.Struct, frozen=True, kw_only=True):
    states: tuple[AlcState, ...]
    events: tuple[AlcEvent, ...]


def start(alc_min: int = 0) -> AlcState:
    """At rest Alc equals its minimum, 0 by default or negative from the background (I-L123, I-L346)."""
    if alc_min > 0:
        raise RuleError(_('The Alc minimum is written negatively (I-L346), not {alc_min}.').format(alc_min=alc_min))
    return AlcState(alc=alc_min, alc_min=alc_min)


def _grid(th: Thresholds, settings: IllerganSettings) -> tuple[int | Fraction, int]:
    anchor = th.gaiete + (EVENT_STEP if settings.alc_event_anchor == "G+3" else 0)
    return anchor, EVENT_STEP


def _points(low: int, high: int, th: Thresholds, settings: IllerganSettings) -> list[int | Fraction]:
    """Grid points p with low < p ≤ high."""
    anchor, step = _grid(th, settings)
    out: list[int | Fraction] = []
    p = anchor
    while p <= high:
        if p > low:
            out.append(p)
        p += step
    return out


def _drink(i: int, s: AlcState, d: Drink, th: Thresholds, dice: Dice, content: Content,
           background_min: int, settings: IllerganSettings) -> tuple[AlcState, list[AlcEvent]]:
    if d.alc < 0:
        raise RuleError(_('A drink adds Alc; {alc} was given.').format(alc=d.alc))
    events: list[AlcEvent] = []
    new = s.alc + d.alc
    limit = event_shift_max(s.acquired_drop, background_min, settings)
    if abs(d.shift) > limit:
        raise RuleError(_('The event die can be moved by at most {limit} (I-L124), not {shift}.').format(limit=limit, shift=d.shift))
    alc_min, acquired, forgetting = s.alc_min, s.acquired_drop, s.forgetting
    for name in ("titubage", "oubli"):
        if s.alc < getattr(th, name) <= new:
            alc_min, acquired = alc_min - 1, acquired + 1
            events.append(AlcEvent(step=i, kind="alc_min_lowered", band=name, alc=alc_min))
            forgetting = forgetting or name == "oubli"
    for p in _points(s.alc, new, th, settings):
        b = band(p, th)
        assert b is not None
        roll = dice.roll(content.pack.alc_event_die[b], purpose=f"alcohol event ({b})")
        result = min(max(roll.total + d.shift, 1), 24)
        action, d4, coma = event_action(result, content)
        rolls: tuple[Roll, ...] = (roll,)
        nearest = 0
        if d4:
            r4 = dice.roll("1d4", purpose="nearest person")
            rolls, nearest = (roll, r4), r4.total
        events.append(AlcEvent(step=i, kind="event_die", band=b, alc=p, result=result, action=action,
                               nearest=nearest, coma_hours=coma_hours(p, settings) if coma else 0, rolls=rolls))
    new_band = band(new, th)
    if new_band != s.band:
        events.append(AlcEvent(step=i, kind="band_up", band=new_band, alc=new))
    return AlcState(alc=new, alc_min=alc_min, acquired_drop=acquired, carry_minutes=s.carry_minutes,
                    band=new_band, forgetting=forgetting), events


def _wait(i: int, s: AlcState, w: Wait, th: Thresholds) -> tuple[AlcState, list[AlcEvent]]:
    if w.minutes < 0:
        raise RuleError(_('Time cannot run backwards ({minutes} minutes).').format(minutes=w.minutes))
    total = s.carry_minutes + w.minutes
    drops, carry = divmod(total, DECAY_MINUTES)
    new = max(s.alc_min, s.alc - drops)
    if new == s.alc_min:
        carry = 0
    events: list[AlcEvent] = []
    new_band = band(new, th)
    forgetting = s.forgetting
    if new_band != s.band:
        events.append(AlcEvent(step=i, kind="band_down", band=new_band, alc=new))
    if forgetting and new < th.titubage:
        events.append(AlcEvent(step=i, kind="memory_loss", alc=new,
                               detail="Mémoire perdue depuis le seuil de titubage jusqu'au retour au seuil de troublitude"))
        forgetting = False
    return msgspec.structs.replace(s, alc=new, carry_minutes=carry, band=new_band, forgetting=forgetting), events


def evening(state: AlcState, steps: Sequence[Step], th: Thresholds, dice: Dice, content: Content, *,
            background_min: int = 0, settings: IllerganSettings = DEFAULT) -> Evening:
    """Fold drinks and waits: Alc −1 every 45 min down to the minimum (I-L123); the minimum drops on
    reaching Titubage and Oubli (I-L124, A24: each upward crossing); while Alc rises one event die every
    3 Alc from Gaieté (I-L138, A26), of the band at that point (I-L139-142)."""
    states: list[AlcState] = [state]
    events: list[AlcEvent] = []
    s = state
    for i, step in enumerate(steps):
        match step:
            case Drink():
                s, ev = _drink(i, s, step, th, dice, content, background_min, settings)
            case Wait():
                s, ev = _wait(i, s, step, th)
        states.append(s)
        events.extend(ev)
    return Evening(states=tuple(states), events=tuple(events))


def minutes_to_rest(alc: int, alc_min: int) -> int:
    """Minutes until Alc is back to its minimum: 45 per Alc (I-L123)."""
    return max(0, alc - alc_min) * DECAY_MINUTES
