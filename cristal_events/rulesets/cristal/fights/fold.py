"""Combat folds: each event applied to the state (pure, never rolls)."""

from __future__ import annotations

from typing import Any

import msgspec

from .. import magic as m
from .model import AbilityUsed, ActionTaken, AlignmentUsed, AttackResolved, Bled, Combat, CombatEnded, CombatJoined, CombatStarted, Condition, ConditionChanged, CrystalInspected, CrystalLocked, CrystalReleased, CrystalStored, CrystalUnlocked, Deconcentrated, Fighter, Incantation, InitiativeRolled, LastAttack, LastRoll, PmSpent, PotionUsed, PvChanged, Rerolled, RollRedone, SpellCast, SpellReleased, Swing, TieBroken, TurnPassed  # noqa: F401
from .model import _now  # noqa: F401


# =========================================================================== folds (pure)

def _put(state: Any, cb: Combat) -> Any:
    return msgspec.structs.replace(state, combats={**state.combats, cb.name: cb})


def _with_fighter(cb: Combat, fid: str, **changes: Any) -> Combat:
    f = msgspec.structs.replace(cb.fighters[fid], **changes)
    return msgspec.structs.replace(cb, fighters={**cb.fighters, fid: f})


def _add_it(cb: Combat, fid: str, seconds: int, *, action: bool = True) -> Combat:
    return msgspec.structs.replace(cb, it={**cb.it, fid: cb.it[fid] + seconds}, actions=cb.actions + int(action))


def _set_character(state: Any, cb: Combat, fid: str, attr: str, value: Any) -> tuple[Any, Combat]:
    """PV/PM live on the character when its struct has them, else on the fighter (an extra)."""
    ch = state.characters.get(fid)
    f = cb.fighters.get(fid)
    if ch is not None and isinstance(getattr(ch, attr, None), int) and not (f and attr.upper() in f.stats):
        chars = {**state.characters, fid: msgspec.structs.replace(ch, **{attr: value})}
        return msgspec.structs.replace(state, characters=chars), cb
    return state, _with_fighter(cb, fid, **{attr: value})


def _spend(state: Any, cb: Combat, fid: str, pool: str, attr: str, n: int) -> tuple[Any, Combat]:
    """A daily pool spent: on the character (``pools_used``), or on the extra's fighter."""
    ch = state.characters.get(fid)
    stat = {"Vol": "VOL", "alignment": "ALIGN", "chance": "CHANCE"}[pool]
    if n and ch is not None and stat not in cb.fighters[fid].stats:
        ch = msgspec.structs.replace(ch, pools_used={**ch.pools_used, pool: ch.pools_used.get(pool, 0) + n})
        return msgspec.structs.replace(state, characters={**state.characters, fid: ch}), cb
    return state, _with_fighter(cb, fid, **{attr: getattr(cb.fighters[fid], attr) + n})


def _condition_of(state: Any, fid: str) -> Condition:
    ch = state.characters.get(fid)
    if ch is None:
        return "conscious"
    return "dead" if ch.dead else "unconscious" if ch.unconscious else "conscious"


def _ev_started(state: Any, ev: CombatStarted) -> Any:
    fighters = {e.id: Fighter(id=e.id, stats=dict(e.stats), condition=_condition_of(state, e.id)) for e in ev.fighters}
    its = {e.id: e.it for e in ev.fighters}
    return _put(state, Combat(name=ev.name, it=its, fighters=fighters, clock=min(its.values())))


def _ev_joined(state: Any, ev: CombatJoined) -> Any:
    cb = state.combats[ev.name]
    e = ev.fighter
    cb = msgspec.structs.replace(cb, it={**cb.it, e.id: e.it},
                                 fighters={**cb.fighters, e.id: Fighter(id=e.id, stats=dict(e.stats),
                                                                        condition=_condition_of(state, e.id))})
    return _put(state, cb)


def _ev_initiative(state: Any, ev: InitiativeRolled) -> Any:
    cb = state.combats[ev.name]
    for r in ev.results:
        cb = msgspec.structs.replace(cb, it={**cb.it, r.id: r.it})
        cb = _with_fighter(cb, r.id, initiative=True, last_roll=LastRoll(
            kind="initiative", it_after=r.it, roll=r.roll, base_it=r.base_it, ref=r.ref))
    return _put(state, msgspec.structs.replace(cb, clock=min(cb.it.values())))


