"""Characters of Les Lois du Cristal as event streams (``character:<id>``).

Part of the cristal ruleset (see ``ruleset.py`` for the part contract):

* ``model``: the character held in the state, its events and its commands;
* ``derive``: pure reads (content, fixed and stable states, the sheet);
* ``decide``: the decisions of the commands, and the compensations of corrections;
* ``fold``: the pure folds of the events;
* ``views``: one-line summaries.

Every decision checks the command against the current state and the campaign's content (the core
pack merged with the packs loaded by ``content.pack_loaded`` events, so replay never reads a file),
and returns events that store what an audit needs (a level purchase stores the cost charged AND the
cost the rules required, the new global level and class level). Folds apply deltas, never the
"after" values an event recorded, so a later correction stays consistent.

Pure reads for other parts (combat, the projections, the CLI):

* :func:`content_of` ``(state) -> Content``
* :func:`current_fixed` ``(character) -> {FRC: .., ...}`` permanent + temporary alterations
* :func:`stable_of` ``(character, content, rounding, weapon=None) -> StableStates``
* :func:`sheet` ``(character, content, rounding) -> dict`` the Feuille de Personnage as JSON
"""

from __future__ import annotations

from typing import Any

from cristal_events.events import SessionStarted

from .decide import *
from .decide import (
    compensate_created,
    compensate_purchase,
    compensator,
    decide_add_item,
    decide_alignment,
    decide_alter,
    decide_award,
    decide_bleed,
    decide_check_technique,
    decide_class_ability,
    decide_create,
    decide_damage,
    decide_drop,
    decide_end_alteration,
    decide_equip,
    decide_gold,
    decide_heal,
    decide_level,
    decide_pack,
    decide_ready,
    decide_rest,
    decide_spell,
    decide_sur_effort,
    decide_technique,
    decide_unequip,
)
from .derive import *
from .fold import *
from .fold import (
    evolve_ability,
    evolve_alignment,
    evolve_alteration_ended,
    evolve_altered,
    evolve_award,
    evolve_corrected,
    evolve_created,
    evolve_damaged,
    evolve_dropped,
    evolve_gold,
    evolve_healed,
    evolve_item_added,
    evolve_level,
    evolve_pack,
    evolve_points_set,
    evolve_ready,
    evolve_rested,
    evolve_retired,
    evolve_session_started,
    evolve_spell,
    evolve_technique,
    set_equipped,
)
from .model import *
from .model import (
    AbilityPracticed,
    AddItem,
    AlignmentChanged,
    AlterationEnded,
    AlterState,
    AwardXp,
    Bleed,
    BuyLevel,
    BuyTechnique,
    ChangeAlignment,
    ChangeGold,
    CharacterCorrected,
    CharacterCreated,
    CharacterReady,
    CharacterRetired,
    CheckTechnique,
    ContentPackLoaded,
    CreateCharacter,
    Damage,
    DamageTaken,
    DropItem,
    EndAlteration,
    EquipItem,
    GoldChanged,
    Heal,
    Healed,
    ItemAdded,
    ItemDropped,
    ItemEquipped,
    ItemUnequipped,
    LearnSpell,
    LevelBought,
    LoadContentPack,
    MarkReady,
    PointsSet,
    Rest,
    Rested,
    SpellLearned,
    StateAltered,
    SurEffort,
    SurEffortMade,
    TechniqueBought,
    TechniqueChecked,
    UnequipItem,
    UseClassAbility,
    XpAwarded,
)
from .views import *
from .views import SUMMARIES

EVENTS: tuple[type, ...] = tuple(SUMMARIES)
DECIDERS: dict[type, Any] = {
    CreateCharacter: decide_create, AwardXp: decide_award, BuyLevel: decide_level,
    BuyTechnique: decide_technique, LearnSpell: decide_spell, AddItem: decide_add_item,
    EquipItem: decide_equip, UnequipItem: decide_unequip, DropItem: decide_drop, ChangeGold: decide_gold,
    Rest: decide_rest, Damage: decide_damage, Heal: decide_heal, ChangeAlignment: decide_alignment,
    AlterState: decide_alter, EndAlteration: decide_end_alteration, LoadContentPack: decide_pack,
    MarkReady: decide_ready, CheckTechnique: decide_check_technique, SurEffort: decide_sur_effort,
    UseClassAbility: decide_class_ability, Bleed: decide_bleed,
}
EVOLVERS: dict[type, Any] = {
    CharacterCreated: evolve_created, XpAwarded: evolve_award, LevelBought: evolve_level,
    TechniqueBought: evolve_technique, SpellLearned: evolve_spell, ItemAdded: evolve_item_added,
    ItemEquipped: lambda s, e, r: set_equipped(s, e, True), ItemUnequipped: lambda s, e, r: set_equipped(s, e, False),
    ItemDropped: evolve_dropped, GoldChanged: evolve_gold, Rested: evolve_rested, DamageTaken: evolve_damaged,
    Healed: evolve_healed, AlignmentChanged: evolve_alignment, StateAltered: evolve_altered,
    AlterationEnded: evolve_alteration_ended, CharacterCorrected: evolve_corrected, ContentPackLoaded: evolve_pack,
    PointsSet: evolve_points_set, CharacterReady: evolve_ready, SessionStarted: evolve_session_started,
    CharacterRetired: evolve_retired, AbilityPracticed: evolve_ability,
}
COMPENSATORS: dict[type, Any] = {
    XpAwarded: compensator("xp", 1, True),
    GoldChanged: compensator("gold", 1, False),
    AlignmentChanged: compensator("alignment", 1, False),
    DamageTaken: compensator("pv", -1, True),
    LevelBought: compensate_purchase,
    TechniqueBought: compensate_purchase,
    SpellLearned: compensate_purchase,
    CharacterCreated: compensate_created,
}
