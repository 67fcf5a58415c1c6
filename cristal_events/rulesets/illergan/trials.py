"""Dé100 checks as events: skills, acuities, characteristics, search, skinning and lockpicking.

Part of the illergan ruleset. Each check rolls through ``ctx.dice()`` and stores its Roll; the
thresholds reuse :mod:`.checks` (01-02 always succeed and 99-100 always fail for skills, I-L488;
search and skinning are strict, lockpicking inclusive, A22). Characteristics are read as they are now,
with the alcohol band's effects (I-L131-134).
"""

from fractions import Fraction
from typing import Any, Literal

import msgspec

from cristal_events.errors import RuleError, UnknownEntity
from cristal_events.events import Event
from cristal_events.records import RecordedEvent
from cristal_events.rolls import Roll
from cristal_events.ruleset import Context, Emit, on_event

from . import checks, combat, gear, spellbook
from .alcohol import EFFECTS
from .fights import sacrifice, spend
from .fights.fold import with_wound
from .state import (
    IllerganState,
    Turn,
    content_of,
    fight_stream,
    find,
    find_fight,
    plain,
    put,
    stat,
    stream_of,
)
from .texts import _

#: the conditions a GM sets (I-L413)
ConditionName = Literal["aveuglé", "invisible"]
CONDITIONS: tuple[ConditionName, ...] = ("aveuglé", "invisible")
BLIND_STATS = ("Dex", "Agilité", "Adresse")  # I-L413

SKILL_KINDS = ("skill", "search", "skinning", "lockpick")  # the rolls of a skill (I-L494)
CheckKind = Literal["skill", "acuity", "characteristic", "search", "skinning", "lockpick"]


class CheckRolled(Event, frozen=True, tag="check.rolled", kw_only=True):
    character: str
    kind: CheckKind
    what: str
    threshold: int | float
    malus: int = 0
    roll: Roll
    success: bool
    critical: bool = False
    fumble: bool = False
    minor_info: bool = False
    found: dict[str, bool] = {}
    bonus: int = 0  # a bonus to the skill (an object, a spell...), added to its % (I-L490)
    unlocked: bool = False  # the skill was not on the sheet: the bonus unlocks it at 0% for its time (I-L490)
    # lockpicking (I-L106-108): the lock picked, the attempt's number, its time, the backlash of a failure
    lock_name: str = ""
    attempt: int = 0
    minutes: int = 0
    backlash: str = ""
    pv_lost: int = 0
    pick_broken: bool = False


class ObjectThrown(Event, frozen=True, tag="check.object_thrown", kw_only=True):
    character: str
    what: str
    distance: float
    max_range: float
    roll: Roll
    offset_m: float  # where it lands from the target (I-L404, A21)
    fight: str = ""
    turn_after: Turn | None = None


class FallTaken(Event, frozen=True, tag="check.fall_taken", kw_only=True):
    character: str
    height: float
    safe_height: float
    extra: float
    pv_lost: int
    pv_after: int
    knocked_down: bool
    dead: bool = False
    fight: str = ""
    turn_after: Turn | None = None


class ObjectStruck(Event, frozen=True, tag="check.object_struck", kw_only=True):
    """A blow at an object: [damage − SR] off its PS, rounded up; broken at 0 PS (I-L407-409). The
    object's PS and SR are the game master's estimate (the text's table is missing)."""

    character: str
    what: str
    ps_before: int
    sr: int
    damage: int | float
    power_rolls: list[Roll] = []
    ps_lost: int
    ps_after: int
    broken: bool
    fight: str = ""
    turn_after: Turn | None = None


class ConditionChanged(Event, frozen=True, tag="check.condition_changed", kw_only=True):
    character: str
    condition: str
    on: bool
    reason: str = ""


class RollCheck(msgspec.Struct, frozen=True, kw_only=True):
    """``what``: a skill, an acuity or a characteristic; ``with_characteristic`` adds the skill's
    characteristic (I-L489). ``kind`` search / skinning / lockpick use their own formulas."""

    character: str
    kind: Literal["check", "search", "skinning", "lockpick"] = "check"
    what: str = ""
    malus: int = 0
    with_characteristic: bool = False
    hidden: dict[str, int] = {}
    lock: str | None = None
    bonus: int = 0  # a bonus to the skill from an effect; a skill not on the sheet is unlocked at 0% (I-L490)
    lock_name: str = ""  # the lock itself (a door, a chest), for its maximum attempts; default its type


