"""One line per character event, for the log, the replay and the exports (French as it was; English in English)."""

from __future__ import annotations

from typing import Any

from ..texts import N_, _
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
    """A summary from one text of the catalog (an English msgid; the French text it was, in French)."""
    return lambda rec: _(fmt).format(e=rec.event)


def _pack_loaded(rec: Any) -> str:
    e = rec.event
    text = _("Content pack « {name} » loaded").format(name=e.name)
    if e.overrides:
        text += _("; replaces: {overrides}").format(
            overrides=", ".join(f"{section} {', '.join(names)}" for section, names in e.overrides.items()))
    return text


def _points_set(rec: Any) -> str:
    e = rec.event
    why = {"creation": N_("(creation: follow PVmax {e.pv_max}, PMmax {e.pm_max})"),
           "restore": N_("(given back at the end of the alteration)")}.get(
               e.reason, N_("(capped at PVmax {e.pv_max}, PMmax {e.pm_max})"))
    return _("{e.character}: PV {e.pv_delta:+d}, PM {e.pm_delta:+d} ").format(e=e) + _(why).format(e=e)


def _technique_checked(rec: Any) -> str:
    e = rec.event
    return (_("{e.character}: {e.technique} roll level {e.level} {e.adjustment:+d} + 1d6 ({e.face}) = {e.total} "
              "against {e.difficulty}: success") if e.success else
            _("{e.character}: {e.technique} roll level {e.level} {e.adjustment:+d} + 1d6 ({e.face}) = {e.total} "
              "against {e.difficulty}: failure")).format(e=e)


SUMMARIES: dict[type, Any] = {
    CharacterCreated: _s(N_("{e.name} ({e.race}) created: PV {e.pv}, PM {e.pm}")),
    XpAwarded: _s(N_("{e.character} receives {e.amount} XP ({e.reason}) → {e.balance_after} XP")),
    LevelBought: _s(N_("{e.character} buys global level {e.global_level} ({e.class_name} {e.class_level}, +1 {e.stat}) for {e.cost_charged} XP → {e.balance_after} XP")),
    TechniqueBought: _s(N_("{e.character} buys {e.technique} level {e.level} for {e.cost_charged} XP")),
    SpellLearned: _s(N_("{e.character} learns {e.spell} for {e.cost_charged} XP")),
    ItemAdded: _s(N_("{e.character} receives {e.qty} × {e.item.name}")),
    ItemEquipped: _s(N_("{e.character} equips {e.item}")),
    ItemUnequipped: _s(N_("{e.character} unequips {e.item}")),
    ItemDropped: _s(N_("{e.character} leaves {e.qty} × {e.item}")),
    GoldChanged: _s(N_("{e.character}: {e.amount:+d} PO ({e.reason}) → {e.balance_after} PO")),
    Rested: _s(N_("{e.character} rests {e.days} day(s): +{e.pv_gained} PV, +{e.pm_gained} PM")),
    DamageTaken: _s(N_("{e.character} takes {e.amount} damage ({e.reason}) → PV {e.pv_after}")),
    Healed: _s(N_("{e.character} is healed {e.healed} PV ({e.source}: {e.reason})")),
    AlignmentChanged: _s(N_("{e.character}: alignment {e.amount:+d} ({e.reason}) → {e.alignment_after}")),
    StateAltered: _s(N_("{e.character}: {e.stat} {e.delta:+d} temporary ({e.reason})")),
    AlterationEnded: _s(N_("{e.character}: end of the alteration of position {e.since}")),
    CharacterCorrected: _s(N_("{e.character}: correction of position {e.amends}, {e.field} {e.delta:+d}")),
    AbilityPracticed: _s(N_("{e.character}: {e.ability} ({e.cost} {e.pool}*) → {e.left} left")),
    CharacterRetired: _s(N_("{e.character} is retired from the campaign (created by mistake, position {e.amends})")),
    ContentPackLoaded: _pack_loaded,
    PointsSet: _points_set,
    CharacterReady: _s(N_("{e.character} is ready: PV {e.pv_max}/{e.pv_max}, PM {e.pm_max}/{e.pm_max} (end of creation)")),
    TechniqueChecked: _technique_checked,
    SurEffortMade: _s(N_("{e.character}: Sur-Effort {e.stat} {e.score:+d} + {e.die} ({e.bonus}) = {e.value:+d} for this action ({e.reason})")),
}
