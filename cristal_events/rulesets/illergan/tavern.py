"""An evening at the tavern: drinks and the time that passes, as events (I-L119-159, I-L345-347).

Part of the illergan ruleset. A drink folds one step of :func:`.alcohol.evening` over the drinker's
Alc state (thresholds from Vit, Vol, Fo and E; the minimum lowered at Titubage and Oubli; one event
die every 3 Alc from Gaieté with its Rolls); ``time.passed`` lowers every drinker's Alc by 1 per 45
minutes down to the minimum. Each event carries the state after it and the thresholds, so the
evening projection reads them without the rules.
"""

from typing import Any

import msgspec

from cristal_events.errors import RuleError
from cristal_events.events import Event
from cristal_events.i18n import N_
from cristal_events.records import RecordedEvent
from cristal_events.rolls import Roll
from cristal_events.ruleset import Context, Emit, on_event

from . import alcohol
from .state import Hero, IllerganState, content_of, find, plain, put, stream_of
from .texts import _

CLOCK_STREAM = "clock"


class Limits(msgspec.Struct, frozen=True, kw_only=True):
    """The four thresholds (I-L126-129), as numbers an event can hold."""

    gaiete: int | float
    troublitude: int | float
    titubage: int | float
    oubli: int | float


class Happening(msgspec.Struct, frozen=True, kw_only=True):
    """One thing that happened to a drinker (:class:`.alcohol.AlcEvent` as an event holds it)."""

    kind: str
    band: str | None = None
    alc: int | float = 0
    result: int = 0
    action: str = ""
    nearest: int = 0
    coma_hours: int | float = 0
    rolls: list[Roll] = []
    detail: str = ""


class DrinkConsumed(Event, frozen=True, tag="alcohol.drink_consumed", kw_only=True):
    character: str
    beverage: str
    alc_gained: int
    shift: int = 0
    limits: Limits
    after: alcohol.AlcState
    happenings: list[Happening] = []


class Sobering(msgspec.Struct, frozen=True, kw_only=True):
    character: str
    limits: Limits
    after: alcohol.AlcState
    happenings: list[Happening] = []


class TimePassed(Event, frozen=True, tag="clock.time_passed", kw_only=True):
    minutes: int
    sobering: list[Sobering] = []
    reason: str = ""


class Drink(msgspec.Struct, frozen=True, kw_only=True):
    character: str
    beverage: str
    alc: int | None = None  # the GM's value when the pack has none for this beverage (G8)
    shift: int = 0


class PassTime(msgspec.Struct, frozen=True, kw_only=True):
    minutes: int
    reason: str = ""


def thresholds_of(hero: Hero, settings: Any) -> alcohol.Thresholds:
    """The four thresholds from the base characteristics, or (``alc_threshold_inputs=modified``, A25)
    from the characteristics as the current band leaves them (Titubage −3 Fo −5 Vol, Oubli +2 Fo −10 Vol,
    I-L133-134)."""
    c = hero.characteristics
    if settings.alc_threshold_inputs == "modified":
        c = {k: int(v) for k, v in alcohol.affected(c, hero.alc.band).items() if k in ("Vit", "Vol", "Fo", "E")}
    try:
        return alcohol.thresholds(vit=c["Vit"], vol=c["Vol"], fo=c["Fo"], e=c["E"], settings=settings)
    except KeyError as exc:
        raise RuleError(_('{name} has no {value} on the sheet; the alcohol thresholds need it (I-L126-129).').format(name=hero.name, value=exc.args[0])) from None


def limits(th: alcohol.Thresholds) -> Limits:
    return Limits(gaiete=plain(th.gaiete), troublitude=plain(th.troublitude), titubage=plain(th.titubage),
                  oubli=plain(th.oubli))


def _happening(e: alcohol.AlcEvent) -> Happening:
    return Happening(kind=e.kind, band=e.band, alc=plain(e.alc), result=e.result, action=e.action, nearest=e.nearest,
                     coma_hours=plain(e.coma_hours), rolls=list(e.rolls), detail=e.detail)


