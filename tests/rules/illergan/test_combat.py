"""Physical combat: catalogue Part B.2 vectors (INI, ATK, LOC, CRT, NH, LMB, GRP, RB) from the formulas."""

from fractions import Fraction

import pytest

from cristal_events.dice import Dice
from cristal_events.errors import RuleError
from cristal_events.rulesets.illergan import combat, locations
from cristal_events.rulesets.illergan.combat import Initiative
from cristal_events.rulesets.illergan.locations import Body
from cristal_events.rulesets.illergan.settings import IllerganSettings


# ---- initiative, I-L4-7
@pytest.mark.parametrize("dex, vol, face, malus, score, acts", [
    (40, 30, 55, 0, 125, True),   # INI-1
    (20, 10, 20, 0, 50, False),   # INI-2 boundary: 50 or less, no action (I-L7)
    (20, 10, 21, 0, 51, True),    # INI-3
    (35, 25, 70, 80, 50, False),  # INI-4
], ids=["INI-1", "INI-2", "INI-3", "INI-4"])
def test_initiative(dex, vol, face, malus, score, acts):
    s = combat.initiative_score(dex, vol, face, malus)
    assert (s, combat.can_act(s)) == (score, acts)


def test_initiative_malus_range():  # I-L5
    with pytest.raises(RuleError, match="0 to 100"):
        combat.initiative_score(10, 10, 50, 101)


def test_initiative_order_ini5():  # I-L6
    entries = [Initiative(name=n, score=s, acts=s > 50) for n, s in (("C", 51), ("A", 125), ("B", 90))]
    assert [e.name for e in combat.initiative_order(entries)] == ["A", "B", "C"]


def test_stealthy_attacker_goes_first_against_the_unaware():  # I-L8
    entries = [Initiative(name=n, score=s, acts=s > 50) for n, s in (("A", 125), ("B", 90), ("S", 60))]
    order = combat.initiative_order(entries, unspotted_by={"S": {"B"}})
    assert [e.name for e in order] == ["A", "S", "B"]


@pytest.mark.parametrize("flag, acts", [(False, False), (True, True)], ids=["le50-applies", "switch"])
def test_stealthy_attacker_at_50(flag, acts):  # A2
    entries = [Initiative(name="B", score=90, acts=True), Initiative(name="S", score=40, acts=False)]
    order = combat.initiative_order(entries, unspotted_by={"S": {"B"}},
                                    settings=IllerganSettings(stealth_ignores_le50_rule=flag))
    assert order[0].name == "S" and order[0].acts is acts


def test_roll_initiative_keeps_the_roll():
    i = combat.roll_initiative(Dice.entered([55]), "A", 40, 30)
    assert (i.score, i.roll.faces, i.roll.purpose) == (125, (55,), "initiative")


# ---- turn budget, I-L241-265
def test_turn_budget_forgo_major_gives_three_minors():  # I-L243
    b = combat.forgo_major(combat.TurnBudget())
    for _ in range(3):
        b = combat.use(b, "minor")
    with pytest.raises(RuleError, match="No minor action"):
        combat.use(b, "minor")


def test_second_skill_use_costs_the_minor():  # I-L248
    b = combat.use(combat.use(combat.TurnBudget(), "skill"), "skill")
    assert (b.skill, b.minor) == (0, 0)


def test_amelioration_minor_blocks_magic_major():  # I-L253, I-L262, I-L265
    b = combat.use(combat.TurnBudget(), "minor", spell="Amélioration")
    with pytest.raises(RuleError, match="I-L262"):
        combat.use(b, "major", spell="Destruction")
    with pytest.raises(RuleError, match="I-L253"):
        combat.use(combat.TurnBudget(), "minor", spell="Destruction")
    b2 = combat.use(combat.TurnBudget(extra_major=1), "major", spell="Destruction")
    assert combat.use(b2, "extra_major", spell="Projection").magic_attacks == 2


# ---- grip and range, I-L87-99
@pytest.mark.parametrize("grip, hands, preferred, dex_after", [
    ("one", 1, False, 20),   # GRP-1
    ("two", 1, True, 20),    # GRP-2 preferred hand
    ("two", 1, False, -20),  # GRP-2 other hand
    ("two", 2, True, 60),
    ("bastard", 1, True, 60),
], ids=["GRP-1", "GRP-2-pref", "GRP-2-other", "two-two-hands", "bastard"])
def test_grip(grip, hands, preferred, dex_after):
    assert 60 + combat.grip_malus(grip, hands=hands, preferred_hand=preferred) == dex_after


def test_range_bands():  # RB-1, RB-2, RB-3
    assert 50 + combat.range_malus(45, (2, 30, 60)) == 30
    assert combat.range_malus(30, (2, 30, 60)) == 0
    with pytest.raises(RuleError, match="impossible"):
        combat.range_malus(1, (2, 30, 60))
    with pytest.raises(RuleError, match="impossible"):
        combat.range_malus(61, (2, 30, 60))
    assert 50 + combat.range_malus(5, (1, 10, 20), thrown_melee=True) == 10


