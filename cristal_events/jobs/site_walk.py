"""The HTML site's walk: the steps of :func:`.walk.walk`, made for a whole-campaign export.

:func:`steps` yields what :func:`.walk.walk` yields for the site's pages (each event's narration, its
state changes, the characters it concerns), reading the log once in position order without its hash
columns, and with three shortcuts measured on the 100k and 1M generated campaigns
(benchmarks/README.md, "HTML export"):

* :func:`changes` is :func:`.diff.diff` of the two states (the rules' and the settings) written for
  speed: it compares struct fields by identity without building a dict of each struct, builds a path
  only where a value differs and hands plain values (numbers, strings) through without
  ``msgspec.to_builtins``; the result is the same list (tested against :func:`.diff.diff`);
* the rules' characters (``Ruleset.characters``, a copy of the state's map) are read again only
  when the state's ``characters`` object changed, not at every event;
* the characters an event names come from one pass over its decoded payload, without a generator
  per nested value.

The summary of a step is its narration (the site shows only the narration).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

import msgspec

from ..records import RecordedEvent
from .diff import Change
from .walk import CHARACTER_STREAM, SessionInfo, Step, sessions

Progress = Callable[[int, int], None]
_PLAIN = frozenset({int, str, bool, float, type(None)})
_STRUCT_TYPES: dict[type, tuple[str, ...] | None] = {}


def _struct_fields(cls: type) -> tuple[str, ...] | None:
    """The fields of a msgspec struct class, None for any other class (cached per class)."""
    try:
        return _STRUCT_TYPES[cls]
    except KeyError:
        fields = cls.__struct_fields__ if issubclass(cls, msgspec.Struct) else None  # type: ignore[attr-defined]
        _STRUCT_TYPES[cls] = fields
        return fields


def _plain(value: Any) -> Any:
    if type(value) in _PLAIN:
        return value
    return msgspec.to_builtins(value, str_keys=True, enc_hook=str)


def _label(item: Any, index: int) -> Any:
    name = item.get("name") if isinstance(item, dict) else getattr(item, "name", None)
    return name if isinstance(name, str) and name else index


def _leaf(a: Any, b: Any, path: tuple[Any, ...], out: list[Change]) -> None:
    if a != b:
        out.append({"path": list(path), "before": _plain(a), "after": _plain(b)})


def _diff(a: Any, b: Any, path: tuple[Any, ...], out: list[Change]) -> None:
    """:func:`.diff.diff` appending to ``out`` (the caller has checked ``a is not b``); two numbers or
    strings are compared where they stand, without a call."""
    ta = type(a)
    fields = _struct_fields(ta)
    if fields is not None and ta is type(b):
        for f in fields:
            va, vb = getattr(a, f), getattr(b, f)
            if va is not vb:
                if type(va) in _PLAIN and type(vb) in _PLAIN:
                    if va != vb:
                        out.append({"path": [*path, f], "before": va, "after": vb})
                else:
                    _diff(va, vb, path + (f,), out)
        return
    if isinstance(a, dict) and isinstance(b, dict):
        for key, va in a.items():
            if key in b:
                vb = b[key]
                if va is not vb:
                    if type(va) in _PLAIN and type(vb) in _PLAIN:
                        if va != vb:
                            out.append({"path": [*path, key], "before": va, "after": vb})
                    else:
                        _diff(va, vb, path + (key,), out)
            else:
                out.append({"path": [*path, key], "before": _plain(va), "after": None})
        for key, vb in b.items():
            if key not in a:
                out.append({"path": [*path, key], "before": None, "after": _plain(vb)})
        return
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)) and len(a) == len(b):
        for i, (va, vb) in enumerate(zip(a, b)):
            if va is not vb:
                _diff(va, vb, path + (_label(vb, i),), out)
        return
    _leaf(a, b, path, out)


def changes(before: Any, after: Any) -> list[Change]:
    """What the event between two worlds changed: the rules' state, then the settings (as the walk)."""
    out: list[Change] = []
    if before.rules is not after.rules:
        _diff(before.rules, after.rules, (), out)
    a, b = before.core.settings, after.core.settings
    if a is not b:
        _diff(a, b, ("settings",), out)
    return out


#: a JSON string, then the ``:`` that makes it a key (empty for a value); every string is consumed,
#: keys too, so a match never starts at a closing quote
_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"(\s*:)?')


def _named(payload: str, known: dict[str, Any], found: dict[str, None]) -> None:
    """Every string value of a payload (not the keys) that is a known character id, in the order of
    the text (the order of :func:`.walk.involved`'s walk of the decoded value)."""
    for text, key in _STRING.findall(payload):
        if key:
            continue
        if "\\" in text:
            text = msgspec.json.decode(f'"{text}"')
        if text in known:
            found[text] = None


def involved(rec: RecordedEvent, changed: list[Change], known: dict[str, Any]) -> tuple[str, ...]:
    """:func:`.walk.involved`: the stream's character, those whose state changed, those the payload names."""
    found: dict[str, None] = {}
    if rec.stream.startswith(CHARACTER_STREAM):
        found[rec.stream[len(CHARACTER_STREAM):]] = None
    for ch in changed:
        p = ch["path"]
        if len(p) >= 2 and p[0] == "characters" and isinstance(p[1], str):
            found[p[1]] = None
    if known:
        _named(rec.payload, known, found)
    return tuple(found)


class Characters:
    """``Ruleset.characters`` of a rules' state, read again only when the state's ``characters``
    object is another one (the rules' states share what an event did not change; the ruleset's
    method copies the map, which at 2,000 characters costs more than the event's fold)."""

    def __init__(self, camp: Any):
        self.read = camp.ruleset.characters
        self.held: Any = object()
        self.known: dict[str, Any] = {}

    def __call__(self, rules: Any) -> dict[str, Any]:
        mapping = getattr(rules, "characters", None)
        if mapping is None:
            return self.read(rules)
        if mapping is not self.held:
            self.known, self.held = self.read(rules), mapping
        return self.known


def steps(camp: Any, *, after: int = 0, until: int | None = None, character: str | None = None,
          progress: Progress | None = None, infos: dict[int, SessionInfo] | None = None) -> Iterator[Step]:
    """The steps of positions ``after+1 .. until`` for the site (see the module's text)."""
    end = camp.store.last_position() if until is None else until
    infos = sessions(camp) if infos is None else infos
    total, done = max(end - after, 0), 0
    characters = Characters(camp)
    world = camp.state_at(after)
    for rec in camp.store.read_all(after=after, until=end, hashes=False):
        before = world
        world = camp.fold(world, rec)
        done += 1
        if progress is not None and done % 1000 == 0:
            progress(done, total)
        changed = changes(before, world)
        who = involved(rec, changed, characters(world.rules))
        if character is not None and character not in who:
            continue
        info = infos.get(rec.session) if rec.session is not None else None
        told = camp.narrate(before, rec, world) or camp.summarize(rec)
        yield Step(rec=rec, summary=told, session=info, before=before, after=world, changes=changed,
                   characters=who, narration=told)
    if progress is not None:
        progress(total, total)