def _ev_tie(state: Any, ev: TieBroken) -> Any:
    cb = state.combats[ev.name]
    cb = msgspec.structs.replace(cb, tie_it=ev.it, tie_rolls={k: r.total for k, r in ev.rolls.items()})
    for fid in ev.rolls:
        cb = _rolled(cb, fid, "tie-break")
    return _put(state, cb)


def _ev_action(state: Any, ev: ActionTaken) -> Any:
    cb = _add_it(state.combats[ev.name], ev.actor, ev.seconds)
    if ev.rolls:
        cb = _rolled(cb, ev.actor, "duration")
    if ev.aided:
        cb = _with_fighter(cb, ev.aided, aided=True)
    return _put(state, cb)


def _ev_passed(state: Any, ev: TurnPassed) -> Any:
    return _put(state, _add_it(state.combats[ev.name], ev.actor, ev.seconds))


def _ev_attack(state: Any, ev: AttackResolved) -> Any:
    cb = _add_it(state.combats[ev.name], ev.attacker, ev.seconds)
    last = ev.swings[-1]
    la = LastAttack(target=ev.target, att=ev.att, dp=ev.dp, halved=ev.chain, dmg=ev.dmg, backstab=ev.back, hit=last.hit)
    cb = _with_fighter(cb, ev.attacker, last_attack=la,
                       last_roll=_attack_roll(ev.swings, ev.target, la, cb.it[ev.attacker]))
    state, cb = _spend(state, cb, ev.attacker, "Vol", "vol_spent", ev.vol_spent)
    return _put(_use_projectiles(state, ev), cb)


def _attack_roll(swings: list[Swing], target: str, la: LastAttack, it: int) -> LastRoll:
    """The last roll of an attack: the damage of the last hit (rolled after the d20s), else the last d20."""
    hurt = [sw for sw in swings if sw.damage_roll is not None]
    if hurt:
        return LastRoll(kind="damage", it_after=it, roll=hurt[-1].damage_roll, target=target, dmg=la.dmg,
                        backstab=la.backstab, amount=hurt[-1].damage)
    return LastRoll(kind="attack", it_after=it, roll=swings[-1].roll, target=target, att=la.att, dp=la.dp,
                    halved=la.halved, dmg=la.dmg, backstab=la.backstab)


def _use_projectiles(state: Any, ev: AttackResolved) -> Any:
    """Each shot takes one projectile from the attacker's bag (QTÉ - 1; the line goes at 0)."""
    ch = state.characters.get(ev.attacker)
    if not ev.projectiles_used or ch is None:
        return state
    key, items = ev.projectile.casefold(), []
    for item in ch.items:
        if item.name.casefold() == key:
            if item.qty <= ev.projectiles_used:
                continue
            item = msgspec.structs.replace(item, qty=item.qty - ev.projectiles_used)
        items.append(item)
    ch = msgspec.structs.replace(ch, items=items)
    return msgspec.structs.replace(state, characters={**state.characters, ev.attacker: ch})


def _ev_cast(state: Any, ev: SpellCast) -> Any:
    cb = _add_it(state.combats[ev.name], ev.caster, ev.incantation)
    if ev.success and ev.incantation > 0:
        inc = Incantation(spell=ev.spell, spends=dict(ev.spends), targets=list(ev.targets),
                          lowered_dm=dict(ev.lowered_dm), combustion=ev.combustion, margin=ev.margin,
                          until=cb.it[ev.caster], cnc=ev.cnc, penalty=ev.penalty, spell_cnc=ev.spell_cnc)
        cb = _with_fighter(cb, ev.caster, incantation=inc)
    if ev.roll is not None:
        comb = ev.combustion_on_success if ev.combustion_on_success is not None else ev.combustion
        cb = _with_fighter(cb, ev.caster, last_roll=LastRoll(
            kind="concentration", it_after=cb.it[ev.caster], roll=ev.roll, spell=ev.spell, cnc=ev.cnc,
            penalty=ev.penalty, spell_cnc=ev.spell_cnc, success=ev.success, time=ev.time, combustion=comb,
            spends=dict(ev.spends), targets=list(ev.targets), lowered_dm=dict(ev.lowered_dm)))
    return _put(state, cb)


def _ev_released(state: Any, ev: SpellReleased) -> Any:
    cb = state.combats[ev.name]
    if ev.source == "spell":
        cb = _add_it(cb, ev.caster, ev.combustion, action=False)
        cb = _with_fighter(cb, ev.caster, incantation=None)
    return _put(state, _rolled(cb, ev.caster, "effects"))


