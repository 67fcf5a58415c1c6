"""Issue 16, combat items (seed 000): healing wakes a fighter, thrown weapons used up, chained attacks,
weapons by their own names, Chance on every roll, corrections, tie-breaks, abilities outside a fight."""

from __future__ import annotations

import pytest

from cristal_events.errors import RuleError
from cristal_events.rulesets.cristal import characters as C
from cristal_events.rulesets.cristal import fights as F
from harness import Table


@pytest.fixture
def camp():
    return Table(name="Issue16", ruleset="cristal", rounding="round", seed=5)


def fighter(c, combat, fid):
    return c.state().rules.combats[combat].fighters[fid]


# --------------------------------------------------------------------------- item 22

def test_a_fighter_healed_above_0_pv_wakes_and_acts_again(camp):
    # L369 (unconscious below 0 PV), D8: back above 0 PV the character is conscious again
    camp.execute(C.CreateCharacter(id="thor", race="Humain"))
    pv = camp.state().rules.characters["thor"].pv
    camp.execute(F.StartCombat(combat="t", fighters=["thor", "gob"], its={"gob": 10},
                               stats={"gob": {"ATT": 3, "DP": 10, "PV": 5}}))
    camp.execute(C.Damage(character="thor", amount=pv + 2, reason="chute"))
    assert fighter(camp, "t", "thor").condition == "unconscious"
    with pytest.raises(RuleError, match="thor is unconscious and cannot act"):
        camp.execute(F.TakeAction(combat="t", actor="thor", seconds=2))
    camp.execute(C.Heal(character="thor", amount=4, source="care", reason="bandage"))
    assert camp.state().rules.characters["thor"].pv == 2
    assert fighter(camp, "t", "thor").condition == "conscious"
    camp.execute(F.TakeAction(combat="t", actor="thor", seconds=2))
    assert camp.state().rules.combats["t"].it["thor"] == 2
