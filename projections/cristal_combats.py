"""Combat read models (Lois du Cristal): the state of every combat and its log like the book's table.

* ``cristal_combatants``: one row per combatant and combat (IT, PV, PM, condition, incantation, who acts next);
* ``cristal_combat_log``: one row per action (actor, action, duration, every IT before and after), as in
  the Thor vs York table (seed 000, L1298-L1311).

The fold is the ruleset's own (pure) ``evolve``, so the read model always agrees with the decisions.
"""

from __future__ import annotations

from typing import Any

import msgspec

from cristal_events.rulesets.cristal import fights
from cristal_events.rulesets.cristal.ruleset import CristalState

from .base import Projection, Table, rules_fold

TURN_EVENTS = frozenset(fights.TURN_EVENTS)


def _json(v: Any) -> str:
    return msgspec.json.encode(v).decode()


class CristalCombats(Projection):
    name = "cristal_combats"
    version = 2  # 2: no state in the checkpoint (world_state)
    rulesets = ("cristal",)
    state_type = CristalState
    world_state = True
    state_tables = {
        "cristal_combatants": Table(
            {"combat": "TEXT", "fighter": "TEXT", "it": "INTEGER", "pv": "INTEGER", "pm": "INTEGER",
             "condition": "TEXT", "incanting": "TEXT", "until_it": "INTEGER", "acts_next": "INTEGER",
             "active": "INTEGER"},
            pk=("combat", "fighter"),
        )
    }
    append_tables = {
        "cristal_combat_log": Table(
            {"position": "INTEGER", "combat": "TEXT", "actor": "TEXT", "action": "TEXT", "duration": "INTEGER",
             "it_before": "TEXT", "it_after": "TEXT"},
            pk="position",
        )
    }

    def __init__(self, campaign: Any):
        super().__init__(campaign)
        self._fold = rules_fold(campaign)
        self.handles = self._fold.handles
        self._last: tuple[int, tuple[Any, ...]] | None = None

    def initial(self) -> CristalState:
        return self._fold.initial

    def state_of(self, world: Any) -> CristalState:
        return world.rules

    def evolve(self, state: CristalState, rec: Any) -> CristalState:
        after = self._fold(state, rec)
        if type(rec.event) in TURN_EVENTS:
            entry = fights.log_entry(state, after, rec.event)
            self._last = None if entry is None else (rec.position, (
                rec.position, entry["combat"], entry["actor"], entry["action"], entry["duration"],
                _json(entry["it_before"]), _json(entry["it_after"])))
        return after

    def appended(self, state: CristalState, rec: Any) -> dict[str, list[tuple[Any, ...]]]:
        last = self._last
        if last is None or last[0] != rec.position:
            return {}
        return {"cristal_combat_log": [last[1]]}

    def changed_rows(self, before: Any, after: Any) -> dict[str, tuple[list[Any], list[tuple[Any, ...]]]] | None:
        """Nothing, when the catch-up folded no event of the rules (``after`` is ``before`` itself: a
        note, a session, a setting); else every row again. Building the rows means a view of every
        open combat, each fighter's numbers derived from their sheet: two thirds of a command's time
        while a fight is open (benchmarks/README.md, "Levers, A/B")."""
        return {} if before is after else None

    def rows(self, state: CristalState) -> dict[str, list[dict[str, Any]]]:
        out = []
        for name, cb in state.combats.items():
            v = fights.view(state, name, self.campaign.header.rounding)
            for p in v["participants"]:
                out.append({"combat": name, "fighter": p["id"], "it": p["it"], "pv": p["pv"], "pm": p["pm"],
                            "condition": p["condition"], "incanting": p["incanting"], "until_it": p["until"],
                            "acts_next": int(p["next"]), "active": int(cb.active)})
        return {"cristal_combatants": out}


PROJECTIONS = [CristalCombats]
