"""Spells outside the launch roll: learning a spell after creation (I-L443, TX-20), a spell's duration
kept by concentration and broken into turns (I-L494-495), and cancelling (I-L515). The stacking of two
identical spells on a target (I-L514) is decided with the cast (``fights.decide_cast``) and lands here
as the target's ``active_spells``.

Part of the illergan ruleset (``EVENTS``, ``DECIDERS``, ``EVOLVERS``, ``SUMMARIES``, ``COMPENSATORS``).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import msgspec

from cristal_events.errors import RuleError
from cristal_events.events import Event
from cristal_events.records import RecordedEvent
from cristal_events.ruleset import Context, Emit, on_event

from . import magic
from . import money as coins
from .state import ActiveSpell, Hero, IllerganState, content_of, find, put, stream_of
from .texts import _

TEACHING_SKILL = "Enseignement magique"  # I-L443


# ============================================================================ events
class SpellLearned(Event, frozen=True, tag="magic.spell_learned", kw_only=True):
    character: str
    spell: str
    magic: str
    min_level: int
    teacher: str
    price_c: int
    copper_after: int


class ConcentrationBroken(Event, frozen=True, tag="magic.concentration_broken", kw_only=True):
    caster: str
    spell: str
    holder: str  # whose active spell it is
    remaining_minutes: float
    turns_left: int


class SpellCancelled(Event, frozen=True, tag="magic.spell_cancelled", kw_only=True):
    caster: str
    spell: str
    holder: str


# ============================================================================ commands
class LearnSpell(msgspec.Struct, frozen=True, kw_only=True):
    character: str
    spell: str
    teacher: str  # a character of the campaign (checked) or the name of a teacher of the world
    price_c: int | None = None  # None: the average price, [niveau minimum du sort]'O (I-L443)


class BreakConcentration(msgspec.Struct, frozen=True, kw_only=True):
    caster: str
    spell: str
    remaining_minutes: float
    target: str = ""  # "" = the caster himself


class CancelSpell(msgspec.Struct, frozen=True, kw_only=True):
    caster: str
    spell: str
    target: str = ""


# ============================================================================ decisions
def decide_learn(state: IllerganState, cmd: LearnSpell, ctx: Context) -> list[Emit]:
    hero = find(state, cmd.character)
    content = content_of(state)
    spell = content.entry("spells", cmd.spell)
    if spell.name in hero.spells:
        raise RuleError(_('{name} already masters {name2}.').format(name=hero.name, name2=spell.name))
    known = hero.magics.get(spell.magic)
    if known is None:
        raise RuleError(_('{name} does not know the magic {magic}: learn the magic first (I-L586).').format(name=hero.name, magic=spell.magic))
    if not magic.can_learn_spell(spell, known.level):
        raise RuleError(_('{name} is of minimum level {min_level}; {name2} masters {magic} at level {level} and can learn it from level {min_level} (I-L443).').format(name=spell.name, min_level=spell.min_level, name2=hero.name, magic=spell.magic, level=known.level))
    if not cmd.teacher.strip():
        raise RuleError(_('A spell is learned from a teacher (I-L443): name the teacher.'))
    teacher = state.characters.get(cmd.teacher)
    if teacher is not None:
        if teacher.id == hero.id:
            raise RuleError(_('A character cannot teach himself a spell (I-L443).'))
        if spell.name not in teacher.spells:
            raise RuleError(_('{name} does not know {name2} and cannot teach it (I-L443).').format(name=teacher.name, name2=spell.name))
        if TEACHING_SKILL not in teacher.skills:
            raise RuleError(_('{name} lacks the skill {TEACHING_SKILL} needed to teach a spell (I-L443).').format(name=teacher.name, TEACHING_SKILL=TEACHING_SKILL))
        t_level = teacher.magics[spell.magic].level if spell.magic in teacher.magics else 0
        if t_level <= known.level:
            raise RuleError(_("A teacher is a mage of high level (I-L443): {name} masters {magic} at level {t_level}, not above {name2}'s {level}.").format(name=teacher.name, magic=spell.magic, t_level=t_level, name2=hero.name, level=known.level))
    price = coins.to_copper(coins.Starls(O=magic.spell_price_o(spell)), content) if cmd.price_c is None else cmd.price_c
    if price < 0:
        raise RuleError(_("A teaching price cannot be negative ({price}'C).").format(price=price))
    if price > hero.copper:
        have = coins.from_copper(hero.copper, content)
        raise RuleError(_('Teaching {name} costs {from_copper}; {name2} has only {have}.').format(name=spell.name, from_copper=coins.from_copper(price, content), name2=hero.name, have=have))
    ev = SpellLearned(character=hero.id, spell=spell.name, magic=spell.magic, min_level=spell.min_level,
                      teacher=teacher.id if teacher is not None else cmd.teacher, price_c=price,
                      copper_after=hero.copper - price)
    return [Emit(stream_of(hero.id), ev)]


def _active(state: IllerganState, caster: Hero, spell: str, target: str) -> tuple[Hero, ActiveSpell]:
    holder = find(state, target) if target else caster
    for a in holder.active_spells:
        if a.spell == spell and a.caster == caster.id:
            return holder, a
    raise RuleError(_('{name} has no {spell} in effect on {name2}.').format(name=caster.name, spell=spell, name2=holder.name))


def decide_break(state: IllerganState, cmd: BreakConcentration, ctx: Context) -> list[Emit]:
    caster = find(state, cmd.caster)
    holder, active = _active(state, caster, cmd.spell, cmd.target)
    if not active.concentrated:
        raise RuleError(_('{name} is not concentrating on {spell} (I-L494).').format(name=caster.name, spell=cmd.spell))
    if not 0 <= cmd.remaining_minutes <= active.duration:
        raise RuleError(_('{spell} has 0 to {duration} minutes left, not {remaining_minutes:g}.').format(spell=cmd.spell, duration=active.duration, remaining_minutes=cmd.remaining_minutes))
    turns = magic.concentration_broken(Fraction(cmd.remaining_minutes).limit_denominator(1000))
    ev = ConcentrationBroken(caster=caster.id, spell=cmd.spell, holder=holder.id,
                             remaining_minutes=cmd.remaining_minutes, turns_left=turns)
    return [Emit(stream_of(holder.id), ev)]


def concentration_broken_by(state: IllerganState, caster_ref: str) -> list[Emit]:
    """The conversions of every spell ``caster_ref`` keeps by concentration, when he runs, uses a skill, casts
    another spell or fights (I-L494, ruling MAG-6): the minutes left (the spell's minutes less the log's
    clock since the cast) become turns, rounded down. Nothing for a caster who keeps no spell."""
    caster = state.characters.get(caster_ref) or next(
        (h for h in state.characters.values() if h.name == caster_ref), None)
    if caster is None:
        return []
    emits = []
    for holder in state.characters.values():
        for a in holder.active_spells:
            if a.caster == caster.id and a.concentrated:
                left = max(0, a.duration - max(0, state.clock - a.cast_at))
                ev = ConcentrationBroken(caster=caster.id, spell=a.spell, holder=holder.id,
                                         remaining_minutes=float(left), turns_left=magic.concentration_broken(left))
                emits.append(Emit(stream_of(holder.id), ev))
    return emits


def breaking_concentration(decide: Any, actor: Any) -> Any:
    """``decide`` whose command, when ``actor(cmd)`` names a caster, first breaks his concentration (I-L494):
    the conversions come before the command's own events (decided on the same state, errors first)."""
    def run(state: IllerganState, cmd: Any, ctx: Context) -> list[Emit]:
        emits = decide(state, cmd, ctx)
        who = actor(cmd)
        return [*concentration_broken_by(state, who), *emits] if who else emits
    run.__name__ = getattr(decide, "__name__", "decide")
    run.__doc__ = decide.__doc__
    return run


