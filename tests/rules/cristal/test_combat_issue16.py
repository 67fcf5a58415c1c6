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


# --------------------------------------------------------------------------- item 5

def test_an_attack_names_the_weapon_the_character_carries_by_its_own_name(camp):
    # L837: an item is named by the player ("Excalibur"); L1359-L1361: ATT + d20 13 > DP, the DMG rolled
    camp.execute(C.CreateCharacter(id="gustave", race="Humain"))
    camp.execute(C.AddItem(character="gustave", item="Excalibur", properties={"dmg": "2d6", "att": 8, "it": 6}))
    camp.execute(C.EquipItem(character="gustave", item="Excalibur"))
    camp.execute(F.StartCombat(combat="taverne", fighters=["gustave", "rodrigue"], its={"rodrigue": 10},
                               stats={"rodrigue": {"DP": 18, "PV": 20}}))
    ev = camp.execute(F.Attack(combat="taverne", actor="gustave", target="rodrigue", weapon="excalibur"),
                      faces=[13, 4, 4])[0].event
    assert (ev.weapon, ev.att, ev.swings[0].total, ev.swings[0].hit, ev.swings[0].damage) == (
        "Excalibur", 8, 21, True, 8)
    assert camp.state().rules.combats["taverne"].it["gustave"] == 6
    assert camp.state().rules.combats["taverne"].fighters["rodrigue"].pv == 12


# --------------------------------------------------------------------------- item 11

def chain_table(n, dp=10):
    t = Table(name="Chain", ruleset="cristal", rounding="round", seed=5, settings={"chain_attacks": n})
    t.execute(F.StartCombat(combat="c", fighters=["gus", "rod"], its={"rod": 10},
                            stats={"gus": {"ATT": 8, "DMG": "1d6"}, "rod": {"DP": dp, "PV": 30}}))
    return t


def test_the_book_chain_is_two_attacks_each_halved():
    # L1363: ATT 8, d20 15 then 11: (8+15)/2 = 12 > 10 hits, (8+11)/2 = 10 misses; damage 1d6 = 4
    t = chain_table(2)
    ev = t.execute(F.Attack(combat="c", actor="gus", target="rod", chain=True), faces=[15, 11, 4])[0].event
    assert [(s.total, s.hit, s.damage) for s in ev.swings] == [(12, True, 4), (10, False, 0)]


def test_chain_attacks_3_makes_three_attacks_each_divided_by_three():
    # chain_attacks=3 (a GM's "plusieurs attaques", L1363, D14): (8+19)/3 = 9, (8+20)/3 = 9, (8+17)/3 = 8
    t = chain_table(3, dp=8)
    evs = t.execute(F.Attack(combat="c", actor="gus", target="rod", chain=True), faces=[19, 20, 1, 4, 2])
    ev = evs[0].event
    assert [(s.die, s.total, s.hit, s.damage) for s in ev.swings] == [(19, 9, True, 4), (20, 9, True, 2),
                                                                      (1, 3, False, 0)]
    assert t.state().rules.combats["c"].fighters["rod"].pv == 24
    assert t.state().rules.combats["c"].it["gus"] == 6  # one action: the IT of one attack (L1363, L1263)


def test_chain_attacks_off_or_out_of_range_is_refused():
    t = chain_table(0)
    with pytest.raises(RuleError, match="turned off"):
        t.execute(F.Attack(combat="c", actor="gus", target="rod", chain=True), faces=[15, 11])
    with pytest.raises(RuleError, match="chain_attacks"):
        Table(name="Chain", ruleset="cristal", settings={"chain_attacks": 9})


# --------------------------------------------------------------------------- item 2

def test_a_thrown_dagger_leaves_the_hand_and_the_bag(camp):
    # L1352: "dès l'instant où un projectile est lancé, il est à toute fin pratique perdu"; L1340: no FRC
    # bonus on a projectile's DMG (the Dague de jet's 1d4); L1344: FRC x 2 m without penalty
    camp.execute(C.CreateCharacter(id="lia", race="Humain", adjustments={"FRC": 1}))
    camp.execute(C.AddItem(character="lia", item="Dague de jet", qty=2))
    camp.execute(C.EquipItem(character="lia", item="Dague de jet"))
    camp.execute(F.StartCombat(combat="d", fighters=["lia", "gob"], its={"gob": 100},
                               stats={"gob": {"DP": 5, "PV": 20}}))
    ev = camp.execute(F.Attack(combat="d", actor="lia", target="gob", weapon="Dague de jet", distance=2),
                      faces=[10, 3])[0].event
    assert (ev.projectile, ev.projectiles_used, ev.swings[0].damage, ev.dmg) == ("Dague de jet", 1, 3, "1d4")
    items = camp.state().rules.characters["lia"].items
    assert [(i.name, i.qty) for i in items] == [("Dague de jet", 1)]
    camp.execute(F.Attack(combat="d", actor="lia", target="gob", weapon="Dague de jet"), faces=[1])
    assert camp.state().rules.characters["lia"].items == []
    with pytest.raises(RuleError, match="lia has 0 Dague de jet left and the attack needs 1"):
        camp.execute(F.Attack(combat="d", actor="lia", target="gob", weapon="Dague de jet"), faces=[10])


# --------------------------------------------------------------------------- item 24

def test_a_tie_on_it_and_ref_is_broken_by_the_first_entered_faces_of_the_action(camp):
    # L1202: tied on IT and REF, each rolls a die, the higher acts: a 2, b 5 -> b acts; then its d20 12
    camp.execute(F.StartCombat(combat="t", fighters=["a", "b"],
                               stats={"a": {"PV": 5, "DP": 10}, "b": {"PV": 5, "ATT": 0, "DMG": "1d4"}}))
    recs = camp.execute(F.Attack(combat="t", actor="b", target="a"), faces=[2, 5, 12, 3])
    kinds = [type(r.event).__name__ for r in recs]
    assert kinds[:2] == ["TieBroken", "AttackResolved"]
    assert recs[0].event.winner == "b" and recs[1].event.swings[0].total == 12
    assert camp.state().rules.combats["t"].fighters["a"].pv == 2
    # the wrong actor is refused and nothing is written
    camp2 = Table(name="T2", ruleset="cristal", seed=5)
    camp2.execute(F.StartCombat(combat="t", fighters=["a", "b"], stats={"a": {"PV": 5}, "b": {"PV": 5}}))
    before = camp2.last_position()
    with pytest.raises(RuleError, match="It is b's turn"):
        camp2.execute(F.TakeAction(combat="t", actor="a", seconds=2), faces=[2, 5])
    assert camp2.last_position() == before
