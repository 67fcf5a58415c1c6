"""Faith as events: divine powers, the Harmonisation and the game master's bonus faith points.

Part of the illergan ruleset. Faith points per day come from the class and the faith level (Prêtre
[5 + 3 × niveau], others [2 × niveau], I-L592-595); all of them come back at the cult's Harmonisation,
a prayer started within one hour of its time (I-L531-540). Bonus points (PFb) are the game master's:
they never come back and may pay beyond the maximum (I-L597). A divine power (PD) is cast at a level
between its own and the faith level (I-L609), on the caster or a faithful of the same cult within
[5 × niveau de foi] m, anyone in range for a Prêtre (I-L607); in a fight it costs a minor action and
each PD is used once a turn, in defence the minor action of this turn or the next (I-L605).
"""

from typing import Any

import msgspec

from cristal_events.errors import RuleError
from cristal_events.events import Event
from cristal_events.records import RecordedEvent
from cristal_events.ruleset import Context, Emit, on_event

from . import magic
from .fights import sacrifice, spend
from .state import Hero, IllerganState, Turn, content_of, fight_stream, find, find_fight, put, stream_of
from .texts import _


# ============================================================================ events
class PowerInvoked(Event, frozen=True, tag="faith.power_invoked", kw_only=True):
    character: str
    power: str
    cult: str
    level: int
    cast_level: int
    cost: int
    from_pfb: int
    pf_after: int
    pfb_after: int
    target: str = ""
    distance: float = 0
    fight: str = ""
    in_defence: bool = False
    turn_after: Turn | None = None


class FaithRenewed(Event, frozen=True, tag="faith.renewed", kw_only=True):
    """The Harmonisation prayer (or a new day, ``faith_renewal=new_day``): PF back to the day's number."""

    character: str
    cult: str
    at: str = ""  # HH:MM of the prayer
    pf_after: int


class FaithAdjusted(Event, frozen=True, tag="faith.adjusted", kw_only=True):
    """PFb granted for pious acts, or PFb / PF taken for impious ones (I-L597)."""

    character: str
    pfb_delta: int = 0
    pf_delta: int = 0
    reason: str
    pf_after: int
    pfb_after: int


# ============================================================================ commands
class InvokePower(msgspec.Struct, frozen=True, kw_only=True):
    character: str
    power: str
    cast_level: int
    target: str = ""  # "" = the caster himself
    distance: float = 0  # metres to the target (I-L607)
    fight: str = ""
    in_defence: bool = False
    from_pfb: int | None = None  # how many of the PF come from the PFb (A40, pfb_spend_order=player)


class Harmonise(msgspec.Struct, frozen=True, kw_only=True):
    character: str
    at: str = ""  # HH:MM the prayer starts
    sunrise: str = ""  # HH:MM, for Toh-Argan (G32)
    sunset: str = ""  # HH:MM, for the Déesse Noire (G32)


class CultChanged(Event, frozen=True, tag="faith.cult_changed", kw_only=True):
    """A new cult: the first one's levels lost (I-L571, I-L580), or added by an Ancêtres worshipper (I-L573, I-L582)."""
    character: str
    cult: str
    god: str | None = None
    added: bool = False
    faith_level: int
    former: str | None = None
    former_level: int | None = None
    pf_per_day: int = 0
    reason: str = ""


class PowerLearned(Event, frozen=True, tag="faith.power_learned", kw_only=True):
    """A divine power learned from a book or a faithful of level 6 or more (I-L611)."""
    character: str
    power: str
    level: int
    from_book: bool = False
    teacher_level: int | None = None


class ChangeCult(msgspec.Struct, frozen=True, kw_only=True):
    character: str
    cult: str
    god: str | None = None
    add: bool = False
    reason: str = ""


class LearnPower(msgspec.Struct, frozen=True, kw_only=True):
    character: str
    power: str
    from_book: bool = False
    teacher_level: int | None = None


class AdjustFaith(msgspec.Struct, frozen=True, kw_only=True):
    character: str
    reason: str
    pfb: int = 0
    pf: int = 0


