"""The HTML site's walk: the steps of :func:`.walk.walk`, made for a whole-campaign export.

:func:`steps` yields what :func:`.walk.walk` yields for the site's pages (each event's narration, its
state changes, the characters it concerns), reading the log once in position order without its hash
columns, and with three shortcuts measured on the 100k and 1M generated campaigns
(benchmarks/README.md, "HTML export"):

* :func:`changes` is :func:`.diff.diff` of the two states (the rules' and the settings) written for
  speed: it compares struct fields by identity without building a dict of each struct, builds a path
  only where a value differs and hands plain values (numbers, strings) through without
  ``msgspec.to_builtins``; the result is the same list (tested against :func:`.diff.diff`);
* a map the rules made from the one before with one key set (:func:`cristal_events.maps.with_entry`:
  the characters' map, copied by a third of the 1M campaign's events) is compared at that key alone
  (:func:`cristal_events.maps.changed_keys`); any other large map is compared at C speed first;
* the rules' characters (``Ruleset.characters``, a copy of the state's map) are read again only
  when the state's ``characters`` object changed, not at every event;
* the characters an event names come from one loop over its decoded payload, without a generator
  per nested value.

The summary of a step is its narration (the site shows only the narration).
"""

from __future__ import annotations

import os
import pickle
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Protocol

import msgspec

from .. import cores
from ..maps import changed_keys
from .diff import Change
from .walk import SessionInfo, named_in, sessions

Progress = Callable[[int, int], None]
_LARGE = 16  # a map of at least this many keys is compared at C speed first (see _diff)
_PLAIN = frozenset({int, str, bool, float, type(None)})


Comparer = Callable[[Any, Any, tuple[Any, ...], list[Change], "Hint"], None]
#: per class, the comparer of two structs of that class (:func:`_comparer`), None for any other class
_COMPARERS: dict[type, Comparer | None] = {}


def _comparer(cls: type) -> Comparer | None:
    """The comparer of two structs of class ``cls``, written for its fields (None when ``cls`` is no
    msgspec struct), made once per class: what :func:`_diff` does for a struct, each field read by
    its name and its path's part a constant. Reading the two structs as tuples and finding the
    differing fields in a comprehension cost 0.46 µs for 15 fields, this 0.18 (timeit); a state of
    the 1M campaign compares about three structs an event. Written with ``exec`` because neither
    msgspec nor the standard library compares two structs field by field for their differences."""
    if cls in _COMPARERS:
        return _COMPARERS[cls]
    if not issubclass(cls, msgspec.Struct):
        _COMPARERS[cls] = None
        return None
    fields = cls.__struct_fields__
    if not all(name.isidentifier() for name in fields):  # pragma: no cover - msgspec fields are attribute names
        _COMPARERS[cls] = None
        return None
    lines = ["def compare(a, b, path, out, hint):"]
    for name in fields:
        lines += [f"    va, vb = a.{name}, b.{name}",
                  "    if va is not vb:",
                  "        if type(va) in _PLAIN and type(vb) in _PLAIN:",
                  "            if va != vb:",
                  f"                out.append({{'path': [*path, {name!r}], 'before': va, 'after': vb}})",
                  "        else:",
                  f"            _diff(va, vb, (*path, {name!r}), out, hint)"]
    if not fields:
        lines.append("    return None")
    made: dict[str, Any] = {}
    exec("\n".join(lines), globals(), made)  # the code is made from the class's own field names
    found: Comparer = made["compare"]
    _COMPARERS[cls] = found
    return found


def _plain(value: Any) -> Any:
    if type(value) in _PLAIN:
        return value
    return msgspec.to_builtins(value, str_keys=True, enc_hook=str)


def _label(item: Any, index: int) -> Any:
    name = item.get("name") if isinstance(item, dict) else getattr(item, "name", None)
    return name if isinstance(name, str) and name else index


#: the keys, values and key -> index of the last large maps compared, by id (each entry holds its
#: map, so the id stays its own): an event's "after" map is the next one's "before", so the oldest is
#: let go first
_SEEN: dict[int, list[Any]] = {}
_SEEN_MAX = 8
_CHUNKS = 16  # a differing stretch of a large map is cut in this many parts, each compared at C speed