class Throw(msgspec.Struct, frozen=True, kw_only=True):
    """Throw an object lifted with one hand ``distance`` m; the GM sets its range, 10 to 30 m (I-L400-405)."""

    character: str
    what: str
    distance: float
    max_range: float
    fight: str = ""


class StrikeObject(msgspec.Struct, frozen=True, kw_only=True):
    character: str
    what: str
    ps: int  # its PS now (the GM's estimate, or what the last blow left)
    sr: int
    weapon: str | None = None  # None: the weapon held; "": bare hands
    power_dice: int | None = None
    fight: str = ""


class TakeFall(msgspec.Struct, frozen=True, kw_only=True):
    character: str
    height: float
    fight: str = ""


class SetCondition(msgspec.Struct, frozen=True, kw_only=True):
    character: str
    condition: ConditionName
    on: bool = True
    reason: str = ""


def acuity_pct(hero: Any, name: str) -> int:
    """An acuity the sheet does not show counts 0% (I-L441)."""
    entry = hero.skills.get(name)
    return entry.pct if entry is not None else 0


def blinded(hero: Any, threshold: int | float, settings: Any) -> int | float:
    """A Dex, Agilité or Adresse threshold of a blind character, divided by 5 − (1 per 50% of olfactory +
    auditory acuities) (I-L413)."""
    return plain(checks.blinded_threshold(int(threshold), acuity_pct(hero, "Acuité olfactive"),
                                          acuity_pct(hero, "Acuité auditive"), settings))


def _acuity(hero: Any, name: str) -> int:
    entry = hero.skills.get(name)
    if entry is None:
        raise UnknownEntity(_('{name} has no skill {name2!r}.').format(name=hero.name, name2=name))
    shift = EFFECTS[hero.alc.band].acuities if hero.alc.band else 0
    return entry.pct + shift


def _check(hero: Any, cmd: RollCheck, ctx: Context, state: IllerganState) -> CheckRolled:
    content = content_of(state)
    dice = ctx.dice()
    if cmd.what in hero.characteristics:
        threshold: int | float = stat(hero, cmd.what)
        if cmd.what in BLIND_STATS and "aveuglé" in hero.conditions:
            threshold = blinded(hero, threshold, ctx.settings)
        threshold -= cmd.malus
        r = dice.roll("1d100", purpose=f"check {cmd.what}")
        c = checks.skill_check(r.total, threshold, critical_ceiling=hero.critical_ceiling)
        kind: CheckKind = "characteristic"
    elif cmd.what.startswith("Acuité"):
        pct = _acuity(hero, cmd.what)
        r = dice.roll("1d100", purpose=f"check {cmd.what}")
        c = checks.acuity_check(r.total, pct, cmd.malus)
        threshold, kind = pct - cmd.malus, "acuity"
    else:
        entry = hero.skills.get(cmd.what)
        unlocked = False
        if entry is None:
            if cmd.bonus <= 0:
                raise UnknownEntity(_('{name} has no skill or characteristic {what!r}.').format(name=hero.name, what=cmd.what))
            content.skill(cmd.what)  # a skill of the pack, unlocked at 0% the time of the bonus (I-L490)
            unlocked = True
        pct = (entry.pct if entry is not None else 0) + cmd.bonus
        threshold = pct
        if cmd.with_characteristic:
            key = content.skill(cmd.what).characteristic
            if not key:
                raise content.missing(_('The characteristic of skill {what!r}').format(what=cmd.what), "G24 skill list")
            threshold = checks.characteristic_with_skill(stat(hero, key), pct)
        threshold -= cmd.malus
        r = dice.roll("1d100", purpose=f"check {cmd.what}")
        c = checks.skill_check(r.total, threshold, critical_ceiling=hero.critical_ceiling)
        kind = "skill"
        return CheckRolled(character=hero.id, kind=kind, what=cmd.what, threshold=threshold, malus=cmd.malus, roll=r,
                           success=c.success, critical=c.critical, fumble=c.fumble, minor_info=c.minor_info,
                           bonus=cmd.bonus, unlocked=unlocked)
    if cmd.bonus:
        raise RuleError(_('A skill bonus applies to a skill, not to a characteristic or an acuity (I-L490).'))
    return CheckRolled(character=hero.id, kind=kind, what=cmd.what, threshold=threshold, malus=cmd.malus, roll=r,
                       success=c.success, critical=c.critical, fumble=c.fumble, minor_info=c.minor_info)


