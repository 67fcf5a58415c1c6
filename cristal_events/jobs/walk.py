"""Walk a range of the log event by event, with the state before and after each event.

The walk opens nothing and writes nothing: it reads the store of an open :class:`Campaign` (the jobs
open it read-only) and folds the states with :meth:`Campaign.fold`, so it never rolls a die. Replay
and every export are renderings of these steps.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import msgspec

from ..errors import CristalError, UnknownEntity
from ..events import SessionStarted
from ..i18n import _
from ..projections.timeline import summary as timeline_summary
from ..records import RecordedEvent
from ..service import Campaign, World
from .diff import Change, diff

Progress = Callable[[int, int], None]
CHARACTER_STREAM = "character:"


@dataclass(frozen=True)
class SessionInfo:
    number: int
    title: str = ""
    in_game_date: str = ""


@dataclass(frozen=True)
class Step:
    """One event of the walk: the record, its one-line summary, its narration, and what it changed.

    ``narration`` tells the event in the book's terms with the state change it made
    (:meth:`Campaign.narrate`); on the fast path (no fold) it is the summary.
    """

    rec: RecordedEvent
    summary: str
    session: SessionInfo | None
    before: World
    after: World
    changes: list[Change] = field(default_factory=list)
    characters: tuple[str, ...] = ()
    narration: str = ""

    @property
    def told(self) -> str:
        """The narration, or the summary when there is none."""
        return self.narration or self.summary

    @property
    def in_game_date(self) -> str:
        return self.session.in_game_date if self.session else ""


def sessions(camp: Campaign) -> dict[int, SessionInfo]:
    """Every session of the campaign with its title and in-game date (upcast from old logs)."""
    out: dict[int, SessionInfo] = {}
    for rec in camp.store.read_all(type="session.started"):
        ev = rec.event
        assert isinstance(ev, SessionStarted)
        out[ev.number] = SessionInfo(ev.number, ev.title, ev.in_game_date)
    return out


def session_range(camp: Campaign, number: int) -> tuple[int, int]:
    """The first and last positions of one session."""
    span = camp.store.session_span(number)
    if span is None:
        raise UnknownEntity(_("Session {number} has no events in this campaign.").format(number=number))
    return span


def check_character(camp: Campaign, character: str) -> None:
    """Refuse a character id the campaign never saw."""
    found = camp.store.stream_exists(CHARACTER_STREAM + character)
    if not found and character not in camp.ruleset.characters(camp.state().rules):
        raise UnknownEntity(_("No character {character!r} in this campaign.").format(character=character))


def named_in(payload: str, known: set[str] | dict[str, Any], found: dict[str, None]) -> None:
    """Add to ``found`` every string value of a payload (not its keys) that is in ``known``, in the
    payload's order (depth first): the characters an event names. A loop over a stack, not a generator
    per nested value: a quarter faster, and faster than a regular expression over the text (the site
    export calls it for every event; benchmarks/README.md, "The HTML export")."""
    stack = [msgspec.json.decode(payload)]
    pop, extend = stack.pop, stack.extend
    while stack:
        v = pop()
        t = type(v)
        if t is str:
            if v in known:
                found[v] = None
        elif t is dict:
            extend(reversed(list(v.values())))
        elif t is list:
            extend(reversed(v))


def involved(rec: RecordedEvent, changes: list[Change], known: set[str] | dict[str, Any]) -> tuple[str, ...]:
    """The characters an event concerns: its stream's, those whose state it changed, those it names."""
    found: dict[str, None] = {}
    if rec.stream.startswith(CHARACTER_STREAM):
        found[rec.stream[len(CHARACTER_STREAM):]] = None
    for ch in changes:
        p = ch["path"]
        if len(p) >= 2 and p[0] == "characters" and isinstance(p[1], str):
            found[p[1]] = None
    if known:
        named_in(rec.payload, known, found)
    return tuple(found)


def resolve_range(camp: Campaign, *, session: int | None = None, start: int | None = None,
                  until: int | None = None) -> tuple[int, int]:
    """``(after, until)`` positions for a walk: a session and/or an explicit ``--from``/``--until``."""
    last = camp.store.last_position()
    after, end = 0, last
    if session is not None:
        first, final = session_range(camp, session)
        after, end = first - 1, final
    if start is not None:
        if start < 1:
            raise CristalError(_("--from must be a position of at least 1, not {start}.").format(start=start))
        after = max(after, start - 1)
    if until is not None:
        if until < 1:
            raise CristalError(_("--until must be a position of at least 1, not {until}.").format(until=until))
        end = min(end, until)
    if after >= end:
        raise CristalError(_("No event between positions {value} and {end}.").format(value=after + 1, end=end))
    return after, end


def walk(camp: Campaign, *, after: int = 0, until: int | None = None, character: str | None = None,
         progress: Progress | None = None, fold: bool = True) -> Iterator[Step]:
    """The steps of positions ``after+1 .. until``; with ``character``, only those concerning it.

    ``fold=False`` is the fast path of exports that need only the records and their summaries: the
    states are not folded, ``before``/``after`` are None and ``changes`` is empty.
    """
    if character is not None:
        check_character(camp, character)
    end = camp.store.last_position() if until is None else until
    infos = sessions(camp)
    total, done = max(end - after, 0), 0
    if not fold and character is None:
        for rec in camp.store.read_all(after=after, until=end):
            done += 1
            if progress is not None and done % 1000 == 0:
                progress(done, total)
            info = infos.get(rec.session) if rec.session is not None else None
            summary = timeline_summary(camp, rec)
            yield Step(rec=rec, summary=summary, session=info, before=None, after=None,  # type: ignore[arg-type]
                       characters=involved(rec, [], set()), narration=summary)
        if progress is not None:
            progress(total, total)
        return
    world = camp.state_at(after)
    for rec in camp.store.read_all(after=after, until=end):
        before = world
        world = camp.fold(world, rec)
        done += 1
        if progress is not None and done % 1000 == 0:
            progress(done, total)
        changes = diff(before.rules, world.rules, ())
        changes += [c for c in diff(before.core.settings, world.core.settings, ("settings",))]
        known = camp.ruleset.characters(world.rules)
        who = involved(rec, changes, known)
        if character is not None and character not in who:
            continue
        info = infos.get(rec.session) if rec.session is not None else None
        yield Step(rec=rec, summary=timeline_summary(camp, rec), session=info, before=before, after=world,
                   changes=changes, characters=who, narration=camp.narrate(before, rec, world))
    if progress is not None:
        progress(total, total)