def _rolled(cb: Combat, fid: str, kind: str) -> Combat:
    """A roll Chance does not redo here is now the fighter's last one."""
    return _with_fighter(cb, fid, last_roll=LastRoll(kind=kind, it_after=cb.it[fid]))


def _ev_deconcentrated(state: Any, ev: Deconcentrated) -> Any:
    return _put(state, _with_fighter(state.combats[ev.name], ev.caster, incantation=None))


def _ev_pv(state: Any, ev: PvChanged) -> Any:
    state, cb = _set_character(state, state.combats[ev.name], ev.character, "pv", ev.pv_after)
    return _put(state, cb)


def _ev_pm(state: Any, ev: PmSpent) -> Any:
    state, cb = _set_character(state, state.combats[ev.name], ev.character, "pm", ev.pm_after)
    return _put(state, cb)


def _ev_condition(state: Any, ev: ConditionChanged) -> Any:
    cb = state.combats[ev.name]
    changes: dict[str, Any] = {"condition": ev.condition, "bleed_seconds": 0}
    if ev.condition != "conscious":
        changes["incantation"] = None
    else:
        changes["aided"] = False
        cb = msgspec.structs.replace(cb, it={**cb.it, ev.character: max(cb.it[ev.character], cb.clock)})
    cb = _with_fighter(cb, ev.character, **changes)
    state, cb = _set_character(state, cb, ev.character, "pv", ev.pv)
    ch = state.characters.get(ev.character)
    if ch is not None:
        ch = msgspec.structs.replace(ch, dead=ev.condition == "dead", unconscious=ev.condition == "unconscious")
        state = msgspec.structs.replace(state, characters={**state.characters, ev.character: ch})
    return _put(state, cb)


def _ev_bled(state: Any, ev: Bled) -> Any:
    cb = _with_fighter(state.combats[ev.name], ev.character, bleed_seconds=ev.carry)
    state, cb = _set_character(state, cb, ev.character, "pv", ev.pv_after)
    return _put(state, cb)


def _crystals(state: Any, name: str, crystal: m.Crystal) -> Any:
    return msgspec.structs.replace(state, crystals={**state.crystals, name: crystal})


def _ev_stored(state: Any, ev: CrystalStored) -> Any:
    state = _put(state, _rolled(_add_it(state.combats[ev.name], ev.caster, ev.seconds), ev.caster, "crystal"))
    crystal = state.crystals.get(ev.crystal) or m.Crystal(capacity=ev.capacity)
    if ev.outcome == "stored":
        crystal = msgspec.structs.replace(crystal, stored=m.StoredSpell(name=ev.spell, pm=ev.pm,
                                                                       spends=tuple(ev.spends)), locked_by=None)
    elif ev.outcome == "exploded":
        crystal = msgspec.structs.replace(crystal, destroyed=True)
    return _crystals(state, ev.crystal, crystal)


def _ev_crystal_released(state: Any, ev: CrystalReleased) -> Any:
    state = _put(state, _rolled(_add_it(state.combats[ev.name], ev.caster, ev.seconds), ev.caster, "crystal"))
    if ev.success and ev.crystal in state.crystals:
        state = _crystals(state, ev.crystal, msgspec.structs.replace(state.crystals[ev.crystal], stored=None,
                                                                     locked_by=None))
    return state


def _ev_locked(state: Any, ev: CrystalLocked) -> Any:
    state = _put(state, _rolled(_add_it(state.combats[ev.name], ev.caster, ev.seconds), ev.caster, "crystal"))
    if ev.success and ev.crystal in state.crystals:
        state = _crystals(state, ev.crystal, msgspec.structs.replace(state.crystals[ev.crystal], locked_by=ev.caster))
    return state


def _ev_unlocked(state: Any, ev: CrystalUnlocked) -> Any:
    state = _put(state, _add_it(state.combats[ev.name], ev.caster, ev.seconds))
    return _crystals(state, ev.crystal, msgspec.structs.replace(state.crystals[ev.crystal], locked_by=None))


def _ev_inspected(state: Any, ev: CrystalInspected) -> Any:
    return _put(state, _rolled(_add_it(state.combats[ev.name], ev.caster, ev.seconds), ev.caster, "crystal"))


def _ev_potion(state: Any, ev: PotionUsed) -> Any:
    return _put(state, _add_it(state.combats[ev.name], ev.actor, ev.seconds))


