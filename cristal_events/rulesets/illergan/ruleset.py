"""The Illergan Dé100 rules as a ruleset of the engine: settings, state, and the dispatch of its parts.

The ruleset is composed of parts (``heroes``: packs, creation, xp, money, gear; ``trials``: Dé100
checks; ``fights``: initiative, attacks, spells, destiny points; ``tavern``: drinks and time). Each part
module exposes ``EVENTS``, ``DECIDERS``, ``EVOLVERS``, ``SUMMARIES`` and ``COMPENSATORS`` (dicts keyed
by command or event class) and this module only dispatches. Nothing here imports the Lois du Cristal
ruleset.
"""

from __future__ import annotations

from typing import Any

from ...errors import RuleError
from ...events import CampaignCreated
from ...ruleset import Context, Emit, Ruleset
from ...store import RecordedEvent
from . import faith, fights, heroes, narration, tavern, trials
from .settings import IllerganSettings
from .state import IllerganState

PARTS = (heroes, trials, fights, tavern, faith)
_DECIDERS: dict[type, Any] = {k: v for part in PARTS for k, v in part.DECIDERS.items()}
_EVOLVERS: dict[type, Any] = {k: v for part in PARTS for k, v in part.EVOLVERS.items()}
_SUMMARIES: dict[type, Any] = {k: v for part in PARTS for k, v in part.SUMMARIES.items()}
_COMPENSATORS: dict[type, Any] = {k: v for part in PARTS for k, v in part.COMPENSATORS.items()}


class IllerganRuleset(Ruleset):
    name = "illergan"
    title = "Illergan (Dé100)"
    events = tuple(ev for part in PARTS for ev in part.EVENTS)
    settings_type = IllerganSettings
    state_type = IllerganState
    state_version = "4"

    def initial_state(self, header: CampaignCreated) -> IllerganState:
        return IllerganState()

    def evolve(self, state: IllerganState, rec: RecordedEvent) -> IllerganState:
        fn = _EVOLVERS.get(type(rec.event))
        return fn(state, rec) if fn is not None else state

    def decide(self, state: IllerganState, command: Any, ctx: Context) -> list[Emit]:
        fn = _DECIDERS.get(type(command))
        if fn is None:
            raise RuleError(f"The Illergan rules do not know the command {type(command).__name__}.")
        return fn(state, command, ctx)

    def compensate(self, state: IllerganState, original: RecordedEvent, changes: dict[str, Any],
                   ctx: Context) -> list[Emit]:
        fn = _COMPENSATORS.get(type(original.event))
        if fn is None:
            raise RuleError(f"Events of type {original.type} cannot be corrected; record a note instead.")
        return fn(state, original, changes, ctx)

    def summarize(self, rec: RecordedEvent) -> str:
        fn = _SUMMARIES.get(type(rec.event))
        return fn(rec) if fn is not None else rec.type

    def narrate(self, before: IllerganState, rec: RecordedEvent, after: IllerganState) -> str:
        return narration.narrate(before, rec, after, self.summarize)

    def characters(self, state: IllerganState) -> dict[str, Any]:
        return dict(state.characters)


RULESET = IllerganRuleset()

__all__ = ["RULESET", "IllerganRuleset", "IllerganState"]
