"""Dé100 checks as events: skills, acuities, characteristics, search, skinning and lockpicking.

Part of the illergan ruleset. Each check rolls through ``ctx.dice()`` and stores its Roll; the
thresholds reuse :mod:`.checks` (01-02 always succeed and 99-100 always fail for skills, I-L488;
search and skinning are strict, lockpicking inclusive, A22). Characteristics are read as they are now,
with the alcohol band's effects (I-L131-134).
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from cristal_events.errors import RuleError, UnknownEntity
from cristal_events.events import Event
from cristal_events.rolls import Roll
from cristal_events.ruleset import Context, Emit
from cristal_events.store import RecordedEvent

from . import checks
from .alcohol import EFFECTS
from .state import IllerganState, content_of, find, plain, stat, stream_of

CheckKind = Literal["skill", "acuity", "characteristic", "search", "skinning", "lockpick"]


class CheckRolled(Event, tag="check.rolled", kw_only=True):
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


def _acuity(hero: Any, name: str) -> int:
    entry = hero.skills.get(name)
    if entry is None:
        raise UnknownEntity(f"{hero.name} has no skill {name!r}.")
    shift = EFFECTS[hero.alc.band].acuities if hero.alc.band else 0
    return entry.pct + shift


def _check(hero: Any, cmd: RollCheck, ctx: Context, state: IllerganState) -> CheckRolled:
    content = content_of(state)
    dice = ctx.dice()
    if cmd.what in hero.characteristics:
        threshold = stat(hero, cmd.what) - cmd.malus
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
        if entry is None:
            raise UnknownEntity(f"{hero.name} has no skill or characteristic {cmd.what!r}.")
        threshold = entry.pct
        if cmd.with_characteristic:
            key = content.skill(cmd.what).characteristic
            if not key:
                raise content.missing(f"The characteristic of skill {cmd.what!r}", "G24 skill list")
            threshold = checks.characteristic_with_skill(stat(hero, key), entry.pct)
        threshold -= cmd.malus
        r = dice.roll("1d100", purpose=f"check {cmd.what}")
        c = checks.skill_check(r.total, threshold, critical_ceiling=hero.critical_ceiling)
        kind = "skill"
    return CheckRolled(character=hero.id, kind=kind, what=cmd.what, threshold=threshold, malus=cmd.malus, roll=r,
                       success=c.success, critical=c.critical, fumble=c.fumble, minor_info=c.minor_info)


def _search(hero: Any, cmd: RollCheck, ctx: Context, state: IllerganState) -> CheckRolled:
    if not cmd.hidden:
        raise RuleError("A search needs the hidden objects and their maluses, e.g. --hidden coffre=20 (I-L101).")
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
    content = content_of(state)
    malus = cmd.malus
    if cmd.lock is not None:
        lock = content.entry("lock_types", cmd.lock)
        if lock.malus is None:
            raise content.missing(f"The malus of {cmd.lock} locks", "G5 lock types")
        malus += lock.malus
    r = ctx.dice().roll("1d100", purpose="lockpicking")
    c = checks.lockpick(r.total, stat(hero, "Dex"), stat(hero, "Sav"), malus, ctx.settings)
    return CheckRolled(character=hero.id, kind="lockpick", what=cmd.lock or "serrure", threshold=plain(c.threshold),
                       malus=malus, roll=r, success=c.success)


_KINDS = {"check": _check, "search": _search, "skinning": _skinning, "lockpick": _lockpick}


def decide_check(state: IllerganState, cmd: RollCheck, ctx: Context) -> list[Emit]:
    hero = find(state, cmd.character)
    if hero.dead:
        raise RuleError(f"{hero.name} is dead.")
    if cmd.kind == "check" and not cmd.what:
        raise RuleError("Name the skill or characteristic to roll.")
    return [Emit(stream_of(hero.id), _KINDS[cmd.kind](hero, cmd, ctx, state))]


def _summary(rec: RecordedEvent) -> str:
    e: CheckRolled = rec.event  # type: ignore[assignment]
    if e.kind == "search":
        found = ", ".join(k for k, v in e.found.items() if v) or "rien"
        return f"{e.character} fouille ({e.what}) : Dé100 {e.roll.total}, trouve {found}"
    tag = " (critique)" if e.critical else " (échec critique)" if e.fumble else ""
    info = ", information mineure" if e.minor_info else ""
    return (f"{e.character} : {e.what} Dé100 {e.roll.total} contre {e.threshold} → "
            f"{'réussite' if e.success else 'échec'}{tag}{info}")


SUMMARIES: dict[type, Any] = {CheckRolled: _summary}
EVENTS: tuple[type, ...] = (CheckRolled,)
DECIDERS: dict[type, Any] = {RollCheck: decide_check}
EVOLVERS: dict[type, Any] = {}
COMPENSATORS: dict[type, Any] = {}