def _search(hero: Any, cmd: RollCheck, ctx: Context, state: IllerganState) -> CheckRolled:
    if not cmd.hidden:
        raise RuleError(_('A search needs the hidden objects and their maluses, e.g. --hidden coffre=20 (I-L101).'))
    acuity_name = cmd.what or "Acuité visuelle"
    acuity = _acuity(hero, acuity_name)
    dex = stat(hero, "Dex")
    checks.search(1, dex, acuity, cmd.hidden)  # validates the maluses before any die is rolled
    r = ctx.dice().roll("1d100", purpose="search")
    found = checks.search(r.total, dex, acuity, cmd.hidden)
    return CheckRolled(character=hero.id, kind="search", what=acuity_name, threshold=dex + acuity, roll=r,
                       success=any(found.values()), found=found)


def _skinning(hero: Any, cmd: RollCheck, ctx: Context, state: IllerganState) -> CheckRolled:
    anatomie = hero.skills.get("Anatomie")
    pct = anatomie.pct if anatomie is not None else 0
    dex = stat(hero, "Dex")
    checks.skinning(1, dex, pct, cmd.malus)
    r = ctx.dice().roll("1d100", purpose="skinning")
    c = checks.skinning(r.total, dex, pct, cmd.malus)
    return CheckRolled(character=hero.id, kind="skinning", what=cmd.what or "dépeçage", threshold=plain(c.threshold),
                       malus=cmd.malus, roll=r, success=c.success)


def _lockpick(hero: Any, cmd: RollCheck, ctx: Context, state: IllerganState) -> CheckRolled:
    """With a crochet (I-L106); the lock's time, maximum attempts and backlash on a failure (I-L108)."""
    content = content_of(state)
    if not gear.owns(hero, "Crochet"):
        raise RuleError(_('{name} has no crochet; a lock is picked with one (I-L106).').format(name=hero.name))
    malus = cmd.malus
    lock = None
    if cmd.lock is not None:
        lock = content.entry("lock_types", cmd.lock)
        if lock.malus is None:
            raise content.missing(_('The malus of {lock} locks').format(lock=cmd.lock), "G5 lock types")
        malus += lock.malus
    name = cmd.lock_name or cmd.lock or "serrure"
    attempt = hero.lock_attempts.get(name, 0) + 1
    if lock is not None and lock.max_attempts is not None and attempt > lock.max_attempts:
        raise RuleError(_('{name} has made the {max_attempts} attempts a lock {name2} allows on {name3} (I-L108).').format(name=hero.name, max_attempts=lock.max_attempts, name2=lock.name, name3=name))
    r = ctx.dice().roll("1d100", purpose="lockpicking")
    c = checks.lockpick(r.total, stat(hero, "Dex"), stat(hero, "Sav"), malus, ctx.settings)
    failed = lock is not None and not c.success
    return CheckRolled(character=hero.id, kind="lockpick", what=cmd.lock or "serrure", threshold=plain(c.threshold),
                       malus=malus, roll=r, success=c.success, lock_name=name, attempt=attempt,
                       minutes=(lock.minutes or 0) if lock is not None else 0,
                       backlash=lock.backlash if failed and lock is not None else "",
                       pv_lost=lock.backlash_pv if failed and lock is not None else 0,
                       pick_broken=bool(failed and lock is not None and lock.breaks_pick))


