"""The evening at the tavern: every drink, every passing of time and what it did to each drinker.

Append table ``illergan_evening``: one row per drink or sobering and one per thing that happened
(band crossed, Alc minimum lowered, event die with its action, memory loss), with Alc, the minimum and
the band after it. State table ``illergan_alcohol``: each drinker's Alc now, with the four thresholds.
Both read the events alone (they carry the state after them and the thresholds, I-L126-129).

    sqlite-utils query x.db "select position, character, what, alc, band, action from illergan_evening"
"""

from typing import Any

import msgspec

from cristal_events.rulesets.illergan import tavern

from .base import Projection, Table

EVENING = Table(
    {"position": "INTEGER", "seq": "INTEGER", "session": "INTEGER", "character": "TEXT", "what": "TEXT",
     "beverage": "TEXT", "alc_gained": "INTEGER", "minutes": "INTEGER", "alc": "REAL", "alc_min": "INTEGER",
     "band": "TEXT", "result": "INTEGER", "action": "TEXT", "detail": "TEXT"},
    pk=("position", "seq"),
)
ALCOHOL = Table(
    {"character": "TEXT", "alc": "INTEGER", "alc_min": "INTEGER", "band": "TEXT", "gaiete": "REAL",
     "troublitude": "REAL", "titubage": "REAL", "oubli": "REAL", "last_position": "INTEGER"},
    pk="character",
)


def _rows(rec: Any) -> list[dict[str, Any]]:
    ev = rec.event
    heads: list[tuple[Any, ...]]
    match ev:
        case tavern.DrinkConsumed():
            heads = [(ev.character, "drink", ev.beverage, ev.alc_gained, None, ev.after, ev.happenings)]
        case tavern.TimePassed():
            heads = [(s.character, "wait", "", None, ev.minutes, s.after, s.happenings) for s in ev.sobering]
        case _:
            return []
    out: list[dict[str, Any]] = []
    for character, what, beverage, gained, minutes, after, happenings in heads:
        base = {"position": rec.position, "session": rec.session, "character": character}
        out.append({**base, "what": what, "beverage": beverage, "alc_gained": gained, "minutes": minutes,
                    "alc": after.alc, "alc_min": after.alc_min, "band": after.band or "sobre"})
        for h in happenings:
            out.append({**base, "what": h.kind, "alc": h.alc, "alc_min": after.alc_min,
                        "band": h.band or "sobre", "result": h.result or None, "action": h.action,
                        "detail": h.detail or (f"coma {h.coma_hours} h" if h.coma_hours else "")})
    for i, row in enumerate(out):
        row["seq"] = i
    return out


class EveningState(msgspec.Struct, kw_only=True):
    drinkers: dict[str, dict[str, Any]] = {}


class IllerganEvening(Projection):
    name = "illergan_evening"
    version = 1
    rulesets = ("illergan",)
    state_type = EveningState
    append_tables = {"illergan_evening": EVENING}
    state_tables = {"illergan_alcohol": ALCOHOL}

    def initial(self) -> EveningState:
        return EveningState()

    def evolve(self, state: EveningState, rec: Any) -> EveningState:
        ev = rec.event
        match ev:
            case tavern.DrinkConsumed():
                changed = [(ev.character, ev.limits, ev.after)]
            case tavern.TimePassed():
                changed = [(s.character, s.limits, s.after) for s in ev.sobering]
            case _:
                return state
        drinkers = dict(state.drinkers)
        for character, limits, after in changed:
            drinkers[character] = {"character": character, "alc": after.alc, "alc_min": after.alc_min,
                                   "band": after.band or "sobre", **msgspec.to_builtins(limits),
                                   "last_position": rec.position}
        return EveningState(drinkers=drinkers)

    def appended(self, state: EveningState, rec: Any) -> dict[str, list[dict[str, Any]]]:
        rows = _rows(rec)
        return {"illergan_evening": rows} if rows else {}

    def rows(self, state: EveningState) -> dict[str, list[dict[str, Any]]]:
        return {"illergan_alcohol": list(state.drinkers.values())}


PROJECTIONS = [IllerganEvening]
