"""Les Lois du Cristal as a ruleset of the engine: settings, state, and the dispatch of its parts.

The ruleset is composed of parts (``characters``: creation, XP, equipment, rest; ``fights``:
combat on the Indice de Temps timeline). Each part module exposes

* ``EVENTS``: its event classes (explicit tags),
* ``DECIDERS``: ``{command class: decide(state, command, ctx) -> list[Emit]}``,
* ``EVOLVERS``: ``{event class: evolve(state, event, rec) -> state}`` (pure; the typed event, and its envelope),
* ``SUMMARIES``: ``{event class: summarize(rec) -> str}`` (one French line for log/replay/exports),
* ``COMPENSATORS``: ``{event class: compensate(state, original_rec, changes, ctx) -> list[Emit]}``,

and the core's :class:`~cristal_events.ruleset.ComposedRuleset` merges them and dispatches (dicts
of handlers, never an ``if`` ladder).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

from ...events import CampaignCreated
from ...records import RecordedEvent
from ...ruleset import ComposedRuleset, admit_stream
from . import artefacts, characters, fights

# narration (the replay's and the exports' telling) and sheet_text (the terminal sheet) are imported by the
# hooks that use them, not here: a one-shot write such as 'cristal xp award' needs neither
from .state import CristalState


class CristalSettings(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The choices seed 000 leaves to the game master (catalogue §29), with the proposed defaults."""

    chance_enabled: bool = True            # L56: the Chance rule is optional
    pm_overdraw: bool = True               # D6, L379: 1 PM = 2 PV below 0 PM
    deconcentration_reuses_cast_roll: bool = True  # D5, L971
    regeneration_minimum_one: bool = False  # D28, L491
    alignment_heal_caps_at_pvmax: bool = True  # D30, L1419
    chain_attacks: Annotated[int, msgspec.Meta(ge=0, le=6)] = 2  # D14, L1363: 0 or 1 off, N: N attacks, /N
    level_limits: bool = True              # D34, L501
    damage_floor_zero: bool = True         # D2: a damage roll below 0 does 0
    points_return_when_state_ends: bool = False  # L328, L342: the PV / PM a state's cap took come back at its end
    potion_fade_days: int = 60             # L1182: a potion's spell fades "en moyenne 2 mois"; 0: never
    alignment_beyond_20: Literal["half", "cap"] = "half"  # D4, L1395-L1415: -ceil(|R|/2), or the ±20 row's -10


#: what each setting decides and the book's line (or the ruling) it stands on: what ``cristal settings``
#: and ``cristal init --help`` show beside the value and the default (docs/rulings.md)
SETTINGS_BOOK: dict[str, tuple[str, str]] = {
    "chance_enabled": ("L56", "the optional Chance rule: rerolls a day, shown on the sheet"),
    "pm_overdraw": ("L379, D6", "a spell may go below 0 PM, each missing PM costing 2 PV"),
    "deconcentration_reuses_cast_roll": ("L971, D5", "a deconcentration check reuses the casting roll"),
    "regeneration_minimum_one": ("L491, D28", "a day's regeneration is at least 1 PV"),
    "alignment_heal_caps_at_pvmax": ("L1419, D30", "alignment healing stops at PVmax"),
    "chain_attacks": ("L1363, D14", "attacks in a chained attack"),
    "level_limits": ("L501, D34", "a race's level limit stops class levels"),
    "damage_floor_zero": ("L1354, D2", "a damage roll below 0 deals 0"),
    "points_return_when_state_ends": ("L328, L342", "the PV / PM an alteration's cap took come back when it ends"),
    "potion_fade_days": ("L1182", "days after which a carried potion's spell has faded (0: never)"),
    "alignment_beyond_20": ("L1415, D4",
                            "an alignment reaction beyond ±20 costs half of it (half) or the ±20 row's -10 (cap)"),
}