def decide_cancel(state: IllerganState, cmd: CancelSpell, ctx: Context) -> list[Emit]:
    caster = find(state, cmd.caster)
    holder, _spell = _active(state, caster, cmd.spell, cmd.target)  # only its caster stops it, at any time (I-L515)
    return [Emit(stream_of(holder.id), SpellCancelled(caster=caster.id, spell=cmd.spell, holder=holder.id))]


def stack(holder: Hero, new: ActiveSpell) -> tuple[tuple[ActiveSpell, ...], str]:
    """Two identical spells never stack on one target: the higher level stays, the other is cancelled; at
    an equal level the new one replaces the old (I-L514, ruling MAG-6). Returns the holder's spells and
    "replaced", "cancelled" (the new one) or ""."""
    same = [a for a in holder.active_spells if a.spell == new.spell]
    if same and max(a.level for a in same) > new.level:
        return holder.active_spells, "cancelled"
    kept = tuple(a for a in holder.active_spells if a.spell != new.spell)
    return (*kept, new), "replaced" if same else ""


# ============================================================================ folds
def evolve_learned(state: IllerganState, ev: SpellLearned, rec: RecordedEvent) -> IllerganState:
    hero = state.characters[ev.character]
    return put(state, msgspec.structs.replace(hero, spells=(*hero.spells, ev.spell), copper=ev.copper_after))


def evolve_broken(state: IllerganState, ev: ConcentrationBroken, rec: RecordedEvent) -> IllerganState:
    hero = state.characters[ev.holder]
    spells = tuple(msgspec.structs.replace(a, duration=ev.turns_left, unit="tours", concentrated=False)
                   if a.spell == ev.spell and a.caster == ev.caster else a for a in hero.active_spells)
    return put(state, msgspec.structs.replace(hero, active_spells=spells))


def evolve_cancelled(state: IllerganState, ev: SpellCancelled, rec: RecordedEvent) -> IllerganState:
    hero = state.characters[ev.holder]
    spells = tuple(a for a in hero.active_spells if not (a.spell == ev.spell and a.caster == ev.caster))
    return put(state, msgspec.structs.replace(hero, active_spells=spells))


def _learned(e: SpellLearned) -> str:
    return _("{who} learns {spell} ({magic}) from {teacher} for {price}'C").format(
        who=e.character, spell=e.spell, magic=e.magic, teacher=e.teacher, price=e.price_c)


SUMMARIES: dict[type, Any] = {
    SpellLearned: on_event(_learned),
    ConcentrationBroken: on_event(lambda e: _("{who} stops concentrating on {spell}: {minutes} min left → {turns} turn(s)").format(
        who=e.caster, spell=e.spell, minutes=f"{e.remaining_minutes:g}", turns=e.turns_left)),
    SpellCancelled: on_event(lambda e: _("{who} cancels {spell} on {holder}").format(
        who=e.caster, spell=e.spell, holder=e.holder)),
}
EVENTS: tuple[type, ...] = tuple(SUMMARIES)
DECIDERS: dict[type, Any] = {LearnSpell: decide_learn, BreakConcentration: decide_break, CancelSpell: decide_cancel}
EVOLVERS: dict[type, Any] = {SpellLearned: evolve_learned, ConcentrationBroken: evolve_broken,
                             SpellCancelled: evolve_cancelled}
COMPENSATORS: dict[type, Any] = {}
