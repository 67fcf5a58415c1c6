"""Combat folds: each event applied to the state (pure, never rolls).

Each event's fold returns ``(state, combat)``: the state with any change to the characters or the
crystals, and the new version of the event's combat (None when the fight ended), built with one
copy of each map that changes; :func:`apply` moves the combat's clock and puts it in the state once.
"""

from __future__ import annotations

from typing import Any

import msgspec

from cristal_events.maps import with_entry

from .. import crystals as cr
from ..state import CristalState
from .model import (
    AbilityUsed,
    ActionTaken,
    AlignmentUsed,
    AttackResolved,
    Bled,
    Combat,
    CombatEnded,
    CombatJoined,
    CombatStarted,
    Condition,
    ConditionChanged,
    CrystalInspected,
    CrystalLocked,
    CrystalReleased,
    CrystalStored,
    CrystalUnlocked,
    Deconcentrated,
    Fighter,
    Incantation,
    InitiativeRolled,
    LastAttack,
    LastRoll,
    PmSpent,
    PotionUsed,
    PvChanged,
    Rerolled,
    RollRedone,
    SpellCast,
    SpellReleased,
    Swing,
    TieBroken,
    TurnPassed,
    combat_now,
)

_replace = msgspec.structs.replace
_Folded = tuple[CristalState, "Combat | None"]


# =========================================================================== folds (pure)

def _put(state: CristalState, cb: Combat) -> CristalState:
    return _replace(state, combats={**state.combats, cb.name: cb})


def _with_fighter(cb: Combat, fid: str, **changes: Any) -> Combat:
    return _replace(cb, fighters={**cb.fighters, fid: _replace(cb.fighters[fid], **changes)})


def _add_it(cb: Combat, fid: str, seconds: int, *, action: bool = True, **fighter: Any) -> Combat:
    """``fid``'s IT moves by ``seconds`` (an action unless ``action=False``); ``fighter``: changes to its
    fighter made at the same time."""
    it = {**cb.it, fid: cb.it[fid] + seconds}
    if not fighter:
        return _replace(cb, it=it, actions=cb.actions + int(action))
    return _replace(cb, it=it, actions=cb.actions + int(action),
                    fighters={**cb.fighters, fid: _replace(cb.fighters[fid], **fighter)})


def _character(state: CristalState, fid: str, **changes: Any) -> CristalState:
    ch = state.characters[fid]
    return _replace(state, characters=with_entry(state.characters, fid, _replace(ch, **changes)))


def _on_character(state: CristalState, cb: Combat, fid: str, attr: str) -> bool:
    """PV/PM live on the character when its struct has them, else on the fighter (an extra)."""
    ch = state.characters.get(fid)
    f = cb.fighters.get(fid)
    return ch is not None and isinstance(getattr(ch, attr, None), int) and not (f and attr.upper() in f.stats)


def _set_character(state: CristalState, cb: Combat, fid: str, attr: str, value: Any, **fighter: Any) -> _Folded:
    """``attr`` (pv, pm) set to ``value`` on the character or on the fighter (see ``_on_character``);
    ``fighter``: other changes to the fighter made at the same time."""
    if _on_character(state, cb, fid, attr):
        state = _character(state, fid, **{attr: value})
    else:
        fighter[attr] = value
    return state, (_with_fighter(cb, fid, **fighter) if fighter else cb)


_POOL_STAT = {"Vol": "VOL", "alignment": "ALIGN", "chance": "CHANCE"}


def _spend(state: CristalState, cb: Combat, fid: str, pool: str, attr: str, n: int) -> tuple[CristalState, Combat]:
    """A daily pool spent: on the character (``pools_used``), or on the extra's fighter."""
    if not n:
        return state, cb
    ch = state.characters.get(fid)
    if ch is not None and _POOL_STAT[pool] not in cb.fighters[fid].stats:
        return _character(state, fid, pools_used={**ch.pools_used, pool: ch.pools_used.get(pool, 0) + n}), cb
    return state, _with_fighter(cb, fid, **{attr: getattr(cb.fighters[fid], attr) + n})


def _condition_of(state: CristalState, fid: str) -> Condition:
    ch = state.characters.get(fid)
    if ch is None:
        return "conscious"
    return "dead" if ch.dead else "unconscious" if ch.unconscious else "conscious"


