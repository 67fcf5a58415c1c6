"""Les Lois du Cristal as a ruleset of the engine: settings, state, events, decide and evolve."""

from __future__ import annotations

from typing import Any

import msgspec

from ...events import CampaignCreated
from ...ruleset import Ruleset
from ...store import RecordedEvent


class CristalSettings(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The choices seed 000 leaves to the game master (catalogue §29), with the proposed defaults."""

    chance_enabled: bool = True            # L56: the Chance rule is optional
    pm_overdraw: bool = True               # D6, L379: 1 PM = 2 PV below 0 PM
    deconcentration_reuses_cast_roll: bool = True  # D5, L971
    regeneration_minimum_one: bool = False  # D28, L491
    alignment_heal_caps_at_pvmax: bool = True  # D30, L1419
    chain_attacks: int = 2                 # D14, L1363
    level_limits: bool = True              # D34, L501
    damage_floor_zero: bool = True         # D2: a damage roll below 0 does 0


class CristalState(msgspec.Struct, kw_only=True):
    characters: dict[str, Any] = {}


class CristalRuleset(Ruleset):
    name = "cristal"
    title = "Les Lois du Cristal"
    events = ()
    settings_type = CristalSettings
    state_type = CristalState

    def initial_state(self, header: CampaignCreated) -> CristalState:
        return CristalState()

    def evolve(self, state: CristalState, rec: RecordedEvent) -> CristalState:
        return state


RULESET = CristalRuleset()