def decide_drink(state: IllerganState, cmd: Drink, ctx: Context) -> list[Emit]:
    hero = find(state, cmd.character)
    if hero.dead:
        raise RuleError(_('{name} is dead.').format(name=hero.name))
    content = content_of(state)
    alc = cmd.alc if cmd.alc is not None else content.pack.alc_per_drink.get(cmd.beverage)
    if alc is None:
        raise content.missing(_('The Alc of a {beverage}').format(beverage=cmd.beverage), "G8 Alc per beverage")
    th = thresholds_of(hero, ctx.settings)
    step = alcohol.Drink(alc=alc, name=cmd.beverage, shift=cmd.shift)
    evening = alcohol.evening(hero.alc, [step], th, ctx.dice(), content, background_min=hero.background_alc_min,
                              settings=ctx.settings)
    ev = DrinkConsumed(character=hero.id, beverage=cmd.beverage, alc_gained=alc, shift=cmd.shift, limits=limits(th),
                       after=evening.states[-1], happenings=[_happening(e) for e in evening.events])
    return [Emit(stream_of(hero.id), ev)]


def decide_time(state: IllerganState, cmd: PassTime, ctx: Context) -> list[Emit]:
    if cmd.minutes <= 0:
        raise RuleError(_('Time passes forward only; give some minutes, not {minutes}.').format(minutes=cmd.minutes))
    out = []
    for hero in state.characters.values():
        if hero.dead or (hero.alc.alc == hero.alc.alc_min and not hero.alc.carry_minutes):
            continue
        th = thresholds_of(hero, ctx.settings)
        evening = alcohol.evening(hero.alc, [alcohol.Wait(minutes=cmd.minutes)], th, ctx.dice(), content_of(state),
                                  settings=ctx.settings)
        out.append(Sobering(character=hero.id, limits=limits(th), after=evening.states[-1],
                            happenings=[_happening(e) for e in evening.events]))
    return [Emit(CLOCK_STREAM, TimePassed(minutes=cmd.minutes, sobering=out, reason=cmd.reason))]


def evolve_drink(state: IllerganState, ev: DrinkConsumed, rec: RecordedEvent) -> IllerganState:
    return put(state, msgspec.structs.replace(state.characters[ev.character], alc=ev.after))


def evolve_time(state: IllerganState, ev: TimePassed, rec: RecordedEvent) -> IllerganState:
    state = msgspec.structs.replace(state, clock=state.clock + ev.minutes)
    for s in ev.sobering:
        state = put(state, msgspec.structs.replace(state.characters[s.character], alc=s.after))
    return state


_BANDS = {None: N_("sober"), "gaiete": "Gaieté", "troublitude": "Troublitude", "titubage": "Titubage", "oubli": "Oubli"}


def _drink(e: DrinkConsumed) -> str:
    dice = [f"{h.result} ({h.action})" for h in e.happenings if h.kind == "event_die"]
    extra = _("; event die: {dice}").format(dice=", ".join(dice)) if dice else ""
    return _("{who} drinks {beverage} (+{alc} Alc) → Alc {after}, {band}, minimum {minimum}{extra}").format(
        who=e.character, beverage=e.beverage, alc=e.alc_gained, after=e.after.alc, band=_(_BANDS[e.after.band]),
        minimum=e.after.alc_min, extra=extra)


def _time(e: TimePassed) -> str:
    who = ", ".join(f"{s.character} Alc {s.after.alc}" for s in e.sobering)
    return (_("{minutes} minutes pass{why}: {who}") if who else _("{minutes} minutes pass{why}")).format(
        minutes=e.minutes, why="", who=who)


SUMMARIES: dict[type, Any] = {DrinkConsumed: on_event(_drink), TimePassed: on_event(_time)}
EVENTS: tuple[type, ...] = (DrinkConsumed, TimePassed)
DECIDERS: dict[type, Any] = {Drink: decide_drink, PassTime: decide_time}
EVOLVERS: dict[type, Any] = {DrinkConsumed: evolve_drink, TimePassed: evolve_time}
COMPENSATORS: dict[type, Any] = {}
