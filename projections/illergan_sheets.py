"""The Illergan character sheets: one row per hero or creature, the Feuille de Personnage as JSON.

The fold is the ruleset's own (``IllerganRuleset.evolve``) plus the campaign settings changed in the
log; the rows are :func:`cristal_events.rulesets.illergan.sheet.sheet` of every character.

    sqlite-utils query x.db "select name, pv, json_extract(sheet, '$.alcohol.band') from illergan_sheets"
"""

from typing import Any

import msgspec

from cristal_events.ruleset import CORE_SETTING_KEYS
from cristal_events.rulesets.illergan.ruleset import IllerganState
from cristal_events.rulesets.illergan.settings import IllerganSettings
from cristal_events.rulesets.illergan.sheet import sheet
from cristal_events.rulesets.illergan.state import content_of

from .base import SheetsProjection, Table

COLUMNS = {"id": "TEXT", "name": "TEXT", "kind": "TEXT", "race": "TEXT", "class": "TEXT", "pv": "INTEGER",
           "pv_max": "INTEGER", "pm": "INTEGER", "xp": "INTEGER", "xp_total": "INTEGER", "heritage_xp": "INTEGER",
           "destiny_points": "INTEGER", "starls": "TEXT", "dead": "INTEGER", "sheet": "TEXT"}


class SheetsState(msgspec.Struct, kw_only=True):
    rules: IllerganState = msgspec.field(default_factory=IllerganState)
    settings: dict[str, Any] = {}


class IllerganSheets(SheetsProjection):
    name = "illergan_sheets"
    version = 2  # 2: no state in the checkpoint (world_state)
    rulesets = ("illergan",)
    state_type = SheetsState
    state_tables = {"illergan_sheets": Table(COLUMNS, pk="id")}

    def rows(self, state: SheetsState) -> dict[str, list[dict[str, Any]]]:
        content = content_of(state.rules)
        settings = msgspec.convert({k: v for k, v in state.settings.items() if k not in CORE_SETTING_KEYS},
                                   IllerganSettings)
        out = []
        for hero in state.rules.characters.values():
            data = sheet(hero, content, settings)
            out.append({**{c: data.get(c) for c in COLUMNS if c != "sheet"}, "dead": int(hero.dead), "sheet": data})
        return {"illergan_sheets": out}


PROJECTIONS = [IllerganSheets]
