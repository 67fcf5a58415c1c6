"""Magic and faith: Part B.2 vectors (SL, RF, PM, LV, PP, MAG, DUR, PF, PD, CULT, HAR, LRN, SEN, RNG)."""

from fractions import Fraction

import pytest

from cristal_events.dice import Dice
from cristal_events.errors import RuleError
from cristal_events.rulesets.illergan import checks, magic
from cristal_events.rulesets.illergan.settings import IllerganSettings


@pytest.mark.parametrize("level, face, outcome", [
    (1, 1, "critical"), (1, 2, "normal"), (3, 3, "critical"), (5, 94, "normal"), (5, 95, "counter"),
    (6, 95, "normal"), (6, 96, "counter"), (8, 97, "normal"), (8, 98, "counter"), (10, 10, "critical"),
    (10, 11, "normal"), (10, 99, "normal"), (10, 100, "counter"),
], ids=[f"SL-{i}" for i in range(1, 14)])
def test_launch(level, face, outcome):  # I-L525-527
    assert magic.launch(face, level).outcome == outcome


@pytest.mark.parametrize("level, threshold", [(1, 95), (5, 95), (6, 96), (7, 97), (8, 98), (9, 99), (10, 100)],
                         ids=lambda v: str(v))
def test_counter_threshold(level, threshold):  # I-L526
    assert magic.counter_threshold(level) == threshold


def test_level_above_max_refused():  # I-L237
    with pytest.raises(RuleError, match="1 to 10"):
        magic.launch(50, 11)


@pytest.mark.parametrize("cost, d10, back", [(30, 1, 18), (30, 5, 30), (30, 10, 45), (25, 2, 17)],
                         ids=["RF-1", "RF-2", "RF-3", "RF-4-floor"])
def test_refund(cost, d10, back):  # I-L525
    assert magic.refund(cost, d10) == back


def test_refund_rounding_switch():  # RF-4 with exact values
    assert magic.refund(25, 2, IllerganSettings(pm_refund_rounding="none")) == Fraction(35, 2)


def test_pm_after_cast():
    assert magic.pm_after_cast(50, 60, 30, "critical", 45) == 60  # refund capped at the maximum
    assert magic.pm_after_cast(50, 100, 30, "critical", 45) == 65
    assert magic.pm_after_cast(50, 60, 30, "normal") == 20
    assert magic.pm_after_cast(50, 60, 30, "counter") == 50  # A4 default
    assert magic.pm_after_cast(50, 60, 30, "counter", settings=IllerganSettings(pm_spent_on_counter_effect=True)) == 20
    with pytest.raises(RuleError, match="usable"):
        magic.pm_after_cast(10, 60, 30, "normal")


def test_roll_launch_counter_effect_from_pack(content):
    result = magic.roll_launch(Dice.entered([97, 20]), 5, content)
    assert result.outcome == "counter" and result.counter_effect.startswith("Explosion")
    assert [r.purpose for r in result.rolls] == ["spell launch", "counter-effect"]


def test_roll_launch_critical_refund(content):
    result = magic.roll_launch(Dice.entered([2, 7]), 3, content)
    assert (result.outcome, result.refund_pct) == ("critical", 120)


def test_counter_effect_missing_names_gap(core):  # G10
    with pytest.raises(RuleError, match=r"counter-effect for d20 face 20 is not set .*Part D: G10"):
        magic.roll_launch(Dice.entered([97, 20]), 5, core)


@pytest.mark.parametrize("base, mods, whisper, cost", [
    (20, (50, -20), False, 26),  # PM-1
    (10, (), True, 20),          # PM-2
    (10, (50,), True, 25),       # PM-3 additive reading (A5 default)
    (10, (-150,), False, 0),     # clamp
    (15, (10,), False, 17),      # 16.5 -> 17 (ceil, G35)
], ids=["PM-1", "PM-2", "PM-3-additive", "clamp0", "ceil"])
def test_pm_cost(base, mods, whisper, cost):  # I-L17, I-L113
    assert magic.pm_cost(base, mods, whispered=whisper) == cost


