"""The nine fixed states and their printed tables (seed 000, L78-L189), and Sur-Effort (L233-L242).

The book prints rows for even scores only (-6 .. +8, and INT -10). Values for other scores
(ruling D3):

* FRC, CON: the tables are exactly linear; closed forms ``150 + 22.5 FRC``, ``50 + 7.5 FRC``,
  ``16 + 2 CON`` (clamped at 0, D33).
* DEX: ``DEX + 2`` objects juggled for DEX >= 0; none (``None``) below 0, as every printed
  negative row shows "-".
* CHAR: exactly geometric; ``floor(4 * 2^(CHAR/2))`` (the -6 row's 0.5 prints as 0).
* INT, REF, OBS, MEM: linear interpolation between the two nearest printed rows; beyond the
  printed ends, the slope of the end segment continues (clamped at 0), except REF, which stays at
  the book's fastest 0,10 s above +8.

All values are exact Fractions; a caller rounds with the campaign mode when it needs an integer.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction

import msgspec

from cristal_events.errors import RuleError

from . import datafiles
from .texts import _

FIXED_STATES: tuple[str, ...] = ("FRC", "DEX", "INT", "MAG", "CON", "REF", "OBS", "MEM", "CHAR")
PRINCIPAL: tuple[str, ...] = ("FRC", "DEX", "INT", "MAG", "CON")  # the (*) states, L78-L82

# The printed tables, score -> value (L84-L189), loaded from data/fixed_tables.json. MAG has no table (L127).
# (msgspec's JSON decoder, loaded already by every command: not the json module, for a one-shot's start-up)
_DATA = msgspec.json.decode(datafiles.read("fixed_tables.json"))
_ROWS = {state: {int(k): v for k, v in t["rows"].items()} for state, t in _DATA["tables"].items()}
#: the column each table prints, and its lines in the book (the sheet shows them)
TABLE_COLUMNS: dict[str, tuple[str, str]] = {state: (t["column"], t["lines"]) for state, t in _DATA["tables"].items()}
FRC_TABLE = {k: tuple(v) for k, v in _ROWS["FRC"].items()}  # (Max. kg, Encom. kg), L86-L96
DEX_TABLE = _ROWS["DEX"]  # Jongle, L100-L110
INT_TABLE = _ROWS["INT"]  # Q.I., L114-L125
CON_TABLE = _ROWS["CON"]  # Heures, L131-L141
REF_TABLE = {k: Fraction(v) for k, v in _ROWS["REF"].items()}  # Temps (s), L145-L153
OBS_TABLE = _ROWS["OBS"]  # Vision, L157-L165
MEM_TABLE = _ROWS["MEM"]  # Jours, L169-L177
CHAR_TABLE = _ROWS["CHAR"]  # Public, L181-L189

# Sur-Effort die by the fixed state's current value (L239-L242): (lowest score of the band, die).
SUR_EFFORT_BANDS: tuple[tuple[int | None, str], ...] = tuple((low, die) for low, die in _DATA["sur_effort_bands"])


def lift_max(frc: int) -> Fraction:
    """Max. lift in kg (L86-L96): ``150 + 22.5 FRC``; FRC 4 -> 240 (L235). Clamped at 0."""
    return max(Fraction(0), 150 + Fraction(45, 2) * frc)


def encumbrance_limit(frc: int) -> Fraction:
    """Encom. in kg (L86-L96): ``50 + 7.5 FRC``, the normal carried weight (L816-L818). Clamped at 0."""
    return max(Fraction(0), 50 + Fraction(15, 2) * frc)


def juggling(dex: int) -> int | None:
    """Objects juggled (L100-L110): ``DEX + 2`` from DEX 0, none below."""
    return dex + 2 if dex >= 0 else None


def con_hours(con: int) -> Fraction:
    """"Heures" (L131-L141): ``16 + 2 CON``, clamped at 0 (D33)."""
    return Fraction(max(0, 16 + 2 * con))


def audience(char: int) -> int:
    """"Public" (L181-L189): ``floor(4 * 2^(CHAR/2))``; CHAR -6 -> 0, CHAR 3 -> 11."""
    exp = char + 4  # 4 * 2^(c/2) = 2^((c+4)/2)
    if exp < 0:
        return 0  # below 1 listener: the -6 row prints 0
    whole = 2 ** (exp // 2)
    return whole if exp % 2 == 0 else math.isqrt(2 * whole * whole)


def _interpolate(table: dict[int, int] | dict[int, Fraction], score: int, *, hold_high: bool = False) -> Fraction:
    keys = sorted(table)
    if score in table:
        return Fraction(table[score])
    if score < keys[0]:
        a, b = keys[0], keys[1]
    elif score > keys[-1]:
        if hold_high:
            return Fraction(table[keys[-1]])
        a, b = keys[-2], keys[-1]
    else:
        a = max(k for k in keys if k < score)
        b = min(k for k in keys if k > score)
    ya, yb = Fraction(table[a]), Fraction(table[b])
    return max(Fraction(0), ya + (yb - ya) * (score - a) / (b - a))


def iq(int_score: int) -> Fraction:
    """Q.I. (L114-L125), interpolated between rows: Elfe INT 3 -> 117.5, Nain INT -3 -> 85."""
    return _interpolate(INT_TABLE, int_score)


def reaction_time(ref: int) -> Fraction:
    """Reaction "Temps" in seconds (L145-L153), interpolated; 0,10 s at +8 and above."""
    return _interpolate(REF_TABLE, ref, hold_high=True)


def vision(obs: int) -> Fraction:
    """"Vision" (L157-L165), interpolated: OBS 3 -> 17, OBS -3 -> 3.5."""
    return _interpolate(OBS_TABLE, obs)


def memory_days(mem: int) -> Fraction:
    """"Jours" (L169-L177), interpolated: MEM -3 -> 3, MEM 3 -> 13."""
    return _interpolate(MEM_TABLE, mem)


TABLE_VALUE: dict[str, Callable[[int], object]] = {
    "FRC": lambda s: (lift_max(s), encumbrance_limit(s)),
    "DEX": juggling,
    "INT": iq,
    "CON": con_hours,
    "REF": reaction_time,
    "OBS": vision,
    "MEM": memory_days,
    "CHAR": audience,
}


def table_value(state: str, score: int) -> object:
    """The book's table value of ``state`` at ``score`` (MAG has no table, L127)."""
    try:
        fn = TABLE_VALUE[state.upper()]
    except KeyError:
        raise RuleError(_("The fixed state {state} has no table; tables exist for {table_value}.").format(state=state, table_value=', '.join(TABLE_VALUE))) from None
    return fn(score)


