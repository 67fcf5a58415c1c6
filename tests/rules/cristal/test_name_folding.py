"""``content.name_key`` and ``magic._fold`` skip unicodedata for ASCII text (a one-shot command then does not
import it): the same keys as the full NFKD folding, for any text."""

from __future__ import annotations

import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from cristal_events.rulesets.cristal import content, magic


def _name_key_by_nfkd(name: str) -> str:
    folded = unicodedata.normalize("NFKD", " ".join(name.split()).casefold())
    return "".join(ch for ch in folded if not unicodedata.combining(ch))


def _fold_by_nfkd(text: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c)).lower()


@given(st.text(alphabet=st.sampled_from("aZ é É ß İ ﬁ  \t\u0301x1·Œ"), max_size=12) | st.text(max_size=12))
def test_the_ascii_shortcut_gives_the_nfkd_keys(text):
    assert content.name_key(text) == _name_key_by_nfkd(text)
    assert magic._fold(text) == _fold_by_nfkd(text)


def test_a_typed_name_still_finds_the_accented_entry():
    assert content.name_key("epee  LONGUE") == content.name_key("Épée longue") == "epee longue"
