"""Text machinery made when first used: regular expressions compiled then (:func:`pattern`), for the
module-level patterns of the kernel and the rules, and the Unicode tables imported then
(:func:`unicode_data`): a one-shot command imports those modules and uses little of them."""

from __future__ import annotations

import functools
import re  # loaded by click and the standard library already: importing it costs nothing here
from types import ModuleType


@functools.cache
def unicode_data() -> ModuleType:
    """The ``unicodedata`` module, imported the first time text outside ASCII is normalized (ASCII is
    already NFC and NFKD, with no accent to drop). A cached call rather than an ``import`` statement in
    each caller: that statement costs about 1-3 us a call, on paths run for every name or formula."""
    import unicodedata

    return unicodedata


class _LazyPattern:
    """A regular expression compiled the first time one of its methods is looked up: see :func:`pattern`."""

    def __init__(self, source: str, flags: int) -> None:
        self._source = (source, flags)

    def __getattr__(self, name: str) -> object:
        compiled = re.compile(*self.__dict__["_source"])
        for attr in ("search", "match", "fullmatch", "sub", "subn", "split", "findall", "finditer", "pattern",
                     "flags", "groups", "groupindex"):
            self.__dict__[attr] = getattr(compiled, attr)  # the compiled pattern's own, found first from now on
        return getattr(compiled, name)


def pattern(source: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile(source, flags)`` done the first time the pattern is used rather than at import: the
    module-level patterns of the core and the rules cost a one-shot command 1-2 ms to compile (the three
    of ``display`` 0.3 ms each), most of them for nothing (benchmarks/README.md, "Ninth session: the
    one-shot CLI write"). After the first use a method is the compiled pattern's own bound method (no
    wrapper in the call); only its methods and attributes are offered (not ``re.sub(pattern, ...)``).
    The standard library has no lazy compile; this is the smallest one."""
    return _LazyPattern(source, flags)  # type: ignore[return-value]  # it offers a Pattern's methods
