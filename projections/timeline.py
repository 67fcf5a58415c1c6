"""The timeline read model: one row per event (where it stands in the log), for every ruleset.

Its readable line is not stored: :func:`summary` tells it from the event when it is read, in the
reader's language. Version 1 stored a French ``summary`` per event; telling it was the largest part of
the timeline's rebuild (``Timeline.appended`` 1.4 of 4.3 s of a 100k rebuild under cProfile), the
column was the biggest of its rows, and no reader used it (``cristal log``, ``replay``, the exports
and the web table always told the line from the event, in their own language).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec

from .base import Projection, Table

if TYPE_CHECKING:
    from cristal_events import Campaign, RecordedEvent


class Timeline(Projection):
    name = "timeline"
    version = 2  # 2: no stored summary (version 1's French sentence per event): told when read, by summary()
    append_tables = {
        "timeline": Table(
            {"position": "INTEGER", "recorded_at": "TEXT", "session": "INTEGER", "stream": "TEXT",
             "type": "TEXT", "actor": "TEXT"},
            pk="position",
        )
    }

    #: its rows are the events' envelope columns: a catch-up or a rebuild copies them from the log in
    #: SQL (``Store.copy_log_rows``), :meth:`appended` says the same in Python (``verify``)
    log_columns = {"timeline": ("position", "recorded_at", "session", "stream", "type", "actor")}

    def appended(self, state: Any, rec: Any) -> dict[str, list[tuple[Any, ...]]]:
        return {"timeline": [(rec.position, rec.recorded_at, rec.session, rec.stream, rec.type, rec.actor)]}


def summary(campaign: Campaign, rec: RecordedEvent) -> str:
    """The timeline's readable line of one recorded event, in the current language
    (:func:`cristal_events.i18n.current`: the reader's ``--lang``), told from the event itself: what
    ``cristal log``, ``replay`` and the exports show, and what version 1 of the timeline stored (in
    French) in its ``summary`` column. Pure: the same event in the same language gives the same line."""
    return campaign.summarize(rec)


class Session(msgspec.Struct, frozen=True, kw_only=True):
    """One row of ``sessions``."""

    number: int
    title: str
    in_game_date: str
    first_position: int
    last_position: int
    events: int
    open: int


class SessionsState(msgspec.Struct, frozen=True, kw_only=True):
    """The session the last events belong to, apart from the others: an event only replaces it, so the
    fold does not copy the map of every session for each event."""

    current: Session | None = None
    others: dict[int, Session] = {}


class Sessions(Projection):
    name = "sessions"
    version = 3  # 2: the state keeps the current session apart (same rows); 3: the state is the rows
    state_type = SessionsState
    rows_state = True  # a command would otherwise rewrite every session (142 kB at 1M events) in its checkpoint
    payload_fields = ("title", "in_game_date")  # all evolve reads of an event (the envelope aside)
    state_tables = {
        "sessions": Table({"number": "INTEGER", "title": "TEXT", "in_game_date": "TEXT", "first_position": "INTEGER",
                           "last_position": "INTEGER", "events": "INTEGER", "open": "INTEGER"}, pk="number")
    }

    def initial(self) -> SessionsState:
        return SessionsState()

    def evolve(self, state: SessionsState, rec: Any) -> SessionsState:
        number = rec.session
        if number is None:
            return state
        cur, others = state.current, state.others
        if cur is None or cur.number != number:
            if cur is not None:
                others = {**others, cur.number: cur}
            cur = others.get(number)
            if cur is None:
                ev = rec.event
                cur = Session(number=number, title=getattr(ev, "title", ""), in_game_date=getattr(ev, "in_game_date", ""),
                              first_position=rec.position, last_position=rec.position, events=0, open=1)
            else:
                others = {k: v for k, v in others.items() if k != number}
        cur = Session(number=number, title=cur.title, in_game_date=cur.in_game_date,
                      first_position=cur.first_position, last_position=rec.position, events=cur.events + 1,
                      open=0 if rec.type == "session.ended" else cur.open)
        return SessionsState(current=cur, others=others)

    def state_from_rows(self, rows: dict[str, list[tuple[Any, ...]]]) -> SessionsState:
        """The sessions, the one of the last position current (any one would fold to the same rows)."""
        sessions = [Session(number=r[0], title=r[1], in_game_date=r[2], first_position=r[3], last_position=r[4],
                            events=r[5], open=r[6]) for r in rows.get("sessions", [])]
        if not sessions:
            return SessionsState()
        current = max(sessions, key=lambda s: s.last_position)
        return SessionsState(current=current, others={s.number: s for s in sessions if s is not current})

    def rows(self, state: SessionsState) -> dict[str, list[tuple[Any, ...]]]:
        sessions = [*state.others.values(), *([state.current] if state.current else [])]
        return {"sessions": [msgspec.structs.astuple(s) for s in sessions]}

    def changed_rows(self, before: SessionsState, after: SessionsState) -> dict[str, Any] | None:
        """The sessions a catch-up changed: within one session only its row (the others are the same
        map), after a change of session the rows that differ; a command on a long campaign does not
        write every session's row again."""
        if before is after:
            return {}

        def every(state: SessionsState) -> dict[int, Session]:
            return {**state.others, **({state.current.number: state.current} if state.current else {})}

        if before.others is after.others:
            changed = [after.current] if after.current is not None and after.current != before.current else []
            return {"sessions": ([msgspec.structs.astuple(s) for s in changed], [])}
        old, new = every(before), every(after)
        rows = [msgspec.structs.astuple(s) for n, s in new.items() if old.get(n) != s]
        return {"sessions": (rows, [(n,) for n in old if n not in new])}


PROJECTIONS = [Timeline, Sessions]