def test_thrown_melee_range_missing_names_gap():  # G4
    with pytest.raises(RuleError, match="G4"):
        combat.range_malus(5, None, thrown_melee=True)


# ---- attack and damage, I-L269-290
def test_atk1(content):
    a = combat.attack(45, 55, content)
    assert a.hit and a.zone == "tronc"
    d = combat.weapon_damage(3, 4)
    assert d == 34
    assert combat.pv_lost(d, 10, 15) == 21  # 24 * 0.85 = 20.4 -> 21 (I-L281)


def test_atk2_miss(content):
    assert not combat.attack(56, 55, content).hit


def test_atk3_fumble_even_with_high_adresse(content):
    a = combat.attack(99, 120, content)
    assert (a.hit, a.fumble, a.zone) == (False, True, "aucune")


def test_atk4_critical_reroll_head(content):
    a = combat.roll_attack(Dice.entered([2, 87]), 55, content)
    assert (a.critical, a.zone, [r.total for r in a.rolls]) == (True, "tête", [2, 87])


def test_atk5_sr_clamps_to_zero():
    assert combat.pv_lost(30, 40, 0) == 0


def test_atk6_critical_sr():
    sr = combat.effective_sr(20, critical=True, damage_type="T")
    assert sr == 18 and combat.pv_lost(34, sr, 0) == 16


@pytest.mark.parametrize("fp, dmg", [(1, 16), (2, 17)], ids=["FP1", "FP2"])
def test_atk7_unarmed(fp, dmg):  # I-L290
    assert combat.unarmed_damage(3, fp) == dmg


def test_atk8_exploding_power_die():  # I-L301-304
    r = combat.roll_power_die(Dice.entered([6, 6, 2]), 6)
    assert (r.total, r.faces, r.expr) == (14, (6, 6, 2), "1d6!")
    assert combat.explode([6, 6, 2], 6) == 14


def test_atk9_two_power_dice(content):  # FP 2, rank 1 = d6 in the example pack
    total, rolls = combat.roll_power_dice(Dice.entered([6, 3, 4]), content, rank=1, fp=2)
    assert (total, [r.total for r in rolls]) == (13, [9, 4])
    assert combat.weapon_damage(2, total) == 33


def test_power_dice_fp_times_one_die_mode(content):  # A10 switch
    s = IllerganSettings(power_dice_mode="fp_times_one_die")
    total, rolls = combat.roll_power_dice(Dice.entered([4]), content, rank=1, fp=3, settings=s)
    assert total == 12 and len(rolls) == 1


def test_atk10_crossbow(content):  # I-L277
    bow = content.entry("weapons", "Arbalète légère")
    assert combat.pv_lost(combat.crossbow_damage(bow, content), 10, 20) == 24


@pytest.mark.parametrize("fo, fo_eff, pv", [(6, 2, 20), (1, Fraction(1, 2), 5), (4, Fraction(4, 3), 14)],
                         ids=["Fo6", "Fo1-min0.5", "Fo4"])
def test_atk11_flat_of_blade(fo, fo_eff, pv):  # I-L458
    assert combat.flat_of_weapon_fo(fo) == fo_eff
    assert combat.pv_lost(combat.weapon_damage(fo_eff, 0), 0, 0) == pv


def test_atk12_non_lethal_fewer_dice(content):  # I-L457
    total, rolls = combat.roll_power_dice(Dice.entered([3]), content, rank=1, fp=3, count=1)
    assert (total, len(rolls)) == (3, 1)
    assert combat.roll_power_dice(Dice.entered([]), content, rank=1, fp=3, count=0) == (0, ())
    with pytest.raises(RuleError, match="Between 0 and 3"):
        combat.roll_power_dice(Dice.entered([]), content, rank=1, fp=3, count=4)


def test_missing_power_die_names_the_gap(core):  # G11
    with pytest.raises(RuleError, match=r"The power die for rank 2 is not set in this campaign's content pack \(Part D: G11"):
        combat.roll_power_dice(Dice.entered([3]), core, rank=2, fp=1)


@pytest.mark.parametrize("face, zone", [(5, "bras gauche"), (10, "bras gauche"), (11, "bras droit"), (25, "jambe gauche"),
                                        (40, "jambe droite"), (41, "tronc"), (80, "tronc"), (81, "tête"), (90, "tête"),
                                        (95, "choix")], ids=lambda v: str(v))
def test_humanoid_location(content, face, zone):  # I-L309-315
    assert combat.attack(face, 100, content).zone == zone


def test_loc2_adresse_40_never_reaches_trunk(content):
    assert {combat.attack(f, 40, content).zone for f in range(3, 41)} <= {"bras gauche", "bras droit", "jambe gauche", "jambe droite"}


