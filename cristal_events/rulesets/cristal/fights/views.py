"""Combat read side: one-line summaries, the book's combat-table rows, the combat view."""

from __future__ import annotations

from typing import Any

from ....errors import RuleError
from ....rounding import as_mode
from ..state import CristalState
from .common import combat_named, int_or, numbers, whose_turn
from .model import (
    AbilityUsed,
    ActionTaken,
    AlignmentUsed,
    AttackResolved,
    Bled,
    CombatEnded,
    CombatJoined,
    CombatStarted,
    ConditionChanged,
    CrystalReleased,
    CrystalStored,
    Deconcentrated,
    InitiativeRolled,
    PmSpent,
    PotionUsed,
    PvChanged,
    Rerolled,
    SpellCast,
    SpellReleased,
    Swing,
    TieBroken,
    TurnPassed,
)

# =========================================================================== summaries

#: what ``from .views import *`` gives the package: the package builds its own TURN_EVENTS and log_entry
#: over these (adding the crystal spells')
__all__ = ["summarize", "view"]


def _swing_text(s: Swing) -> str:
    """The d20 face, the total it made (ATT + d20) and the outcome: ``d20 13 → 14 (touché, 6 dommages)``."""
    return f"d20 {s.die} → {s.total} ({'touché, ' + str(s.damage) + ' dommages' if s.hit else 'manqué'})"


_SUMMARY: dict[type, Any] = {
    CombatStarted: lambda e: f"Combat « {e.name} » : " + ", ".join(f"{f.id} IT {f.it}" for f in e.fighters),
    CombatJoined: lambda e: f"{e.fighter.id} rejoint le combat « {e.name} » à IT {e.fighter.it}"
                            + (" (moyenne)" if e.averaged else ""),
    InitiativeRolled: lambda e: "Initiative : " + ", ".join(f"{r.id} {r.base_it} − ({r.die} + {r.ref}×2) = {r.it}"
                                                             for r in e.results),
    TieBroken: lambda e: f"Égalité à IT {e.it} : " + " ; puis ".join(
        ", ".join(f"{k} {r.total}" for k, r in this.items()) for this in e.rounds)
                         + f" ; {e.winner} agit",
    ActionTaken: lambda e: f"{e.actor} : {e.what or e.action} ; IT +{e.seconds}",
    TurnPassed: lambda e: f"{e.actor} passe son tour ; IT +{e.seconds}",
    AttackResolved: lambda e: f"{e.attacker} attaque {e.target}"
                              + (f" ({e.weapon or e.projectile or e.natural})"
                                 if e.weapon or e.projectile or e.natural else "")
                              + f" : ATT {e.att} contre DP {e.dp} : " + ", ".join(_swing_text(s) for s in e.swings)
                              + f" ; IT +{e.seconds}",
    SpellCast: lambda e: f"{e.caster} lance {e.spell} ({e.pm_cost} PM) : CNC {e.cnc} + d20 {e.die} = {e.total} contre {e.spell_cnc}, "
                         + ("réussi" if e.success else "échoué") + f" ; IT +{e.incantation}",
    SpellReleased: lambda e: f"{e.spell} de {e.caster} se libère : "
                             + (", ".join(f"{r.target} {r.damage} dommages" for r in e.results) or "sans cible")
                             + (f" ; IT +{e.combustion}" if e.source == "spell" else ""),
    Deconcentrated: lambda e: f"{e.caster} est déconcentré ({e.damage} > {e.margin}) : {e.spell} est perdu",
    PvChanged: lambda e: f"{e.character} : {e.delta:+d} PV → {e.pv_after} ({e.cause})",
    PmSpent: lambda e: f"{e.character} dépense {e.pm} PM → {e.pm_after}",
    ConditionChanged: lambda e: f"{e.character} est {dict(conscious='conscient', unconscious='inconscient', dead='mort')[e.condition]} ({e.pv} PV)",
    Bled: lambda e: f"{e.character} perd {e.pv_lost} PV en {e.seconds} s d'inconscience → {e.pv_after}",
    CrystalStored: lambda e: f"{e.caster} enferme {e.spell} ({e.pm} PM) dans le cristal {e.crystal} : "
                             + dict(stored="emmagasiné", failed="échec", exploded="explosion " + e.explosion)[e.outcome]
                             + f" ; IT +{e.seconds}",
    CrystalReleased: lambda e: f"{e.caster} libère le cristal {e.crystal} : "
                               + (e.spell if e.success else "échec") + f" ; IT +{e.seconds}",
    PotionUsed: lambda e: f"{e.actor} : potion de {e.spell} ({e.trigger}) sur {e.target} ; IT +{e.seconds}",
    AbilityUsed: lambda e: f"{e.actor} : {e.ability} ({e.cost} Vol*)" + (f" sur {e.target}" if e.target else "")
                           + f" ; IT +{e.seconds}",
    AlignmentUsed: lambda e: f"{e.actor} {'soigne' if e.kind == 'heal' else 'blesse'} {e.target} de {e.points} PV"
                             f" ; IT +{e.seconds}",
    Rerolled: lambda e: f"{e.character} utilise sa Chance contre {e.target} : {_swing_text(e.swing)}",
    CombatEnded: lambda e: f"Fin du combat « {e.name} » : IT remis à 0",
}


def summarize(rec: Any) -> str:
    return _SUMMARY[type(rec.event)](rec.event)



# =========================================================================== read side (pure)

#: events that are a row of the book's combat table (an actor acts and its IT moves)
TURN_EVENTS: dict[type, str] = {
    ActionTaken: "actor", TurnPassed: "actor", AttackResolved: "attacker", SpellCast: "caster",
    SpellReleased: "caster", CrystalStored: "caster", CrystalReleased: "caster", PotionUsed: "actor",
    AbilityUsed: "actor", AlignmentUsed: "actor",
}


def log_entry(before: CristalState, after: CristalState, ev: Any) -> dict[str, Any] | None:
    """One row of the book's table (L1298-L1311) for a turn event: actor, action, duration, every IT before/after."""
    field = TURN_EVENTS.get(type(ev))
    if field is None or (isinstance(ev, SpellReleased) and ev.source != "spell"):
        return None
    actor = getattr(ev, field)
    old, new = before.combats[ev.name], after.combats[ev.name]
    return {"combat": ev.name, "actor": actor, "action": _SUMMARY[type(ev)](ev),
            "duration": new.it[actor] - old.it.get(actor, new.it[actor]),
            "it_before": dict(old.it), "it_after": dict(new.it)}


def view(state: CristalState, name: str, mode: str = "round") -> dict[str, Any]:
    """The combat state: participants with IT, PV/PM, condition, incantation; who acts next."""
    cb = combat_named(state, name)
    try:
        nxt: str | None = whose_turn(state, name, mode) if cb.active else None
        why = ""
    except RuleError as exc:
        nxt, why = None, str(exc)
    rows = []
    for f in sorted(cb.fighters.values(), key=lambda f: (cb.it[f.id], f.id)):
        nums = numbers(state, cb, f.id, as_mode(mode))
        inc = f.incantation
        rows.append({"id": f.id, "it": cb.it[f.id], "pv": nums.PV, "pm": nums.PM,
                     "ref": int_or(nums.REF), "condition": f.condition,
                     "incanting": inc.spell if inc else None, "until": inc.until if inc else None,
                     "next": f.id == nxt})
    return {"combat": name, "active": cb.active, "next": nxt, "waiting": why, "clock": cb.clock,
            "participants": rows}