def evolve_check(state: IllerganState, ev: CheckRolled, rec: RecordedEvent) -> IllerganState:
    """A lockpicking attempt: counted on its lock, its time on the log's clock, its backlash (I-L108)."""
    if ev.kind != "lockpick" or not ev.lock_name:
        return state
    hero = state.characters[ev.character]
    items = dict(hero.items)
    if ev.pick_broken:
        held = next((k for k, n in items.items() if n > 0 and gear.base(k) == "Crochet"), None)
        if held is not None:
            items[held] -= 1
            if not items[held]:
                del items[held]
    pv = hero.pv - ev.pv_lost
    hero = msgspec.structs.replace(hero, items=items, pv=pv, dead=hero.dead or pv < 0,
                                   lock_attempts={**hero.lock_attempts, ev.lock_name: ev.attempt})
    return msgspec.structs.replace(put(state, hero), clock=state.clock + ev.minutes)


_KINDS = {"check": _check, "search": _search, "skinning": _skinning, "lockpick": _lockpick}


def _living(state: IllerganState, character: str) -> Any:
    hero = find(state, character)
    if hero.dead:
        raise RuleError(_('{name} is dead.').format(name=hero.name))
    return hero


def _fight_of(state: IllerganState, name: str, hero: Any) -> Any:
    fight = find_fight(state, name)
    if hero.id not in fight.participants:
        raise RuleError(_("{id} does not take part in the fight '{name}'.").format(id=hero.id, name=fight.name))
    return fight


def decide_throw(state: IllerganState, cmd: Throw, ctx: Context) -> list[Emit]:
    hero = _living(state, cmd.character)
    if not 10 <= cmd.max_range <= 30:
        raise RuleError(_("The game master sets a thrown object's range between 10 and 30 m (I-L403), not {max_range:g} m.").format(max_range=cmd.max_range))
    if not 1 <= cmd.distance <= cmd.max_range:
        raise RuleError(_('A throw reaches 1 to {max_range:g} m (I-L402-403), not {distance:g} m.').format(max_range=cmd.max_range, distance=cmd.distance))
    turn_after = None
    if cmd.fight:
        turn_after = spend(_fight_of(state, cmd.fight, hero), hero, "major", ctx.settings)
    r = ctx.dice().roll("1d100", purpose="throw")
    ev = ObjectThrown(character=hero.id, what=cmd.what, distance=cmd.distance, max_range=cmd.max_range, roll=r,
                      offset_m=plain(checks.throw_offset(r.total, ctx.settings)), fight=cmd.fight,
                      turn_after=turn_after)
    return [Emit(fight_stream(cmd.fight) if cmd.fight else stream_of(hero.id), ev)]


def decide_strike(state: IllerganState, cmd: StrikeObject, ctx: Context) -> list[Emit]:
    hero = _living(state, cmd.character)
    if cmd.ps <= 0 or cmd.sr < 0:
        raise RuleError(_('An object has PS above 0 and an SR of 0 or more (I-L407), not PS {ps} and SR {sr}.').format(ps=cmd.ps, sr=cmd.sr))
    content, settings = content_of(state), ctx.settings
    turn_after = None
    if cmd.fight:
        turn_after = spend(_fight_of(state, cmd.fight, hero), hero, "major", settings)
    chosen = hero.weapon if cmd.weapon is None else (cmd.weapon or None)
    weapon = content.entry("weapons", chosen) if chosen else None
    dice = ctx.dice()
    power: tuple[Roll, ...] = ()
    if weapon is None:
        total = None
        if settings.unarmed_fp_mode == "dice":
            total, power = combat.roll_power_dice(dice, content, rank=hero.power_rank, fp=hero.fp,
                                                  count=cmd.power_dice, settings=settings)
        damage: Any = combat.unarmed_damage(stat(hero, "Fo"), hero.fp, total, settings)
    elif weapon.fixed_damage is not None:
        damage = combat.crossbow_damage(weapon, content)
    else:
        total, power = combat.roll_power_dice(dice, content, rank=hero.power_rank, fp=hero.fp + weapon.fp_bonus,
                                              count=cmd.power_dice, settings=settings)
        damage = combat.weapon_damage(stat(hero, "Fo"), total)
    b = combat.break_object(damage, sr=cmd.sr, ps=cmd.ps)
    ev = ObjectStruck(character=hero.id, what=cmd.what, ps_before=cmd.ps, sr=cmd.sr, damage=plain(damage),
                      power_rolls=list(power), ps_lost=b.ps_lost, ps_after=b.ps_after, broken=b.destroyed,
                      fight=cmd.fight, turn_after=turn_after)
    return [Emit(fight_stream(cmd.fight) if cmd.fight else stream_of(hero.id), ev)]