# ============================================================================ decisions
DAY = 24 * 60
#: the prayer may start up to an hour after its time (I-L531): two prayers are at least a day less that hour apart
HARMONISATION_WINDOW = 60

def minutes(text: str, what: str) -> int:
    """``"16:30"`` -> 990 minutes after midnight."""
    hours, sep, mins = text.strip().partition(":")
    try:
        h, m = int(hours), int(mins or 0)
    except ValueError:
        raise RuleError(_('{what} must be a time of day like 16:30, not {text!r}.').format(what=what, text=text)) from None
    if not (0 <= h < 24 and 0 <= m < 60) or (sep and not mins):
        raise RuleError(_('{what} must be a time of day like 16:30, not {text!r}.').format(what=what, text=text))
    return h * 60 + m


def _faithful(hero: Hero) -> tuple[str, int]:
    if hero.dead:
        raise RuleError(_('{name} is dead.').format(name=hero.name))
    if hero.cult is None or hero.faith_level is None:
        raise RuleError(_('{name} follows no cult (I-L333).').format(name=hero.name))
    return hero.cult, hero.faith_level


def decide_invoke(state: IllerganState, cmd: InvokePower, ctx: Context) -> list[Emit]:
    hero = find(state, cmd.character)
    cult, level = _faithful(hero)
    content, settings = content_of(state), ctx.settings
    pd = content.entry("divine_powers", cmd.power)
    if pd.cult != cult and pd.cult == hero.added_cult:  # the cult added to the Ancêtres, at its own level (I-L573)
        level = hero.added_faith_level
    elif pd.cult != cult and pd.name not in hero.learned_pds:
        raise RuleError(_("{name} is a divine power of the {cult} cult, not of {name2}'s {cult2} (I-L603).").format(name=pd.name, cult=pd.cult, name2=hero.name, cult2=cult))
    if pd.level > level:
        raise RuleError(_('{name} is a level {level} divine power; {name2} has faith level {level2} (I-L335).').format(name=pd.name, level=pd.level, name2=hero.name, level2=level))
    magic.check_pd_level(level, pd.level, cmd.cast_level)
    if cmd.target and cmd.target != hero.id:
        target = find(state, cmd.target)
        if cmd.distance < 0:
            raise RuleError(_('A distance cannot be negative ({distance} m).').format(distance=cmd.distance))
        if not magic.pd_target_allowed(caster_is_pretre=hero.class_name == "Prêtre", target_is_self=False,
                                       target_same_cult=target.cult == pd.cult, distance=cmd.distance,
                                       faith_level=level):
            who = "anyone" if hero.class_name == "Prêtre" else f"a faithful of the {pd.cult} cult"
            raise RuleError(_('{name} can cast {name2} on himself or on {who} within {pd_range} m (I-L607).').format(name=hero.name, name2=pd.name, who=who, pd_range=magic.pd_range(level)))
    cost = pd.pf_cost.get(cmd.cast_level)
    if cost is None:
        raise content.missing(_('The PF cost of {name} at level {cast_level}').format(name=pd.name, cast_level=cmd.cast_level), "the PD lists and costs")
    from_pfb = 0 if cmd.from_pfb is None and hero.pfb == 0 else cmd.from_pfb  # without PFb there is no choice
    pf_after, pfb_after = magic.spend_faith(hero.pf, hero.pfb, cost, from_pfb=from_pfb, settings=settings)
    turn_after = None
    if cmd.fight:
        fight = find_fight(state, cmd.fight)
        if hero.id not in fight.participants:
            raise RuleError(_("{id} does not take part in the fight '{name}'.").format(id=hero.id, name=fight.name))
        if cmd.in_defence:
            turn_after = sacrifice(fight.turns.get(hero.id, Turn()), "minor", pd=pd.name)
        else:
            turn_after = spend(fight, hero, "minor", settings)
            if pd.name in turn_after.pds:
                raise RuleError(_('{name} already used {name2} this turn (I-L605).').format(name=hero.name, name2=pd.name))
            turn_after = msgspec.structs.replace(turn_after, pds=(*turn_after.pds, pd.name))
    elif cmd.in_defence:
        raise RuleError(_('A divine power in defence needs the fight it is used in (I-L605).'))
    ev = PowerInvoked(character=hero.id, power=pd.name, cult=pd.cult, level=pd.level, cast_level=cmd.cast_level,
                      cost=cost, from_pfb=hero.pfb - pfb_after, pf_after=pf_after, pfb_after=pfb_after,
                      target=cmd.target if cmd.target != hero.id else "", distance=cmd.distance, fight=cmd.fight,
                      in_defence=cmd.in_defence, turn_after=turn_after)
    return [Emit(fight_stream(cmd.fight) if cmd.fight else stream_of(hero.id), ev)]


