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

    def rows(self, state: CristalState) -> dict[str, list[dict[str, Any]]]:
        return {"cristal_combatants": [row for name in state.combats for row in self._combat_rows(state, name)]}

    def _combat_rows(self, state: CristalState, name: str) -> list[dict[str, Any]]:
        cb = state.combats[name]
        v = fights.view(state, name, self.campaign.header.rounding)
        return [{"combat": name, "fighter": p["id"], "it": p["it"], "pv": p["pv"], "pm": p["pm"],
                 "condition": p["condition"], "incanting": p["incanting"], "until_it": p["until"],
                 "acts_next": int(p["next"]), "active": int(cb.active)} for p in v["participants"]]

    def changed_rows(self, before: CristalState, after: CristalState) -> dict[str, tuple[list[Any], list[tuple[Any, ...]]]] | None:
        """Only the combats a catch-up changed: a combat's view reads the combat and its fighters'
        characters, so a combat whose record and fighters' characters are unchanged keeps its rows
        (a command at the table touches one fight; the others are not drawn again). Anything else of
        the state that changed (packs, crystals, corrections): every row again. A catch-up that folded
        no event of the rules (``after`` is ``before`` itself: a note, a session, a setting) changes
        none (benchmarks/README.md, "Levers, A/B": building the rows is two thirds of a command's time
        while a fight is open)."""
        if before is after:
            return {}

        def same(a: Any, b: Any) -> bool:
            return a is b or a == b

        for field in msgspec.structs.fields(CristalState):
            if field.name not in ("combats", "characters") and not same(getattr(before, field.name),
                                                                        getattr(after, field.name)):
                return None
        rows: list[Any] = []
        gone: list[tuple[Any, ...]] = []
        for name, cb in after.combats.items():
            old = before.combats.get(name)
            if old is not None and same(old, cb) and all(
                    same(before.characters.get(f), after.characters.get(f)) for f in cb.fighters):
                continue
            rows.extend(self._combat_rows(after, name))
            if old is not None:
                gone.extend((name, f) for f in old.fighters if f not in cb.fighters)
        for name, old in before.combats.items():
            if name not in after.combats:
                gone.extend((name, f) for f in old.fighters)
        return {"cristal_combatants": (rows, gone)}


PROJECTIONS = [CristalCombats]
