"""Helpers of the Illergan commands: parse KEY=N pairs and Starls amounts."""

import re

from cristal_events import bounds
from cristal_events.cli.common import int_pairs, whole_number
from cristal_events.errors import RuleError

_STARLS = re.compile(r"^\s*([+-]?)\s*((?:\d+\s*'\s*[OAC]\s*)+)$", re.IGNORECASE | re.ASCII)
_COIN = re.compile(r"(\d+)\s*'\s*([OAC])", re.IGNORECASE | re.ASCII)


def pairs(items: tuple[str, ...], option: str) -> dict[str, int]:
    """``("Fo=4", "Dex=50")`` -> {"Fo": 4, "Dex": 50}."""
    return int_pairs(items, option, "NAME=N like Fo=4")


def starls(text: str, ratio: int) -> int:
    """``"+2'A 15'C"`` -> copper Starls (1'O = 30'A, 1'A = 30'C, I-L24); a bare number is copper."""
    t = text.strip()
    if re.fullmatch(r"[+-]?[0-9]+", t, re.ASCII):
        return whole_number(t, "Amount of Starls")
    m = _STARLS.match(t)
    if m is None:
        raise RuleError(f"'{text}' is not an amount of Starls; write it like 2'O 15'A 10'C or -75'C.")
    value = {"O": ratio * ratio, "A": ratio, "C": 1}
    total = sum(whole_number(n, "Amount of Starls") * value[c.upper()] for n, c in _COIN.findall(m.group(2)))
    if total > bounds.LIMIT:
        raise RuleError(f"'{text}' is {total}'C, beyond the bounds of the log ({bounds.LIMIT:_}'C).")
    return -total if m.group(1) == "-" else total