def test_pm3_multiplicative_switch():
    assert magic.pm_cost(10, (50,), whispered=True, settings=IllerganSettings(whisper_is_additive_pct=False)) == 30


def test_pm4_level_bonus_keeps_cost(content):  # I-L220
    emb = content.entry("spells", "Embrasement")
    assert magic.spell_base_cost(content, emb, 3) == 20
    assert magic.effective_level(3, 1) == 4
    assert magic.effective_level(4, 0, critical=True) == 5  # SLB-1


def test_spell_cost_missing_names_gap(core):
    with pytest.raises(RuleError, match="G25"):
        magic.spell_base_cost(core, core.entry("spells", "Embrasement"), 1)


def test_lv2_and_lv3(core):
    jet = core.entry("spells", "Jet de lave")
    assert list(magic.legal_cast_levels(3, jet.min_level)) == []
    assert not magic.can_learn_spell(jet, 3)
    magic.check_combination(3, [3, 2, 1], 5, core)
    with pytest.raises(RuleError, match="exceeds"):
        magic.check_combination(3, [4], 5, core)
    with pytest.raises(RuleError, match="at most 3"):
        magic.check_combination(3, [1, 1, 1, 1], 5, core)


def test_superior_effect_needs_magic_level(content):  # I-L517
    emb = content.entry("spells", "Embrasement")
    assert not magic.superior_effect_active(emb, 5)
    assert magic.superior_effect_active(emb, 6)


def test_pp(core):  # PP-1 .. PP-5
    assert magic.pp_in_combat(1, core, counter_effect=False) == 1
    assert magic.pp_in_combat(1, core, counter_effect=True) == 0
    assert [magic.pp_in_combat(n, core, counter_effect=False) for n in (2, 3, 4, 5, 8)] == [1, 2, 2, 3, 3]
    assert magic.pp_out_of_combat(0, 2) == (0, 2)
    assert magic.pp_out_of_combat(0, 3) == (1, 0)
    assert magic.pp_out_of_combat(0, 7) == (2, 1)


def test_magic_level_from_pp(content, core):
    assert magic.magic_level_for_pp(9, content) == 1
    assert magic.magic_level_for_pp(25, content) == 3
    with pytest.raises(RuleError, match="G9"):
        magic.magic_level_for_pp(5, core)


@pytest.mark.parametrize("dmg, vol, taken", [(40, 30, 28), (40, 95, 4), (40, 90, 4), (25, 33, 17)],
                         ids=["MAG-1", "MAG-2-cap", "cap-edge", "ceil"])
def test_vol_reduction(dmg, vol, taken):  # I-L437
    assert magic.vol_reduced(dmg, vol) == taken


def test_mag3_shield_destroyed():  # I-L439
    b = magic.block_magic(50, srm=10, shield_ps=25, vol=40)
    assert (b.destroyed, b.shield_ps_after, b.to_character) == (True, 0, 9)


def test_mag4_shield_holds():
    b = magic.block_magic(50, srm=10, shield_ps=60, vol=40)
    assert (b.destroyed, b.shield_ps_after, b.to_character) == (False, 20, 0)


def test_shield_at_exactly_zero():  # A32
    b = magic.block_magic(35, srm=10, shield_ps=25, vol=0)
    assert (b.destroyed, b.to_character) == (True, 0)


def test_duration():  # DUR-1..3, I-L494
    assert magic.concentrated_minutes(5) == 5
    assert magic.concentration_broken(Fraction(5, 2)) == 2
    assert magic.concentration_broken(1) == 1


@pytest.mark.parametrize("cls, level, pf", [("Prêtre", 1, 8), ("Prêtre", 2, 11), ("Prêtre", 5, 20),
                                            ("Paladin", 1, 2), ("Paladin", 3, 6), ("Guerrier", 0, 0)],
                         ids=["PF-1a", "PF-1b", "PF-1c", "PF-2a", "PF-2b", "PF-3"])
def test_pf_per_day(cls, level, pf):  # I-L594-595
    assert magic.pf_per_day(cls, level) == pf