def decide_harmonise(state: IllerganState, cmd: Harmonise, ctx: Context) -> list[Emit]:
    hero = find(state, cmd.character)
    cult, _god = _faithful(hero)
    if ctx.settings.faith_renewal == "harmonisation":
        if not cmd.at:
            raise RuleError(_('Give the time {name} starts the prayer (the {cult} Harmonisation, I-L531).').format(name=hero.name, cult=cult))
        content = content_of(state)
        at = minutes(cmd.at, "The prayer time")
        sunrise = minutes(cmd.sunrise, "The sunrise") if cmd.sunrise else None
        sunset = minutes(cmd.sunset, "The sunset") if cmd.sunset else None
        if not magic.harmonised(cult, at, content, sunrise=sunrise, sunset=sunset):
            start = magic.harmonisation_start(cult, content, sunrise=sunrise, sunset=sunset)
            raise RuleError(_('The {cult} Harmonisation starts at {value:02d}:{value2:02d}; a prayer at {at} is outside its hour and brings no PF back (I-L531).').format(cult=cult, value=start // 60, value2=start % 60, at=cmd.at))
    if hero.pf >= hero.pf_per_day:
        raise RuleError(_('{name} already has all {pf_per_day} PF of the day.').format(name=hero.name, pf_per_day=hero.pf_per_day))
    if hero.harmonised_at is not None:
        since = state.clock - hero.harmonised_at
        gap = DAY - HARMONISATION_WINDOW if ctx.settings.faith_renewal == "harmonisation" else DAY
        if since < gap:
            raise RuleError(_("{name} already renewed the PF {since} minutes ago on the log's clock; one Harmonisation a day (I-L531): the next one is {value} minutes away (wait).").format(name=hero.name, since=since, value=gap - since))
    return [Emit(stream_of(hero.id), FaithRenewed(character=hero.id, cult=cult, at=cmd.at, pf_after=hero.pf_per_day))]


def decide_adjust(state: IllerganState, cmd: AdjustFaith, ctx: Context) -> list[Emit]:
    hero = find(state, cmd.character)
    _faithful(hero)
    if not cmd.reason.strip():
        raise RuleError(_('A change of faith points needs a reason (pious or impious acts, I-L597).'))
    if not cmd.pfb and not cmd.pf:
        raise RuleError(_('Give the PFb granted or taken, or the PF taken.'))
    if cmd.pf > 0:
        raise RuleError(_('The game master may take PF for impious acts, never give them; give PFb instead (I-L597).'))
    pf, pfb = hero.pf + cmd.pf, hero.pfb + cmd.pfb
    if pf < 0 or pfb < 0:
        raise RuleError(_('{name} has {pf} PF and {pfb} PFb; that many cannot be taken.').format(name=hero.name, pf=hero.pf, pfb=hero.pfb))
    ev = FaithAdjusted(character=hero.id, pfb_delta=cmd.pfb, pf_delta=cmd.pf, reason=cmd.reason, pf_after=pf,
                       pfb_after=pfb)
    return [Emit(stream_of(hero.id), ev)]


def decide_change_cult(state: IllerganState, cmd: ChangeCult, ctx: Context) -> list[Emit]:
    """Change cult (religious classes start the new one at 2 if they passed that level, else at
    ``cult_change_fallback_level``; the others at 0, I-L571, I-L580, A38) or add one (I-L573, I-L582)."""
    hero = find(state, cmd.character)
    if hero.dead:
        raise RuleError(_('{name} is dead.').format(name=hero.name))
    content = content_of(state)
    content.entry("cults", cmd.cult)
    klass = content.entry("classes", hero.class_name) if hero.class_name else None
    religious = bool(klass is not None and klass.religious)
    if cmd.add:
        if hero.cult is None:
            raise RuleError(_('{name} follows no cult yet: choose one first (I-L578).').format(name=hero.name))
        if hero.former_cults or hero.cult != "Ancêtres":
            raise RuleError(_('Only characters who first worshipped the Ancêtres may add a second cult (I-L573).'))
        if hero.added_cult is not None:
            raise RuleError(_('An Ancêtres worshipper may add one new cult only (I-L573).'))
        if cmd.cult == hero.cult:
            raise RuleError(_('{name} already worships the {cult}.').format(name=hero.name, cult=cmd.cult))
        level = magic.added_cult_level(hero.cult, 1)
        return [Emit(stream_of(hero.id), CultChanged(character=hero.id, cult=cmd.cult, god=cmd.god, added=True,
                                                     faith_level=level, pf_per_day=hero.pf_per_day, reason=cmd.reason))]
    if cmd.cult == hero.cult:
        raise RuleError(_('{name} already worships the {cult}.').format(name=hero.name, cult=cmd.cult))
    if hero.cult is None:  # a first cult, chosen in play: level 0 (I-L578)
        level = magic.OTHER_START_LEVEL
    else:
        level = magic.new_cult_level(religious=religious, old_level=hero.faith_level or 0, settings=ctx.settings)
    return [Emit(stream_of(hero.id), CultChanged(
        character=hero.id, cult=cmd.cult, god=cmd.god, faith_level=level, former=hero.cult,
        former_level=hero.faith_level, pf_per_day=magic.pf_per_day(hero.class_name, level), reason=cmd.reason))]


def decide_learn(state: IllerganState, cmd: LearnPower, ctx: Context) -> list[Emit]:
    """From a book or a faithful of level 6+, a PD of a level the learner has unlocked (I-L611)."""
    hero = find(state, cmd.character)
    cult, level = _faithful(hero)
    pd = content_of(state).entry("divine_powers", cmd.power)
    if pd.name in hero.learned_pds or (pd.cult == cult and pd.level <= level):
        raise RuleError(_('{name} already masters {name2} (I-L335).').format(name=hero.name, name2=pd.name))
    if not cmd.from_book and cmd.teacher_level is None:
        raise RuleError(_('A divine power is learned from a book or from a faithful of level 6 or more (I-L611).'))
    if not magic.can_learn_pd(level, pd.level, teacher_level=cmd.teacher_level, from_book=cmd.from_book):
        if pd.level > level:
            raise RuleError(_('{name} is a level {level} divine power; {name2} has unlocked faith level {level2} only (I-L611).').format(name=pd.name, level=pd.level, name2=hero.name, level2=level))
        raise RuleError(_('A divine power is taught by a faithful of level {PD_TEACHER_LEVEL} or more, not {teacher_level} (I-L611).').format(PD_TEACHER_LEVEL=magic.PD_TEACHER_LEVEL, teacher_level=cmd.teacher_level))
    return [Emit(stream_of(hero.id), PowerLearned(character=hero.id, power=pd.name, level=pd.level,
                                                  from_book=cmd.from_book, teacher_level=cmd.teacher_level))]


# ============================================================================ folds
def _set(state: IllerganState, character: str, **changes: Any) -> IllerganState:
    return put(state, msgspec.structs.replace(state.characters[character], **changes))


def evolve_invoked(state: IllerganState, ev: PowerInvoked, rec: RecordedEvent) -> IllerganState:
    state = _set(state, ev.character, pf=ev.pf_after, pfb=ev.pfb_after)
    if ev.fight and ev.turn_after is not None and ev.fight in state.fights:
        f = state.fights[ev.fight]
        state = msgspec.structs.replace(state, fights={
            **state.fights, f.name: msgspec.structs.replace(f, turns={**f.turns, ev.character: ev.turn_after})})
    return state


def evolve_renewed(state: IllerganState, ev: FaithRenewed, rec: RecordedEvent) -> IllerganState:
    return _set(state, ev.character, pf=ev.pf_after, harmonised_at=state.clock)


def evolve_cult(state: IllerganState, ev: CultChanged, rec: RecordedEvent) -> IllerganState:
    hero = state.characters[ev.character]
    if ev.added:
        return _set(state, ev.character, added_cult=ev.cult, added_faith_level=ev.faith_level)
    former = hero.former_cults + ((ev.former,) if ev.former else ())
    # the new cult's PF come at its first Harmonisation (ruling I18)
    return _set(state, ev.character, cult=ev.cult, god=ev.god, faith_level=ev.faith_level, former_cults=former,
                pf_per_day=ev.pf_per_day, pf=0, harmonised_at=None)


def evolve_learned(state: IllerganState, ev: PowerLearned, rec: RecordedEvent) -> IllerganState:
    return _set(state, ev.character, learned_pds=state.characters[ev.character].learned_pds + (ev.power,))


def evolve_adjusted(state: IllerganState, ev: FaithAdjusted, rec: RecordedEvent) -> IllerganState:
    return _set(state, ev.character, pf=ev.pf_after, pfb=ev.pfb_after)


# ============================================================================ summaries
def _invoked(e: PowerInvoked) -> str:
    on = _(" on {target} ({distance} m)").format(target=e.target, distance=f"{e.distance:g}") if e.target else ""
    d = _(" in defence") if e.in_defence else ""
    return _("{who} invokes {power} level {level}{on}{defence}: {cost} PF ({pfb} of them PFb) → PF {pf}, "
             "PFb {pfb_after}").format(who=e.character, power=e.power, level=e.cast_level, on=on, defence=d,
                                       cost=e.cost, pfb=e.from_pfb, pf=e.pf_after, pfb_after=e.pfb_after)


def _cult(e: CultChanged) -> str:
    if e.added:
        return _("{who} adds the cult {cult} at faith level {level}").format(
            who=e.character, cult=e.cult, level=e.faith_level)
    if e.former is None:
        return _("{who} chooses the cult {cult}, faith level {level}").format(
            who=e.character, cult=e.cult, level=e.faith_level)
    former = _(" (level {level})").format(level=e.former_level) if e.former_level is not None else ""
    return _("{who} leaves the cult {former}{former_level} for {cult}, faith level {level}, {pf} PF a day").format(
        who=e.character, former=e.former, former_level=former, cult=e.cult, level=e.faith_level, pf=e.pf_per_day)


SUMMARIES: dict[type, Any] = {
    PowerInvoked: on_event(_invoked),
    FaithRenewed: lambda r: _("{who}: Harmonisation ({cult}{at}) → PF {pf}").format(
        who=r.event.character, cult=r.event.cult, at=f", {r.event.at}" if r.event.at else "", pf=r.event.pf_after),
    FaithAdjusted: lambda r: _("{who}: PFb {pfb:+d}, PF {pf:+d} ({reason})").format(
        who=r.event.character, pfb=r.event.pfb_delta, pf=r.event.pf_delta, reason=r.event.reason),
    CultChanged: on_event(_cult),
    PowerLearned: lambda r: _("{who} learns the divine power {power} (level {level}, {source})").format(
        who=r.event.character, power=r.event.power, level=r.event.level,
        source=_("from a book") if r.event.from_book
        else _("from a faithful of level {level}").format(level=r.event.teacher_level)),
}
EVENTS: tuple[type, ...] = tuple(SUMMARIES)
DECIDERS: dict[type, Any] = {InvokePower: decide_invoke, Harmonise: decide_harmonise, AdjustFaith: decide_adjust,
                             ChangeCult: decide_change_cult, LearnPower: decide_learn}
EVOLVERS: dict[type, Any] = {PowerInvoked: evolve_invoked, FaithRenewed: evolve_renewed, FaithAdjusted: evolve_adjusted,
                             CultChanged: evolve_cult, PowerLearned: evolve_learned}
COMPENSATORS: dict[type, Any] = {}