def _ev_started(state: CristalState, ev: CombatStarted) -> _Folded:
    fighters = {e.id: Fighter(id=e.id, stats=dict(e.stats), condition=_condition_of(state, e.id)) for e in ev.fighters}
    its = {e.id: e.it for e in ev.fighters}
    return state, Combat(name=ev.name, it=its, fighters=fighters, clock=min(its.values()))


def _ev_joined(state: CristalState, ev: CombatJoined) -> _Folded:
    cb = state.combats[ev.name]
    e = ev.fighter
    return state, _replace(cb, it={**cb.it, e.id: e.it},
                           fighters={**cb.fighters, e.id: Fighter(id=e.id, stats=dict(e.stats),
                                                                  condition=_condition_of(state, e.id))})


def _ev_initiative(state: CristalState, ev: InitiativeRolled) -> _Folded:
    cb = state.combats[ev.name]
    it, fighters = dict(cb.it), dict(cb.fighters)
    for r in ev.results:
        it[r.id] = r.it
        fighters[r.id] = _replace(fighters[r.id], initiative=True, last_roll=LastRoll(
            kind="initiative", it_after=r.it, roll=r.roll, base_it=r.base_it, ref=r.ref))
    return state, _replace(cb, it=it, fighters=fighters, clock=min(it.values()))


def _ev_tie(state: CristalState, ev: TieBroken) -> _Folded:
    from ..combat import tie_scores  # the combat rules only where a tie is folded: a write outside a fight needs none

    cb = state.combats[ev.name]
    fighters = dict(cb.fighters)
    for fid in ev.rounds[0]:
        fighters[fid] = _replace(fighters[fid], last_roll=LastRoll(kind="tie-break", it_after=cb.it[fid]))
    return state, _replace(cb, tie_it=ev.it, tie_rolls=tie_scores(ev.rounds), tie_rounds=list(ev.rounds),
                           fighters=fighters)


def _ev_action(state: CristalState, ev: ActionTaken) -> _Folded:
    cb = state.combats[ev.name]
    rolled: dict[str, Any] = {"last_roll": LastRoll(kind="duration", it_after=cb.it[ev.actor] + ev.seconds, roll=ev.rolls[0],
                                    times=len(ev.rolls), amount=ev.seconds)} if ev.rolls else {}
    cb = _add_it(cb, ev.actor, ev.seconds, **rolled)
    if ev.aided:
        cb = _with_fighter(cb, ev.aided, aided=True)
    return state, cb


def _ev_passed(state: CristalState, ev: TurnPassed) -> _Folded:
    return state, _add_it(state.combats[ev.name], ev.actor, ev.seconds)


def _ev_attack(state: CristalState, ev: AttackResolved) -> _Folded:
    last = ev.swings[-1]
    la = LastAttack(target=ev.target, att=ev.att, dp=ev.dp, halved=ev.chain, dmg=ev.dmg, backstab=ev.back, hit=last.hit,
                    split=max(2, len(ev.swings)))
    cb = state.combats[ev.name]
    extra: dict[str, Any] = {}
    if ev.natural and ev.ready_at is not None:
        extra["recovering"] = {**cb.fighters[ev.attacker].recovering, ev.natural: ev.ready_at}
    cb = _add_it(cb, ev.attacker, ev.seconds, last_attack=la,
                 last_roll=_attack_roll(ev.swings, ev.target, la, cb.it[ev.attacker] + ev.seconds), **extra)
    state, cb = _spend(state, cb, ev.attacker, "Vol", "vol_spent", ev.vol_spent)
    return _use_projectiles(state, ev), cb


def _attack_roll(swings: list[Swing], target: str, la: LastAttack, it: int) -> LastRoll:
    """The last roll of an attack: the damage of the last hit (rolled after the d20s), else the last d20."""
    hurt = [sw for sw in swings if sw.damage_roll is not None]
    if hurt:
        return LastRoll(kind="damage", it_after=it, roll=hurt[-1].damage_roll, target=target, dmg=la.dmg,
                        backstab=la.backstab, amount=hurt[-1].damage)
    return LastRoll(kind="attack", it_after=it, roll=swings[-1].roll, target=target, att=la.att, dp=la.dp,
                    halved=la.halved, split=la.split, dmg=la.dmg, backstab=la.backstab)


