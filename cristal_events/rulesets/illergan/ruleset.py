"""The Illergan Dé100 rules as a ruleset of the engine: settings, state, events, decide and evolve."""

from __future__ import annotations

from typing import Any

import msgspec

from ...events import CampaignCreated
from ...ruleset import Ruleset
from ...store import RecordedEvent
from .settings import IllerganSettings


class IllerganState(msgspec.Struct, kw_only=True):
    characters: dict[str, Any] = {}


class IllerganRuleset(Ruleset):
    name = "illergan"
    title = "Illergan (Dé100)"
    events = ()
    settings_type = IllerganSettings
    state_type = IllerganState

    def initial_state(self, header: CampaignCreated) -> IllerganState:
        return IllerganState()

    def evolve(self, state: IllerganState, rec: RecordedEvent) -> IllerganState:
        return state


RULESET = IllerganRuleset()
