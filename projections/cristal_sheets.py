"""The Lois du Cristal character sheets: one row per character, the Feuille de Personnage as JSON.

The fold is the ruleset's own (``CristalRuleset.evolve``) plus the campaign settings changed in the
log; the rows are :func:`cristal_events.rulesets.cristal.characters.sheet` of every character, one
column per top-level key (JSON for the nested ones) and the whole sheet in ``sheet``.

    sqlite-utils query taverne.db "select name, json_extract(variable, '$.PV') from cristal_sheets"
"""

from typing import Any

import msgspec

from cristal_events.rulesets.cristal import characters as chars
from cristal_events.rulesets.cristal.ruleset import CristalState

from .base import SheetsProjection, Table

COLUMNS = ("id", "name", "race", "sex", "player", "global_level", "alignment", "luck", "classes", "fixed",
           "senses", "stable", "variable", "techniques", "spells", "items", "gold", "status")


class SheetsState(msgspec.Struct, kw_only=True):
    rules: CristalState = msgspec.field(default_factory=CristalState)
    settings: dict[str, Any] = {}


class CristalSheets(SheetsProjection):
    name = "cristal_sheets"
    version = 3  # 2: the sheet gives the senses as distances (sense_ranges); 3: no state in the checkpoint
    rulesets = ("cristal",)
    state_type = SheetsState
    state_tables = {
        "cristal_sheets": Table(
            {c: ("INTEGER" if c in ("global_level", "alignment", "luck", "gold") else "TEXT") for c in COLUMNS}
            | {"sheet": "TEXT"},
            pk="id",
        )
    }

    def rows(self, state: SheetsState) -> dict[str, list[dict[str, Any]]]:
        return {"cristal_sheets": self._sheets(state, state.rules.characters.values())}

    def changed_rows(self, before: SheetsState, after: SheetsState) -> dict[str, Any] | None:
        """The sheets of the characters the fold replaced (the fold is persistent: an untouched
        character is the same object); every sheet when the settings or the content packs changed."""
        if before is after:  # the catch-up folded no event of the rules (a note, a session)
            return {}
        if before.settings != after.settings or before.rules.packs != after.rules.packs:
            return None
        old, new = before.rules.characters, after.rules.characters
        if old is new:  # an attack on extras, a fight's round: no character replaced (2,286 at 1M events)
            return {"cristal_sheets": ([], [])}
        touched = [ch for key, ch in new.items() if old.get(key) is not ch]
        gone = [(key,) for key in old if key not in new]
        return {"cristal_sheets": (self._sheets(after, touched), gone)}

    def _sheets(self, state: SheetsState, characters: Any) -> list[dict[str, Any]]:
        content = chars.content_of(state.rules)
        settings = self.campaign.ruleset.settings(self.campaign.header, state.settings)
        out = []
        for ch in characters:
            data = chars.sheet(ch, content, self.campaign.header.rounding,
                               regeneration_minimum_one=settings.regeneration_minimum_one,
                               chance_enabled=settings.chance_enabled)
            out.append({**{c: data[c] for c in COLUMNS}, "sheet": data})
        return out


PROJECTIONS = [CristalSheets]
