"""The module-level regular expressions are compiled when first used (``cristal_events.pattern``), and the
display's fast paths (``str.isprintable``) skip them only for text they could not match."""

from __future__ import annotations

import re
import sys

from hypothesis import given
from hypothesis import strategies as st

from cristal_events import display
from cristal_events.patterns import pattern


def test_a_pattern_compiles_at_its_first_use_then_offers_the_compiled_methods():
    p = pattern(r"(?P<n>[0-9]+)", re.ASCII)
    assert "search" not in vars(p)  # nothing compiled yet
    m = p.fullmatch("42")
    assert m is not None and m.group("n") == "42"
    assert p.flags & re.ASCII and p.pattern == r"(?P<n>[0-9]+)" and p.groupindex == {"n": 1}
    compiled = re.compile(r"(?P<n>[0-9]+)", re.ASCII)
    assert p.sub("#", "a1b22") == compiled.sub("#", "a1b22") == "a#b#"
    assert vars(p)["search"].__self__ == compiled  # the compiled pattern's own bound method from now on


def test_every_character_the_display_patterns_find_is_unprintable():
    """visible() and id_problem() return early for printable text: that is right only if none of the
    characters their patterns find is printable, in every plane."""
    for p in (display._SHOWN, display._NOT_IN_ID, display._IN_JSON):
        found = [c for c in map(chr, range(sys.maxunicode + 1)) if p.fullmatch(c)]
        assert found and not [c for c in found if c.isprintable()], p.pattern


def test_the_fast_paths_give_what_the_patterns_give():
    for text in ("plain id", "thor receives 5 XP (bench) → 270 XP", "a\u202eb", "tab\there", "zw\u200dj", "é\u00a0:"):
        assert display.visible(text) == display._SHOWN.sub(display._show, text)
        has = display._NOT_IN_ID.search(text) is not None
        assert (display.id_problem(text) is not None) == (has or text != text.strip())


@given(st.text(alphabet="+-0123456789 ٣²x_", max_size=6))
def test_whole_number_text_is_what_the_pattern_took(text):
    from cristal_events import bounds

    assert bounds._int_text(text) == (re.fullmatch(r"[+-]?[0-9]+", text, re.ASCII) is not None)