def _use_projectiles(state: CristalState, ev: AttackResolved) -> CristalState:
    """Each shot takes one projectile from the attacker's bag (QTÉ - 1; the line goes at 0)."""
    if not ev.projectiles_used:
        return state
    ch = state.characters.get(ev.attacker)
    if ch is None:
        return state
    key, items = ev.projectile.casefold(), []
    for item in ch.items:
        if item.name.casefold() == key:
            if item.qty <= ev.projectiles_used:
                continue
            item = _replace(item, qty=item.qty - ev.projectiles_used)
        items.append(item)
    return _character(state, ev.attacker, items=items)


def _ev_cast(state: CristalState, ev: SpellCast) -> _Folded:
    cb = state.combats[ev.name]
    it = cb.it[ev.caster] + ev.incantation
    changes: dict[str, Any] = {}
    if ev.success and ev.incantation > 0:
        changes["incantation"] = Incantation(
            spell=ev.spell, spends=dict(ev.spends), targets=list(ev.targets), lowered_dm=dict(ev.lowered_dm),
            combustion=ev.combustion, margin=ev.margin, until=it, cnc=ev.cnc, penalty=ev.penalty,
            spell_cnc=ev.spell_cnc)
    if ev.roll is not None:
        comb = ev.combustion_on_success if ev.combustion_on_success is not None else ev.combustion
        changes["last_roll"] = LastRoll(
            kind="concentration", it_after=it, roll=ev.roll, spell=ev.spell, cnc=ev.cnc, penalty=ev.penalty,
            spell_cnc=ev.spell_cnc, success=ev.success, time=ev.time, combustion=comb, spends=dict(ev.spends),
            targets=list(ev.targets), lowered_dm=dict(ev.lowered_dm))
    if ev.time:  # the Temps this cast used, remembered for a spell the book prints none for
        given = {"instantane": "INSTANTANÉ", "simultane": "SIMULTANÉ"}.get(ev.time, str(ev.incantation))
        if state.spell_times.get(ev.spell) != given:
            state = _replace(state, spell_times={**state.spell_times, ev.spell: given})
    return state, _add_it(cb, ev.caster, ev.incantation, **changes)


def _ev_released(state: CristalState, ev: SpellReleased) -> _Folded:
    cb = state.combats[ev.name]
    f = cb.fighters[ev.caster]
    dealt = {r.target: r.damage for r in ev.results}
    rolled_any = next((e.roll for r in ev.results for e in r.effects if e.roll is not None), None)
    if ev.source == "spell":
        # what redoing its effect dice needs (L56): the spell's spends, targets and DM, from the
        # incantation or the cast that set it off
        src = f.incantation if f.incantation is not None and f.incantation.spell == ev.spell else f.last_roll
        how: dict[str, Any] = {}
        if src is not None and getattr(src, "spell", "") == ev.spell:
            how = {"spell": ev.spell, "spends": dict(src.spends), "targets": list(src.targets),
                   "lowered_dm": dict(src.lowered_dm), "combustion": ev.combustion}
        rolled = LastRoll(kind="effects", it_after=cb.it[ev.caster] + ev.combustion, roll=rolled_any, dealt=dealt,
                          **how)
        return state, _add_it(cb, ev.caster, ev.combustion, action=False, incantation=None, last_roll=rolled)
    last = f.last_roll
    if last is not None and last.kind == "crystal" and last.spell == "liberation_cristalline":
        # a crystal's spell: the Libération roll stays the last one, with the damage its release dealt
        return state, _with_fighter(cb, ev.caster, last_roll=_replace(last, dealt=dealt))
    return state, _with_fighter(cb, ev.caster, last_roll=LastRoll(kind="effects", it_after=cb.it[ev.caster]))


def _ev_deconcentrated(state: CristalState, ev: Deconcentrated) -> _Folded:
    return state, _with_fighter(state.combats[ev.name], ev.caster, incantation=None)


def _ev_pv(state: CristalState, ev: PvChanged) -> _Folded:
    if ev.amends is not None:
        state = _replace(state, corrections={**state.corrections, ev.amends: dict(ev.fixed)})
    return _set_character(state, state.combats[ev.name], ev.character, "pv", ev.pv_after)


def _ev_pm(state: CristalState, ev: PmSpent) -> _Folded:
    return _set_character(state, state.combats[ev.name], ev.character, "pm", ev.pm_after)


