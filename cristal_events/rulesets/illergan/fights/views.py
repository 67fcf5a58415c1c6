"""One line per fight event, in the current language (the ruleset's catalog; the French lines are those
the timeline always stored)."""

from __future__ import annotations

from typing import Any

from cristal_events.i18n import N_
from cristal_events.ruleset import on_event

from ..texts import _, ngettext
from .model import (
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


# ============================================================================ summaries
def _attack(e: AttackResolved) -> str:
    face = e.rolls[0].total
    arme = e.weapon or _("bare-handed")
    if e.fumble:
        return _("{attacker} attacks {target} ({weapon}): Dé100 {face}, fumble").format(
            attacker=e.attacker, target=e.target, weapon=arme, face=face)
    if not e.hit:
        return _("{attacker} attacks {target} ({weapon}): Dé100 {face} against Adresse {adresse}, missed").format(
            attacker=e.attacker, target=e.target, weapon=arme, face=face, adresse=e.adresse)
    hits = _("{attacker} hits{critical} {target}").format(
        attacker=e.attacker, critical=_(" critically") if e.critical else "", target=e.target)
    if e.defended and not e.shield:
        return _("{hits} ({zone}) but the defence succeeds").format(hits=hits, zone=e.zone)
    extra = _(", loses {limb}").format(limb=e.limb_lost) if e.limb_lost else _(", dead") if e.dead else ""
    if e.rider is not None:
        extra += f", {e.rider.name}"
    if e.shield:
        broken = _(", destroyed") if e.shield_destroyed else ""
        extra = (_("; blocked by {shield} (SR {sr}, −{lost} PS → {after}{broken})").format(
            shield=e.shield, sr=e.shield_sr, lost=e.shield_ps_lost, after=e.shield_ps_after, broken=broken) + extra)
    return _("{hits}, zone {zone} ({weapon}): {damage} damage {type}, SR {sr}, RN {rn}% → −{lost} PV ({after}){extra}").format(
        hits=hits, zone=e.zone, weapon=arme, damage=e.damage, type=e.damage_type, sr=e.sr, rn=e.rn, lost=e.pv_lost,
        after=e.pv_after, extra=extra)


def _cast(e: SpellCast) -> str:
    out = {"critical": lambda: _("critical, {pct}% back (+{pm} PM)").format(pct=e.refund_pct, pm=e.refund_pm),
           "normal": lambda: _("success"),
           "counter": lambda: _("counter-effect: {effect}").format(effect=e.counter_effect)}[e.outcome]()
    hit = f", {e.target} −{e.pv_lost} PV" if e.pv_lost else ""
    return _("{caster} casts {spell} level {level}{extras} ({cost} PM): Dé100 {face}, {outcome} → PM {pm}{hit}{after}").format(
        caster=e.caster, spell=e.spell, level=e.cast_level, extras=cast_extras(e), cost=e.cost, face=e.rolls[0].total,
        outcome=out, pm=e.pm_after, hit=hit, after=cast_after(e))


_RESISTANCE = {"vol_roll": N_("Volonté roll"), "no_vol_roll": N_("stealthy mage, no Volonté roll"),
               "accepted": N_("accepted"), "refused": N_("refused")}


def cast_extras(e: SpellCast) -> str:
    """Secondary spells (I-L226) and the primary they are added to (I-L227)."""
    parts = [f"{s.spell} {s.level}" for s in e.secondaries]
    text = f" + {', '.join(parts)}" if parts else ""
    return text + (_(" on {primary}").format(primary=e.on_primary) if e.on_primary else "")


def cast_after(e: SpellCast) -> str:
    bits = []
    if e.resistance in _RESISTANCE:
        resisted = _(" succeeded, effects countered") if e.resistance == "vol_roll" and e.resisted else ""
        bits.append(_(_RESISTANCE[e.resistance]) + resisted)
    if e.level_bonus:
        bits.append(_("+{n} level (Oubli)").format(n=e.level_bonus))
    if e.superior_effect:
        bits.append(_("superior effect"))
    if e.stacking == "cancelled":
        bits.append(_("cancelled by the same spell at a higher level"))
    elif e.active is not None:
        bits.append(_("active {duration} {unit}").format(duration=e.active.duration, unit=_UNITS.get(e.active.unit, e.active.unit))
                    + (_(", concentration") if e.active.concentrated else ""))
    return _("; {list}").format(list=", ".join(bits)) if bits else ""


#: a spell's duration unit as the state keeps it (French words, the stored value), shown in each language
_UNITS = {"tours": N_("turns"), "minutes": N_("minutes")}


_ACTIONS = {"major": N_("major action"), "minor": N_("minor action"), "skill": N_("skill"),
            "forgo_major": N_("forgoes the major action (+2 minors)"), "extra_major": N_("extra major action"),
            "knocked_down": N_("knocked down, a major action lost"), "disarmed": N_("disarmed, his weapon is on the ground"),
            "pick_up": N_("picks up his weapon (minor action)")}


def _initiative(r: Any) -> str:
    e = r.event
    if e.kept:
        told = _("initiative kept: {order}").format(order=", ".join(e.order))
    else:
        told = ", ".join(f"{x.character} {x.score}{'' if x.acts else _(' (no action)')}"
                         for x in sorted(e.entries, key=lambda x: e.order.index(x.character)))
    return _("Turn {turn} of « {fight} »: {entries}").format(turn=e.turn, fight=e.fight, entries=told)


def _moved(r: Any) -> str:
    e = r.event
    return (_("{who} moves ({mode}): {metres} m").format(who=e.character, mode=e.mode, metres=f"{e.metres:g}")
            + (_(" + {metres} m vertically").format(metres=f"{e.vertical_m:g}") if e.vertical_m else "")
            + _(", {metres} m left").format(metres=f"{e.left_m:g}")
            + (_(", {metres} m on the next turn").format(metres=f"{e.owed_m:g}") if e.owed_m else ""))


def _flight(r: Any) -> str:
    e = r.event
    if e.held:
        return _("{who} is held from the ground by {by}: he will land at the end of his turn").format(
            who=e.character, by=e.held_by)
    if e.forced:
        return _("{who} is forced to land (end of his turn)").format(who=e.character)
    if e.roll is None:
        return _("{who} lands").format(who=e.character)
    return _("{who} takes off: Dé100 {face} against Dex {dex} → {outcome}").format(
        who=e.character, face=e.roll.total, dex=e.dex,
        outcome=_("flying, {metres} m of movement").format(metres=f"{e.left_after_m:g}") if e.success else _("failed"))

SUMMARIES: dict[type, Any] = {
    FightStarted: lambda r: _("Fight « {fight} »: {who}").format(fight=r.event.fight, who=", ".join(r.event.participants)),
    InitiativeRolled: _initiative,
    AttackResolved: on_event(_attack),
    DestinyPointSpent: lambda r: _("{who} spends a destiny point: position {position} is cancelled ({left} left)").format(
        who=r.event.character, position=r.event.cancels, left=r.event.destiny_after),
    SpellCast: on_event(_cast),
    AfflictionTicked: lambda r: (ngettext("{who}: {affliction}, −{lost} PV ({turns} turn) → {after}",
                                          "{who}: {affliction}, −{lost} PV ({turns} turns) → {after}", r.event.turns).format(
        who=r.event.character, affliction=r.event.affliction, lost=r.event.pv_lost, turns=r.event.turns,
        after=r.event.pv_after) + (_(", dead") if r.event.dead else "")),
    Moved: _moved,
    FlightChanged: _flight,
    PoisonApplied: lambda r: _("{who} is poisoned ({poison}): −{pv} PV a turn, turns {first} to {last}").format(
        who=r.event.character, poison=r.event.poison, pv=r.event.pv_per_turn, first=r.event.first_turn,
        last=r.event.last_turn),
    FightEnded: lambda r: _("End of the fight « {fight} »").format(fight=r.event.fight),
    ActionTaken: lambda r: (_("{who}: {action}").format(who=r.event.character, action=_(_ACTIONS[r.event.action]))
                            + (f" ({r.event.what})" if r.event.what else "")),
    DefenceUsed: lambda r: (_("{who} defends ({defence})").format(who=r.event.character, defence=r.event.defence)
                            + (_(" for an ally, a major action lost") if r.event.for_ally else "")),
}