def test_pd_range_and_targets():  # PD-1, I-L607
    assert (magic.pd_range(1), magic.pd_range(3)) == (5, 15)
    assert magic.pd_target_allowed(caster_is_pretre=False, target_is_self=False, target_same_cult=True, distance=15, faith_level=3)
    assert not magic.pd_target_allowed(caster_is_pretre=False, target_is_self=False, target_same_cult=False, distance=5, faith_level=3)
    assert magic.pd_target_allowed(caster_is_pretre=True, target_is_self=False, target_same_cult=False, distance=5, faith_level=3)
    assert not magic.pd_target_allowed(caster_is_pretre=True, target_is_self=False, target_same_cult=True, distance=16, faith_level=3)


def test_pd_levels():  # PD-2, PD-3
    magic.check_pd_level(3, 2, 2)
    magic.check_pd_level(3, 2, 3)
    with pytest.raises(RuleError):
        magic.check_pd_level(3, 2, 4)
    assert not magic.can_learn_pd(3, 4, from_book=True)
    assert magic.can_learn_pd(4, 4, teacher_level=6)
    assert not magic.can_learn_pd(4, 4, teacher_level=5)
    assert magic.mastered_pds(2, {"a": 1, "b": 2, "c": 3}) == ["a", "b"]


@pytest.mark.parametrize("religious, old, new, cond", [(True, 4, 2, "gt2"), (True, 2, 1, "gt2"), (True, 2, 2, "ge2"),
                                                       (False, 3, 0, "gt2")],
                         ids=["CULT-1", "CULT-2-gt2", "CULT-2-ge2", "CULT-3"])
def test_cult_change(religious, old, new, cond):  # I-L571, I-L580
    s = IllerganSettings(cult_change_condition=cond)
    assert magic.new_cult_level(religious=religious, old_level=old, settings=s) == new


def test_cult4_ancetres_combination():  # I-L573
    assert magic.added_cult_level("Ancêtres", 1) == 0
    with pytest.raises(RuleError, match="Ancêtres"):
        magic.added_cult_level("Vikasar", 1)


def test_har_vikasar(core):  # HAR-1, HAR-2
    assert magic.harmonised("Vikasar", 19 * 60 + 40, core)
    assert not magic.harmonised("Vikasar", 20 * 60 + 10, core)


def test_har_sunrise_needs_time(core):
    assert magic.harmonised("Toh-Argan", 6 * 60 + 30, core, sunrise=6 * 60)
    with pytest.raises(RuleError, match="sunrise"):
        magic.harmonised("Toh-Argan", 6 * 60, core)


def test_har_midnight_wraps(core):
    assert magic.harmonised("Démonisme", 30, core)
    assert not magic.harmonised("Démonisme", 23 * 60 + 50, core)


def test_spend_faith():  # I-L597, A40
    assert magic.spend_faith(4, 3, 6, from_pfb=2) == (0, 1)
    assert magic.spend_faith(4, 3, 6, settings=IllerganSettings(pfb_spend_order="pf_first")) == (0, 1)
    assert magic.spend_faith(4, 3, 2, settings=IllerganSettings(pfb_spend_order="pfb_first")) == (4, 1)
    with pytest.raises(RuleError, match="available"):
        magic.spend_faith(2, 1, 6, from_pfb=1)


@pytest.mark.parametrize("sense, e, acuity, rng", [
    ("hearing", 100, 60, 20), ("smell", 100, 0, 5), ("hearing", 100, 100, 30), ("smell", 100, 35, Fraction(55, 4)),
    ("sight", 0, 0, 5), ("sight", 7, 0, 12), ("hearing", 7, 60, 12),
], ids=["SEN-1", "SEN-2", "SEN-3", "SEN-4", "RNG-1", "RNG-2", "RNG-3"])
def test_sense_ranges(sense, e, acuity, rng):  # I-L11-13, I-L161
    assert checks.casting_range_by_sense(sense, e, acuity) == rng


def test_sense_range_uncapped_switch():
    assert checks.casting_range_by_sense("hearing", 7, 60, IllerganSettings(sense_range_capped_by_cast_range=False)) == 20
