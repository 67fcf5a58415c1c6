"""Alignment TV-25 (L1381-L1419) and Chance TV-05 (L56-L58)."""

import pytest

from cristal_events.errors import RuleError
from cristal_events.rulesets.cristal import alignment as a


@pytest.mark.parametrize("observer,other,expected", [
    (0, 15, 15),  # human meets an angel, L1381
    (15, 15, 0),  # two angels, L1383
    (-12, 5, 0),  # the demon feels nothing, L1385
    (5, -12, -7),  # the paladin: -12 + |5|, L1388
    (-10, 15, 5),  # the demon facing the angel: 15 - |-10|, L1390 (D31)
    (15, -10, 0),
    (10, -10, 0), (-10, 10, 0),  # equal magnitudes (D32)
    (3, 8, 5), (-3, -8, -5),
    (7, 0, 0), (0, 0, 0), (0, -4, -4),
], ids=lambda v: str(v))
def test_reaction(observer, other, expected):
    assert a.reaction(observer, other) == expected


PRINTED = [(-20, -10), (-16, -8), (-12, -6), (-10, -5), (-8, -4), (-6, -3), (-4, -2), (-2, -1), (-1, -1), (0, 0),
           (1, -1), (2, -1), (4, -2), (6, -3), (8, -4), (10, -5), (12, -6), (16, -8), (20, -10)]  # L1395-L1413


@pytest.mark.parametrize("value,pen", PRINTED, ids=[str(v) for v, _ in PRINTED])
def test_printed_reaction_table(value, pen):
    assert a.penalty(value) == pen


@pytest.mark.parametrize("value,pen", [
    (15, -6), (-7, -3), (5, -2), (3, -1), (-3, -1), (14, -6), (19, -8), (-13, -6), (25, -13), (-30, -15), (21, -11),
], ids=lambda v: str(v))
def test_gaps_and_beyond(value, pen):  # D4
    assert a.penalty(value) == pen


def test_penalty_lowers_the_total():
    assert a.apply_penalty(8, 15) == 2  # ATT 8 against the +15 angel: -6 (L1415)
    assert a.apply_penalty(8, 0) == 8
    assert a.description(15).startswith("Admiration totale")


def test_tv25_pool():
    assert a.daily_pool(4) == 20 and a.daily_pool(-4) == 20 and a.daily_pool(0) == 0  # L1419
    use = a.use_pool(4, 6, 20, target_pv=3, target_pv_max=16)
    assert (use.kind, use.points, use.it_seconds, use.remaining, use.pv_after) == ("heal", 6, 6, 14, 9)  # IT + 6
    assert a.use_pool(10, 20, 50, target_pv=10, target_pv_max=16).pv_after == 16  # capped (D30)
    assert a.use_pool(-5, 7, 25, target_pv=10, target_pv_max=16).pv_after == 3
    with pytest.raises(RuleError, match=r"^At most 20 points can be used in one action \(L1419\), not 21\.$"):
        a.use_pool(10, 21, 50, 0, 16)
    with pytest.raises(RuleError, match="Only 5 alignment points are left today"):
        a.use_pool(10, 6, 5, 0, 16)
    with pytest.raises(RuleError):
        a.use_pool(0, 1, 0, 0, 16)


@pytest.mark.parametrize("chance,expected", [(4, (4, 0)), (0, (0, 0)), (-3, (0, 3))], ids=["4", "0", "-3"])
def test_tv05_chance_rerolls(chance, expected):
    assert a.chance_rerolls(chance) == expected  # L56-L58, D16