def _entry(d: dict[Any, Any]) -> list[Any]:
    """``[map, keys, values, index]`` of a large map (``index``: key -> position, made when needed)."""
    hit = _SEEN.get(id(d))
    if hit is not None and hit[0] is d:
        return hit
    if len(_SEEN) >= _SEEN_MAX:
        del _SEEN[next(iter(_SEEN))]
    entry = _SEEN[id(d)] = [d, list(d), list(d.values()), None]
    return entry


def _differing(va: list[Any], vb: list[Any], lo: int, hi: int, found: list[int]) -> None:
    """The indexes in ``lo .. hi-1`` where the two lists hold another object, in order, for a stretch
    the caller found different: it is cut in :data:`_CHUNKS` parts and a part that compares equal is
    skipped whole (a list comparison runs in C and takes an element that is the same object as equal
    at once; two equal values have no difference to show). A map of 2,000 characters that an event
    copied to change one of them costs a Python loop of 2,000 otherwise."""
    if hi - lo <= 16:
        found.extend(i for i in range(lo, hi) if va[i] is not vb[i])
        return
    step = max(16, -(-(hi - lo) // _CHUNKS))
    for s in range(lo, hi, step):
        e = s + step if s + step < hi else hi
        if va[s:e] != vb[s:e]:
            _differing(va, vb, s, e, found)


class Hint:
    """The strings an event's payload holds (keys too) and its stream's last part, read only when a
    large map changed: the keys an event changes in the map of every character (or of a fight's
    fighters) are almost always among them (:func:`_named_positions`)."""

    __slots__ = ("rec", "_strings")

    def __init__(self, rec: Any = None):
        self.rec = rec
        self._strings: set[str] | None = None

    def strings(self) -> set[str]:
        if self._strings is None:
            rec = self.rec
            found: set[str] = set()
            if rec is not None:
                found.update(rec.payload.split('"')[1::2])  # a superset when a string holds a quote: a guess
                found.add(rec.stream.rpartition(":")[2])
            self._strings = found
        return self._strings


_NO_HINT = Hint()


def _named_positions(ea: list[Any], eb: list[Any], n: int, hint: Hint) -> list[int] | None:
    """The positions where the values of two large maps with the same first ``n`` keys differ, when
    they are all at keys the event names: those values are put back into a copy of the later map's
    values, and the copy compared with the earlier map's at C speed (equal: nothing else changed;
    otherwise None, and the caller looks everywhere). A list comparison reads only pointers where
    the two hold the same object, while cutting the lists in slices touches every object it copies:
    2.4 µs against 16-33 for a map of 2,054 characters that an event changed in one place (timeit,
    1M campaign; the two lists of the later map, which both need, cost 18-60 µs more)."""
    index = ea[3]
    if index is None:
        index = ea[3] = {k: i for i, k in enumerate(ea[1])}
    if eb[3] is None:  # the same first keys: the same positions, and the added keys' after them
        kb = eb[1]
        eb[3] = index if len(kb) == n else {**index, **{k: i for i, k in enumerate(kb[n:], n)}}
    positions = sorted(index[k] for k in hint.strings() if k in index)
    if not positions:
        return None
    va, vb = ea[2], eb[2]
    if len(vb) == n:  # the later map's own list, patched in place and put back (a slice touches every object)
        kept = [vb[i] for i in positions]
        for i in positions:
            vb[i] = va[i]
        try:
            same = vb == va
        finally:  # put back even if a value's own comparison raised
            for i, v in zip(positions, kept):
                vb[i] = v
    else:
        patched = vb[:n]
        for i in positions:
            patched[i] = va[i]
        same = patched == va
    if not same:
        return None
    return [i for i in positions if va[i] is not vb[i]]


def _leaf(a: Any, b: Any, path: tuple[Any, ...], out: list[Change]) -> None:
    if a != b:
        out.append({"path": list(path), "before": _plain(a), "after": _plain(b)})


def _diff(a: Any, b: Any, path: tuple[Any, ...], out: list[Change], hint: Hint = _NO_HINT) -> None:
    """:func:`.diff.diff` appending to ``out`` (the caller has checked ``a is not b``); two numbers or
    strings are compared where they stand, without a call. ``hint``: the keys the event names, where
    a large map's changes are looked for first (:func:`_named_positions`; the result is the same)."""
    ta = type(a)
    compare = _COMPARERS[ta] if ta in _COMPARERS else _comparer(ta)
    if compare is not None and ta is type(b):
        compare(a, b, path, out, hint)
        return
    if isinstance(a, dict) and isinstance(b, dict):
        keys = changed_keys(a, b)
        if keys is not None:  # b was made from a with these keys set (maps.with_entry): no other can
            # differ, so the two maps are compared at those keys alone, by the small maps' loop below
            _diff({k: a[k] for k in keys if k in a}, {k: b[k] for k in keys}, path, out, hint)
            return
        if len(a) >= _LARGE and len(b) >= len(a):
            ea, eb = _entry(a), _entry(b)
            ka, va_, kb, vb_ = ea[1], ea[2], eb[1], eb[2]
            n = len(ka)
            if (kb == ka) if len(kb) == n else (kb[:n] == ka):  # the same keys in the same order, maybe more
                vb_n = vb_ if len(vb_) == n else vb_[:n]
                if va_ == vb_n:  # at C speed: a map copied with nothing changed stops here
                    found: list[int] = []
                    if eb[3] is None and ea[3] is not None and len(kb) == n:
                        eb[3] = ea[3]  # the same keys in the same order: the same positions
                else:
                    named = _named_positions(ea, eb, n, hint)
                    if named is None:
                        named = []
                        _differing(va_, vb_n, 0, n, named)
                    found = named
                for i in found:
                    key, va, vb = ka[i], va_[i], vb_[i]
                    if type(va) in _PLAIN and type(vb) in _PLAIN:
                        if va != vb:
                            out.append({"path": [*path, key], "before": va, "after": vb})
                    else:
                        _diff(va, vb, path + (key,), out, hint)
                for key in kb[n:]:
                    out.append({"path": [*path, key], "before": None, "after": _plain(b[key])})
                return
        for key, va in a.items():
            if key in b:
                vb = b[key]
                if va is not vb:
                    if type(va) in _PLAIN and type(vb) in _PLAIN:
                        if va != vb:
                            out.append({"path": [*path, key], "before": va, "after": vb})
                    else:
                        _diff(va, vb, path + (key,), out, hint)
            else:
                out.append({"path": [*path, key], "before": _plain(va), "after": None})
        for key, vb in b.items():
            if key not in a:
                out.append({"path": [*path, key], "before": None, "after": _plain(vb)})
        return
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)) and len(a) == len(b):
        for i, (va, vb) in enumerate(zip(a, b)):
            if va is not vb:
                _diff(va, vb, path + (_label(vb, i),), out, hint)
        return
    _leaf(a, b, path, out)


