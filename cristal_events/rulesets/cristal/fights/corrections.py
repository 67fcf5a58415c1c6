"""Corrections of a fight's numbers typed wrong at the table (pure): the original event stays in the log,
compensating events that anyone can read follow it (the house rule of corrections, docs/rulings.md).

* ``combat.attack_resolved``: ``--set die=N`` (the d20 of a one-swing attack) and/or ``--set damage=N``
  (the PV the attack should have taken): the target's PV move by the difference;
* ``combat.pv_changed``: ``--set delta=N`` (the PV change it should have been): the PV move by the difference.

While the fight goes on, the compensation is a ``combat.pv_changed`` on its stream (and a
``combat.condition_changed`` when the corrected PV wake, fell or kill the fighter); once it has ended, a
character's PV are corrected on its sheet (``character.corrected``, field pv); an extra's PV ended with
the fight.
"""

from __future__ import annotations

from typing import Any

from ....bounds import as_int
from ....errors import RuleError
from ....events import Event
from ....records import RecordedEvent
from ....rounding import RoundingMode, divide
from ....ruleset import Context, Emit, event_of
from .. import combat as c
from ..characters import CharacterCorrected, stream_of
from ..state import CristalState
from ..texts import _
from .common import int_or, need, numbers
from .model import AttackResolved, ConditionChanged, PvChanged, stream


def _whole(changes: dict[str, Any], key: str) -> int:
    value = as_int(changes[key])
    if value is None:
        raise RuleError(_("{key} must be a whole number, not {changes!r}.").format(key=key, changes=changes[key]))
    return value


def _compensate_pv(state: CristalState, combat: str, fid: str, delta: int, position: int,
                   cause: str, mode: RoundingMode, fixed: dict[str, int]) -> list[Emit]:
    """``delta`` PV given back (or taken) to ``fid`` for the event at ``position``, now ``fixed``."""
    if delta == 0:
        raise RuleError(_("The event at position {position} already comes to that; nothing to correct.").format(position=position))
    cb = state.combats.get(combat)
    if cb is None or fid not in cb.fighters:  # the fight has ended
        ch = state.characters.get(fid)
        if ch is None:
            raise RuleError(_("The fight {combat!r} has ended and {fid} was an extra of it: its PV ended with it.").format(combat=combat, fid=fid))
        return [Emit(stream_of(fid), CharacterCorrected(character=fid, amends=position, field="pv", delta=delta,
                                                        balance_after=ch.pv + delta, what=cause, fixed=fixed))]
    nums = numbers(state, cb, fid, mode)
    pv = need(nums.PV, fid, "PV")
    f = cb.fighters[fid]
    after = pv + delta
    # a typo is undone whatever it did: even a death it caused (L373 is about real deaths)
    state_after = c.vital_state(after, race_pv=int_or(nums.PVrace), con=int_or(nums.CON),
                                was_unconscious=f.condition == "unconscious")
    events: list[Event] = [PvChanged(name=combat, character=fid, delta=delta, pv_after=after, cause=cause,
                                     amends=position, fixed=fixed)]
    if state_after != f.condition:
        events.append(ConditionChanged(name=combat, character=fid, condition=state_after, pv=after))
    return [Emit(stream(combat), e) for e in events]


def compensate_attack(state: CristalState, original: RecordedEvent, changes: dict[str, Any],
                      ctx: Context) -> list[Emit]:
    ev = event_of(original, AttackResolved)
    keys = set(changes)
    if not keys or keys - {"die", "damage"}:
        raise RuleError(_("An attack is corrected with --set die=N (its d20) and/or --set damage=N (the PV it took)."))
    # a second correction of the same attack starts from the first one's values
    before = state.corrections.get(original.position, {})
    old_damage = before.get("damage", sum(s.damage for s in ev.swings if s.hit))
    old_die = before.get("die", ev.swings[0].die)
    hit_before = old_damage > 0 or (("die" in before) and _hits(ev, old_die, ctx)) or (
        "die" not in before and any(s.hit for s in ev.swings))
    hit, die, what = hit_before, old_die, []
    if "die" in keys:
        if len(ev.swings) != 1:
            raise RuleError(_("A chained attack's d20 are corrected one by one: give the damage it should have done (--set damage=N)."))
        die = _whole(changes, "die")
        if not 1 <= die <= 20:
            raise RuleError(_("A d20 shows 1 to 20, not {die}.").format(die=die))
        hit = _hits(ev, die, ctx)
        total = ev.att + die
        what.append(f"d20 {old_die} → {die}, {total} {'>' if hit else '≤'} DP {ev.dp}")
    if "damage" in keys:
        damage = _whole(changes, "damage")
        if damage < 0:
            raise RuleError(_("An attack takes 0 PV or more, not {damage}.").format(damage=damage))
        if damage and not hit:
            raise RuleError(_("With that d20 the attack misses (DP {ev_dp}): it takes no PV.").format(ev_dp=ev.dp))
    elif not hit:
        damage = 0
    elif not hit_before:
        raise RuleError(_("With that d20 the attack now hits: give its damage too (--set damage=N)."))
    else:
        damage = old_damage
    what.append(f"dommages {old_damage} → {damage}")
    cause = f"correction de l'attaque de {ev.attacker} (position {original.position}) : {', '.join(what)}"
    fixed = {"damage": damage, **({"die": die} if len(ev.swings) == 1 else {})}
    return _compensate_pv(state, ev.name, ev.target, old_damage - damage, original.position, cause, ctx.mode,
                          fixed)


def _hits(ev: AttackResolved, die: int, ctx: Context) -> bool:
    total = divide(ev.att + die, 2, ctx.mode) if ev.chain else ev.att + die
    return total > ev.dp


def compensate_pv(state: CristalState, original: RecordedEvent, changes: dict[str, Any], ctx: Context) -> list[Emit]:
    ev = event_of(original, PvChanged)
    if set(changes) != {"delta"}:
        raise RuleError(_("A PV change is corrected with --set delta=N (the PV change it should have been, negative for damage)."))
    delta = _whole(changes, "delta")
    was = state.corrections.get(original.position, {}).get("delta", ev.delta)
    cause = f"correction de la position {original.position} : {was:+d} → {delta:+d} PV"
    return _compensate_pv(state, ev.name, ev.character, delta - was, original.position, cause, ctx.mode,
                          {"delta": delta})


COMPENSATORS: dict[type, Any] = {AttackResolved: compensate_attack, PvChanged: compensate_pv}
