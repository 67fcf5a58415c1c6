"""Fight folds: each recorded event applied to the state (pure, deltas only)."""

from __future__ import annotations

from typing import Any

import msgspec

from cristal_events.records import RecordedEvent

from .. import combat
from ..state import Affliction, Fight, Hero, IllerganState, MagicEntry, Turn, WoundRef, put
from .model import (
    FLYING,
    HELD,
    HOVERING,
    ActionTaken,
    AfflictionTicked,
    AttackResolved,
    DefenceUsed,
    DestinyPointSpent,
    FightEnded,
    FightStarted,
    FlightChanged,
    InitiativeRolled,
    Moved,
    PoisonApplied,
    SpellCast,
)


# ============================================================================ folds
def _fight(state: IllerganState, fight: Fight) -> IllerganState:
    return msgspec.structs.replace(state, fights={**state.fights, fight.name: fight})


def evolve_started(state: IllerganState, ev: FightStarted, rec: RecordedEvent) -> IllerganState:
    return _fight(state, Fight(name=ev.fight, participants=tuple(ev.participants)))


def _drop_afflictions(state: IllerganState, fight: str, before_turn: int | None) -> IllerganState:
    """Riders of ``fight`` that are over (last turn before ``before_turn``; None: all of them)."""
    for hero in state.characters.values():
        keep = tuple(a for a in hero.afflictions
                     if a.fight != fight or (before_turn is not None and a.last_turn >= before_turn))
        if keep != hero.afflictions:
            state = put(state, msgspec.structs.replace(hero, afflictions=keep))
    return state


def evolve_initiative(state: IllerganState, ev: InitiativeRolled, rec: RecordedEvent) -> IllerganState:
    before = state.fights[ev.fight]
    acting = (tuple(c for c in before.acting if c in ev.order) if ev.kept
              else tuple(e.character for e in ev.entries if e.acts))
    state = _drop_afflictions(state, ev.fight, ev.turn)
    return _fight(state, msgspec.structs.replace(state.fights[ev.fight], turn=ev.turn, order=tuple(ev.order),
                                                 acting=acting, turns=dict(ev.turns or {})))


def _turns(state: IllerganState, fight: str, **after: Turn | None) -> IllerganState:
    changes = {c: t for c, t in after.items() if t is not None}
    if not changes or fight not in state.fights:
        return state
    f = state.fights[fight]
    return _fight(state, msgspec.structs.replace(f, turns={**f.turns, **changes}))


def with_wound(hero: Hero, lost: int, position: int, limb: str, dead: bool) -> Hero:
    changes: dict[str, Any] = {"pv": hero.pv - lost}
    if limb:
        changes["limbs_lost"] = (*hero.limbs_lost, limb)
    if dead:
        changes["dead"] = True
    if limb or dead:
        changes["last_wound"] = WoundRef(position=position, pv_lost=lost, limb_lost=limb, dead=dead)
    return msgspec.structs.replace(hero, **changes)


def evolve_attack(state: IllerganState, ev: AttackResolved, rec: RecordedEvent) -> IllerganState:
    state = _turns(state, ev.fight, **{ev.attacker: ev.turn_after})
    if ev.defender:
        state = _turns(state, ev.fight, **{ev.defender: ev.defender_turn_after})
    if ev.shield:  # the blocking shield's PS (I-L407, I-L439); destroyed, it is gone
        holder = state.characters[ev.defender or ev.target]
        state = put(state, msgspec.structs.replace(holder, shield_ps=None if ev.shield_destroyed else ev.shield_ps_after,
                                                   shield=None if ev.shield_destroyed else holder.shield))
    if not ev.pv_lost and not ev.limb_lost:
        return state
    target = with_wound(state.characters[ev.target], ev.pv_lost, rec.position, ev.limb_lost, ev.dead)
    if ev.rider is not None and ev.rider.turns and not ev.dead and ev.fight in state.fights:
        first, last = combat.rider_turns(state.fights[ev.fight].turn, ev.rider)
        target = msgspec.structs.replace(target, afflictions=(*target.afflictions, Affliction(
            name=ev.rider.name, fight=ev.fight, first_turn=first, last_turn=last, pv_per_turn=ev.rider.pv_per_turn,
            dex_malus=ev.rider.dex_malus)))
    return put(state, target)


def evolve_affliction(state: IllerganState, ev: AfflictionTicked, rec: RecordedEvent) -> IllerganState:
    return put(state, with_wound(state.characters[ev.character], ev.pv_lost, rec.position, "", ev.dead))