def changes(before: Any, after: Any, rec: Any = None) -> list[Change]:
    """What the event between two worlds changed: the rules' state, then the settings (as the walk);
    ``rec``, the event, tells where a large map's changes are looked for first (the same result)."""
    out: list[Change] = []
    if before.rules is not after.rules:
        _diff(before.rules, after.rules, (), out, Hint(rec) if rec is not None else _NO_HINT)
    a, b = before.core.settings, after.core.settings
    if a is not b:
        _diff(a, b, ("settings",), out)
    return out


class Characters:
    """``Ruleset.characters`` of a rules' state, read again only when the state's ``characters``
    object is another one (the rules' states share what an event did not change; the ruleset's
    method copies the map, which at 2,000 characters costs more than the event's fold). When the
    ruleset's method is :class:`~cristal_events.ruleset.ComposedRuleset`'s (a copy of the state's
    ``characters`` map), the map itself is handed out: every caller here only reads it."""

    def __init__(self, camp: Any):
        from ..ruleset import ComposedRuleset

        self.read = camp.ruleset.characters
        self.direct = getattr(type(camp.ruleset), "characters", None) is ComposedRuleset.characters
        self.held: Any = object()
        self.known: dict[str, Any] = {}

    def __call__(self, rules: Any) -> dict[str, Any]:
        mapping = getattr(rules, "characters", None)
        if mapping is None:
            return self.read(rules)
        if mapping is not self.held:
            self.known, self.held = (mapping if self.direct and isinstance(mapping, dict) else self.read(rules)), mapping
        return self.known


