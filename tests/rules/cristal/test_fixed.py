"""Fixed-state tables TV-09 (L84-L189) and Sur-Effort TV-08 (L233-L242)."""

from fractions import Fraction

import pytest

from cristal_events.errors import RuleError
from cristal_events.rulesets.cristal import fixed as f

EVEN = (-6, -4, -2, 0, 2, 4, 6, 8)


@pytest.mark.parametrize("score,mx,enc", list(zip(EVEN, (15, 60, 105, 150, 195, 240, 285, 330), (5, 20, 35, 50, 65, 80, 95, 110))),
                         ids=[str(s) for s in EVEN])
def test_frc_table(score, mx, enc):  # L89-L96
    assert (f.lift_max(score), f.encumbrance_limit(score)) == (mx, enc)


@pytest.mark.parametrize("fn,printed", [
    (f.juggling, (None, None, None, 2, 4, 6, 8, 10)),  # L103-L110
    (f.con_hours, (4, 8, 12, 16, 20, 24, 28, 32)),  # L134-L141
    (f.reaction_time, (4, 3, 2, 1, Fraction(3, 4), Fraction(1, 2), Fraction(1, 4), Fraction(1, 10))),  # L146-L153
    (f.vision, (1, 2, 5, 9, 14, 20, 27, 35)),  # L158-L165
    (f.memory_days, (1, 2, 4, 6, 10, 16, 24, 34)),  # L170-L177
    (f.audience, (0, 1, 2, 4, 8, 16, 32, 64)),  # L182-L189
], ids=["DEX", "CON", "REF", "OBS", "MEM", "CHAR"])
def test_printed_tables(fn, printed):
    assert tuple(fn(s) for s in EVEN) == printed


def test_int_table():  # L116-L125
    assert [f.iq(s) for s in (-10, -6, -4, -2, 0, 2, 4, 6, 8)] == [20, 70, 80, 90, 100, 110, 125, 140, 160]


@pytest.mark.parametrize("fn,score,value", [
    (f.lift_max, 3, Fraction(435, 2)), (f.encumbrance_limit, 3, Fraction(145, 2)),  # Nain FRC +3
    (f.lift_max, -3, Fraction(165, 2)), (f.encumbrance_limit, -3, Fraction(55, 2)),  # Elfe FRC -3
    (f.iq, 3, Fraction(235, 2)), (f.iq, -3, 85), (f.iq, -8, 45),
    (f.reaction_time, -3, Fraction(5, 2)), (f.reaction_time, 7, Fraction(7, 40)), (f.reaction_time, 12, Fraction(1, 10)),
    (f.vision, 3, 17), (f.vision, -3, Fraction(7, 2)), (f.vision, 10, 43),
    (f.memory_days, -3, 3), (f.memory_days, 3, 13), (f.memory_days, 10, 44),
    (f.audience, 3, 11), (f.audience, -3, 1), (f.audience, 10, 128), (f.audience, -8, 0),
    (f.juggling, 3, 5), (f.juggling, -1, None),
    (f.con_hours, -8, 0), (f.con_hours, 4, 24),
    (f.iq, -14, 0),
], ids=lambda v: getattr(v, "__name__", str(v)))
def test_values_between_and_beyond_rows(fn, score, value):
    assert fn(score) == value


def test_l17_lifting_1000_kg():
    assert f.lift_max(37) < 1000 <= f.lift_max(38)  # L17: possible, needs FRC 38


def test_table_value_dispatch():
    assert f.table_value("frc", 4) == (240, 80)
    with pytest.raises(RuleError, match="MAG has no table"):
        f.table_value("MAG", 2)


@pytest.mark.parametrize("score,die", [
    (-7, "1d2"), (-6, "1d2"), (-5, "1d4"), (-1, "1d4"), (0, "1d6"), (4, "1d6"), (10, "1d6"),
    (11, "1d8"), (20, "1d8"), (21, "1d10"), (30, "1d10"), (31, "1d12"), (50, "1d12"),
], ids=lambda v: str(v))
def test_tv08_sur_effort_die(score, die):  # L239-L242
    assert f.sur_effort_die(score) == die


def test_tv08_sur_effort_lift():
    assert f.lift_max(4) == 240  # L235
    assert f.lift_max(4 + 3) == Fraction(615, 2)  # d6 = 3 -> FRC 7 -> 307.5 kg
