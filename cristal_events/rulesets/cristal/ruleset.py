"""Les Lois du Cristal as a ruleset of the engine: settings, state, and the dispatch of its parts.

The ruleset is composed of parts (``characters``: creation, XP, equipment, rest; ``fights``:
combat on the Indice de Temps timeline). Each part module exposes

* ``EVENTS``: its event classes (explicit tags),
* ``DECIDERS``: ``{command class: decide(state, command, ctx) -> list[Emit]}``,
* ``EVOLVERS``: ``{event class: evolve(state, rec) -> state}`` (pure),
* ``SUMMARIES``: ``{event class: summarize(rec) -> str}`` (one French line for log/replay/exports),
* ``COMPENSATORS``: ``{event class: compensate(state, original_rec, changes, ctx) -> list[Emit]}``,

and this module only dispatches (a dict of handlers, never an ``if`` ladder).
"""

from __future__ import annotations

from typing import Any

import msgspec

from ...errors import RuleError
from ...events import CampaignCreated
from ...ruleset import Context, Emit, Ruleset
from ...store import RecordedEvent
from . import characters, fights, magic, narration


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
    """Everything a Lois du Cristal decision may need: the characters and the combats."""

    characters: dict[str, characters.Character] = {}
    combats: dict[str, fights.Combat] = {}
    crystals: dict[str, magic.Crystal] = {}  # magic crystals by name (fights: Fermeture/Libération Cristalline)
    packs: list[characters.ContentPack] = []  # campaign content packs, in log order (content.pack_loaded)


PARTS = (characters, fights)
_DECIDERS: dict[type, Any] = {k: v for part in PARTS for k, v in part.DECIDERS.items()}
_EVOLVERS: dict[type, Any] = {k: v for part in PARTS for k, v in part.EVOLVERS.items()}
_SUMMARIES: dict[type, Any] = {k: v for part in PARTS for k, v in part.SUMMARIES.items()}
_COMPENSATORS: dict[type, Any] = {k: v for part in PARTS for k, v in part.COMPENSATORS.items()}


class CristalRuleset(Ruleset):
    name = "cristal"
    title = "Les Lois du Cristal"
    events = tuple(ev for part in PARTS for ev in part.EVENTS)
    upcasters = {k: v for part in PARTS for k, v in getattr(part, "UPCASTERS", {}).items()}
    settings_type = CristalSettings
    state_type = CristalState

    def initial_state(self, header: CampaignCreated) -> CristalState:
        return CristalState()

    def evolve(self, state: CristalState, rec: RecordedEvent) -> CristalState:
        fn = _EVOLVERS.get(type(rec.event))
        return fn(state, rec) if fn is not None else state

    def decide(self, state: CristalState, command: Any, ctx: Context) -> list[Emit]:
        fn = _DECIDERS.get(type(command))
        if fn is None:
            raise RuleError(f"Les Lois du Cristal do not know the command {type(command).__name__}.")
        return fn(state, command, ctx)

    def compensate(self, state: CristalState, original: RecordedEvent, changes: dict[str, Any],
                   ctx: Context) -> list[Emit]:
        fn = _COMPENSATORS.get(type(original.event))
        if fn is None:
            raise RuleError(f"Events of type {original.type} cannot be corrected; record a note instead.")
        return fn(state, original, changes, ctx)

    def summarize(self, rec: RecordedEvent) -> str:
        fn = _SUMMARIES.get(type(rec.event))
        return fn(rec) if fn is not None else rec.type

    def narrate(self, before: CristalState, rec: RecordedEvent, after: CristalState) -> str:
        return narration.narrate(before, rec, after, self.summarize)

    def characters(self, state: CristalState) -> dict[str, Any]:
        return dict(state.characters)


RULESET = CristalRuleset()