def sur_effort_die(score: int) -> str:
    """The Sur-Effort die added to a fixed state (L239-L242), chosen by its current value (D27)."""
    die = SUR_EFFORT_BANDS[0][1]
    for low, band_die in SUR_EFFORT_BANDS[1:]:
        if low is not None and score >= low:
            die = band_die
    return die


def _show(value: object) -> str:
    """A table value as the book prints it: French decimal comma, "-" for none."""
    if value is None:
        return "-"
    if not isinstance(value, int | float | Fraction | str):
        raise TypeError(f"{value!r} is not a table value")
    f = Fraction(value)
    if f.denominator == 1:
        return str(f.numerator)
    return f"{float(f):.3f}".rstrip("0").rstrip(".").replace(".", ",")


def table_row(state: str, score: int) -> dict[str, object]:
    """The sheet's entry of one fixed state's table (L84-L189): the column, its value at ``score`` as
    printed ("240 / 80" for FRC's Max./Encom.), and the book's lines."""
    column, lines = TABLE_COLUMNS[state]
    value = table_value(state, score)
    shown = " / ".join(_show(v) for v in value) if isinstance(value, tuple) else _show(value)
    return {"state": state, "score": score, "column": column, "value": shown, "lines": lines}


def table_rows(fixed: dict[str, int]) -> list[dict[str, object]]:
    """Every fixed state's table entry for the scores ``fixed`` (MAG has none, L127)."""
    return [table_row(s, fixed[s]) for s in FIXED_STATES if s in TABLE_COLUMNS and s in fixed]
