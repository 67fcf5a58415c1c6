"""Property tests for the dice parser (after avrae/d20's test_hypothesis.py).

1. Arbitrary text never makes ``parse``/``evaluate`` raise anything but DiceError.
2. Generated valid expressions, written with random brackets, spaces and decimal commas, evaluate with
   entered faces to the total of an independent reference computation (decimal.Decimal rounding).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from decimal import ROUND_DOWN, ROUND_HALF_UP, Decimal, localcontext
from fractions import Fraction

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cristal_events.dice import MAX_DEPTH, MAX_LENGTH, MAX_VALUE, DiceError, dice_in, evaluate, parse

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
VARIABLES = {"FRC": 7, "DEX": 12, "INT": 9, "PM": 0, "REF": Fraction(3, 4), "Energie": -4}
GRAMMAR_ALPHABET = "0123456789dDé%+-*/()[] ,.FRCDEXINTPMREFxyz"


def _check_anything(text: str) -> None:
    try:
        expr = parse(text)
    except DiceError:
        return
    assert parse(str(expr)) == expr  # the normalised text always parses back to the same tree
    for mode in ("round", "truncate"):
        try:
            roll = evaluate(expr, variables=VARIABLES, rounding=mode, rng=random.Random(0))
        except DiceError:
            continue
        assert isinstance(roll.total, int)
        assert len(roll.faces) == len(dice_in(expr))


@SETTINGS
@given(st.text(max_size=80))
def test_arbitrary_text_raises_only_dice_errors(text):
    _check_anything(text)


@SETTINGS
@given(st.text(alphabet=GRAMMAR_ALPHABET, max_size=60))
def test_grammar_shaped_text_raises_only_dice_errors(text):
    _check_anything(text)


# ------------------------------------------------------------------------------------------------
# Reference computation over a generated tree, independent of the parser and of rounding.py.

@dataclass(frozen=True)
class Lit:
    text: str          # as written, possibly with a decimal comma or a % sign
    value: Decimal


@dataclass(frozen=True)
class Roll_:
    count: int
    sides: int
    spelling: str      # "d", "D", "Dé" or "" when the count is written


@dataclass(frozen=True)
class Name:
    name: str


@dataclass(frozen=True)
class Op:
    op: str
    left: object
    right: object


@dataclass(frozen=True)
class Minus:
    operand: object


literals = st.one_of(
    st.integers(0, 1000).map(lambda n: Lit(str(n), Decimal(n))),
    st.tuples(st.integers(0, 99), st.integers(0, 99), st.sampled_from([",", "."])).map(
        lambda t: Lit(f"{t[0]}{t[2]}{t[1]:02d}", Decimal(f"{t[0]}.{t[1]:02d}"))),
    st.integers(0, 200).map(lambda n: Lit(f"{n}%", Decimal(n) / 100)),
)
dice = st.one_of(
    st.tuples(st.integers(1, 3), st.sampled_from([2, 4, 6, 8, 10, 12, 20, 100])).map(
        lambda t: Roll_(t[0], t[1], "")),
    st.tuples(st.sampled_from(["d", "D", "Dé", "dé"]), st.sampled_from([4, 6, 20, 100])).map(
        lambda t: Roll_(1, t[1], t[0])),
)
names = st.sampled_from(sorted(VARIABLES) + ["frc", "energie"]).map(Name)
trees = st.recursive(
    st.one_of(literals, dice, names),
    lambda inner: st.one_of(
        st.tuples(st.sampled_from("+-*/"), inner, inner).map(lambda t: Op(*t)),
        inner.map(Minus),
    ),
    max_leaves=12,
)


PREC = {"+": 1, "-": 1, "*": 2, "/": 2}


def render(node, draw, redundant: bool = False) -> str:
    """Text with random bracket kinds and spacing; brackets that precedence makes redundant
    (``redundant``) are dropped at random, so that operator precedence is exercised too."""
    sp = lambda: draw(st.sampled_from(["", " ", "  "]))  # noqa: E731
    match node:
        case Lit(text=text):
            return text
        case Roll_(count=count, sides=sides, spelling=""):
            return f"{count}d{sides}"
        case Roll_(sides=sides, spelling=spelling):
            return f"{spelling}{sides}"
        case Name(name=name):
            return name
        case Minus(operand=operand):
            return f"-{sp()}({render(operand, draw)})"
        case Op(op=op, left=left, right=right):
            p = PREC[op]
            # Left-associative: a left child of equal or higher precedence, a right child of strictly
            # higher precedence, needs no brackets.
            lhs = render(left, draw, isinstance(left, Op) and PREC[left.op] >= p)
            rhs = render(right, draw, isinstance(right, Op) and PREC[right.op] > p)
            body = f"{lhs}{sp()}{op}{sp()}{rhs}"
            if redundant and draw(st.booleans()):
                return body
            o, c = draw(st.sampled_from([("(", ")"), ("[", "]")]))
            return f"{o}{sp()}{body}{sp()}{c}"
    raise AssertionError(node)


def sides_of(node) -> list[int]:
    match node:
        case Roll_(count=count, sides=sides):
            return [sides] * count
        case Minus(operand=operand):
            return sides_of(operand)
        case Op(left=left, right=right):
            return sides_of(left) + sides_of(right)
    return []


class Refused(Exception):
    pass


def depth(node) -> int:
    match node:
        case Minus(operand=operand):
            return 2 + depth(operand)  # "-(" : a unary minus and a bracket
        case Op(left=left, right=right):
            return 1 + max(depth(left), depth(right))
    return 0


def to_int(value: Decimal, mode: str) -> Decimal:
    return value.quantize(Decimal(1), rounding=ROUND_HALF_UP if mode == "round" else ROUND_DOWN)


def reference(node, faces: list[int], mode: str) -> Decimal:
    match node:
        case Lit(value=value):
            return value
        case Roll_(count=count):
            return Decimal(sum(faces.pop(0) for _ in range(count)))
        case Name(name=name):
            key = {"frc": "FRC", "energie": "Energie"}.get(name, name)
            return Decimal(Fraction(VARIABLES[key]).numerator) / Decimal(Fraction(VARIABLES[key]).denominator)
        case Minus(operand=operand):
            return -reference(operand, faces, mode)
        case Op(op=op, left=left, right=right):
            a = reference(left, faces, mode)
            b = reference(right, faces, mode)
            if op == "+":
                result = a + b
            elif op == "-":
                result = a - b
            elif op == "*":
                result = to_int(a * b, mode)
            else:
                if b == 0:
                    raise Refused
                result = to_int(a / b, mode)  # exact enough: operands have <= 4 decimals
            if abs(result) > MAX_VALUE:
                raise Refused
            return result
    raise AssertionError(node)


@SETTINGS
@given(st.data(), trees.filter(lambda t: depth(t) <= MAX_DEPTH), st.sampled_from(["round", "truncate"]))
def test_generated_expressions_match_the_reference(data, tree, mode):
    text = render(tree, data.draw)
    sides = sides_of(tree)
    faces = [data.draw(st.integers(1, s)) for s in sides]
    assert dice_in(text) == sides
    try:
        if len(text) > MAX_LENGTH:
            raise Refused
        with localcontext() as ctx:
            ctx.prec = 100  # operands have <= 4 decimals and <= 13 digits: quotients never tie falsely
            expected = to_int(reference(tree, list(faces), mode), mode)
    except Refused:
        try:
            evaluate(text, variables=VARIABLES, faces=faces, rounding=mode)
        except DiceError:
            return
        raise AssertionError(f"{text!r} should have been refused") from None
    roll = evaluate(text, variables=VARIABLES, faces=faces, rounding=mode)
    assert roll.total == int(expected), text
    assert roll.faces == tuple(faces)
    assert parse(roll.expr) == parse(text)