def _ev_condition(state: CristalState, ev: ConditionChanged) -> _Folded:
    cb = state.combats[ev.name]
    changes: dict[str, Any] = {"condition": ev.condition, "bleed_seconds": 0}
    if ev.condition != "conscious":
        changes["incantation"] = None
    else:
        changes["aided"] = False
        cb = _replace(cb, it={**cb.it, ev.character: max(cb.it[ev.character], cb.clock)})
    on_character = _on_character(state, cb, ev.character, "pv")
    if not on_character:
        changes["pv"] = ev.pv
    cb = _with_fighter(cb, ev.character, **changes)
    ch = state.characters.get(ev.character)
    if ch is not None:
        vitals: dict[str, Any] = {"pv": ev.pv} if on_character else {}
        state = _character(state, ev.character, dead=ev.condition == "dead",
                           unconscious=ev.condition == "unconscious", **vitals)
    return state, cb


def _ev_bled(state: CristalState, ev: Bled) -> _Folded:
    return _set_character(state, state.combats[ev.name], ev.character, "pv", ev.pv_after, bleed_seconds=ev.carry)


def _crystals(state: CristalState, name: str, crystal: cr.Crystal) -> CristalState:
    return _replace(state, crystals={**state.crystals, name: crystal})


def _crystal_turn(state: CristalState, ev: Any) -> Combat:
    """A crystal spell's turn: the caster's IT moves and its concentration roll is its last roll, a bare one
    Chance does not redo (a log written before the totals were recorded); each event's fold then sets what
    redoing it needs (Fermeture, Libération, Verrou, Vision, an explosion)."""
    cb = state.combats[ev.name]
    return _add_it(cb, ev.caster, ev.seconds, last_roll=LastRoll(kind="crystal", it_after=cb.it[ev.caster] + ev.seconds))


def _ev_stored(state: CristalState, ev: CrystalStored) -> _Folded:
    cb = _crystal_turn(state, ev)
    if ev.explosion_roll is not None and ev.hit:  # the blast is the store's last roll (rolled after both CNC)
        cb = _with_fighter(cb, ev.caster, last_roll=LastRoll(
            kind="explosion", it_after=cb.it[ev.caster], roll=ev.explosion_roll, dmg=ev.explosion,
            amount=ev.explosion_roll.total, targets=list(ev.hit), crystal=ev.crystal))
    elif ev.fermeture_roll is not None and ev.fermeture_cnc is not None and ev.outcome != "exploded":
        # Fermeture's d20 is the store's last roll (rolled after the stored spell's): Chance redoes it
        cb = _with_fighter(cb, ev.caster, last_roll=LastRoll(
            kind="crystal", it_after=cb.it[ev.caster], roll=ev.fermeture_roll, spell="fermeture_cristalline",
            cnc=ev.fermeture_cnc - ev.fermeture_roll.total, success=ev.fermeture_success, crystal=ev.crystal,
            amount=ev.seconds, spell_ok=ev.spell_success, capacity=ev.capacity, time=ev.time,
            targets=list(ev.zone), stored=cr.StoredSpell(name=ev.spell, pm=ev.pm, spends=tuple(ev.spends))))
    crystal = state.crystals.get(ev.crystal) or cr.Crystal(capacity=ev.capacity)
    if ev.outcome == "stored":
        crystal = _replace(crystal, stored=cr.StoredSpell(name=ev.spell, pm=ev.pm, spends=tuple(ev.spends)),
                           locked_by=None)
    elif ev.outcome == "exploded":
        crystal = _replace(crystal, destroyed=True)
    return _crystals(state, ev.crystal, crystal), cb


def _ev_crystal_released(state: CristalState, ev: CrystalReleased) -> _Folded:
    cb = _crystal_turn(state, ev)
    held = state.crystals.get(ev.crystal)
    if ev.roll is not None and ev.cnc_total is not None and held is not None:
        # Libération's d20 is the caster's last roll (the stored spell rolls no CNC, L1105): Chance redoes it
        cb = _with_fighter(cb, ev.caster, last_roll=LastRoll(
            kind="crystal", it_after=cb.it[ev.caster], roll=ev.roll, spell="liberation_cristalline",
            cnc=ev.cnc_total - ev.roll.total, success=ev.success, crystal=ev.crystal, amount=ev.seconds,
            targets=list(ev.targets), lowered_dm=dict(ev.lowered_dm), stored=held.stored,
            locked_by=held.locked_by or ""))
    if ev.success and held is not None:
        state = _crystals(state, ev.crystal, _replace(held, stored=None, locked_by=None))
    return state, cb