def _ev_ability(state: Any, ev: AbilityUsed) -> Any:
    cb = _add_it(state.combats[ev.name], ev.actor, ev.seconds)
    state, cb = _spend(state, cb, ev.actor, "Vol", "vol_spent", ev.cost)
    return _put(state, cb)


def _ev_align(state: Any, ev: AlignmentUsed) -> Any:
    cb = _add_it(state.combats[ev.name], ev.actor, ev.seconds)
    state, cb = _spend(state, cb, ev.actor, "alignment", "align_spent", ev.points)
    return _put(state, cb)


def _ev_reroll(state: Any, ev: Rerolled) -> Any:
    cb = state.combats[ev.name]
    f = cb.fighters[ev.character]
    last = msgspec.structs.replace(f.last_attack, hit=ev.swing.hit) if f.last_attack else None
    cb = _with_fighter(cb, ev.character, last_attack=last)
    if last is not None:
        cb = _with_fighter(cb, ev.character, last_roll=_attack_roll([ev.swing], ev.target, last, cb.it[ev.character]))
    state, cb = _spend(state, cb, ev.character, "chance", "rerolls", 1)
    return _put(state, cb)


def _ev_redone(state: Any, ev: RollRedone) -> Any:
    """The new roll replaces the old one: damage (PV move by their own events), concentration, initiative."""
    cb = state.combats[ev.name]
    f = cb.fighters[ev.character]
    last = f.last_roll
    assert last is not None
    match ev.kind:
        case "damage":
            last = msgspec.structs.replace(last, roll=ev.roll, amount=ev.damage)
        case "concentration":
            last = msgspec.structs.replace(last, roll=ev.roll, success=ev.success)
            inc = None
            if ev.success and last.time == "incantation":
                inc = Incantation(spell=last.spell, spends=dict(last.spends), targets=list(last.targets),
                                  lowered_dm=dict(last.lowered_dm), combustion=last.combustion, margin=ev.margin,
                                  until=cb.it[ev.character], cnc=last.cnc, penalty=last.penalty,
                                  spell_cnc=last.spell_cnc)
            cb = _with_fighter(cb, ev.character, incantation=inc)
        case "initiative":
            cb = msgspec.structs.replace(cb, it={**cb.it, ev.character: ev.it_after})
            cb = msgspec.structs.replace(cb, clock=min(cb.it.values()))
            last = msgspec.structs.replace(last, roll=ev.roll, it_after=ev.it_after)
    cb = _with_fighter(cb, ev.character, last_roll=last)
    state, cb = _spend(state, cb, ev.character, "chance", "rerolls", 1)
    return _put(state, cb)


def _ev_ended(state: Any, ev: CombatEnded) -> Any:
    """Every IT goes back to 0 (L1222) and the fight leaves the decision state: its history stays in
    the log and in the ``cristal_combat_log`` read model. Keeping ended fights would make the state,
    and every fold that copies it, grow with the length of the campaign."""
    return msgspec.structs.replace(state, combats={k: v for k, v in state.combats.items() if k != ev.name})


_APPLY: dict[type, Any] = {
    CombatStarted: _ev_started, CombatJoined: _ev_joined, InitiativeRolled: _ev_initiative, TieBroken: _ev_tie,
    ActionTaken: _ev_action, TurnPassed: _ev_passed, AttackResolved: _ev_attack, SpellCast: _ev_cast,
    SpellReleased: _ev_released, Deconcentrated: _ev_deconcentrated, PvChanged: _ev_pv, PmSpent: _ev_pm,
    ConditionChanged: _ev_condition, Bled: _ev_bled, CrystalStored: _ev_stored,
    CrystalReleased: _ev_crystal_released, CrystalLocked: _ev_locked,
    CrystalUnlocked: _ev_unlocked, CrystalInspected: _ev_inspected, PotionUsed: _ev_potion, AbilityUsed: _ev_ability,
    AlignmentUsed: _ev_align, Rerolled: _ev_reroll, RollRedone: _ev_redone, CombatEnded: _ev_ended,
}


def _apply(state: Any, ev: Any) -> Any:
    state = _APPLY[type(ev)](state, ev)
    cb = state.combats.get(ev.name)
    if cb is None:  # the fight just ended
        return state
    now = _now(cb)
    if cb.active and now is not None and now > cb.clock:
        state = _put(state, msgspec.structs.replace(cb, clock=now))
    return state


def evolve(state: Any, rec: Any) -> Any:
    """Fold one recorded combat event (pure)."""
    return _apply(state, rec.event)

