"""One French line per character event, for the log, the replay and the exports."""

from __future__ import annotations

from typing import Any

from .model import (
    AbilityPracticed,
    AlignmentChanged,
    AlterationEnded,
    CharacterCorrected,
    CharacterCreated,
    CharacterReady,
    CharacterRetired,
    ContentPackLoaded,
    DamageTaken,
    GoldChanged,
    Healed,
    ItemAdded,
    ItemDropped,
    ItemEquipped,
    ItemUnequipped,
    LevelBought,
    PointsSet,
    Rested,
    SpellLearned,
    StateAltered,
    SurEffortMade,
    TechniqueBought,
    TechniqueChecked,
    XpAwarded,
)


# ============================================================================ summaries
def _s(fmt: str) -> Any:
    return lambda rec: fmt.format(e=rec.event)


def _pack_loaded(rec: Any) -> str:
    e = rec.event
    text = f"Pack de contenu « {e.name} » chargé"
    if e.overrides:
        text += " ; remplace : " + ", ".join(f"{section} {', '.join(names)}" for section, names in e.overrides.items())
    return text


SUMMARIES: dict[type, Any] = {
    CharacterCreated: _s("{e.name} ({e.race}) créé : PV {e.pv}, PM {e.pm}"),
    XpAwarded: _s("{e.character} reçoit {e.amount} XP ({e.reason}) → {e.balance_after} XP"),
    LevelBought: _s("{e.character} achète le niveau global {e.global_level} ({e.class_name} {e.class_level}, "
                    "+1 {e.stat}) pour {e.cost_charged} XP → {e.balance_after} XP"),
    TechniqueBought: _s("{e.character} achète {e.technique} niveau {e.level} pour {e.cost_charged} XP"),
    SpellLearned: _s("{e.character} apprend {e.spell} pour {e.cost_charged} XP"),
    ItemAdded: lambda rec: f"{rec.event.character} reçoit {rec.event.qty} × {rec.event.item.name}",
    ItemEquipped: _s("{e.character} équipe {e.item}"),
    ItemUnequipped: _s("{e.character} déséquipe {e.item}"),
    ItemDropped: _s("{e.character} laisse {e.qty} × {e.item}"),
    GoldChanged: _s("{e.character} : {e.amount:+d} PO ({e.reason}) → {e.balance_after} PO"),
    Rested: _s("{e.character} se repose {e.days} jour(s) : +{e.pv_gained} PV, +{e.pm_gained} PM"),
    DamageTaken: _s("{e.character} subit {e.amount} dommages ({e.reason}) → PV {e.pv_after}"),
    Healed: _s("{e.character} est soigné de {e.healed} PV ({e.source} : {e.reason})"),
    AlignmentChanged: _s("{e.character} : alignement {e.amount:+d} ({e.reason}) → {e.alignment_after}"),
    StateAltered: _s("{e.character} : {e.stat} {e.delta:+d} temporaire ({e.reason})"),
    AlterationEnded: _s("{e.character} : fin de l'altération de la position {e.since}"),
    CharacterCorrected: _s("{e.character} : correction de la position {e.amends}, {e.field} {e.delta:+d}"),
    AbilityPracticed: _s("{e.character} : {e.ability} ({e.cost} {e.pool}*)"
                         " → {e.left} restant(s)"),
    CharacterRetired: _s("{e.character} est retiré de la campagne (créé par erreur, position {e.amends})"),
    ContentPackLoaded: _pack_loaded,
    PointsSet: lambda rec: (f"{rec.event.character} : PV {rec.event.pv_delta:+d}, PM {rec.event.pm_delta:+d} "
                            + {"creation": f"(création : suivent PVmax {rec.event.pv_max}, PMmax {rec.event.pm_max})",
                               "restore": "(rendus à la fin de l'altération)"}.get(
                                   rec.event.reason, f"(plafonnés à PVmax {rec.event.pv_max}, PMmax {rec.event.pm_max})")),
    CharacterReady: _s("{e.character} est prêt : PV {e.pv_max}/{e.pv_max}, PM {e.pm_max}/{e.pm_max} (fin de la création)"),
    TechniqueChecked: lambda rec: (f"{rec.event.character} : jet de {rec.event.technique} niveau {rec.event.level} "
                                   f"{rec.event.adjustment:+d} + 1d6 ({rec.event.face}) = {rec.event.total} contre "
                                   f"{rec.event.difficulty} : {'réussi' if rec.event.success else 'échoué'}"),
    SurEffortMade: _s("{e.character} : Sur-Effort {e.stat} {e.score:+d} + {e.die} ({e.bonus}) = {e.value:+d} "
                      "pour cette action ({e.reason})"),
}

