"""The event envelope, the kernel's record of one stored event (issue 15 item 1).

A :class:`RecordedEvent` is what a fold sees: the decoded event and the columns the store keeps
around it (position, stream, version, session, actor, hashes). It lives here, beside
:mod:`cristal_events.events`, so the rules can name it without importing the store; the store
builds it and re-exports it.
"""

import msgspec

from .events import Event

__all__ = ["RecordedEvent"]


class RecordedEvent(msgspec.Struct, frozen=True, gc=False):
    """An event as stored: the decoded event and its envelope (fields in the order of the columns).

    ``gc=False``: a record holds only strings, numbers and its event, so it can never be part of a
    reference cycle, and keeping the millions a replay makes out of the garbage collector's lists
    makes replays faster.
    """

    position: int
    event_id: str
    stream: str
    version: int
    type: str
    schema_version: int
    payload: str
    recorded_at: str
    session: int | None
    actor: str
    causation_id: str | None
    correlation_id: str | None
    prev_hash: str
    hash: str
    event: Event | None = None
