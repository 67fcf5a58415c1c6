"""Checks, money and xp: Part B.2 vectors (SRCH, SKN, LCK, THR, blindness, RV, falls, FLY-3, CUR, ENC, ARM, skills)."""

from fractions import Fraction

import pytest

from cristal_events.dice import Dice
from cristal_events.errors import RuleError
from cristal_events.rulesets.illergan import checks, money, xp
from cristal_events.rulesets.illergan.money import Starls
from cristal_events.rulesets.illergan.settings import IllerganSettings


@pytest.mark.parametrize("face, found", [(59, True), (60, False), (1, True)], ids=["59", "60-strict", "01"])
def test_srch1(face, found):  # I-L101: strictly less
    assert checks.search(face, 40, 50, {"obj": 30}) == {"obj": found}


def test_srch2_one_roll_many_objects():
    assert checks.search(45, 40, 50, {"X": 20, "Y": 50}) == {"X": True, "Y": False}


def test_search_malus_range():
    with pytest.raises(RuleError, match="0 to 200"):
        checks.search(45, 40, 50, {"X": 201})


@pytest.mark.parametrize("face, ok", [(49, True), (50, False)], ids=["49", "50-strict"])
def test_skn1(face, ok):  # I-L104
    assert checks.skinning(face, 40, 20, 10).success is ok


@pytest.mark.parametrize("face, ok", [(25, True), (26, False)], ids=["25-inclusive", "26"])
def test_lck1(face, ok):  # I-L106
    assert checks.lockpick(face, 50, 30, 15).success is ok


def test_lck2_rounding():  # G35
    assert checks.lockpick_threshold(51, 30, 0) == 40
    assert checks.lockpick_threshold(51, 30, 0, IllerganSettings(lockpick_rounding="none")) == Fraction(81, 2)


@pytest.mark.parametrize("face, offset", [(1, Fraction(49, 10)), (30, 2), (50, 0), (70, 2), (100, 5)],
                         ids=["THR-1", "THR-2", "THR-3", "THR-4-abs", "THR-5-abs"])
def test_throw(face, offset):  # I-L404, A21
    assert checks.throw_offset(face) == offset


def test_throw_signed_switch():
    assert checks.throw_offset(100, IllerganSettings(throw_offset_abs=False)) == -5


@pytest.mark.parametrize("olf, aud, divisor, blind", [(0, 0, 5, 12), (30, 40, 4, 15), (50, 50, 3, 20), (60, 45, 3, 20),
                                                     (100, 100, 1, 60), (150, 150, 1, 60)],
                         ids=["0-0", "30-40", "50-50", "60-45", "100-100", "clamp"])
def test_blindness(olf, aud, divisor, blind):  # I-L413
    assert checks.blind_divisor(olf, aud) == divisor
    assert checks.blinded_threshold(60, olf, aud) == blind


@pytest.mark.parametrize("att, tgt, legs, ok", [(30, 120, 2, True), (30, 121, 2, False), (30, 30, 4, True), (30, 31, 4, False)],
                         ids=["RV-1", "RV-2", "RV-3", "RV-4"])
def test_knock_down(att, tgt, legs, ok):  # I-L416
    assert checks.can_knock_down(att, tgt, legs=legs) is ok


@pytest.mark.parametrize("agi, h, safe, pv, down", [(40, 5, 3, 20, True), (0, 4, 1, 45, True), (60, 4, 4, 0, False),
                                                  (20, 2, 2, 0, False), (50, 5, Fraction(7, 2), 12, True)],
                         ids=["40-5m", "0-4m", "60-4m", "20-2m", "50-5m-ceil"])
def test_fall(agi, h, safe, pv, down):  # I-L428
    f = checks.fall(agi, h)
    assert (f.safe_height, f.pv_lost, f.knocked_down) == (safe, pv, down)


def test_acuity_minor_information():  # I-L492
    r = checks.acuity_check(40, 50, malus=20)
    assert (r.success, r.minor_info) == (False, True)
    assert checks.acuity_check(60, 50, malus=20).minor_info is False


def test_skill_with_characteristic():  # I-L489
    assert checks.characteristic_with_skill(30, 25) == 55


def test_roll_skill_keeps_roll():
    r = checks.roll_skill(Dice.entered([0]), 50)  # an entered 00 is 100 (I-L316)
    assert (r.fumble, r.roll.faces) == (True, (100,))


def test_critical_ceiling_extended():  # I-L502
    assert checks.skill_check(5, 0, critical_ceiling=5).critical


