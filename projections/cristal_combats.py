"""Combat read models (Lois du Cristal): the state of every combat and its log like the book's table.

* ``cristal_combatants``: one row per combatant and combat (IT, PV, PM, condition, incantation, who acts next);
* ``cristal_combat_log``: one row per action (its position, the combat, the actor, the duration), as in
  the Thor vs York table (seed 000, L1298-L1311);
* ``cristal_combat_its``: one row per IT that changed (position, combat, fighter, the new IT; a row with
  no fighter: the combat starts afresh), what every IT before and after an action is computed from.

The tables hold no language and no text that can be computed when they are read: :func:`combat_log` gives
each action its line (the event's summary, looked up in the reader's language) and every IT before and
after it, from these facts and the combat's events (``combat log``; issue 20's lever "a read model need
not store what can be computed when it is read": benchmarks/README.md, "Levers").

The fold is the ruleset's own (pure) ``evolve``, so the read model always agrees with the decisions.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from cristal_events.rulesets.cristal import fights
from cristal_events.rulesets.cristal.ruleset import CristalState

from .base import Projection, Table, rules_fold


class CristalCombats(Projection):
    name = "cristal_combats"
    version = 3  # 2: no state in the checkpoint (world_state); 3: the log holds no text nor IT maps
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
            {"position": "INTEGER", "combat": "TEXT", "actor": "TEXT", "duration": "INTEGER"},
            pk=("combat", "position"),  # 'combat log NAME' reads one fight's rows through the key's index
        ),
        "cristal_combat_its": Table(
            {"position": "INTEGER", "seq": "INTEGER", "combat": "TEXT", "fighter": "TEXT", "it": "INTEGER"},
            pk=("combat", "position", "seq"),
        ),
    }

    def __init__(self, campaign: Any):
        super().__init__(campaign)
        self._fold = rules_fold(campaign)
        self.handles = self._fold.handles
        self._last: tuple[int, dict[str, list[tuple[Any, ...]]]] | None = None

    def initial(self) -> CristalState:
        return self._fold.initial

    def state_of(self, world: Any) -> CristalState:
        return world.rules

    def evolve(self, state: CristalState, rec: Any) -> CristalState:
        after = self._fold(state, rec)
        self._last = None
        rows: dict[str, list[tuple[Any, ...]]] = {}
        actor = fights.turn_actor(rec.event)
        if actor is not None:
            old, new = state.combats[rec.event.name], after.combats[rec.event.name]
            rows["cristal_combat_log"] = [(rec.position, rec.event.name, actor,
                                           new.it[actor] - old.it.get(actor, new.it[actor]))]
        elif after.combats is state.combats:  # no fight changed (a character's event outside a fight ...)
            return after
        changed: list[tuple[str, str | None, int | None]] = []  # (combat, fighter, IT); no fighter: afresh
        for name, cb in after.combats.items():
            was = state.combats.get(name)
            if was is not None and was.it is cb.it:
                continue
            if was is None or not was.it.keys() <= cb.it.keys():  # a new fight: its ITs start afresh
                changed.append((name, None, None))
                changed.extend((name, fid, it) for fid, it in cb.it.items())
            else:
                changed.extend((name, fid, it) for fid, it in cb.it.items() if was.it.get(fid) != it)
        its = [(rec.position, seq, name, fid, it) for seq, (name, fid, it) in enumerate(changed)]
        if its:
            rows["cristal_combat_its"] = its
        if rows:
            self._last = (rec.position, rows)
        return after

    def appended(self, state: CristalState, rec: Any) -> dict[str, list[tuple[Any, ...]]]:
        last = self._last
        if last is None or last[0] != rec.position:
            return {}
        return last[1]

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

        for name in CristalState.__struct_fields__:  # msgspec.structs.fields() would cost 35 µs a command
            if name not in ("combats", "characters") and not same(getattr(before, name), getattr(after, name)):
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


def combat_log(actions: Iterable[Mapping[str, Any]], its: Iterable[Mapping[str, Any]],
               events: Mapping[int, Any]) -> list[dict[str, Any]]:
    """The book's combat table as read: for each stored action (``cristal_combat_log`` rows, in position
    order) its position, actor, duration, its line (``action``: the summary of its event, ``events``
    by position, in the reader's language) and every IT before and after it (``it_before``,
    ``it_after``, in the order the fighters joined), walked from the ``cristal_combat_its`` rows of
    the same combat. Pure."""
    changes = sorted(((r["position"], r["seq"], r["fighter"], r["it"]) for r in its), key=lambda c: c[:2])
    now: dict[str, int] = {}
    out: list[dict[str, Any]] = []
    i = 0
    for a in actions:
        pos = a["position"]
        while i < len(changes) and changes[i][0] < pos:
            _apply(now, changes[i])
            i += 1
        before = dict(now)
        while i < len(changes) and changes[i][0] == pos:
            _apply(now, changes[i])
            i += 1
        rec = events[pos]
        out.append({"position": pos, "actor": a["actor"], "action": fights.SUMMARIES[type(rec.event)](rec),
                    "duration": a["duration"], "it_before": before, "it_after": dict(now)})
    return out


def _apply(now: dict[str, int], change: tuple[Any, ...]) -> None:
    fighter, it = change[2], change[3]
    if fighter is None:
        now.clear()
    else:
        now[fighter] = it


PROJECTIONS = [CristalCombats]
