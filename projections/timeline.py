"""The timeline read model: one readable row per event, for every ruleset."""

from __future__ import annotations

from typing import Any

from .base import Projection, Table


class Timeline(Projection):
    name = "timeline"
    version = 1
    append_tables = {
        "timeline": Table(
            {"position": "INTEGER", "recorded_at": "TEXT", "session": "INTEGER", "stream": "TEXT",
             "type": "TEXT", "actor": "TEXT", "summary": "TEXT"},
            pk="position",
        )
    }

    def appended(self, state: Any, rec: Any) -> dict[str, list[dict[str, Any]]]:
        return {"timeline": [{
            "position": rec.position, "recorded_at": rec.recorded_at, "session": rec.session,
            "stream": rec.stream, "type": rec.type, "actor": rec.actor, "summary": self.campaign.summarize(rec),
        }]}


class Sessions(Projection):
    name = "sessions"
    version = 1
    state_type = dict[int, dict[str, Any]]
    state_tables = {
        "sessions": Table({"number": "INTEGER", "title": "TEXT", "in_game_date": "TEXT", "first_position": "INTEGER",
                           "last_position": "INTEGER", "events": "INTEGER", "open": "INTEGER"}, pk="number")
    }

    def initial(self) -> dict[int, dict[str, Any]]:
        return {}

    def evolve(self, state: dict[int, dict[str, Any]], rec: Any) -> dict[int, dict[str, Any]]:
        if rec.session is None:
            return state
        cur = state.get(rec.session)
        if cur is None:
            ev = rec.event
            cur = {"number": rec.session, "title": getattr(ev, "title", ""), "in_game_date": getattr(ev, "in_game_date", ""),
                   "first_position": rec.position, "last_position": rec.position, "events": 0, "open": 1}
        cur = {**cur, "last_position": rec.position, "events": cur["events"] + 1}
        if rec.type == "session.ended":
            cur["open"] = 0
        return {**state, rec.session: cur}

    def rows(self, state: dict[int, dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
        return {"sessions": list(state.values())}


PROJECTIONS = [Timeline, Sessions]
