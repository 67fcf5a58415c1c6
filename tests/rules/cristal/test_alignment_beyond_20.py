"""Ruling D4 as a campaign setting (seed 000, L1395-L1415): the reaction table stops at ±20.

A neutral peasant (Alignement 0) facing a demon of Alignement -25 feels -25 (L1381). The book prints no
row beyond -20 (-10); by default (``alignment_beyond_20="half"``) the penalty goes on with the printed
rows' own pattern, half the reaction rounded up: -13; ``"cap"`` keeps the -20 row's -10. The penalty's
size is subtracted from the ATT total (L1415).
"""

from __future__ import annotations

import pytest
from harness import Table

from cristal_events.errors import CristalError
from cristal_events.rulesets.cristal import alignment as al
from cristal_events.rulesets.cristal import fights as F

STATS = {"paysan": {"ALIGN": 0, "ATT": 10, "DMG": "1d6"}, "demon": {"ALIGN": -25, "DP": 8, "PV": 30}}


@pytest.mark.parametrize(("setting", "pen", "total", "hit"), [("half", -13, 7, False), ("cap", -10, 10, True)])
def test_an_attack_on_a_source_beyond_minus_20(setting, pen, total, hit):
    # L1381: a neutral feels the other's alignment; L1395: the -20 row's penalty is -10; L1415: ATT - |pen|
    t = Table(name="D4", ruleset="cristal", rounding="round", settings={"alignment_beyond_20": setting})
    t.execute(F.StartCombat(combat="nuit", fighters=["paysan", "demon"], its={"demon": 5}, stats=STATS))
    ev = t.execute(F.Attack(combat="nuit", actor="paysan", target="demon"), faces=[10, 3] if hit else [10])[0].event
    assert ev.alignment_penalty == pen
    assert (ev.swings[0].total, ev.swings[0].hit) == (total, hit)  # 10 + d20 10 - 13 = 7 <= DP 8; - 10 = 10 > 8


def test_within_the_table_both_settings_read_the_printed_rows():
    # L1395-L1413: +15 -> the +12 row's -6, -20 -> -10, whatever the setting; beyond: -13 or -10
    assert [al.penalty(r, "half") for r in (15, -20, -7, 25, -25)] == [-6, -10, -3, -13, -13]
    assert [al.penalty(r, "cap") for r in (15, -20, -7, 25, -25)] == [-6, -10, -3, -10, -10]


def test_an_unknown_value_is_refused():
    with pytest.raises(CristalError, match="alignment_beyond_20"):
        Table(name="D4", ruleset="cristal", settings={"alignment_beyond_20": "double"})