def evolve_action(state: IllerganState, ev: ActionTaken | DefenceUsed, rec: RecordedEvent) -> IllerganState:
    state = _turns(state, ev.fight, **{ev.character: ev.turn_after})
    action = getattr(ev, "action", "")
    hero = state.characters.get(ev.character)
    if action == "disarmed" and hero is not None:  # I-L414: the weapon is on the ground
        state = put(state, msgspec.structs.replace(hero, weapon=None, dropped_weapon=hero.weapon))
    elif action == "pick_up" and hero is not None:
        state = put(state, msgspec.structs.replace(hero, weapon=hero.dropped_weapon, dropped_weapon=None))
    return state


def evolve_poison(state: IllerganState, ev: PoisonApplied, rec: RecordedEvent) -> IllerganState:
    hero = state.characters[ev.character]
    return put(state, msgspec.structs.replace(hero, afflictions=(*hero.afflictions, Affliction(
        name=ev.poison, fight=ev.fight, first_turn=ev.first_turn, last_turn=ev.last_turn,
        pv_per_turn=ev.pv_per_turn))))


def evolve_moved(state: IllerganState, ev: Moved, rec: RecordedEvent) -> IllerganState:
    return _turns(state, ev.fight, **{ev.character: ev.turn_after})


def evolve_flight(state: IllerganState, ev: FlightChanged, rec: RecordedEvent) -> IllerganState:
    state = _turns(state, ev.fight, **{ev.character: ev.turn_after})
    hero = state.characters[ev.character]
    hover = ev.flying and (ev.hover or (ev.held and HOVERING in hero.conditions))
    conditions = (tuple(c for c in hero.conditions if c not in (FLYING, HOVERING, HELD))
                  + ((FLYING,) if ev.flying else ()) + ((HOVERING,) if hover else ())
                  + ((HELD,) if ev.flying and ev.held else ()))
    return put(state, msgspec.structs.replace(hero, conditions=conditions))


def evolve_destiny(state: IllerganState, ev: DestinyPointSpent, rec: RecordedEvent) -> IllerganState:
    hero = state.characters[ev.character]
    limbs = list(hero.limbs_lost)
    if ev.limb_restored in limbs:
        limbs.remove(ev.limb_restored)
    return put(state, msgspec.structs.replace(
        hero, pv=hero.pv + ev.pv_restored, limbs_lost=tuple(limbs), dead=hero.dead and not ev.revived,
        destiny_points=hero.destiny_points - 1, last_wound=None))


def evolve_cast(state: IllerganState, ev: SpellCast, rec: RecordedEvent) -> IllerganState:
    caster = state.characters[ev.caster]
    m = caster.magics.get(ev.magic)
    if m is not None:  # a creature's own magic has no pp (I-L619-623)
        counter = m.casts_out_of_combat if ev.casts_out_of_combat_after is None else ev.casts_out_of_combat_after
        m = MagicEntry(level=ev.magic_level_after, pp=m.pp + ev.pp_gained, casts_out_of_combat=counter)
        caster = msgspec.structs.replace(caster, magics={**caster.magics, ev.magic: m})
    caster = msgspec.structs.replace(caster, pm=ev.pm_after)
    state = put(state, caster)
    if ev.fight:
        state = _turns(state, ev.fight, **{ev.caster: ev.turn_after})
        if ev.target:
            state = _turns(state, ev.fight, **{ev.target: ev.target_turn_after})
    if ev.shield:  # the shield's PS after a magic block (I-L439)
        holder = state.characters[ev.target]
        state = put(state, msgspec.structs.replace(holder, shield_ps=None if ev.shield_destroyed else ev.shield_ps_after,
                                                   shield=None if ev.shield_destroyed else holder.shield))
    if ev.active is not None and ev.holder:  # the same spell on the same target does not stack (I-L514)
        holder = state.characters[ev.holder]
        kept = tuple(a for a in holder.active_spells if a.spell != ev.active.spell)
        state = put(state, msgspec.structs.replace(holder, active_spells=(*kept, ev.active)))
    if ev.target and ev.pv_lost:
        state = put(state, with_wound(state.characters[ev.target], ev.pv_lost, rec.position, "", ev.dead))
    return state


def evolve_ended(state: IllerganState, ev: FightEnded, rec: RecordedEvent) -> IllerganState:
    """The fight leaves the decision state: its history is in the log (kept, the state would grow
    with every fight of the campaign)."""
    state = _drop_afflictions(state, ev.fight, None)
    return msgspec.structs.replace(state, fights={k: v for k, v in state.fights.items() if k != ev.fight})


