"""The engine's keyed dice (docs/verifiable-dice.md): die n of a stream is fixed by its key, salt and
number alone; every face is in range; a refused roll gives its dice back; the record keeps every die."""

from __future__ import annotations

import hashlib
import hmac
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cristal_events.dice import Dice, DiceError, engine_face


@settings(max_examples=300, deadline=None)
@given(key=st.binary(min_size=1, max_size=64), salt=st.text(max_size=30), n=st.integers(0, 2**53),
       sides=st.integers(1, 1000))
def test_a_die_is_in_range_and_is_the_documented_hmac(key: bytes, salt: str, n: int, sides: int) -> None:
    face = engine_face(key, salt, n, sides)
    assert 1 <= face <= sides
    v = int.from_bytes(hmac.new(key, f"{salt}:{n}".encode(), hashlib.sha256).digest(), "big")
    if v < 2**256 - 2**256 % sides:  # the rejected top range (probability < 2**-246) is never met here
        assert face == v % sides + 1


def test_faces_are_spread_evenly() -> None:
    counts = Counter(engine_face(b"k", "", n, 6) for n in range(6000))
    assert set(counts) == set(range(1, 7)) and all(800 < c < 1200 for c in counts.values())


def test_the_stream_counts_on_from_its_start_and_a_refused_roll_gives_its_dice_back() -> None:
    d = Dice.keyed(b"secret", "sel", start=5)
    first = d.roll("2d6").faces
    assert first == (engine_face(b"secret", "sel", 5, 6), engine_face(b"secret", "sel", 6, 6))
    with pytest.raises(DiceError):
        d.roll("1d20 + nope")  # an unknown variable: refused after its d20 was drawn
    assert d.next == 7
    assert d.roll("1d20").faces == (engine_face(b"secret", "sel", 7, 20),)
    assert [(r.expr, sides) for r, sides in d.record] == [("2d6", (6, 6)), ("1d20", (20,))]
