"""The bounds every number of the log keeps, named once.

A game never comes near them (a million XP, a thousand years in seconds), and everything derived
from the log can always hold them: SQLite's 64-bit INTEGER, the float read models, a sum of a
million of them. A number beyond them is refused, with one sentence, before anything is written:

- by the CLI as it parses an option (:func:`parse_int`, :func:`parse_real`, and the click types
  built on them in :mod:`cristal_events.cli.common`);
- by :meth:`cristal_events.Campaign.execute`, on the command and on every event it would append
  (:func:`check`), so a balance the events carry (``balance_after``, ``pv_after`` ...) can never
  pass them either;
- by the codec, when an event is decoded from an import (:func:`check_payload`).

A field that needs other bounds gives them in its class's ``bounds_exempt`` (``{field: (lo, hi)}``:
``CampaignCreated.seed`` may be any integer msgspec decodes; the die counters
``SessionEnded.engine_dice`` and ``DiceRecorded.first`` go to ``2**53``, as their ``Count`` type).
"""

from __future__ import annotations

import math
import re
from typing import Any

import msgspec

from .errors import OutOfBounds
from .i18n import N_, _
from .patterns import pattern  # compiled when first used

#: the largest magnitude of any whole number a command, an event or an import may carry
LIMIT = 10**9
#: the largest magnitude of any real number (distances, heights, thresholds); NaN and infinities never
REAL_LIMIT = 1e9
#: the largest log position or session number an option may name (SQLite's INTEGER)
POSITION_LIMIT = 2**63 - 1
#: a campaign's seed: any integer msgspec decodes (a signed or an unsigned 64-bit one)
SEED_MIN, SEED_MAX = -(2**63), 2**64 - 1


def _bound(n: float) -> str:
    """``10**9`` -> ``1_000_000_000`` (as Python and the CLI write it); ``1e9`` likewise."""
    return f"{int(n):_}" if n == int(n) else f"{n:g}"




# ----------------------------------------------------------------------------------------- checks
def _find(value: Any, path: str) -> tuple[str, Any] | None:
    """The first number in ``value`` (builtins) beyond the bounds: (its path, the number)."""
    t = type(value)
    if t is int:
        return None if -LIMIT <= value <= LIMIT else (path, value)
    if t is float:
        return None if -REAL_LIMIT <= value <= REAL_LIMIT else (path, value)  # NaN fails both
    if t is dict:
        for k, v in value.items():
            if type(v) in _DEEP:
                hit = _find(v, f"{path}.{k}" if path else str(k))
                if hit:
                    return hit
    elif t is list or t is tuple:
        for i, v in enumerate(value):
            if type(v) in _DEEP:
                hit = _find(v, f"{path}[{i}]")
                if hit:
                    return hit
    return None


_DEEP = {int, float, dict, list, tuple}


#: the sentence of a refused command ({name}: its class), of an event a command would record
#: ({name}: its tag) and of an event read from an import ({name}: where it was read)
#: (English msgids, translated when raised)
COMMAND = N_("{name}.{path} = {number} is beyond the bounds of the log ({range}); nothing was written.")
EVENT = N_("This command would record {name}.{path} = {number}, beyond the bounds of the log ({range}); "
           "nothing was written.")
IMPORTED = N_("{name}: {path} = {number} is beyond the bounds of the log ({range}).")


def check(obj: Any, *, name: str | None = None, sentence: str = COMMAND) -> None:
    """Refuse ``obj`` (a command or an event) when a number in it lies beyond the bounds (NaN and
    the infinities always do), with ``sentence`` filled in. A field its class names in
    ``bounds_exempt`` keeps the bounds given there instead."""
    data = msgspec.to_builtins(obj)
    exempt: dict[str, tuple[int, int]] = getattr(type(obj), "bounds_exempt", {})
    if exempt and type(data) is dict:
        for field, (lo, hi) in exempt.items():
            value = data.pop(field, None)
            if type(value) is int and not lo <= value <= hi:
                raise OutOfBounds(_("{name}.{field} = {value} is beyond its bounds ({lo} to {hi}); "
                                    "nothing was written.").format(name=name or type(obj).__name__, field=field,
                                                                   value=value, lo=_bound(lo), hi=_bound(hi)))
    hit = _find(data, "")
    if hit is not None:
        number = hit[1]
        if isinstance(number, float) and not math.isfinite(number):
            rng = _("a finite number from {lo} to {hi}").format(lo=f"-{_bound(LIMIT)}", hi=_bound(LIMIT))
        else:
            rng = _("{lo} to {hi}").format(lo=f"-{_bound(LIMIT)}", hi=_bound(LIMIT))
        raise OutOfBounds(_(sentence).format(name=name or type(obj).__name__, path=hit[0] or "value",
                                          number=number, range=rng))


