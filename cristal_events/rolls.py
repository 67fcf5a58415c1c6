"""Dice provenance: what every event that used dice stores, so that a replay never rolls again."""

from typing import Literal

import msgspec

RollSource = Literal["entered", "rolled"]


class Roll(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """One evaluated dice expression.

    ``faces`` lists every die face in the order the expression rolls them (left to right).
    ``source`` is ``entered`` when the faces were rolled at the table and typed in, ``rolled`` when
    the engine's seeded RNG produced them. ``purpose`` says what the roll was for (``attack``,
    ``damage``, ``initiative`` ...), free text chosen by the rule that rolled.
    """

    expr: str
    faces: tuple[int, ...]
    total: int
    source: RollSource
    purpose: str = ""
