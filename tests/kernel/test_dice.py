"""Dice and formula expressions (catalogue R-PCT, R-ROUND, R-DICE; seed 000 L21-L29)."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from cristal_events.dice import (
    MAX_VALUE,
    BinOp,
    Dice,
    DiceError,
    Die,
    Number,
    Var,
    dice_in,
    evaluate,
    parse,
)
from cristal_events.rolls import Roll

# (text, variables, faces, rounding, total) -- forms printed in the book.
BOOK = [
    ("[1d4]", {}, [3], "round", 3),                               # L29, L1233
    ("[1d4]+4", {}, [2], "round", 6),                             # L1234 (dice outside the brackets)
    ("[1d4 -2]", {}, [1], "round", -1),                           # L1466: not floored here (D2)
    ("[1d4 -2]", {}, [4], "round", 2),                            # L1466
    ("[2d6+2]", {}, [3, 3], "round", 8),                          # L1361 Gustave hits Rodrigue for 8
    ("[1d20]", {}, [13], "round", 13),                            # L1360 Gustave's d20
    ("[(1d6) /3]", {}, [5], "round", 2),                          # L1006: 5/3 = 1.67 -> 2
    ("[(1d6) /3]", {}, [5], "truncate", 1),                       # L1006: 5/3 -> 1
    ("[(1d6) /3]", {}, [4], "round", 1),                          # L1006: 4/3 = 1.33 -> 1
    ("[1/4]", {}, [], "round", 0),                                # L1006: 0.25 -> 0
    ("[1/4]", {}, [], "truncate", 0),                             # L1006
    ("PM*1/4", {"PM": 8}, [], "round", 2),                        # L1006: 8 PM on a [1/4] scale -> 2 units
    ("FRC/3", {"FRC": 7}, [], "round", 2),                        # L525 natural weapon DMG
    ("FRC/3", {"FRC": 8}, [], "truncate", 2),                     # L525: 2.67 -> 2
    ("FRC/3", {"FRC": 8}, [], "round", 3),                        # L525: 2.67 -> 3
    ("[(Alignement) * 5]", {"Alignement": -3}, [], "round", -15),  # R-ALIGN
    ("[ALIGN*5]", {"ALIGN": 4}, [], "round", 20),                 # R-ALIGN, short name
    ("OBS / 3", {"OBS": 10}, [], "round", 3),                     # L789
    ("INT / 2", {"INT": 9}, [], "round", 5),                      # L796: 4.5 half away from zero -> 5
    ("INT / 2", {"INT": 9}, [], "truncate", 4),                   # L796
    ("50*10%", {}, [], "round", 5),                               # L21: 50*10% = 50*0.10
    ("12 + 12*30%", {}, [], "round", 16),                         # catalogue D1: 12 + 3.6 -> 16
    ("12 + 12*30%", {}, [], "truncate", 15),                      # catalogue D1: 12 + 3.6 -> 15
    ("5,9", {}, [], "truncate", 5),                               # L23: "5,9 = 5"
    ("5,9", {}, [], "round", 6),                                  # L23
    ("[(PVinit) + (CON * 2)]", {"PVinit": 10, "CON": 6}, [], "round", 22),  # R-STABLE PVmax
    ("100% + 30%", {}, [], "round", 1),                           # L21: 130% kept exact, total 1.3 -> 1
    ("200 * (100% + 30%)", {}, [], "round", 260),                 # L21: sum the percentages, multiply once
    ("[CNC] + [d20]", {"CNC": 7}, [11], "round", 18),             # L972 "[d20]" = 1d20
    ("Dex + Vol + Dé100", {"Dex": 40, "Vol": 35}, [57], "round", 132),  # Illergan I-L4
    ("[(50 - Dé100)/10]", {}, [73], "round", -2),                 # Illergan I-L404: -2.3 -> -2
    ("Dé20 + 4", {}, [20], "round", 24),                          # Illergan I-L142
    ("dé 20", {}, [9], "round", 9),                               # L1363 "dé 20"
    ("REF * 0,75", {"REF": 10}, [], "round", 8),                  # decimal comma: 7.5 -> 8
    ("REF * 0,75", {"REF": 10}, [], "truncate", 7),
    ("Temps * 4", {"Temps": Fraction(3, 4)}, [], "round", 3),     # a Fraction variable (REF table)
]


@pytest.mark.parametrize(("text", "variables", "faces", "mode", "total"), BOOK,
                         ids=[f"{t}|{m}|{f}" for t, _, f, m, _ in BOOK])
def test_book_forms(text, variables, faces, mode, total):
    roll = evaluate(text, variables=variables, faces=faces, rounding=mode, purpose="test")
    assert roll.total == total
    assert roll.faces == tuple(faces)
    assert roll.source == "entered"
    assert roll.purpose == "test"


NORMALISED = [
    ("[1d4]+4", "1d4+4"),
    ("[1d4 -2]", "1d4-2"),
    ("[(1d6) /3]", "1d6/3"),
    ("[ [ 2d6 + 2 ] ]", "2d6+2"),
    ("d20", "1d20"),
    ("Dé100", "1d100"),
    ("dé100", "1d100"),
    ("D100", "1d100"),
    ("2 d 6", "2d6"),
    ("0,75*REF", "0.75*REF"),
    ("50 * 10 %", "50*10%"),
    ("(1+2)*3", "(1+2)*3"),
    ("1-(2-3)", "1-(2-3)"),
    ("1-(2+3)", "1-(2+3)"),
    ("(1-2)-3", "1-2-3"),
    ("8*(1/4)", "8*(1/4)"),   # not 8*1/4: rounding after each operation makes them differ
    ("-(1+2)", "-(1+2)"),
    ("--3", "--3"),
    ("2*-d6", "2*-1d6"),
]


@pytest.mark.parametrize(("text", "normal"), NORMALISED, ids=[t for t, _ in NORMALISED])
def test_normalised_text_round_trips(text, normal):
    expr = parse(text)
    assert str(expr) == normal
    assert parse(normal) == expr


def test_brackets_may_be_omitted_or_nested():
    assert parse("[1d4]+4") == parse("1d4+4") == parse("[[1d4]+4]")
    assert parse("[1d4]+4") == BinOp("+", Die(1, 4), Number(Fraction(4)))


def test_d_binds_tighter_than_multiplication():
    assert parse("2*3d6") == BinOp("*", Number(Fraction(2)), Die(3, 6))
    assert evaluate("2*3d6", faces=[1, 2, 3]).total == 12


def test_percent_keeps_its_sign_in_the_tree():
    assert parse("10%") == Number(Fraction(10), percent=True)


@pytest.mark.parametrize(("text", "sides"), [
    ("[2d6+2]", [6, 6]),
    ("1d20", [20]),
    ("1d4 + 2d8 * 1d6", [4, 8, 8, 6]),
    ("FRC/3", []),
    ("Dé100 - d10", [100, 10]),
], ids=["2d6+2", "1d20", "order", "no-dice", "illergan"])
def test_dice_in_lists_sides_in_roll_order(text, sides):
    assert dice_in(text) == sides
    assert dice_in(parse(text)) == sides


def test_faces_are_taken_left_to_right():
    roll = evaluate("1d4 + 2d8 * 1d6", faces=[4, 1, 8, 2])
    assert roll.faces == (4, 1, 8, 2)
    assert roll.total == 4 + 9 * 2


def test_entered_faces_flow_across_several_rolls_of_one_command():
    dice = Dice.entered([13, 3, 3])
    attack = dice.roll("[1d20] + ATT", variables={"ATT": 8}, purpose="attack")   # L1360: 8 + 13 = 21
    damage = dice.roll("[2d6+2]", purpose="damage")                               # L1361: 8
    dice.finish()
    assert attack == Roll(expr="1d20+ATT", faces=(13,), total=21, source="entered", purpose="attack")
    assert damage == Roll(expr="2d6+2", faces=(3, 3), total=8, source="entered", purpose="damage")
    assert dice.used == [13, 3, 3]
    assert dice.source == "entered"


def test_seeded_rolls_are_reproducible():
    first = Dice.seeded(random.Random(1234))
    second = Dice.seeded(random.Random(1234))
    a = [first.roll("3d6 + Dé100").faces for _ in range(5)]
    b = [second.roll("3d6 + Dé100").faces for _ in range(5)]
    assert a == b
    assert first.used == second.used
    assert all(1 <= f <= 6 for roll in a for f in roll[:3]) and all(1 <= r[3] <= 100 for r in a)
    roll = evaluate("2d6+2", rng=random.Random(7))
    assert roll.source == "rolled"
    assert roll.total == sum(roll.faces) + 2
    assert evaluate("2d6+2", rng=random.Random(7)) == roll
    first.finish()  # a seeded Dice never has faces left over


def test_d100_entered_00_reads_100():  # Illergan I-L316: "99 et 100 (00)"
    roll = evaluate("Dé100", faces=[0])
    assert roll.faces == (100,)
    assert roll.total == 100


def test_a_failed_roll_consumes_no_face():
    dice = Dice.entered([2, 5])
    with pytest.raises(DiceError):
        dice.roll("1d6 + NOPE")
    assert dice.used == []
    assert dice.roll("1d6").faces == (2,)
    rng = random.Random(3)
    seeded = Dice.seeded(rng)
    with pytest.raises(DiceError):
        seeded.roll("1d6 / 0")
    assert seeded.used == []
    assert seeded.roll("1d6").faces == Dice.seeded(random.Random(3)).roll("1d6").faces


def test_variables_match_case_insensitively_when_unambiguous():
    assert evaluate("frc/3", variables={"FRC": 7}).total == 2
    assert evaluate("energie + 1", variables={"Energie": 4}).total == 5
    assert evaluate("Fo", variables={"Fo": 3, "FO": 9}).total == 3  # exact match wins


def test_expression_without_dice_needs_no_faces():
    assert evaluate("FRC/3", variables={"FRC": 9}).faces == ()


def test_intermediate_values_are_bounded_but_the_limit_itself_is_allowed():
    assert evaluate(str(MAX_VALUE)).total == MAX_VALUE
    assert evaluate(f"-{MAX_VALUE}").total == -MAX_VALUE


ERRORS = [
    ("", {}, None, "The expression is empty."),
    ("   ", {}, None, "The expression is empty."),
    ("1d4 +", {}, [1], "The expression ends where a number, a die, a variable or a bracket was expected."),
    ("1d4 2", {}, [1], "Unexpected '2' at position 5; an operator was expected."),
    ("2 $ 3", {}, None, "Unexpected character '$' at position 3."),
    ("(1+2", {}, None, "The '(' at position 1 is never closed."),
    ("[1+2)", {}, None, "Unexpected ')' at position 5; ']' was expected to close the '[' at position 1."),
    ("FRC%", {"FRC": 1}, None, "Unexpected '%' at position 4; an operator was expected."),
    ("1d0", {}, None, "A die must have 1 to 1000 sides, not 0 (position 2)."),
    ("1d1001", {}, None, "A die must have 1 to 1000 sides, not 1001 (position 2)."),
    ("0d6", {}, None, "The dice count at position 1 is 0; roll at least 1 die."),
    ("1,5d6", {}, None, "The dice count 1,5 at position 1 is not a whole number."),
    ("50d6 + 51d6", {}, None, "The expression rolls more than 100 dice (position 8)."),
    ("1000000d1000000", {}, None, "A die must have 1 to 1000 sides, not 1000000 (position 8)."),
    ("9999999999999*9999999999999", {}, None,
     "The number 9999999999999 at position 1 exceeds the limit of 1000000000000."),
    ("1000000*1000000*2", {}, None,
     "The value of '1000000*1000000*2' exceeds the limit of 1000000000000 in magnitude."),
    ("1/0", {}, None, "Division by zero in '1/0'."),
    ("FRC/(DEX-DEX)", {"FRC": 3, "DEX": 4}, None, "Division by zero in 'FRC/(DEX-DEX)'."),
    ("FOO + 1", {"FRC": 7, "DEX": 3}, None, "Unknown variable 'FOO' (known variables: DEX, FRC)."),
    ("FOO", {}, None, "Unknown variable 'FOO' (known variables: none)."),
    ("frc", {"FRC": 1, "Frc": 2}, None, "Variable 'frc' is ambiguous: it matches FRC, Frc."),
    ("(" * 33 + "1" + ")" * 33, {}, None, "The expression nests deeper than 32 levels at position 33."),
    ("1+" * 250 + "1", {}, None, "The expression is 501 characters long; the limit is 500."),
    ("d", {}, None, "The expression ends where the number of sides after 'd' was expected."),
    ("1d6", {}, None, "'1d6' rolls dice but no faces were entered."),
    ("1d6", {}, [7], "Face 7 is out of range for a d6."),
    ("1d6", {}, [0], "Face 0 is out of range for a d6."),
    ("1d100", {}, [101], "Face 101 is out of range for a d100."),
    ("2d6", {}, [3], "1 face was entered but the command needs more (a d6 is next)."),
    ("2d6", {}, [3, 3, 4], "3 faces were entered but the command used 2."),
]


@pytest.mark.parametrize(("text", "variables", "faces", "message"), ERRORS,
                         ids=[f"{t[:24]}|{f}" for t, _, f, _ in ERRORS])
def test_error_messages(text, variables, faces, message):
    with pytest.raises(DiceError) as info:
        evaluate(text, variables=variables, faces=faces)
    assert str(info.value) == message


def test_entered_faces_must_be_whole_numbers():
    with pytest.raises(DiceError, match=r"^Entered face 2\.5 is not a whole number\.$"):
        Dice.entered([2.5])  # type: ignore[list-item]


def test_unknown_rounding_mode():
    with pytest.raises(DiceError, match=r"^Unknown rounding mode 'floor'; use round or truncate\.$"):
        evaluate("1/2", rounding="floor")  # type: ignore[arg-type]


def test_variables_are_case_sensitive_in_the_tree():
    assert parse("Fo + fo") == BinOp("+", Var("Fo"), Var("fo"))


@pytest.mark.parametrize(("text", "message"), [
    ("-" * 499 + "1", "The expression nests deeper than 32 levels at position 33."),
    ("[" * 499 + "1", "The expression nests deeper than 32 levels at position 33."),
    ("1d6+" * 100 + "1d6", "The expression rolls more than 100 dice (position 401)."),
], ids=["minus-chain", "open-brackets", "101-dice"])
def test_hostile_text_is_refused_within_the_bounds(text, message):
    with pytest.raises(DiceError) as info:
        parse(text)
    assert str(info.value) == message


def test_hand_built_trees_are_bounded_too():
    with pytest.raises(DiceError, match=r"^The expression rolls more than 100 dice\.$"):
        dice_in(Die(10**9, 6))
    with pytest.raises(DiceError, match=r"^A die must have 1 to 1000 sides, not 5000\.$"):
        evaluate(Die(1, 5000), rng=random.Random(0))
