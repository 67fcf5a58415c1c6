"""Combat decisions, shared part: the numbers of a combatant, whose turn it is, consequences (pure)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from ....bounds import as_int
from ....dice import Dice, parse
from ....errors import DiceError, RuleError, UnknownEntity
from ....events import Event
from ....rounding import RoundingMode, as_mode
from ....ruleset import Emit
from .. import alignment as al
from .. import characters, progression
from .. import combat as c
from .. import magic as m
from ..content import ItemTemplate, SpellDef, race_for_sex
from ..equipment import effective_fixed
from ..stable import stable_states
from ..state import Condition, CristalState
from ..texts import _
from .fold import apply
from .model import (
    STAT_KEYS,
    Bled,
    Combat,
    ConditionChanged,
    Deconcentrated,
    Fighter,
    PvChanged,
    combat_now,
    content,
    stream,
)

# =========================================================================== reading the numbers

def combat_named(state: CristalState, name: str) -> Combat:
    cb = state.combats.get(name)
    if cb is None:
        raise UnknownEntity(_("There is no combat named {name!r} in progress; start one with 'combat start' (an ended fight's table: 'combat log {name}').").format(name=name))
    return cb


def active(state: CristalState, name: str) -> Combat:
    cb = combat_named(state, name)
    if not cb.active:
        raise RuleError(_("The combat {name!r} has ended.").format(name=name))
    return cb


def fighter(cb: Combat, fid: str) -> Fighter:
    f = cb.fighters.get(fid)
    if f is None:
        from ..content import did_you_mean

        raise UnknownEntity(_("{fid} is not in the combat {cb!r}.{did_you_mean}").format(fid=fid, cb=cb.name, did_you_mean=did_you_mean(fid, cb.fighters)))
    return f


class CombatNumbers(msgspec.Struct, frozen=True, kw_only=True):
    """A combatant's numbers for one decision, typed: a character's from its stable and fixed states and
    its pools, then the GM's numbers (``--stat``, the keys of ``STAT_KEYS``), then its current PV/PM.

    None: not known (an extra the GM gave no such number). ``ATT0`` is a character's ATT bare-handed
    (its ATT with a weapon named by the attack is ATT0 plus the weapon's, L298); ``IT`` the IT of its
    main weapon; ``*_LEFT`` what is left today of its daily pools (Vol, Chance, alignment).
    """

    ATT: int | None = None
    ATT0: int | None = None
    DP: int | None = None
    DM: int | None = None
    CNC: int | None = None
    DMG: str | None = None
    PV: int | None = None
    PM: int | None = None
    PVmax: int | None = None
    PMmax: int | None = None
    REF: int | None = None
    CON: int | None = None
    FRC: int | None = None
    PVrace: int | None = None
    PMrace: int | None = None
    race: str | None = None
    ALIGN: int | None = None
    CHANCE: int | None = None
    VOLEUR: int | None = None
    VOL: int | None = None
    VOL_LEFT: int | None = None
    CHANCE_LEFT: int | None = None
    ALIGN_LEFT: int | None = None
    IT: int | None = None


_NUMBER_FIELDS = frozenset(CombatNumbers.__struct_fields__)
Numbers = Callable[[str], CombatNumbers]  # a combatant's numbers by id, for one decision


def numbers_of(state: CristalState, cb: Combat, mode: RoundingMode) -> Numbers:
    """The numbers of the combatants of ``cb``, each built once (one decision reads them many times:
    the turn order, the attacker, the target, the damage)."""
    memo: dict[str, CombatNumbers] = {}

    def of(fid: str) -> CombatNumbers:
        if fid not in memo:
            memo[fid] = numbers(state, cb, fid, mode)
        return memo[fid]

    return of


def _own_numbers(state: CristalState, ch: characters.Character, mode: RoundingMode) -> CombatNumbers:
    """A character's numbers from its stable and fixed states (the same rules as its sheet, L244-L354)."""
    pack = content(state)
    st = characters.stable_of(ch, pack, mode)
    race = race_for_sex(pack.race(ch.race), ch.sex)
    worn = characters.equipped(ch)
    fixed = effective_fixed(characters.current_fixed(ch), worn)
    bare = stable_states(race, ch.classes, characters.current_fixed(ch), worn, weapon=None,
                         mode=mode, content=pack)
    main = characters.main_weapon(ch)
    vol_max = progression.class_bonuses(pack, ch.classes).points.get("Vol", 0)
    used = ch.pools_used
    return CombatNumbers(
        ATT=st.ATT, ATT0=bare.ATT, DP=st.DP, DM=st.DM, CNC=st.CNC, DMG=st.DMG, PVmax=st.PVmax, PMmax=st.PMmax,
        REF=fixed["REF"], CON=fixed["CON"], FRC=fixed["FRC"], PVrace=race.pv_initial, PMrace=race.pm_initial,
        race=race.name, ALIGN=ch.alignment, CHANCE=ch.luck,
        VOLEUR=next((v for k, v in ch.classes.items() if k.casefold() == "voleur"), 0),
        VOL_LEFT=max(0, vol_max - used.get("Vol", 0)),
        CHANCE_LEFT=max(0, max(al.chance_rerolls(ch.luck)) - used.get("chance", 0)),
        ALIGN_LEFT=max(0, al.daily_pool(ch.alignment) - used.get("alignment", 0)),
        IT=(main.it if main.it is not None else 6) if main is not None else None,
    )


def numbers(state: CristalState, cb: Combat, fid: str, mode: RoundingMode) -> CombatNumbers:
    """Everything known about a combatant: its own numbers, then the GM's numbers, then current PV/PM."""
    f = fighter(cb, fid)
    ch = state.characters.get(fid)
    out = _own_numbers(state, ch, mode) if ch is not None else CombatNumbers()
    given = {k: v for k, v in f.stats.items() if k in _NUMBER_FIELDS}  # the GM's numbers (check_stats)
    if given:
        out = msgspec.structs.replace(out, **given)
    if isinstance(f.stats.get("race"), str):  # a race the GM named: its PV and PM bases, unless known
        race = content(state).race(str(f.stats["race"]))
        out = msgspec.structs.replace(out, PVrace=int_or(out.PVrace, race.pv_initial),
                                      PMrace=int_or(out.PMrace, race.pm_initial))
    return msgspec.structs.replace(out, PV=_current(ch, f, out.PV, out.PVmax, "pv", "PV"),
                                   PM=_current(ch, f, out.PM, out.PMmax, "pm", "PM"))


def _current(ch: characters.Character | None, f: Fighter, given: int | None, most: int | None, attr: str,
             key: str) -> int | None:
    """Current PV (or PM): the character's own, unless the GM gave it; else the fighter's; else the
    number given, else its maximum."""
    if ch is not None and key not in f.stats:
        return int(getattr(ch, attr))
    own = getattr(f, attr)
    if own is not None:
        return int(own)
    return given if given is not None else most


def need(value: Any, fid: str, key: str) -> Any:
    """A number the rule needs: refused, naming the ``--stat`` that gives it, when it is not known."""
    if value is None:
        raise RuleError(_("No {key} is known for {fid}; give it with --stat {fid}:{key}=N.").format(key=key, fid=fid))
    return value


def int_or(value: int | None, default: int = 0) -> int:
    """A number that may be unknown, ``default`` then."""
    return value if value is not None else default


def check_stats(state: CristalState, fid: str, stats: dict[str, int | str]) -> dict[str, int | str]:
    out: dict[str, int | str] = {}
    for key, value in stats.items():
        canon = next((k for k in STAT_KEYS if k.casefold() == key.casefold()), None)
        if canon is None:
            raise RuleError(_("Unknown number {key!r} for {fid}; known: {stat_keys}.").format(key=key, fid=fid, stat_keys=', '.join(STAT_KEYS)))
        if canon == "DMG":
            try:
                parse(str(value))
            except DiceError as exc:
                raise RuleError(_("The DMG of {fid} is not a dice expression: {exc}").format(fid=fid, exc=exc)) from None
            out[canon] = str(value)
        elif canon == "race":
            out[canon] = content(state).race(str(value)).name
        else:
            number = as_int(value)
            if number is None:
                raise RuleError(_("{canon} of {fid} must be a whole number, not {value!r}.").format(canon=canon, fid=fid, value=value))
            out[canon] = number
    return out


# =========================================================================== the timeline

def timeline(state: CristalState, cb: Combat, mode: RoundingMode, nums: Numbers | None = None) -> tuple[c.Combatant, ...]:
    """The fight as the pure timeline sees it (unconscious and dead fighters are skipped); ``nums``:
    the decision's numbers (:func:`numbers_of`)."""
    of = nums or numbers_of(state, cb, mode)
    return tuple(
        c.Combatant(name=f.id, it=cb.it[f.id], ref=int_or(of(f.id).REF),
                    active=f.condition == "conscious")
        for f in cb.fighters.values()
    )


def valid_ties(cb: Combat) -> dict[str, int]:
    return {k: v for k, v in cb.tie_rolls.items() if cb.tie_it is not None and cb.it.get(k) == cb.tie_it}


def whose_turn(state: CristalState, name: str, mode: str = "round", nums: Numbers | None = None) -> str:
    """Who acts now: the smallest IT, then the higher REF, then the recorded tie-break die (L1200-L1202)."""
    cb = combat_named(state, name)
    line = timeline(state, cb, as_mode(mode), nums)
    tied = c.tied_for_dice(line)
    ties = valid_ties(cb)
    if tied and any(t not in ties for t in tied):
        raise RuleError(_("{tied} are tied on IT and REF; run 'combat next {name}' to roll the tie-break, or give its d6 first in the command's --dice.").format(tied=' and '.join(tied), name=name))
    return c.next_actor(line, ties)



def turn(state: CristalState, cb: Combat, fid: str, mode: RoundingMode, *, releasing: bool = False,
          nums: Numbers | None = None) -> Fighter:
    f = fighter(cb, fid)
    if f.condition != "conscious":
        raise RuleError(_("{fid} is {f_condition} and cannot act.").format(fid=fid, f_condition=f.condition))
    actor = whose_turn(state, cb.name, mode, nums)
    if actor != fid:
        raise RuleError(_("It is {actor}'s turn (smallest IT), not {fid}'s.").format(actor=actor, fid=fid))
    if f.incantation is not None and not releasing:
        raise RuleError(_("{fid} is incanting {f_incantation_spell}; release it with 'combat release {cb} {fid}'.").format(fid=fid, f_incantation_spell=f.incantation.spell, cb=cb.name))
    return f


# =========================================================================== consequences

class Scratch:
    """PV, PM and conditions as they change during one decision, and the events that record it."""

    def __init__(self, state: CristalState, cb: Combat, mode: RoundingMode):
        self.state, self.cb, self.mode = state, cb, mode
        self.nums = numbers_of(state, cb, mode)  # the decision's numbers, each combatant's built once
        self.pv: dict[str, int] = {}
        self.cond: dict[str, Condition] = {}
        self.events: list[Event] = []

    def pv_of(self, fid: str) -> int:
        if fid not in self.pv:
            self.pv[fid] = need(self.nums(fid).PV, fid, "PV")
        return self.pv[fid]

    def cond_of(self, fid: str) -> Condition:
        return self.cond.get(fid, self.cb.fighters[fid].condition)

    def change(self, fid: str, delta: int, cause: str, *, cap: int | None = None) -> None:
        if self.cond_of(fid) == "dead" or delta == 0:
            return
        nums = self.nums(fid)
        before = c.Vitals(pv=self.pv_of(fid), state=self.cond_of(fid))
        after = c.change_pv(before, delta, race_pv=int_or(nums.PVrace), con=int_or(nums.CON), pv_max=cap)
        self.pv[fid] = after.pv
        self.events.append(PvChanged(name=self.cb.name, character=fid, delta=after.pv - before.pv,
                                     pv_after=after.pv, cause=cause))
        if after.state != before.state:
            self.cond[fid] = after.state
            self.events.append(ConditionChanged(name=self.cb.name, character=fid, condition=after.state,
                                                pv=after.pv))


def hurt_target(sc: Scratch, dice: Dice, tid: str, damage: int, cause: str, mode: RoundingMode, settings: Any = None) -> None:
    """Damage, then deconcentration of a target hit during its incantation (L969-L972)."""
    sc.change(tid, -damage, cause)
    deconcentrate(sc, dice, tid, damage, settings)


def deconcentrate(sc: Scratch, dice: Dice, tid: str, damage: int, settings: Any = None) -> None:
    """A caster hit for ``damage`` during its incantation loses the spell when it exceeds the margin (L972)."""
    inc = sc.cb.fighters[tid].incantation
    if inc is None or damage <= 0 or any(isinstance(e, Deconcentrated) and e.caster == tid for e in sc.events):
        return
    margin, roll = inc.margin, None
    if settings is not None and not settings.deconcentration_reuses_cast_roll:
        roll = dice.roll("1d20", purpose="deconcentration")
        margin = inc.cnc + inc.penalty + roll.total - inc.spell_cnc
    check = m.ConcentrationResult(cnc=inc.cnc, penalty=inc.penalty, die=0, total=inc.spell_cnc + margin,
                                  spell_cnc=inc.spell_cnc, success=True, margin=margin)
    if m.deconcentrates(damage, check, m.SpellTime(kind="incantation", seconds=inc.until)):
        sc.events.append(Deconcentrated(name=sc.cb.name, caster=tid, spell=inc.spell, damage=damage, margin=margin,
                                        roll=roll))


def item_named(state: CristalState, name: str) -> ItemTemplate | None:
    return content(state).item(name) if name else None


def _time_of(spell: SpellDef, override: str, remembered: str = "") -> m.SpellTime:
    """The spell's Temps: the one given now, else the book's, else the one given the last time the
    spell was cast in this campaign (``CristalState.spell_times``)."""
    raw: Any = override or spell.time
    if raw is None or raw == "":
        raw = remembered
    if raw is None or raw == "":
        raise RuleError(_("The Temps of {spell} is not printed; give it with --time SECONDS or INSTANTANÉ (it is then remembered for the next casts).").format(spell=spell.name))
    if isinstance(raw, str) and raw.strip().lstrip("-").isdigit():
        raw = int(raw)
    return m.parse_spell_time(raw)


def finish(state: CristalState, name: str, events: list[Event], mode: RoundingMode) -> list[Emit]:
    """Fold the decision's events, then let the unconscious bleed for the time that passed (L371)."""
    after = state
    for ev in events:
        after = apply(after, ev)
    cb = after.combats[name]
    before_clock = state.combats[name].clock if name in state.combats else 0
    now = combat_now(cb)
    passed = (now - before_clock) if now is not None else 0
    extra: list[Event] = []
    if passed > 0:
        for f in cb.fighters.values():
            if f.condition != "unconscious" or f.aided:
                continue
            nums = numbers(after, cb, f.id, mode)
            pv = need(nums.PV, f.id, "PV")
            v = c.bleed(c.Vitals(pv=pv, state="unconscious", bleed_seconds=f.bleed_seconds), passed,
                        race_pv=int_or(nums.PVrace), con=int_or(nums.CON))
            extra.append(Bled(name=name, character=f.id, seconds=passed, pv_lost=pv - v.pv, pv_after=v.pv,
                              carry=v.bleed_seconds))
            if v.state != "unconscious":
                extra.append(ConditionChanged(name=name, character=f.id, condition=v.state, pv=v.pv))
    return [Emit(stream(name), ev) for ev in [*events, *extra]]


def pool_left(state: CristalState, nums: CombatNumbers, f: Fighter, pool: str) -> int:
    """What is left today of a daily pool: the character's (its own numbers) or the extra's (GM numbers)."""
    own = state.characters.get(f.id) is not None
    match pool:
        case "Vol":
            if own and "VOL" not in f.stats:
                return int_or(nums.VOL_LEFT)
            level = int_or(nums.VOLEUR)
            per_day = content(state).class_def("Voleur").patterns["Vol*"].value(level) if level else 0
            return int_or(nums.VOL, per_day) - f.vol_spent
        case "alignment":
            if own and "ALIGN" not in f.stats:
                return int_or(nums.ALIGN_LEFT)
            return al.daily_pool(int_or(nums.ALIGN)) - f.align_spent
        case _:
            if own and "CHANCE" not in f.stats:
                return int_or(nums.CHANCE_LEFT)
            return max(al.chance_rerolls(int_or(nums.CHANCE))) - f.rerolls  # the player's or the GM's (D16)


def voleur_check(state: CristalState, nums: CombatNumbers, f: Fighter, ability: str) -> int:
    cls = content(state).class_def("Voleur")
    return progression.check_ability(cls, ability, int_or(nums.VOLEUR), pool_left(state, nums, f, "Vol")).cost

