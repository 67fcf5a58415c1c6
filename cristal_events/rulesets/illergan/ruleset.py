"""The Illergan Dé100 rules as a ruleset of the engine: settings, state, and the dispatch of its parts.

The ruleset is composed of parts (``heroes``: packs, creation, xp, money, gear; ``trials``: Dé100
checks; ``fights``: initiative, attacks, spells, destiny points; ``tavern``: drinks and time). Each part
module exposes ``EVENTS``, ``DECIDERS``, ``EVOLVERS``, ``SUMMARIES`` and ``COMPENSATORS`` (dicts keyed
by command or event class), merged and dispatched by the core's ``ComposedRuleset``. Nothing here imports the Lois du Cristal
ruleset.
"""

from __future__ import annotations

from typing import Any

from ...events import CampaignCreated
from ...records import RecordedEvent
from ...ruleset import ComposedRuleset, admit_stream
from . import care, faith, fights, heroes, narration, sheet, sheet_text, spellbook, tavern, trials
from .settings import IllerganSettings
from .state import CONTENT_STREAM, IllerganState, content_of, find


class IllerganRuleset(ComposedRuleset):
    name = "illergan"
    title = "Illergan (Dé100)"
    parts = (heroes, trials, fights, tavern, faith, spellbook, care)
    settings_type = IllerganSettings
    state_type = IllerganState
    state_version = "6"
    read_models = ("cristal_events.projections.illergan_sheets", "cristal_events.projections.illergan_ledger", "cristal_events.projections.illergan_evening")
    cli_module = "cristal_events.cli.illergan"
    text_domain = "cristal_events.rulesets.illergan.texts:TEXTS"
    sample_campaign = "illergan_gue_des_loups.toml"
    export_tables = ("xp_ledger",)

    def initial_state(self, header: CampaignCreated) -> IllerganState:
        return IllerganState()

    def narrate(self, before: IllerganState, rec: RecordedEvent, after: IllerganState) -> str:
        return narration.narrate(before, rec, after, self.summarize)

    def sheet(self, state: IllerganState, character_id: str, *, settings: IllerganSettings,
              rounding: str) -> dict[str, Any]:
        return sheet.sheet(find(state, character_id), content_of(state), settings)

    def render_sheet(self, data: dict[str, Any]) -> list[str]:
        return sheet_text.render(data)

    def party(self, state: IllerganState, *, settings: IllerganSettings, rounding: str) -> list[dict[str, Any]]:
        return [{"id": h.id, "name": h.name, "kind": h.kind, "class": h.class_name, "pv": h.pv, "pv_max": h.pv_max,
                 "pm": h.pm, "xp": h.xp, "destiny_points": h.destiny_points, "dead": h.dead}
                for h in state.characters.values()]

    def party_line(self, row: dict[str, Any]) -> str:
        return sheet_text.party_line(row)

    def party_cells(self, row: dict[str, Any]) -> list[tuple[str, str]]:
        return sheet_text.party_cells(row)

    def admit(self, state: IllerganState, rec: RecordedEvent) -> str | None:
        """The import check of one event (see :meth:`Ruleset.admit`): the streams these rules write
        (``character:ID`` opened by hero.created or hero.creature_created, ``fight:NAME`` by
        fight.started and closed by fight.ended, ``clock``, ``content``), and an xp award that is not
        positive."""
        ev = rec.event
        kind, _sep, name = rec.stream.partition(":")
        if rec.stream == CONTENT_STREAM:
            if isinstance(ev, heroes.PackLoaded):
                return None
            return f"the content stream holds only content.pack_loaded events, not {rec.type}"
        if rec.stream == tavern.CLOCK_STREAM:
            if isinstance(ev, tavern.TimePassed):
                return None
            return f"the clock stream holds only clock.time_passed events, not {rec.type}"
        if kind == "fight" and name:
            return admit_stream(rec, exists=name in state.fights, opens=(fights.FightStarted,),
                                closes=(fights.FightEnded,), what="fight")
        if kind != "character" or not name:
            return f"the {self.title} rules write no stream named {rec.stream!r}"
        subject = getattr(ev, "character", name)
        if subject != name:
            return f"it is about the character {subject!r} but stands on the stream {rec.stream}"
        problem = admit_stream(rec, exists=name in state.characters,
                               opens=(heroes.HeroCreated, heroes.CreatureCreated), what="character")
        if problem is not None or isinstance(ev, (heroes.HeroCreated, heroes.CreatureCreated)):
            return problem
        if isinstance(ev, heroes.XpAwarded) and ev.amount <= 0:
            return f"an xp award must be positive, not {ev.amount}"
        return None


RULESET = IllerganRuleset()

__all__ = ["RULESET", "IllerganRuleset", "IllerganState"]
