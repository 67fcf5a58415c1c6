"""The campaign's rounding mode (seed 000, L23 "Arrondissement").

The book advises rounding decimals after each operation, or allows ignoring them (5,9 = 5), as long
as the campaign stays constant. ``round`` is half away from zero (ruling D1); ``truncate`` drops the
decimals toward zero (ruling D1(b)). Values are exact (``Fraction``) until rounded, so 2.5 never
suffers binary floating point.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Literal

RoundingMode = Literal["round", "truncate"]
MODES: tuple[str, ...] = ("round", "truncate")


def as_mode(text: str) -> RoundingMode:
    """``text`` (a campaign header's rounding, checked against :data:`MODES` when the campaign was created)
    as the rules take it; anything else is the error :func:`apply` raises."""
    if text == "round":
        return "round"
    if text == "truncate":
        return "truncate"
    raise ValueError(f"unknown rounding mode {text!r}")


def to_fraction(value: int | float | str | Fraction) -> Fraction:
    """Exact value of ``value`` (a float goes through its shortest decimal repr: 0.1 -> 1/10)."""
    if isinstance(value, Fraction):
        return value
    if isinstance(value, int):
        return Fraction(value)
    if isinstance(value, float):
        return Fraction(repr(value))
    return Fraction(str(value).replace(",", "."))


def apply(value: int | float | Fraction, mode: RoundingMode) -> int:
    """Round ``value`` to an integer with the campaign's mode.

    >>> apply(Fraction(36, 10), "round"), apply(Fraction(36, 10), "truncate")
    (4, 3)
    >>> apply(Fraction(-5, 2), "round"), apply(Fraction(-3, 2), "truncate")
    (-3, -1)
    """
    if isinstance(value, int):
        return value
    v = to_fraction(value)
    if mode == "truncate":
        q = abs(v.numerator) // v.denominator
        return q if v >= 0 else -q
    if mode == "round":
        a = abs(v)
        q = (a.numerator * 2 + a.denominator) // (2 * a.denominator)  # floor(a + 1/2)
        return q if v >= 0 else -q
    raise ValueError(f"unknown rounding mode {mode!r}")


def divide(a: int | Fraction, b: int | Fraction, mode: RoundingMode) -> int:
    """``a / b`` rounded with the campaign's mode (the book rounds after each operation)."""
    return apply(Fraction(a) / Fraction(b), mode)


def percent(value: int | Fraction, pct: int | Fraction, mode: RoundingMode) -> int:
    """``value * pct%`` rounded (seed 000, L21: 50*10% = 50*0.10)."""
    return apply(Fraction(value) * Fraction(pct) / 100, mode)