class StepLike(Protocol):
    """What the site's pages read of a step: a :class:`.walk.Step` or a :class:`SiteStep`."""

    @property
    def rec(self) -> Any: ...
    @property
    def summary(self) -> str: ...
    @property
    def told(self) -> str: ...
    @property
    def session(self) -> SessionInfo | None: ...
    @property
    def before(self) -> Any: ...
    @property
    def after(self) -> Any: ...
    @property
    def changes(self) -> list[Change]: ...
    @property
    def characters(self) -> tuple[str, ...]: ...


class SiteStep:
    """What :class:`.walk.Step` holds, for the site: the same attributes, its summary and narration
    one text (the site shows only the narration), in slots (a frozen dataclass of eight fields costs
    2.4 µs to make, this 0.4: a 1M-event export makes a million)."""

    __slots__ = ("rec", "summary", "narration", "told", "session", "before", "after", "changes", "characters")

    def __init__(self, rec: Any, told: str, session: SessionInfo | None, before: Any, after: Any,
                 changes: list[Change], characters: tuple[str, ...]):
        self.rec, self.summary, self.narration, self.told = rec, told, told, told
        self.session, self.before, self.after, self.changes, self.characters = session, before, after, changes, characters

    @property
    def in_game_date(self) -> str:
        return self.session.in_game_date if self.session else ""


_STREAM = "character:"


def involved_in(rec: Any, changed: list[Change], known: dict[str, Any]) -> tuple[str, ...]:
    """:func:`.walk.involved` (the event's stream's character, those whose state it changed, those
    its payload names, in that order), the names found by cutting the payload's JSON text at its
    quotes: without a backslash in the text, every quote opens or closes a string, and a string
    followed by a colon is a key. 4 µs an event against 7.6 for decoding it and walking its values
    (1M campaign, 20,000 events); a payload with a backslash is decoded (:func:`.walk.named_in`)."""
    found: dict[str, None] = {}
    stream = rec.stream
    if stream.startswith(_STREAM):
        found[stream[len(_STREAM):]] = None
    for ch in changed:
        p = ch["path"]
        if len(p) >= 2 and p[0] == "characters" and isinstance(p[1], str):
            found[p[1]] = None
    if known:
        payload = rec.payload
        if "\\" in payload:
            named_in(payload, known, found)
        else:
            parts = payload.split('"')
            strings = parts[1::2]
            if not known.keys().isdisjoint(strings):
                for text, following in zip(strings, parts[2::2]):
                    if text in known and not following.lstrip().startswith(":"):
                        found[text] = None
    return tuple(found)


def steps(camp: Any, *, after: int = 0, until: int | None = None, character: str | None = None,
          progress: Progress | None = None, infos: dict[int, SessionInfo] | None = None,
          characters: Characters | None = None) -> Iterator[SiteStep]:
    """The steps of positions ``after+1 .. until`` for the site (see the module's text);
    ``characters``: the reader of the characters' map to share with the caller."""
    end = camp.store.last_position() if until is None else until
    infos = sessions(camp) if infos is None else infos
    total, done = max(end - after, 0), 0
    characters = Characters(camp) if characters is None else characters
    fold, narrate, summarize = camp.fold, camp.narrate, camp.summarize
    world = camp.state_at(after)
    for rec in camp.store.read_all(after=after, until=end, hashes=False):
        before = world
        world = fold(world, rec)
        done += 1
        if progress is not None and done % 1000 == 0:
            progress(done, total)
        changed = changes(before, world, rec)
        who = involved_in(rec, changed, characters(world.rules))
        if character is not None and character not in who:
            continue
        session = rec.session
        info = infos.get(session) if session is not None else None
        yield SiteStep(rec, narrate(before, rec, world) or summarize(rec), info, before, world, changed, who)
    if progress is not None:
        progress(total, total)


