"""Read-only maps that know which map they were made from, and which keys they changed.

The rules' states are immutable: an event that changes one character makes a new state whose
``characters`` map is a copy of the old one with that character replaced (the map of the 1M
generated campaign holds 2,064 characters; a third of its events copy it). A reader of two
successive states that wants to know what changed (the HTML site's state diff, ``jobs.site_walk``)
otherwise has to compare the two maps entry by entry, and building the two maps' lists for that
comparison was its largest cost at 1M (benchmarks/README.md, "Ninth session" and "Tenth session").

:func:`with_entry` makes that copy as a :class:`DerivedMap`: a ``dict`` (msgspec encodes it, ``==``
compares it with any dict, a snapshot decodes back to a plain dict) that refuses to be changed in
place and remembers, through a weak reference, the map it was made from and the key it replaced;
:func:`changed_keys` answers from that record. The weak reference keeps no earlier state alive (a
replay holds only the newest), and a map whose origin is gone, or is not the map asked about, has no
answer, so the reader compares entry by entry as before. Neither the standard library nor msgspec
has a persistent map (``types.MappingProxyType`` cannot be copied with one key changed or encoded
by msgspec; the ``immutables`` package's HAMT is not a dict for msgspec or for the rules' code).
"""

from __future__ import annotations

import weakref
from collections.abc import Hashable, Mapping
from typing import Any, NoReturn, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


def _read_only(self: Any, *args: Any, **kwargs: Any) -> NoReturn:
    raise TypeError("a map of the rules' state is read-only: make a new one (maps.with_entry)")


class DerivedMap(dict[Any, Any]):
    """A dict made from another with one key set, read-only: every method that would change it in
    place raises TypeError (a later change would make :func:`changed_keys` wrong). ``dict(m)``,
    ``{**m}``, ``m.copy()``, ``m | other``, ``fromkeys``, pickling and ``copy`` give plain, writable
    dicts."""

    __slots__ = ("_origin", "_key", "__weakref__")
    _origin: weakref.ref[DerivedMap] | None
    _key: Any

    __setitem__ = __delitem__ = _read_only
    clear = pop = popitem = setdefault = update = _read_only
    __ior__ = _read_only

    def __reduce__(self) -> tuple[Any, ...]:
        return (dict, (dict(self),))

    @classmethod
    def fromkeys(cls, keys: Any, value: Any = None) -> dict[Any, Any]:
        return dict.fromkeys(keys, value)

    def __or__(self, other: Any) -> Any:  # a new map, not a change: a plain dict, as ``copy()`` gives
        if not isinstance(other, Mapping):
            return NotImplemented
        return {**self, **other}


_set = dict.__setitem__


def with_entry(base: Mapping[K, V], key: K, value: V) -> dict[K, V]:
    """A copy of ``base`` with ``key`` set to ``value`` (``{**base, key: value}``, same order), that
    :func:`changed_keys` can compare with ``base`` by that key alone. Copying a dict into the subclass
    takes the interpreter's clone of a whole table: 4.0 µs for 2,064 entries against 5.2 µs for
    ``{**base, key: value}`` (timeit)."""
    out = DerivedMap(base)
    _set(out, key, value)
    out._origin = weakref.ref(base) if type(base) is DerivedMap else None
    out._key = key
    return out


def changed_keys(before: Any, after: Any) -> tuple[Any, ...] | None:
    """The keys at which ``after`` may differ from ``before`` when ``after`` was made from
    ``before`` itself by :func:`with_entry`; None when that is not known (compare them whole)."""
    if type(after) is DerivedMap:
        origin = getattr(after, "_origin", None)
        if origin is not None and origin() is before:
            return (after._key,)
    return None
