"""Replay: the story of a range of the log, event by event, with the state change each made.

Python API::

    from cristal_events.jobs import replay
    for line in replay.text_lines(steps): print(line)
    for record in map(replay.record, steps): ...

Each event is told by the ruleset's ``narrate`` hook (the book's terms, names from the sheets, the
state change it made: "Gustave attaque Rodrigue : ATT 8 + d20 13 = 21 > DP 18, touché ; 8 dégâts,
PV 20 → 12 ; IT 0 → 6"), then every value of the state it changed. Records carry both the one-line
``summary`` and the ``narration``. Replaying reads the log and folds it; it never rolls a die and
never writes. The text lines show every control character of a name or a reason visibly
(:func:`cristal_events.display.visible`); the records keep the text exactly.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import msgspec

from ..display import visible
from ..i18n import _
from .diff import render_change
from .walk import Step


def session_heading(step: Step) -> str:
    if step.session is None:
        return "── " + _("Outside any session") + " ──"
    s = step.session
    title = _(": {title}").format(title=s.title) if s.title else ""
    date = f" ({s.in_game_date})" if s.in_game_date else ""
    return "── " + _("Session {number}").format(number=s.number) + f"{title}{date} ──"


def event_lines(step: Step) -> list[str]:
    """The lines of one event: position, actor, the event told in the book's terms, then each change."""
    rec = step.rec
    head = f"#{rec.position:<5} {rec.actor:<8} {step.told}"
    return [head] + [f"        {render_change(c)}" for c in step.changes]


def text_blocks(steps: Iterable[Step]) -> Iterator[list[str]]:
    """One block of lines per event (a session heading first when the session changes)."""
    current: object = object()
    for step in steps:
        key = step.session.number if step.session else None
        block = []
        if key != current:
            block.append(session_heading(step))
            current = key
        yield [visible(line) for line in block + event_lines(step)]


def text_lines(steps: Iterable[Step]) -> Iterator[str]:
    for block in text_blocks(steps):
        yield from block


def record(step: Step) -> dict[str, Any]:
    """The structured record of one event (``replay --json`` prints one per line)."""
    rec = step.rec
    return {
        "position": rec.position, "recorded_at": rec.recorded_at, "session": rec.session,
        "in_game_date": step.in_game_date, "actor": rec.actor, "stream": rec.stream, "type": rec.type,
        "summary": step.summary, "narration": step.told, "payload": msgspec.json.decode(rec.payload), "changes": step.changes,
        "characters": list(step.characters),
    }
