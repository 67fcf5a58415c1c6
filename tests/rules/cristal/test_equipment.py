"""Equipment TV-13 (L820-L879) and projectile range TV-23 (L1344-L1350)."""

from fractions import Fraction

import pytest

from cristal_events.errors import RuleError
from cristal_events.rulesets.cristal import equipment as eq
from cristal_events.rulesets.cristal.content import load_core

C = load_core()


@pytest.mark.parametrize("frc,usable", [(2, False), (6, True), (7, True), (5, False)], ids=["2", "6", "7", "5"])
def test_handicap_making_a_state_negative(frc, usable):  # L871: FRC +2, handicap -6 -> -4
    assert eq.usability(C.item("Épée à deux mains"), {"FRC": frc}).usable is usable


def test_unusable_message_and_literal_d9():
    with pytest.raises(RuleError, match=r"^Épée à deux mains cannot be used: its handicap leaves FRC -4 \(L871\)\.$"):
        eq.check_usable(C.item("Épée à deux mains"), {"FRC": 2})
    assert eq.usability(C.item("Armure d'acier lourde"), C.race("Elfe").fixed).usable  # DEX 3 - 3 = 0 is usable
    assert not eq.usability(C.item("Armure d'acier lourde"), C.race("Nain").fixed).usable  # DEX -2 - 3
    assert eq.usability(C.item("Robe élégante"), {"CHAR": -5}).usable  # a bonus never blocks


@pytest.mark.parametrize("coins,kg", [(100, 4), (25, 1), (1000, 40), (1, Fraction(1, 25))], ids=["100", "25", "1000", "1"])
def test_gold_weight(coins, kg):  # L820
    assert eq.gold_weight(coins) == kg


def test_diamonds_and_carried_weight():
    assert eq.diamond_weight(10_000) == 1  # L820
    # weight x QTÉ over all items (L875): 20 arrows of 0.05 kg + a 1 kg bow + 100 coins
    assert eq.carried_weight([(C.item("Flèche"), 20), (C.item("Arc"), 1)], gold_coins=100) == 6
    assert eq.load(0, eq.gold_weight(1000)).status == "normal"  # 40 kg of 50 (80%)
    assert eq.load(0, 51).status == "encumbered" and eq.load(0, 151).status == "crushed"


def test_magic_item_dm_equals_mag():  # L851
    import msgspec
    assert eq.item_self_dm(msgspec.structs.replace(C.item("Robe élégante"), mag=3)) == 3


@pytest.mark.parametrize("frc,rng", [(4, 8), (0, 0), (-3, 0), (1, 2)], ids=["4", "0", "-3", "1"])
def test_thrown_range(frc, rng):  # L1344; clamped at 0 (D15)
    assert eq.thrown_range(frc) == rng


@pytest.mark.parametrize("rng,dist,pen", [(20, 30, -5), (20, 25, -2), (20, 20, 0), (20, 10, 0), (8, 9, 0), (8, 10, -1)],
                         ids=lambda v: str(v))
def test_range_penalty(rng, dist, pen):  # L1348-L1350, D15 (full slices)
    assert eq.range_penalty(rng, dist) == pen


def test_projectile_and_propulsor_add_up():  # L899, L1346
    bow = C.item("Arc")
    fancy = __import__("msgspec").structs.replace(bow, att=2, dmg="1")
    w = eq.ranged_weapon(C.item("Flèche"), fancy, frc=0)
    assert (w.att, w.dmg, w.range_m) == (2, "1d6+1", 20)
    dagger = eq.ranged_weapon(C.item("Dague de jet"), None, frc=4)
    assert (dagger.range_m, dagger.dmg) == (8, "1d4")
    with pytest.raises(RuleError):
        eq.ranged_weapon(C.item("Flèche"), C.item("Épée longue"), frc=0)


def test_quantity_does_not_multiply_properties():  # L841
    armour = C.item("Armure de cuir")
    assert eq.effective_fixed({}, [armour] * 5) == {s: 0 for s in ("FRC", "DEX", "INT", "MAG", "CON", "REF", "OBS", "MEM", "CHAR")}
    assert armour.qty == 1
