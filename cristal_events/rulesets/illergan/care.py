"""Consumables and recovery of PV and PM, as events (I-L190-192, I-L249, ruling I19).

Part of the illergan ruleset. The text gives PV and PM back in three ways only: the potions (a
potion de soin 20 PV, a potion de mana 40 PM, I-L190-191), healing spells (the *soin* class, I-L479:
their amount is the spell's) and a destiny point against a wound (fights). It states no natural
regeneration; a rest gives back what the game master rules (``rest_recovers``). So:

- ``UseConsumable``: a consumable the hero carries is used up, on himself or on a target: its PV and
  PM (capped at the maximum), the conditions it ends (an antidote), the condition it puts (a poison,
  the pack's). In a fight it is a minor action, from the belt (I-L249).
- ``Recover``: PV and PM given back by a healing spell's effect, a rest or care, with its source and
  reason, capped at the maximum; a dead character gets nothing back.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from cristal_events.errors import RuleError
from cristal_events.events import Event
from cristal_events.records import RecordedEvent
from cristal_events.ruleset import Context, Emit, on_event

from . import gear
from .fights import spend
from .state import Hero, IllerganState, Turn, content_of, fight_stream, find, find_fight, put, stream_of
from .texts import _


# ============================================================================ events
class ConsumableUsed(Event, frozen=True, tag="care.consumable_used", kw_only=True):
    character: str
    item: str  # the object used up, as carried
    target: str = ""  # "" = the user himself
    pv_gained: int = 0
    pm_gained: int = 0
    pv_after: int = 0
    pm_after: int = 0
    cured: list[str] = []
    applied: str = ""
    fight: str = ""
    turn_after: Turn | None = None


class Recovered(Event, frozen=True, tag="care.recovered", kw_only=True):
    character: str
    source: Literal["soin", "repos", "autre"]
    reason: str
    pv_gained: int = 0
    pm_gained: int = 0
    pv_after: int
    pm_after: int


# ============================================================================ commands
class UseConsumable(msgspec.Struct, frozen=True, kw_only=True):
    character: str
    item: str
    target: str = ""
    fight: str = ""


class Recover(msgspec.Struct, frozen=True, kw_only=True):
    character: str
    source: Literal["soin", "repos", "autre"]
    reason: str
    pv: int = 0
    pm: int = 0


# ============================================================================ decisions
def _gain(hero: Hero, pv: int, pm: int) -> tuple[int, int]:
    """PV and PM up to the maximum (the text never lets them beyond it)."""
    return max(0, min(pv, hero.pv_max - hero.pv)), max(0, min(pm, hero.pm_max - hero.pm))


def decide_use(state: IllerganState, cmd: UseConsumable, ctx: Context) -> list[Emit]:
    hero = find(state, cmd.character)
    target = find(state, cmd.target) if cmd.target and cmd.target != hero.id else hero
    if hero.dead:
        raise RuleError(_('{name} is dead.').format(name=hero.name))
    held = next((k for k, n in hero.items.items() if n > 0 and k == cmd.item), None) or next(
        (k for k, n in hero.items.items() if n > 0 and gear.base(k) == cmd.item), None)
    if held is None:
        raise RuleError(_('{name} carries no {item}.').format(name=hero.name, item=cmd.item))
    effect = content_of(state).pack.consumables.get(gear.base(held))
    if effect is None:
        raise content_of(state).missing(_('What {base!r} does').format(base=gear.base(held)), "G30 potion and poison details")
    if target.dead:
        raise RuleError(_('{name} is dead; no consumable brings a character back (I-L318).').format(name=target.name))
    turn_after = None
    if cmd.fight:
        fight = find_fight(state, cmd.fight)
        if hero.id not in fight.participants:
            raise RuleError(_("{name} does not take part in the fight '{name2}'.").format(name=hero.name, name2=fight.name))
        if not any(slot == "belt" for slot in (gear.listed(k, content_of(state).pack.item_slots) for k in hero.items)):
            raise RuleError(_('In a fight a consumable is used from the belt (I-L249); {name} carries none.').format(name=hero.name))
        turn_after = spend(fight, hero, "minor", ctx.settings)
    pv, pm = _gain(target, effect.pv, effect.pm)
    cured = [c for c in target.conditions if c in effect.cures]
    ev = ConsumableUsed(character=hero.id, item=held, target=target.id if target is not hero else "",
                        pv_gained=pv, pm_gained=pm, pv_after=target.pv + pv, pm_after=target.pm + pm, cured=cured,
                        applied=effect.applies if effect.applies not in target.conditions else "",
                        fight=cmd.fight, turn_after=turn_after)
    return [Emit(fight_stream(cmd.fight) if cmd.fight else stream_of(hero.id), ev)]


def decide_recover(state: IllerganState, cmd: Recover, ctx: Context) -> list[Emit]:
    hero = find(state, cmd.character)
    if not cmd.reason.strip():
        raise RuleError(_('PV and PM given back need a reason (the spell, the rest, the care).'))
    if cmd.pv < 0 or cmd.pm < 0:
        raise RuleError(_("Recovery gives PV and PM back; a loss is a wound or a spell's cost."))
    if not cmd.pv and not cmd.pm:
        raise RuleError(_('Give the PV or PM that come back.'))
    if cmd.source == "repos" and not ctx.settings.rest_recovers:
        raise RuleError(_('In this campaign a rest gives no PV or PM back (rest_recovers=false): only potions, healing spells and destiny points do (I-L190-191, I-L479).'))
    if hero.dead:
        raise RuleError(_('{name} is dead; nothing brings PV back but a destiny point (I-L318).').format(name=hero.name))
    pv, pm = _gain(hero, cmd.pv, cmd.pm)
    if not pv and not pm:
        raise RuleError(_('{name} already has all {pv_max} PV and {pm_max} PM.').format(name=hero.name, pv_max=hero.pv_max, pm_max=hero.pm_max))
    return [Emit(stream_of(hero.id), Recovered(character=hero.id, source=cmd.source, reason=cmd.reason, pv_gained=pv,
                                               pm_gained=pm, pv_after=hero.pv + pv, pm_after=hero.pm + pm))]


# ============================================================================ folds
def evolve_used(state: IllerganState, ev: ConsumableUsed, rec: RecordedEvent) -> IllerganState:
    user = state.characters[ev.character]
    items = dict(user.items)
    items[ev.item] = items.get(ev.item, 0) - 1
    if items[ev.item] <= 0:
        del items[ev.item]
    state = put(state, msgspec.structs.replace(user, items=items))
    who = ev.target or ev.character
    t = state.characters[who]
    conditions = tuple(c for c in t.conditions if c not in ev.cured) + ((ev.applied,) if ev.applied else ())
    state = put(state, msgspec.structs.replace(t, pv=ev.pv_after, pm=ev.pm_after, conditions=conditions))
    if ev.fight and ev.turn_after is not None and ev.fight in state.fights:
        f = state.fights[ev.fight]
        state = msgspec.structs.replace(state, fights={
            **state.fights, f.name: msgspec.structs.replace(f, turns={**f.turns, ev.character: ev.turn_after})})
    return state


def evolve_recovered(state: IllerganState, ev: Recovered, rec: RecordedEvent) -> IllerganState:
    return put(state, msgspec.structs.replace(state.characters[ev.character], pv=ev.pv_after, pm=ev.pm_after))


# ============================================================================ summaries
def _used(e: ConsumableUsed) -> str:
    gains = [f"+{n} {k}" for n, k in ((e.pv_gained, "PV"), (e.pm_gained, "PM")) if n]
    after = f"PV {e.pv_after}, PM {e.pm_after}"
    extra = ((_("; cures: {list}").format(list=", ".join(e.cured)) if e.cured else "")
             + (_("; {list}").format(list=e.applied) if e.applied else ""))
    on = _(" on {target}").format(target=e.target) if e.target else ""
    return (_("{who} uses {item}{on}").format(who=e.character, item=e.item, on=on)
            + (_(": {gains}").format(gains=", ".join(gains)) if gains else "") + f" → {after}{extra}")


def _recovered(e: Recovered) -> str:
    gains = ", ".join(f"+{n} {k}" for n, k in ((e.pv_gained, "PV"), (e.pm_gained, "PM")) if n)
    return _("{who} recovers {gains} ({source}: {reason}) → PV {pv}, PM {pm}").format(
        who=e.character, gains=gains, source=e.source, reason=e.reason, pv=e.pv_after, pm=e.pm_after)


DECIDERS: dict[type, Any] = {UseConsumable: decide_use, Recover: decide_recover}
EVOLVERS: dict[type, Any] = {ConsumableUsed: evolve_used, Recovered: evolve_recovered}
SUMMARIES: dict[type, Any] = {ConsumableUsed: on_event(_used), Recovered: on_event(_recovered)}
COMPENSATORS: dict[type, Any] = {}
EVENTS: tuple[type, ...] = (ConsumableUsed, Recovered)