# ------------------------------------------------------------------ the later sessions in a second process
def two_cores() -> bool:
    """Whether this process may run on two cores or more. Unlike the rebuild's second process
    (``projections.runner``, which waits for an idle core), the site's won 2 of 3 A/B rounds even
    with the machine's load at 7-9 on 2 cores (24.6 s against 34.2 s for 100k events: the scheduler
    gives each process its share), so it does not look at the load (benchmarks/README.md)."""
    return hasattr(os, "fork") and cores.usable() > 1


def forkable(camp: Any) -> bool:
    """A campaign a forked child can open again on its own: a SQLite file, on Linux, no other thread."""
    path = getattr(camp.store, "path", None)
    return (sys.platform.startswith("linux") and threading.active_count() == 1 and isinstance(path, (str, Path))
            and Path(path).is_file() and not camp.store.conn.in_transaction)


#: the share of the log the first process walks: the later events cost more (a larger state: more
#: characters), so an even split left the first process waiting for the second (the eighth session:
#: 1.17 × as long; 0.54 evened them). Since the map of characters is compared at the key an event set
#: (cristal_events.maps), the later half costs 1.06 × the earlier, and at 0.54 the second process
#: ended 1.4-3.5 s before the first; at 0.515 the two ended within 0.8 s of each other in each of 4
#: rounds of the 1M export (benchmarks/README.md, "Eleventh session")
SPLIT_SHARE = 0.515


def split_point(camp: Any, after: int, end: int,
                infos: dict[int, SessionInfo]) -> tuple[int, str, str] | None:
    """Where to cut ``after+1 .. end`` in two: the position just before the session start nearest
    :data:`SPLIT_SHARE` of the way whose previous event belongs to a session (so both page names
    are known before either side is walked), with the last page before the cut and the first after
    it; None without one."""
    middle = after + round((end - after) * SPLIT_SHARE)
    starts = [r.position for r in camp.store.read_all(after=after + 1, until=end, type="session.started",
                                                      decode=False, hashes=False)]
    for position in sorted(starts, key=lambda p: abs(p - middle)):
        cut = position - 1
        if cut - after < (end - after) // 4:
            continue
        rows = list(camp.store.read_all(after=cut - 1, until=position, decode=False, hashes=False))
        if len(rows) != 2 or rows[0].session not in infos or rows[1].session not in infos:
            continue
        if rows[0].session == rows[1].session:
            continue
        return cut, f"session-{rows[0].session}.html", f"session-{rows[1].session}.html"
    return None


def fork(work: Callable[[], Any]) -> tuple[int, Any] | None:
    """Run ``work()`` in a forked child that pickles its result into an unnamed temporary file;
    (pid, file), or None when the fork failed. The child leaves by ``os._exit``."""
    try:
        out = tempfile.TemporaryFile()
        pid = os.fork()
    except OSError:
        return None
    if pid == 0:  # pragma: no cover - the child's coverage is not collected
        code = 1
        try:
            _die_with_parent()
            pickle.dump(work(), out, protocol=pickle.HIGHEST_PROTOCOL)
            out.flush()
            code = 0
        finally:
            os._exit(code)
    return pid, out


def _die_with_parent() -> None:
    """Ask Linux to end this (forked) process when its parent ends: an export stopped by a signal or
    a timeout must not leave its second process writing pages. ``prctl(PR_SET_PDEATHSIG, SIGKILL)``
    through ctypes: the standard library has no call for it."""
    import ctypes
    import signal

    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(1, signal.SIGKILL)  # 1: PR_SET_PDEATHSIG
    if os.getppid() == 1:  # the parent ended before the call
        os._exit(1)


def collect(child: tuple[int, Any] | None) -> Any | None:
    """The child's result, or None when it failed (the caller does its work itself)."""
    if child is None:
        return None
    pid, out = child
    with out:
        _, status = os.waitpid(pid, 0)
        if not os.WIFEXITED(status) or os.WEXITSTATUS(status) != 0:
            return None
        out.seek(0)
        try:
            return pickle.load(out)
        except (pickle.UnpicklingError, EOFError):
            return None