#: every digit as 0 and every E as e: a JSON number past the bounds then shows as ten zeros in a row,
#: or an exponent as ``0e``
_ZEROS = bytes.maketrans(b"123456789E", b"000000000e")


def check_payload(event: Any, payload: str | bytes, tag: str) -> None:
    """:func:`check` for an event of type ``tag`` decoded from ``payload`` (its JSON text), skipped
    when no number in the text has ten digits or an exponent (the bounds cannot be passed then): the
    text's digits made zeros and its E lower case in one pass (``bytes.translate``), then two
    searches, 0.86 µs for a payload of 264 characters (a third search for ``0E`` made it 1.25;
    benchmarks/README.md, "Tenth session"). The sentence is made only for an event it refuses."""
    raw = (payload.encode() if isinstance(payload, str) else payload).translate(_ZEROS)
    if b"0000000000" in raw or b"0e" in raw:
        check(event, name=f"Invalid {tag!r} payload", sentence=IMPORTED)


# --------------------------------------------------------------------------------------- parsing


def _int_text(t: str) -> bool:
    """Whether ``t`` is ``[+-]?[0-9]+`` (ASCII digits, an optional sign): str methods rather than a regular
    expression, which a one-shot command would compile for its one number (``isascii`` first, since
    ``isdigit`` alone takes other scripts' digits and the superscripts)."""
    digits = t[1:] if t[:1] in ("+", "-") else t
    return digits.isascii() and digits.isdigit()


_REAL_TEXT = pattern(r"[+-]?(?:[0-9]+(?:[.,][0-9]*)?|[.,][0-9]+)(?:[eE][+-]?[0-9]+)?", re.ASCII)


def parse_int(text: Any, what: str, *, lo: int = -LIMIT, hi: int = LIMIT) -> int:
    """``"+3"`` -> 3: ASCII digits 0-9 with an optional sign and nothing else (no ``1_0``, no other
    script's digits), from ``lo`` to ``hi``; anything else is one sentence naming ``what``."""
    t = str(text).strip()
    if not _int_text(t):
        raise OutOfBounds(_("{what} '{text}' is not a whole number.").format(what=what, text=text))
    if len(t) > 30:  # int() of a huge string is slow, and the number is out of bounds anyway
        raise OutOfBounds(_("{what} '{t}…' is too large (from {bound} to {bound2}).").format(what=what, t=t[:20], bound=_bound(lo), bound2=_bound(hi)))
    n = int(t)
    if not lo <= n <= hi:
        raise OutOfBounds(_("{what} {n} is out of bounds (from {bound} to {bound2}).").format(what=what, n=n, bound=_bound(lo), bound2=_bound(hi)))
    return n


def parse_real(text: Any, what: str, *, lo: float = -REAL_LIMIT, hi: float = REAL_LIMIT) -> float:
    """``"2,5"`` -> 2.5: ASCII digits with an optional sign, decimal point (or comma) and exponent;
    never NaN or an infinity, from ``lo`` to ``hi``."""
    t = str(text).strip()
    if len(t) > 60 or not _REAL_TEXT.fullmatch(t):
        raise OutOfBounds(_("{what} '{text}' is not a number (digits 0-9, an optional sign and decimal point).").format(what=what, text=text))
    x = float(t.replace(",", "."))
    if not (lo <= x <= hi):
        raise OutOfBounds(_("{what} {t} is out of bounds (from {bound} to {bound2}).").format(what=what, t=t, bound=_bound(lo), bound2=_bound(hi)))
    return x


def as_int(value: Any) -> int | None:
    """A whole number given as a number or as text (a correction's ``--set amount=60``), or None:
    an int, an integral float, or ASCII digits with an optional sign (not ``1_0``, not another
    script's digits, which Python's ``int()`` would take); never a bool."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value) if value.is_integer() else None
    if isinstance(value, str):
        t = value.strip()
        return int(t) if len(t) <= 30 and _int_text(t) else None
    return None
