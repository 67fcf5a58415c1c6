"""Click types of the Illergan commands: KEY=N pairs and amounts of Starls."""

from __future__ import annotations

import re
from typing import Any, NamedTuple

import click

from cristal_events import bounds
from cristal_events.cli.common import IntPair, refuse_value
from cristal_events.errors import RuleError
from cristal_events.rulesets.illergan.texts import _

_STARLS = re.compile(r"^\s*([+-]?)\s*((?:\d+\s*'\s*[OAC]\s*)+)$", re.IGNORECASE | re.ASCII)
_COIN = re.compile(r"(\d+)\s*'\s*([OAC])", re.IGNORECASE | re.ASCII)

#: ``NAME=N`` (--stat Fo=4, --body, --spell, --hidden, --malus, --secondary): ``dict(pairs)``
PAIR = IntPair("NAME=N like Fo=4")


class Coins(NamedTuple):
    """An amount of Starls as typed (``"+2'A 15'C"``: not negative, 2'A and 15'C; a bare number is copper):
    its value in copper depends on the campaign's coin ratio (:meth:`copper`)."""

    text: str
    negative: bool
    counts: tuple[tuple[str, int], ...]  # (coin letter O, A or C, how many), as typed

    def copper(self, ratio: int) -> int:
        """Copper Starls (1'O = ratio'A, 1'A = ratio'C, I-L24); beyond the bounds of the log is one sentence."""
        value = {"O": ratio * ratio, "A": ratio, "C": 1}
        total = sum(n * value[c] for c, n in self.counts)
        if total > bounds.LIMIT:
            raise RuleError(_("'{text}' is {total}'C, beyond the bounds of the log ({limit:_}'C).").format(
                text=self.text, total=total, limit=bounds.LIMIT))
        return -total if self.negative else total


class StarlsType(click.ParamType):
    """A click type: ``"2'O 15'A 10'C"``, ``"-75'C"`` or a bare number of copper -> :class:`Coins`."""

    name = "STARLS"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Coins:
        if isinstance(value, Coins):
            return value
        text = str(value)
        t = text.strip()
        try:
            if re.fullmatch(r"[+-]?[0-9]+", t, re.ASCII):
                n = bounds.parse_int(t, "Amount of Starls")
                return Coins(text, n < 0, (("C", abs(n)),))
            m = _STARLS.match(t)
            if m is None:
                refuse_value(_("'{text}' is not an amount of Starls; write it like 2'O 15'A 10'C or -75'C.").format(text=text), ctx)
            counts = tuple((c.upper(), bounds.parse_int(n, "Amount of Starls")) for n, c in _COIN.findall(m.group(2)))
        except bounds.OutOfBounds as exc:
            refuse_value(str(exc), ctx)
        return Coins(text, m.group(1) == "-", counts)


STARLS = StarlsType()