def decide_fall(state: IllerganState, cmd: TakeFall, ctx: Context) -> list[Emit]:
    hero = _living(state, cmd.character)
    if cmd.height <= 0:
        raise RuleError(_('A fall needs a height in metres, not {height:g}.').format(height=cmd.height))
    f = checks.fall(stat(hero, "Agilité"), _exact(cmd.height), ctx.settings)
    lost = int(f.pv_lost) if f.pv_lost == int(f.pv_lost) else -(-f.pv_lost.numerator // f.pv_lost.denominator)
    wound = combat.apply_pv_loss(hero.pv, lost, "", destiny_points=hero.destiny_points)
    turn_after = None
    if cmd.fight:
        fight = _fight_of(state, cmd.fight, hero)
        if f.knocked_down:  # knocked down: a major action lost (I-L416, I-L428)
            turn_after = sacrifice(fight.turns.get(hero.id, Turn()), "major")
    ev = FallTaken(character=hero.id, height=cmd.height, safe_height=plain(f.safe_height), extra=plain(f.extra),
                   pv_lost=wound.pv_lost, pv_after=wound.pv_after, knocked_down=f.knocked_down, dead=wound.dead,
                   fight=cmd.fight, turn_after=turn_after)
    return [Emit(fight_stream(cmd.fight) if cmd.fight else stream_of(hero.id), ev)]


def _exact(height: float) -> Fraction:
    return Fraction(str(height))


def decide_condition(state: IllerganState, cmd: SetCondition, ctx: Context) -> list[Emit]:
    hero = find(state, cmd.character)
    if cmd.on and cmd.condition == "aveuglé" and hero.family == "végétal":
        raise RuleError(_('{name} is a plant: physical alterations do not work on it (I-L628).').format(name=hero.name))
    if (cmd.condition in hero.conditions) == cmd.on:
        raise RuleError((_('{name} is already {condition}.') if cmd.on else _('{name} is not {condition}.')).format(name=hero.name, condition=cmd.condition))
    return [Emit(stream_of(hero.id), ConditionChanged(character=hero.id, condition=cmd.condition, on=cmd.on,
                                                      reason=cmd.reason))]


def evolve_fall(state: IllerganState, ev: FallTaken, rec: RecordedEvent) -> IllerganState:
    if ev.pv_lost:
        state = put(state, with_wound(state.characters[ev.character], ev.pv_lost, rec.position, "", ev.dead))
    return _turn(state, ev.fight, ev.character, ev.turn_after)


def evolve_struck(state: IllerganState, ev: ObjectStruck, rec: RecordedEvent) -> IllerganState:
    return _turn(state, ev.fight, ev.character, ev.turn_after)


def evolve_throw(state: IllerganState, ev: ObjectThrown, rec: RecordedEvent) -> IllerganState:
    return _turn(state, ev.fight, ev.character, ev.turn_after)


def _turn(state: IllerganState, fight: str, character: str, turn: Turn | None) -> IllerganState:
    if not fight or turn is None or fight not in state.fights:
        return state
    f = state.fights[fight]
    return msgspec.structs.replace(state, fights={
        **state.fights, fight: msgspec.structs.replace(f, turns={**f.turns, character: turn})})


def evolve_condition(state: IllerganState, ev: ConditionChanged, rec: RecordedEvent) -> IllerganState:
    hero = state.characters[ev.character]
    now = tuple(c for c in hero.conditions if c != ev.condition) + ((ev.condition,) if ev.on else ())
    return put(state, msgspec.structs.replace(hero, conditions=now))


def decide_check(state: IllerganState, cmd: RollCheck, ctx: Context) -> list[Emit]:
    hero = find(state, cmd.character)
    if hero.dead:
        raise RuleError(_('{name} is dead.').format(name=hero.name))
    if cmd.bonus < 0:
        raise RuleError(_('A bonus is positive, not {bonus}; a malus is given as a malus.').format(bonus=cmd.bonus))
    if cmd.bonus and cmd.kind != "check":
        raise RuleError(_('A skill bonus applies to a skill check (I-L490).'))
    if cmd.kind == "check" and not cmd.what:
        raise RuleError(_('Name the skill or characteristic to roll.'))
    ev = _KINDS[cmd.kind](hero, cmd, ctx, state)
    # using a skill ends a concentration (I-L494, ruling MAG-6); a characteristic or an acuity roll does not
    broken = spellbook.concentration_broken_by(state, hero.id) if ev.kind in SKILL_KINDS else []
    return [*broken, Emit(stream_of(hero.id), ev)]


def _summary(e: CheckRolled) -> str:
    if e.kind == "search":
        found = ", ".join(k for k, v in e.found.items() if v) or _("nothing")
        return _("{who} searches ({what}): Dé100 {face}, finds {found}").format(
            who=e.character, what=e.what, face=e.roll.total, found=found)
    outcome = _("succeeds") if e.success else _("fails")
    if e.kind == "lockpick" and e.lock_name:
        extra = (_(", attempt {n}").format(n=e.attempt) + (f", {e.minutes} min" if e.minutes else "")
                 + (_("; backlash: {backlash}").format(backlash=e.backlash) if e.backlash else ""))
        return _("{who} picks {lock} ({what}): Dé100 {face} against {threshold} → {outcome}{extra}").format(
            who=e.character, lock=e.lock_name, what=e.what, face=e.roll.total, threshold=e.threshold, outcome=outcome,
            extra=extra)
    tag = _(" (critical)") if e.critical else _(" (fumble)") if e.fumble else ""
    info = _(", minor information") if e.minor_info else ""
    if e.unlocked:
        info += _(", unlocked at 0% for the bonus (+{bonus})").format(bonus=e.bonus)
    return _("{who}: {what} Dé100 {face} against {threshold} → {outcome}{tag}{info}").format(
        who=e.character, what=e.what, face=e.roll.total, threshold=e.threshold, outcome=outcome, tag=tag, info=info)


SUMMARIES: dict[type, Any] = {
    CheckRolled: on_event(_summary),
    ObjectThrown: lambda r: _("{who} throws {what} at {distance} m: Dé100 {face}, lands {offset} m from the target").format(
        who=r.event.character, what=r.event.what, distance=f"{r.event.distance:g}", face=r.event.roll.total,
        offset=f"{r.event.offset_m:g}"),
    FallTaken: lambda r: (_("{who} falls {height} m (unharmed up to {safe} m)").format(
        who=r.event.character, height=f"{r.event.height:g}", safe=f"{r.event.safe_height:g}")
                          + (_(": knocked down, −{pv} PV ({after})").format(pv=r.event.pv_lost, after=r.event.pv_after)
                             if r.event.knocked_down else _(" unharmed"))
                          + (_(", dead") if r.event.dead else "")),
    ObjectStruck: lambda r: (_("{who} strikes {what}: {damage} damage, SR {sr} → −{lost} PS ({after})").format(
        who=r.event.character, what=r.event.what, damage=r.event.damage, sr=r.event.sr, lost=r.event.ps_lost,
        after=r.event.ps_after) + (_(", broken") if r.event.broken else "")),
    ConditionChanged: lambda r: (_("{who} is {condition}") if r.event.on else _("{who} is no longer {condition}")).format(
        who=r.event.character, condition=r.event.condition),
}
EVENTS: tuple[type, ...] = tuple(SUMMARIES)
DECIDERS: dict[type, Any] = {RollCheck: decide_check, Throw: decide_throw, TakeFall: decide_fall,
                             SetCondition: decide_condition, StrikeObject: decide_strike}
EVOLVERS: dict[type, Any] = {FallTaken: evolve_fall, ObjectThrown: evolve_throw, ConditionChanged: evolve_condition,
                             ObjectStruck: evolve_struck, CheckRolled: evolve_check}
COMPENSATORS: dict[type, Any] = {}