# ---- critical riders, I-L506-510
def test_critical_riders():
    assert combat.critical_rider("P", attacker_fo=4) == combat.Rider(name="Hémorragie", turns=3, pv_per_turn=4)  # CRT-1
    r = combat.critical_rider("P", attacker_fo=4, precise=True, letalite=3)  # CRT-2
    assert r.pv_per_turn * r.turns == 18
    assert combat.critical_rider("T", attacker_fo=3).dex_malus == 6  # CRT-3
    assert combat.effective_sr(20, critical=True, damage_type="C") == 16  # CRT-4, A36


# ---- non-humanoid, I-L630-649
@pytest.mark.parametrize("face, body, expected", [
    (43, Body(), ("tronc", 1)),                           # NH-1 no wings
    (5, Body(anterior_left=2), ("membres antérieurs gauches", 1)),   # NH-2
    (6, Body(anterior_left=2), ("membres antérieurs gauches", 2)),
    (4, Body(anterior_left=3), ("membres antérieurs gauches", 1)),   # NH-3 4/3/3
    (5, Body(anterior_left=3), ("membres antérieurs gauches", 2)),
    (8, Body(anterior_left=3), ("membres antérieurs gauches", 3)),
    (83, Body(heads=3), ("têtes", 1)),                    # NH-4 3/4/3
    (84, Body(heads=3), ("têtes", 2)),
    (87, Body(heads=3), ("têtes", 2)),
    (88, Body(heads=3), ("têtes", 3)),
    (55, Body(tails=2), ("queues", 1)),                   # NH-5
    (56, Body(tails=2), ("queues", 2)),
    (60, Body(tails=1), ("queues", 1)),                   # NH-6 A19 default
    (43, Body(wings_left=2), ("ailes gauches", 1)),       # NH-8 A20: 3/2
    (44, Body(wings_left=2), ("ailes gauches", 2)),
    (95, Body(), ("choix", 0)),                           # NH-7 G21 inferred
], ids=["NH-1", "NH-2a", "NH-2b", "NH-3a", "NH-3b", "NH-3c", "NH-4a", "NH-4b", "NH-4c", "NH-4d", "NH-5a", "NH-5b",
        "NH-6", "NH-8a", "NH-8b", "NH-7"])
def test_nonhumanoid(content, face, body, expected):
    assert locations.nonhumanoid_zone(face, body, content) == expected


def test_nonhumanoid_60_trunk_switch(content):
    s = IllerganSettings(nonhumanoid_roll60="trunk")
    assert locations.nonhumanoid_zone(60, Body(tails=1), content, s) == ("tronc", 1)
    assert locations.nonhumanoid_zone(59, Body(tails=1), content, s) == ("queues", 1)


# ---- limbs, death, destiny, I-L318, I-L377
def test_lmb1_limb_lost():
    w = combat.apply_pv_loss(12, 15, "bras gauche", destiny_points=2)
    assert (w.pv_after, w.limb_lost, w.dead, w.destiny_can_cancel) == (0, "bras gauche", False, True)


def test_lmb2_death_on_trunk():
    w = combat.apply_pv_loss(12, 15, "tronc", destiny_points=0)
    assert (w.pv_after, w.dead, w.destiny_can_cancel) == (-3, True, False)


def test_lmb3_zero_pv_alive():
    w = combat.apply_pv_loss(12, 12, "tronc")
    assert (w.pv_after, w.dead) == (0, False)


def test_destiny_point_spent():
    assert combat.spend_destiny_point(2) == 1
    with pytest.raises(RuleError, match="no destiny point"):
        combat.spend_destiny_point(0)


def test_zone_sr_helmet(content):  # I-L83, A14
    mail = content.entry("armours", "Cotte de mailles")
    assert combat.zone_sr(mail, "tronc", "T", content) == 25
    assert combat.zone_sr(mail, "tête", "T", content) == 15
    assert combat.zone_sr(content.entry("armours", "Toge à glyphe de Sycte"), "tête", "C", content) == 0


def test_seeded_power_die_explodes_consistently():
    import random

    r = combat.roll_power_die(Dice.seeded(random.Random(7)), 2)
    assert r.source == "rolled"
    assert r.faces[-1] == 1 and all(f == 2 for f in r.faces[:-1])
    assert r.total == sum(r.faces) == combat.explode(r.faces, 2)


def test_defence_limits():  # I-L543, I-L439
    b = combat.use_defence(combat.DefenceBudget(), "parade")
    with pytest.raises(RuleError, match="already used"):
        combat.use_defence(b, "esquive")
    b = combat.use_defence(combat.use_defence(b, "blocage"), "magique")
    assert b == combat.DefenceBudget(block=0, magic=0, parry_or_dodge=0)
    with pytest.raises(RuleError, match="only blocked"):
        combat.use_defence(combat.DefenceBudget(), "esquive", against_magic=True)


def test_flight():  # FLY-1 .. FLY-4
    assert combat.flight_speeds(10, 30) == (20, 60)
    assert combat.takeoff(40, 50, 4) == (True, 8)
    assert combat.takeoff(60, 50, 4) == (False, 4)
    assert combat.passengers_allowed(5, [15, 15]) and not combat.passengers_allowed(5, [20, 15])
    assert combat.U_TURN_EXTRA_M == 2