class CristalRuleset(ComposedRuleset):
    name = "cristal"
    text_domain = "cristal_events.rulesets.cristal.texts:TEXTS"
    title = "Les Lois du Cristal"
    parts = (characters, fights, artefacts)
    settings_type = CristalSettings
    state_type = CristalState
    #: 2: spell_times, tie_rounds and the Chance data of LastRoll (issue 16): older snapshots are refolded
    state_version = "2"
    read_models = ("cristal_events.projections.cristal_sheets", "cristal_events.projections.cristal_ledger", "cristal_events.projections.cristal_combats")
    cli_module = "cristal_events.cli.cristal"
    sample_campaign = "compagnie_du_cristal.toml"
    export_tables = ("xp_ledger",)

    def initial_state(self, header: CampaignCreated) -> CristalState:
        return CristalState()

    def narrate(self, before: CristalState, rec: RecordedEvent, after: CristalState) -> str:
        from . import narration

        return narration.narrate(before, rec, after, self.summarize)

    def sheet(self, state: CristalState, character_id: str, *, settings: CristalSettings,
              rounding: str) -> dict[str, Any]:
        ch = characters.find(state, character_id)
        return characters.sheet(ch, characters.content_of(state), rounding,
                                regeneration_minimum_one=settings.regeneration_minimum_one,
                                crystals_held=state.crystals, chance_enabled=settings.chance_enabled)

    def render_sheet(self, sheet: dict[str, Any]) -> list[str]:
        from . import sheet_text

        return sheet_text.render(sheet)

    def party(self, state: CristalState, *, settings: CristalSettings, rounding: str) -> list[dict[str, Any]]:
        rows = [self.sheet(state, cid, settings=settings, rounding=rounding) for cid in state.characters]
        from . import sheet_text

        return [{k: r[k] for k in sheet_text.PARTY_KEYS} for r in rows]

    def party_line(self, row: dict[str, Any]) -> str:
        from . import sheet_text

        return sheet_text.party_line(row)

    def party_cells(self, row: dict[str, Any]) -> list[tuple[str, str]]:
        from . import sheet_text

        return sheet_text.party_cells(row)

    def advise(self, before: CristalState, after: CristalState, recs: list[RecordedEvent]) -> list[str]:
        return fights.advise(before, after, [r.event for r in recs])

    def admit(self, state: CristalState, rec: RecordedEvent) -> str | None:
        """The import check of one event (see :meth:`Ruleset.admit`): the streams these rules write
        (``character:ID`` opened by character.created, ``combat:NAME`` by combat.started and closed by
        combat.ended, ``content``), and the amounts their decisions refuse."""
        ev = rec.event
        kind, _, name = rec.stream.partition(":")
        if rec.stream == characters.CONTENT_STREAM:
            if isinstance(ev, characters.ContentPackLoaded):
                return None
            return f"the content stream holds only content.pack_loaded events, not {rec.type}"
        if kind == "combat" and name:
            return admit_stream(rec, exists=name in state.combats, opens=(fights.CombatStarted,),
                                closes=(fights.CombatEnded,), what="combat")
        if kind != "character" or not name:
            return f"the {self.title} rules write no stream named {rec.stream!r}"
        subject = getattr(ev, "character", name)
        if subject != name:
            return f"it is about the character {subject!r} but stands on the stream {rec.stream}"
        problem = admit_stream(rec, exists=name in state.characters, opens=(characters.CharacterCreated,),
                               what="character")
        if problem is not None or isinstance(ev, characters.CharacterCreated):
            return problem
        ch = state.characters[name]
        if isinstance(ev, characters.XpAwarded):
            if ev.amount <= 0:
                return f"an XP award must be a positive number of XP, not {ev.amount}"
        elif isinstance(ev, (characters.LevelBought, characters.TechniqueBought, characters.SpellLearned)):
            if ev.cost_charged > ch.xp:
                return f"{name} has {ch.xp} XP and cannot pay {ev.cost_charged} XP"
        elif isinstance(ev, characters.GoldChanged):
            if ev.amount == 0 or ch.gold + ev.amount < 0:
                return f"{name} has {ch.gold} PO: a gold change of {ev.amount} is refused by the rules"
        return None


RULESET = CristalRuleset()

__all__ = ["RULESET", "SETTINGS_BOOK", "CristalRuleset", "CristalSettings", "CristalState"]
