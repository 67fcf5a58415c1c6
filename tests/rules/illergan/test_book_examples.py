"""Every example the Illergan text gives (catalogue Part B.1, TX-01 .. TX-25), with its line."""

import pytest

from cristal_events.dice import Dice
from cristal_events.errors import RuleError
from cristal_events.rulesets.illergan import alcohol, character, checks, combat, magic, money, xp
from cristal_events.rulesets.illergan.character import Choices


def test_tx01_coin_ratios(core):  # I-L24
    assert money.to_copper(money.Starls(A=1), core) == 30
    assert money.to_copper(money.Starls(O=1), core) == money.to_copper(money.Starls(A=30), core)


def test_tx02_alc_min_minus_5(core):  # I-L124
    assert alcohol.alc_min_change(oubli_reached=2, titubage_only_reached=1) == -5
    th = alcohol.thresholds(vit=100, vol=45, fo=4, e=8)  # G 4, T 7, Ti 10, O 17
    # Each episode starts from the resting minimum, which drops after every episode.
    steps = [alcohol.Drink(alc=17), alcohol.Wait(minutes=45 * 40),  # 0 -> 17: Oubli (min -2)
             alcohol.Drink(alc=19), alcohol.Wait(minutes=45 * 40),  # -2 -> 17: Oubli again (min -4)
             alcohol.Drink(alc=14)]  # -4 -> 10: Titubage only (min -5)
    dice = Dice.entered([1] * 40)
    ev = alcohol.evening(alcohol.start(0), steps, th, dice, core)
    assert ev.states[-1].alc_min == -5


def test_tx03_background_minimum_written_negatively():  # I-L346
    assert alcohol.start(-2).alc_min == -2
    with pytest.raises(RuleError, match="written negatively"):
        alcohol.start(2)


def test_tx04_embrasement_levels(core):  # I-L213
    embrasement = core.entry("spells", "Embrasement")
    assert list(magic.legal_cast_levels(4, embrasement.min_level)) == [1, 2, 3, 4]
    with pytest.raises(RuleError, match="not at level 5"):
        magic.check_cast_level(embrasement, 4, 5)


@pytest.mark.parametrize("magic_level, cast_level, ok", [(4, 1, False), (4, 3, False), (4, 4, True), (6, 5, True), (3, 4, False)],
                         ids=["L4-cast1", "L4-cast3", "L4-cast4", "L6-cast5", "L3-cast4"])
def test_tx05_jet_de_lave(core, magic_level, cast_level, ok):  # I-L216
    jet = core.entry("spells", "Jet de lave")
    if ok:
        magic.check_cast_level(jet, magic_level, cast_level)
    else:
        with pytest.raises(RuleError):
            magic.check_cast_level(jet, magic_level, cast_level)


def test_tx06_blindness_immune_at_100_100():  # I-L413
    assert checks.blind_divisor(100, 100) == 1
    assert checks.blinded_threshold(60, 100, 100) == 60


def test_tx07_rank1_total_200():  # I-L484
    assert xp.cumulative_cost(100, 1) == 200


def test_tx08_rank2_total_400():  # I-L485
    assert xp.cumulative_cost(100, 2) == 400


def test_tx09_100_fails_at_level_10():  # I-L526
    assert magic.launch(100, 10).outcome == "counter"


@pytest.mark.parametrize("n, pp", [(1, 1), (2, 1), (3, 2), (4, 2), (5, 3), (9, 3)], ids=lambda v: str(v))
def test_tx10_pp_per_combination(core, n, pp):  # I-L200-203
    assert magic.pp_in_combat(n, core, counter_effect=False) == pp


@pytest.mark.parametrize("level, most", [(1, 3), (5, 3), (6, 4), (7, 4), (8, 5), (9, 5), (10, 6)], ids=lambda v: str(v))
def test_tx11_secondaries(core, level, most):  # I-L233-237
    assert magic.max_secondaries(level, core) == most


def test_tx12_ten_divine_powers(core):  # I-L603
    assert core.pack.pd_per_level == {1: 3, 2: 2, 3: 2, 4: 2, 5: 1}
    assert sum(core.pack.pd_per_level.values()) == 10


