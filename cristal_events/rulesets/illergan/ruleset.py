"""The Illergan Dé100 rules as a ruleset of the engine: settings, state, and the dispatch of its parts.

The ruleset is composed of parts (``heroes``: packs, creation, xp, money, gear; ``trials``: Dé100
checks; ``fights``: initiative, attacks, spells, destiny points; ``tavern``: drinks and time). Each part
module exposes ``EVENTS``, ``DECIDERS``, ``EVOLVERS``, ``SUMMARIES`` and ``COMPENSATORS`` (dicts keyed
by command or event class), merged and dispatched by the core's ``ComposedRuleset``. Nothing here imports the Lois du Cristal
ruleset.
"""

from __future__ import annotations


from ...events import CampaignCreated
from ...ruleset import ComposedRuleset
from ...store import RecordedEvent
from . import faith, fights, heroes, narration, tavern, trials
from .settings import IllerganSettings
from .state import IllerganState

class IllerganRuleset(ComposedRuleset):
    name = "illergan"
    title = "Illergan (Dé100)"
    parts = (heroes, trials, fights, tavern, faith)
    settings_type = IllerganSettings
    state_type = IllerganState
    state_version = "4"

    def initial_state(self, header: CampaignCreated) -> IllerganState:
        return IllerganState()

    def narrate(self, before: IllerganState, rec: RecordedEvent, after: IllerganState) -> str:
        return narration.narrate(before, rec, after, self.summarize)


RULESET = IllerganRuleset()

__all__ = ["RULESET", "IllerganRuleset", "IllerganState"]
