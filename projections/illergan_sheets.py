"""The Illergan character sheets: one row per hero or creature, the Feuille de Personnage as JSON.

The fold is the ruleset's own (``IllerganRuleset.evolve``) plus the campaign settings changed in the
log; the rows are :func:`cristal_events.rulesets.illergan.sheet.sheet` of every character.

    sqlite-utils query x.db "select name, pv, json_extract(sheet, '$.alcohol.band') from illergan_sheets"
"""

from typing import Any

import msgspec

from cristal_events.events import SettingChanged
from cristal_events.rulesets.illergan.ruleset import IllerganState
from cristal_events.rulesets.illergan.settings import IllerganSettings
from cristal_events.rulesets.illergan.sheet import sheet
from cristal_events.rulesets.illergan.state import content_of

from .base import Projection, Table, rules_fold

COLUMNS = {"id": "TEXT", "name": "TEXT", "kind": "TEXT", "race": "TEXT", "class": "TEXT", "pv": "INTEGER",
           "pv_max": "INTEGER", "pm": "INTEGER", "xp": "INTEGER", "xp_total": "INTEGER", "heritage_xp": "INTEGER",
           "destiny_points": "INTEGER", "starls": "TEXT", "dead": "INTEGER", "sheet": "TEXT"}


class SheetsState(msgspec.Struct, kw_only=True):
    rules: IllerganState = msgspec.field(default_factory=IllerganState)
    settings: dict[str, Any] = {}


class IllerganSheets(Projection):
    name = "illergan_sheets"
    version = 2  # 2: no state in the checkpoint (world_state)
    rulesets = ("illergan",)
    state_type = SheetsState
    world_state = True
    state_tables = {"illergan_sheets": Table(COLUMNS, pk="id")}

    def __init__(self, campaign: Any):
        super().__init__(campaign)
        self._fold = rules_fold(campaign)
        self.handles = None if self._fold.handles is None else self._fold.handles | {SettingChanged}

    def initial(self) -> SheetsState:
        return SheetsState(rules=self._fold.initial, settings=dict(self.campaign.header.settings))

    def state_of(self, world: Any) -> SheetsState:
        return SheetsState(rules=world.rules, settings=world.core.settings)

    def evolve(self, state: SheetsState, rec: Any) -> SheetsState:
        ev = rec.event
        if isinstance(ev, SettingChanged):
            return SheetsState(rules=state.rules, settings={**state.settings, ev.key: ev.value})
        rules = self._fold(state.rules, rec)
        return state if rules is state.rules else SheetsState(rules=rules, settings=state.settings)

    def rows(self, state: SheetsState) -> dict[str, list[dict[str, Any]]]:
        content = content_of(state.rules)
        settings = msgspec.convert(state.settings, IllerganSettings)
        out = []
        for hero in state.rules.characters.values():
            data = sheet(hero, content, settings)
            out.append({**{c: data.get(c) for c in COLUMNS if c != "sheet"}, "dead": int(hero.dead), "sheet": data})
        return {"illergan_sheets": out}


PROJECTIONS = [IllerganSheets]
