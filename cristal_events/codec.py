"""Encoding and decoding of stored events: one decoder per event class, built on first use; upcasters.

A payload stored at an older schema version is upgraded on read by the registered functions
``{(tag, from_version): fn(dict) -> dict}``, applied one version at a time, then validated.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, Union

import msgspec

from . import bounds
from .errors import EventDecodeError
from .events import Event, tag_of
from .i18n import _

Upcaster = Callable[[dict[str, Any]], dict[str, Any]]

_encoder = msgspec.json.Encoder()


def encode(event: Event) -> bytes:
    """Canonical JSON of an event (field order fixed by the class, tag first)."""
    return _encoder.encode(event)


class Codec:
    """Decodes the events of one campaign (core events + one ruleset's events)."""

    def __init__(self, classes: Iterable[type[Event]], upcasters: Mapping[tuple[str, int], Upcaster] = {}):
        self.classes = tuple(classes)
        self.by_tag: dict[str, type[Event]] = {}
        for cls in self.classes:
            tag = tag_of(cls)
            if not isinstance(tag, str) or tag == cls.__name__:
                raise TypeError(f"{cls.__name__} must declare an explicit tag")
            if tag in self.by_tag:
                raise TypeError(f"tag {tag!r} is declared twice")
            self.by_tag[tag] = cls
        #: the decode function of each tag's class, built the first time a payload of that tag is
        #: read: msgspec inspects a class when a decoder is made for it, and a command that reads a
        #: few event types does not pay for all of them (see benchmarks/README.md, 'decoders on demand')
        self.decoders: dict[str, Callable[[str | bytes], Event]] = {}
        #: ``{tag: (schema version of its class, decode function)}`` for the tags decoded so far:
        #: what a replay looks up once per row (see ``Store._rows``)
        self.current: dict[str, tuple[int, Callable[[str | bytes], Event]]] = {}
        self._union: Any = None
        self.upcasters = dict(upcasters)
        self.versions = {tag: cls.version for tag, cls in self.by_tag.items()}

    @property
    def union(self) -> Any:
        """The Union of every event class (for validating a dict whose tag is not known yet)."""
        if self._union is None:
            # one Union of every class, built at once (see benchmarks/README.md, 'one union')
            self._union = Union[self.classes]  # noqa: UP007
        return self._union

    def decoder(self, tag: str) -> Callable[[str | bytes], Event]:
        """The function decoding a payload of event type ``tag`` at its class's schema version
        (raises msgspec's errors, as :meth:`decode` does not)."""
        fn = self.decoders.get(tag)
        if fn is None:
            cls = self.by_tag.get(tag)
            if cls is None:
                raise EventDecodeError(_("Unknown event type {tag!r}: this campaign was written by another "
                                         "engine or ruleset.").format(tag=tag))
            fn = self.decoders[tag] = msgspec.json.Decoder(cls).decode
            self.current[tag] = (cls.version, fn)
        return fn

    def decode(self, tag: str, schema_version: int, payload: str | bytes) -> Event:
        """Decode one payload from outside the log (an import), upcasting it first when it is older
        than its class, and refuse it when a number in it is beyond the bounds of
        :mod:`cristal_events.bounds` (EventDecodeError)."""
        entry = self.current.get(tag)  # a payload at its class's version: its decoder at once (a whole
        if entry is not None and entry[0] == schema_version:  # import comes through here, row by row)
            try:
                event = entry[1](payload)
            except (msgspec.ValidationError, msgspec.DecodeError):
                event = self.read(tag, schema_version, payload)  # raises the one sentence
        else:
            event = self.read(tag, schema_version, payload)
        try:
            bounds.check_payload(event, payload, tag)
        except bounds.OutOfBounds as exc:
            raise EventDecodeError(str(exc)) from None
        return event

    def read(self, tag: str, schema_version: int, payload: str | bytes) -> Event:
        """Decode one stored payload, upcasting it first when it is older than its class. The
        bounds are not checked: an event the log already holds is read as it was written (an
        older engine may have let a number beyond them in; the read models skip what they cannot
        hold, :mod:`projections.runner`)."""
        current = self.versions.get(tag)
        if current is None:
            raise EventDecodeError(_("Unknown event type {tag!r}: this campaign was written by another engine "
                                     "or ruleset.").format(tag=tag))
        try:
            if schema_version == current:
                return self.decoder(tag)(payload)
            if schema_version > current:
                raise EventDecodeError(
                    _("Event type {tag!r} is stored at schema version {schema_version}, newer than this "
                      "engine's {current}.").format(tag=tag, schema_version=schema_version, current=current)
                )
            data = msgspec.json.decode(payload)
            for v in range(schema_version, current):
                if not isinstance(data, dict):
                    raise EventDecodeError(_("Invalid {tag!r} payload: expected a JSON object.").format(tag=tag))
                fn = self.upcasters.get((tag, v))
                if fn is None:
                    raise EventDecodeError(_("No upcaster registered for {tag!r} from version {v} to {value}.").format(tag=tag, v=v, value=v + 1))
                data = fn(data)
            data["type"] = tag
            return msgspec.convert(data, self.by_tag[tag])
        except msgspec.ValidationError as exc:
            raise EventDecodeError(_("Invalid {tag!r} payload: {exc}.").format(tag=tag, exc=exc)) from None
        except msgspec.DecodeError as exc:
            raise EventDecodeError(_("Malformed {tag!r} payload: {exc}.").format(tag=tag, exc=exc)) from None

    def json_schema(self) -> dict[str, Any]:
        """JSON Schema of every event type of this codec (generated by msgspec)."""
        return msgspec.json.schema(self.union)
