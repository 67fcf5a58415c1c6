"""One French line per fight event."""

from __future__ import annotations

from typing import Any

from cristal_events.ruleset import on_event

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
    arme = e.weapon or "à mains nues"
    if e.fumble:
        return f"{e.attacker} attaque {e.target} ({arme}) : Dé100 {face}, échec critique"
    if not e.hit:
        return f"{e.attacker} attaque {e.target} ({arme}) : Dé100 {face} contre Adresse {e.adresse}, raté"
    crit = " critique" if e.critical else ""
    if e.defended and not e.shield:
        return f"{e.attacker} touche{crit} {e.target} ({e.zone}) mais la défense réussit"
    extra = f", perd {e.limb_lost}" if e.limb_lost else ", mort" if e.dead else ""
    if e.rider is not None:
        extra += f", {e.rider.name}"
    if e.shield:
        broken = ", détruit" if e.shield_destroyed else ""
        extra = (f" ; bloqué par {e.shield} (SR {e.shield_sr}, −{e.shield_ps_lost} PS → {e.shield_ps_after}{broken})"
                 + extra)
    return (f"{e.attacker} touche{crit} {e.target}, zone {e.zone} ({arme}) : {e.damage} dégâts {e.damage_type}, "
            f"SR {e.sr}, RN {e.rn}% → −{e.pv_lost} PV ({e.pv_after}){extra}")


def _cast(e: SpellCast) -> str:
    out = {"critical": f"critique, {e.refund_pct}% rendus (+{e.refund_pm} PM)", "normal": "réussi",
           "counter": f"contre-effet : {e.counter_effect}"}[e.outcome]
    hit = f", {e.target} −{e.pv_lost} PV" if e.pv_lost else ""
    return (f"{e.caster} lance {e.spell} niveau {e.cast_level}{cast_extras(e)} ({e.cost} PM) : Dé100 {e.rolls[0].total}, "
            f"{out} → PM {e.pm_after}{hit}{cast_after(e)}")


_RESISTANCE = {"vol_roll": "jet de Volonté", "no_vol_roll": "mage furtif, pas de jet de Volonté",
               "accepted": "accepté", "refused": "refusé"}


def cast_extras(e: SpellCast) -> str:
    """Secondary spells (I-L226) and the primary they are added to (I-L227)."""
    parts = [f"{s.spell} {s.level}" for s in e.secondaries]
    text = f" + {', '.join(parts)}" if parts else ""
    return text + (f" sur {e.on_primary}" if e.on_primary else "")


def cast_after(e: SpellCast) -> str:
    bits = []
    if e.resistance in _RESISTANCE:
        resisted = " réussi, effets contrés" if e.resistance == "vol_roll" and e.resisted else ""
        bits.append(_RESISTANCE[e.resistance] + resisted)
    if e.level_bonus:
        bits.append(f"+{e.level_bonus} niveau (Oubli)")
    if e.superior_effect:
        bits.append("effet supérieur")
    if e.stacking == "cancelled":
        bits.append("annulé par le même sort de plus haut niveau")
    elif e.active is not None:
        bits.append(f"actif {e.active.duration} {e.active.unit}" + (", concentration" if e.active.concentrated else ""))
    return f" ; {', '.join(bits)}" if bits else ""


_ACTIONS = {"major": "action majeure", "minor": "action mineure", "skill": "compétence",
            "forgo_major": "renonce à l'action majeure (+2 mineures)", "extra_major": "action majeure supplémentaire",
            "knocked_down": "renversé, une action majeure perdue", "disarmed": "désarmé, son arme est au sol",
            "pick_up": "ramasse son arme (action mineure)"}

SUMMARIES: dict[type, Any] = {
    FightStarted: lambda r: f"Combat « {r.event.fight} » : {', '.join(r.event.participants)}",
    InitiativeRolled: lambda r: (f"Tour {r.event.turn} de « {r.event.fight} » : "
                                 + (f"initiative gardée : {', '.join(r.event.order)}" if r.event.kept else
                                    ", ".join(f"{e.character} {e.score}{'' if e.acts else ' (sans action)'}"
                                              for e in sorted(r.event.entries, key=lambda x: r.event.order.index(x.character))))),
    AttackResolved: on_event(_attack),
    DestinyPointSpent: lambda r: (f"{r.event.character} dépense un point de destin : la position {r.event.cancels} "
                                  f"est annulée ({r.event.destiny_after} restant)"),
    SpellCast: on_event(_cast),
    AfflictionTicked: lambda r: (f"{r.event.character} : {r.event.affliction}, −{r.event.pv_lost} PV "
                                 f"({r.event.turns} tour{'s' if r.event.turns > 1 else ''}) → {r.event.pv_after}"
                                 + (", mort" if r.event.dead else "")),
    Moved: lambda r: (f"{r.event.character} se déplace ({r.event.mode}) : {r.event.metres:g} m"
                      + (f" + {r.event.vertical_m:g} m à la verticale" if r.event.vertical_m else "")
                      + f", reste {r.event.left_m:g} m"
                      + (f", {r.event.owed_m:g} m sur le tour suivant" if r.event.owed_m else "")),
    FlightChanged: lambda r: (f"{r.event.character} est retenu depuis le sol par {r.event.held_by} : il atterrira à la fin de son tour"
                              if r.event.held else
                              f"{r.event.character} est obligé d'atterrir (fin de son tour)" if r.event.forced else
                              f"{r.event.character} atterrit" if r.event.roll is None else
                              f"{r.event.character} décolle : Dé100 {r.event.roll.total} contre Dex {r.event.dex} → "
                              + (f"en vol, {r.event.left_after_m:g} m de déplacement" if r.event.success else "échec")),
    PoisonApplied: lambda r: (f"{r.event.character} est empoisonné ({r.event.poison}) : −{r.event.pv_per_turn} PV "
                              f"par tour, tours {r.event.first_turn} à {r.event.last_turn}"),
    FightEnded: lambda r: f"Fin du combat « {r.event.fight} »",
    ActionTaken: lambda r: (f"{r.event.character} : {_ACTIONS[r.event.action]}"
                            + (f" ({r.event.what})" if r.event.what else "")),
    DefenceUsed: lambda r: (f"{r.event.character} se défend ({r.event.defence})"
                            + (" pour un allié, une action majeure perdue" if r.event.for_ally else "")),
}