def _new(content, **kw):
    base = dict(name="Test", race="Humain", class_name="Guerrier", heritage="Enfant des rues")
    base.update(kw)
    return character.create(content, Choices(**base), fo=3, gift_face=1)


def test_tx13_two_destiny_points(content):  # I-L330, I-L376
    assert _new(content).destiny_points == 2


def test_tx14_heritage_400_xp_total_0(content):  # I-L352, I-L588
    c = _new(content)
    assert (c.heritage_xp, c.xp_total) == (400, 0)


def test_tx15_piece_prices(core):  # I-L79
    full = money.to_copper(money.Starls(O=10), core)
    assert money.piece_price(full, "cuirasse", core) == money.to_copper(money.Starls(O=4), core)
    assert money.piece_price(full, "casque", core) == money.to_copper(money.Starls(O=2), core)
    assert money.piece_price(full, "cuirasse", core) + 3 * money.piece_price(full, "jambières", core) == full


@pytest.mark.parametrize("sr, helmet", [(25, 15), (10, 0), (6, 0)], ids=["25", "10", "6-min0"])
def test_tx16_helmet(core, sr, helmet):  # I-L83
    assert money.helmet_sr(sr, core) == helmet


def test_tx17_charges():  # I-L43
    assert money.max_charges(3) == 13


def test_tx18_pp_cost():  # I-L208
    assert xp.pp_cost(1) == 20


def test_tx19_new_magic():  # I-L586
    assert xp.new_magic_cost(5) == 100
    with pytest.raises(RuleError, match="level 5 or more"):
        xp.new_magic_cost(4)


def test_tx20_spell_price_and_learning(core):  # I-L443
    jet = core.entry("spells", "Jet de lave")
    assert magic.spell_price_o(jet) == 4
    assert magic.can_learn_spell(jet, 4) and not magic.can_learn_spell(jet, 3)


@pytest.mark.parametrize("cult, start", [("Vikasar", 19 * 60), ("Dieu ailé", 8 * 60), ("Ancêtres", 16 * 60)],
                         ids=["Vikasar", "Dieu-aile", "Ancetres"])
def test_tx21_harmonisation(core, cult, start):  # I-L534-540, I-L531
    assert magic.harmonisation_start(cult, core) == start
    assert magic.harmonised(cult, start + 59, core)
    assert not magic.harmonised(cult, start + 60, core)


def test_tx22_starting_consumables(core):  # I-L189-191
    kit = character.starting_equipment(core, ["mage"])
    assert kit["Potion de soin (20PV)"] == 2
    assert kit["Ration de voyage"] == 5
    assert kit["Potion de mana (40PM)"] == 2
    assert "Potion de mana (40PM)" not in character.starting_equipment(core, ["guerrier"])


def test_tx23_oubli_event_die(core):  # I-L142, I-L159
    assert core.pack.alc_event_die["oubli"] == "1d20+4"
    roll = Dice.entered([19]).roll(core.pack.alc_event_die["oubli"])
    assert roll.total == 23
    action, _, coma = alcohol.event_action(roll.total, core)
    assert coma and action.startswith("Coma")
    assert alcohol.coma_hours(20) == 4
    assert Dice.entered([1]).roll("1d20+4").total == 5


@pytest.mark.parametrize("face, threshold, success", [(1, 0, True), (2, -50, True), (99, 200, False), (100, 100, False)],
                         ids=["01", "02", "99", "100"])
def test_tx24_skill_auto(face, threshold, success):  # I-L488
    assert checks.skill_check(face, threshold).success is success


@pytest.mark.parametrize("face, critical, fumble", [(1, True, False), (2, True, False), (99, False, True), (100, False, True)],
                         ids=["01", "02", "99", "100"])
def test_tx25_attack_crit_fumble(core, face, critical, fumble):  # I-L270-271
    a = combat.attack(face, 120, core)
    assert (a.critical, a.fumble, a.hit) == (critical, fumble, critical)