def _crystal_roll(cb: Combat, ev: Any, key: str) -> Combat:
    """Verrou / Vision Cristalline: its concentration roll is the caster's last, which Chance redoes."""
    if ev.roll is None or ev.cnc_total is None:
        return cb  # a log written before cnc_total: the roll stays the GM's to correct
    return _with_fighter(cb, ev.caster, last_roll=LastRoll(
        kind="crystal", it_after=cb.it[ev.caster], roll=ev.roll, spell=key, cnc=ev.cnc_total - ev.roll.total,
        success=ev.success, crystal=ev.crystal, amount=ev.seconds))


def _ev_locked(state: CristalState, ev: CrystalLocked) -> _Folded:
    cb = _crystal_roll(_crystal_turn(state, ev), ev, "verrou_cristallin")
    if ev.success and ev.crystal in state.crystals:
        state = _crystals(state, ev.crystal, _replace(state.crystals[ev.crystal], locked_by=ev.caster))
    return state, cb


def _ev_unlocked(state: CristalState, ev: CrystalUnlocked) -> _Folded:
    cb = _add_it(state.combats[ev.name], ev.caster, ev.seconds)
    return _crystals(state, ev.crystal, _replace(state.crystals[ev.crystal], locked_by=None)), cb


def _ev_inspected(state: CristalState, ev: CrystalInspected) -> _Folded:
    return state, _crystal_roll(_crystal_turn(state, ev), ev, "vision_cristalline")


def _ev_potion(state: CristalState, ev: PotionUsed) -> _Folded:
    ch = state.characters.get(ev.actor)
    if ev.item and ch is not None:  # single use (L1181): the vial leaves the bag
        key, items = ev.item.casefold(), []
        for i in ch.items:
            if i.name.casefold() == key:
                if i.qty <= 1:
                    continue
                i = _replace(i, qty=i.qty - 1)
            items.append(i)
        state = _replace(state, characters=with_entry(state.characters, ch.id, _replace(ch, items=items)))
    return state, _add_it(state.combats[ev.name], ev.actor, ev.seconds)


def _ev_ability(state: CristalState, ev: AbilityUsed) -> _Folded:
    return _spend(state, _add_it(state.combats[ev.name], ev.actor, ev.seconds), ev.actor, "Vol", "vol_spent", ev.cost)


def _ev_align(state: CristalState, ev: AlignmentUsed) -> _Folded:
    cb = _add_it(state.combats[ev.name], ev.actor, ev.seconds)
    return _spend(state, cb, ev.actor, "alignment", "align_spent", ev.points)


def _ev_reroll(state: CristalState, ev: Rerolled) -> _Folded:
    cb = state.combats[ev.name]
    f = cb.fighters[ev.character]
    last = _replace(f.last_attack, hit=ev.swing.hit) if f.last_attack else None
    changes: dict[str, Any] = {"last_attack": last}
    if last is not None:
        changes["last_roll"] = _attack_roll([ev.swing], ev.target, last, cb.it[ev.character])
    return _spend(state, _with_fighter(cb, ev.character, **changes), ev.character, "chance", "rerolls", 1)