# ---- money, I-L22-83
@pytest.mark.parametrize("amount, copper", [(Starls(O=1), 900), (Starls(O=2, A=15, C=10), 2260)], ids=["CUR-1", "CUR-2"])
def test_currency(core, amount, copper):
    assert money.to_copper(amount, core) == copper
    assert money.from_copper(copper, core) == amount


def test_cur3_cur4_resale(core):  # I-L26
    assert money.resale_price(money.to_copper(Starls(O=4), core), core) == 900
    assert money.from_copper(money.resale_price(300, core), core) == Starls(A=2, C=15)
    assert str(money.from_copper(75, core)) == "2'A 15'C"


def test_cur5_jewel(core):  # I-L27
    assert money.resale_price(900, core, jewel=True) == 900


def test_resale_rounding(core):  # 25% of 10'C = 2.5
    assert money.resale_price(10, core) == 2
    assert money.resale_price(10, core, settings=IllerganSettings(resale_rounding="ceil")) == 3


@pytest.mark.parametrize("fo, charges", [(3, 13), (0, 10)], ids=["ENC-1", "ENC-2"])
def test_charges(fo, charges):
    assert money.max_charges(fo) == charges


def test_encumbrance(content, core):  # I-L29-55
    e = money.encumbrance(fo=0, equipped={"daggers": 5, "jewels": 5}, bag={"Épée longue": 2, "Potion": 4}, content=content)
    assert (e.charges, e.encumbered) == (10, False)
    e = money.encumbrance(fo=0, equipped={"daggers": 6}, bag={"Épée longue": 4}, content=content)
    assert (e.over_slots, e.charges, e.encumbered) == (("daggers",), 12, True)
    assert money.encumbrance(fo=0, equipped={}, bag={}, content=content, talismans=1, grigris=1).over_slots == ("talismans",)
    with pytest.raises(RuleError, match="G2"):
        money.encumbrance(fo=0, equipped={}, bag={"Épée longue": 1}, content=core)


# ---- xp, I-L481-491
@pytest.mark.parametrize("pct, r1, r2", [(50, 50, 100), (60, 70, 140), (75, 100, 200), (80, 120, 240), (100, 200, 400)],
                         ids=lambda v: str(v))
def test_skill_curve(pct, r1, r2):
    assert (xp.cumulative_cost(pct, 1), xp.cumulative_cost(pct, 2)) == (r1, r2)


def test_single_steps():
    assert xp.raise_cost(50, 51, 1) == 2
    assert xp.raise_cost(75, 76, 1) == 4
    assert xp.raise_cost(49, 50, 1) == 1


def test_rank0_and_cap():
    with pytest.raises(RuleError, match="rank 0"):
        xp.raise_cost(10, 11, 0)
    with pytest.raises(RuleError, match="100%"):
        xp.raise_cost(99, 101, 1)


def test_sk2_new_skill(content):  # 100 + 50
    assert xp.skill_purchase(content, "Parade", current=None, target=50).total == 150


def test_sk3_innate(content):
    assert xp.skill_purchase(content, "Nage", current=None, target=50).total == 50


def test_sk4_acuity_from_race_value(content):
    p = xp.skill_purchase(content, "Acuité visuelle", current=None, target=70, acuity_start=60)
    assert p.total == 20


def test_skill_rank_missing_names_gap(core):  # G24
    with pytest.raises(RuleError, match=r"The rank of skill 'Parade' is not set .*Part D: G24"):
        xp.skill_purchase(core, "Parade", current=0, target=10)


def test_sk5_mastery_unlock():  # I-L491
    assert xp.mastery_unlock(100) == 50
    assert xp.mastery_unlock(99) is None


def test_pp5_and_faith(content, core):
    assert xp.pp_cost(3) == 60
    assert xp.faith_level_cost(content, 2, religious=True) == 100
    with pytest.raises(RuleError, match="G19"):
        xp.faith_level_cost(core, 1, religious=False)


def test_spend():
    assert xp.spend(400, 150, what="Parade") == 250
    with pytest.raises(RuleError, match="only 100 xp"):
        xp.spend(100, 150, what="Parade")


def _closed_form(p):  # catalogue §46: C1(p)
    if p <= 50:
        return p
    if p <= 75:
        return 50 + 2 * (p - 50)
    return 100 + 4 * (p - 75)


@pytest.mark.parametrize("rank", [1, 2], ids=["rank1", "rank2"])
def test_curve_matches_closed_form(rank):  # I-L484-485: the table (per point) and the formula agree
    assert [xp.cumulative_cost(p, rank) for p in range(101)] == [rank * _closed_form(p) for p in range(101)]
