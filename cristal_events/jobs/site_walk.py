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
* the characters an event names come from one loop over its decoded payload, without a generator
  per nested value.

The summary of a step is its narration (the site shows only the narration).
"""

from __future__ import annotations

import gc
import os
import pickle
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import msgspec

from .. import cores
from .diff import Change
from .walk import SessionInfo, Step, involved, sessions

Progress = Callable[[int, int], None]
_LARGE = 16  # a map of at least this many keys is compared at C speed first (see _diff)
_PLAIN = frozenset({int, str, bool, float, type(None)})
_STRUCT_TYPES: dict[type, tuple[str, ...] | None] = {}


def _struct_fields(cls: type) -> tuple[str, ...] | None:
    """The fields of a msgspec struct class, None for any other class (cached per class)."""
    try:
        return _STRUCT_TYPES[cls]
    except KeyError:
        fields = cls.__struct_fields__ if issubclass(cls, msgspec.Struct) else None
        _STRUCT_TYPES[cls] = fields
        return fields


def _plain(value: Any) -> Any:
    if type(value) in _PLAIN:
        return value
    return msgspec.to_builtins(value, str_keys=True, enc_hook=str)


def _label(item: Any, index: int) -> Any:
    name = item.get("name") if isinstance(item, dict) else getattr(item, "name", None)
    return name if isinstance(name, str) and name else index


#: the keys and values of the last large maps compared, by id (each entry holds its map, so the id
#: stays its own): an event's "after" map is the next one's "before"
_SEEN: dict[int, tuple[dict[Any, Any], list[Any], list[Any]]] = {}


def _lists(d: dict[Any, Any]) -> tuple[list[Any], list[Any]]:
    hit = _SEEN.get(id(d))
    if hit is not None and hit[0] is d:
        return hit[1], hit[2]
    if len(_SEEN) >= 8:
        _SEEN.clear()
    keys, values = list(d), list(d.values())
    _SEEN[id(d)] = (d, keys, values)
    return keys, values


def _differing(va: list[Any], vb: list[Any], lo: int, hi: int, found: list[int]) -> None:
    """The indexes in ``lo .. hi-1`` where the two lists hold another object, in order: halves that
    compare equal are skipped whole (a list comparison runs in C and takes an element that is the same
    object as equal at once; two equal values have no difference to show). A map of 2,000 characters
    that an event copied to change one of them costs a Python loop of 2,000 otherwise."""
    if va[lo:hi] == vb[lo:hi]:
        return
    if hi - lo <= 16:
        found.extend(i for i in range(lo, hi) if va[i] is not vb[i])
        return
    mid = (lo + hi) // 2
    _differing(va, vb, lo, mid, found)
    _differing(va, vb, mid, hi, found)


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
        if len(a) >= _LARGE and len(b) >= len(a):
            ka, va_ = _lists(a)
            kb, vb_ = _lists(b)
            n = len(ka)
            if kb[:n] == ka:  # the same keys in the same order, some maybe added at the end
                found: list[int] = []
                _differing(va_, vb_ if len(vb_) == n else vb_[:n], 0, n, found)
                for i in found:
                    key, va, vb = ka[i], va_[i], vb_[i]
                    if type(va) in _PLAIN and type(vb) in _PLAIN:
                        if va != vb:
                            out.append({"path": [*path, key], "before": va, "after": vb})
                    else:
                        _diff(va, vb, path + (key,), out)
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


@contextmanager
def no_cycle_collector() -> Iterator[None]:
    """Python's cycle collector paused for the export, as it was before afterwards. The walk makes
    a state per event, each holding a new map of the characters (2,000 of them at 1M events), and
    keeps a session's states until its page is written: each collection of the youngest objects
    then walks those maps again. The walk makes no reference cycle (its objects are freed by their
    counts as each page is written); paused, the fold of the 1M campaign's events took 21 µs
    instead of 81 and the diff 30 instead of 75 (benchmarks/README.md, "HTML export")."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


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


def split_point(camp: Any, after: int, end: int,
                infos: dict[int, SessionInfo]) -> tuple[int, str, str] | None:
    """Where to cut ``after+1 .. end`` in two: the position just before the session start nearest the
    middle whose previous event belongs to a session (so both page names are known before either
    side is walked), with the last page before the cut and the first after it; None without one."""
    middle = (after + end) // 2
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