def _ev_redone(state: CristalState, ev: RollRedone) -> _Folded:
    """The new roll replaces the old one: damage (PV move by their own events), concentration, initiative."""
    cb = state.combats[ev.name]
    f = cb.fighters[ev.character]
    last = f.last_roll
    assert last is not None
    changes: dict[str, Any] = {}
    match ev.kind:
        case "damage":
            last = _replace(last, roll=ev.roll, amount=ev.damage)
        case "concentration":
            last = _replace(last, roll=ev.roll, success=ev.success)
            inc = None
            if ev.success and last.time == "incantation":
                inc = Incantation(spell=last.spell, spends=dict(last.spends), targets=list(last.targets),
                                  lowered_dm=dict(last.lowered_dm), combustion=last.combustion, margin=ev.margin,
                                  until=cb.it[ev.character], cnc=last.cnc, penalty=last.penalty,
                                  spell_cnc=last.spell_cnc)
            changes["incantation"] = inc
        case "initiative":
            it = {**cb.it, ev.character: ev.it_after}
            cb = _replace(cb, it=it, clock=min(it.values()))
            last = _replace(last, roll=ev.roll, it_after=ev.it_after)
        case "duration":
            it = {**cb.it, ev.character: ev.it_after}
            cb = _replace(cb, it=it)
            last = _replace(last, roll=ev.roll, it_after=ev.it_after, amount=ev.total)
        case "effects":
            last = _replace(last, roll=ev.roll, dealt={r.target: r.damage for r in ev.results})
        case "tie-break":
            last = _replace(last, roll=ev.roll)
        case "explosion":
            last = _replace(last, roll=ev.roll, amount=ev.damage)
        case "crystal":
            it = {**cb.it, ev.character: ev.it_after}
            cb = _replace(cb, it=it)
            last = _replace(last, roll=ev.roll, success=ev.success, it_after=ev.it_after, amount=ev.total)
            if last.spell == "verrou_cristallin" and last.crystal in state.crystals:
                state = _crystals(state, last.crystal, _replace(state.crystals[last.crystal],
                                                                locked_by=ev.character if ev.success else None))
            held = state.crystals.get(last.crystal)
            if last.spell == "fermeture_cristalline" and held is not None:
                stored = last.stored if ev.outcome == "stored" else None
                state = _crystals(state, last.crystal, _replace(held, stored=stored, locked_by=None,
                                                                destroyed=ev.outcome == "exploded"))
                if ev.outcome == "exploded" and ev.blast is not None:  # the blast is now the last roll
                    last = LastRoll(kind="explosion", it_after=ev.it_after, roll=ev.blast, dmg=ev.blast.expr,
                                    amount=ev.blast.total, targets=list(ev.targets), crystal=last.crystal)
            if last.spell == "liberation_cristalline" and held is not None:
                if ev.success:
                    state = _crystals(state, last.crystal, _replace(held, stored=None, locked_by=None))
                else:
                    state = _crystals(state, last.crystal, _replace(held, stored=last.stored,
                                                                    locked_by=last.locked_by or None))
                    last = _replace(last, dealt={})
    cb = _with_fighter(cb, ev.character, last_roll=last, **changes)
    return _spend(state, cb, ev.character, "chance", "rerolls", 1)


def _ev_ended(state: CristalState, ev: CombatEnded) -> _Folded:
    """Every IT goes back to 0 (L1222) and the fight leaves the decision state: its history stays in
    the log and in the ``cristal_combat_log`` read model. Keeping ended fights would make the state,
    and every fold that copies it, grow with the length of the campaign."""
    return _replace(state, combats={k: v for k, v in state.combats.items() if k != ev.name}), None


APPLY: dict[type, Any] = {
    CombatStarted: _ev_started, CombatJoined: _ev_joined, InitiativeRolled: _ev_initiative, TieBroken: _ev_tie,
    ActionTaken: _ev_action, TurnPassed: _ev_passed, AttackResolved: _ev_attack, SpellCast: _ev_cast,
    SpellReleased: _ev_released, Deconcentrated: _ev_deconcentrated, PvChanged: _ev_pv, PmSpent: _ev_pm,
    ConditionChanged: _ev_condition, Bled: _ev_bled, CrystalStored: _ev_stored,
    CrystalReleased: _ev_crystal_released, CrystalLocked: _ev_locked,
    CrystalUnlocked: _ev_unlocked, CrystalInspected: _ev_inspected, PotionUsed: _ev_potion, AbilityUsed: _ev_ability,
    AlignmentUsed: _ev_align, Rerolled: _ev_reroll, RollRedone: _ev_redone, CombatEnded: _ev_ended,
}


def apply(state: CristalState, ev: Any) -> CristalState:
    return _finish(*APPLY[type(ev)](state, ev))


def _finish(state: CristalState, cb: Combat | None) -> CristalState:
    """The event's combat (None: it ended) put in the state, its clock moved to its present moment."""
    if cb is None:
        return state
    if cb.active:
        now = combat_now(cb)
        if now is not None and now > cb.clock:
            cb = _replace(cb, clock=now)
    return _replace(state, combats={**state.combats, cb.name: cb})


def evolver(cls: type) -> Any:
    """The part's evolver for the events of class ``cls`` (``fn(state, event, rec)``), its fold found once."""
    fold = APPLY[cls]
    return lambda state, ev, rec: _finish(*fold(state, ev))
