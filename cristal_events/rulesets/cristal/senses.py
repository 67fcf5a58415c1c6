"""Senses as distances (seed 000, L191-L231): the book's "Exemple d'Échelle" tables.

A sense of 0 is the human norm; each point adds the printed increment (Vue +5 m to recognise a face
...). The book sends the check itself to a "Jet de Hasard" section that is not in the text (D18), so
the engine gives the distances and the game master decides.
"""

from collections.abc import Iterable, Mapping
from functools import cache

import msgspec

from cristal_events.rulesets.cristal.content import SENSES, ItemTemplate

from . import datafiles


class Scale(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    sense: str
    example: str
    base: int
    per_point: int
    unit: str
    line: int


class _File(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    scales: list[Scale]
    _source: str = msgspec.field(default="", name="_source")


@cache
def scales() -> tuple[Scale, ...]:
    """The printed scales, loaded and validated once."""
    raw = datafiles.read("senses.json")
    return tuple(msgspec.json.decode(raw, type=_File).scales)


def reach(scale: Scale, value: int) -> int:
    """How far the example works for a sense of ``value`` (never below 0, D33)."""
    return max(0, scale.base + scale.per_point * value)


def ranges(senses: dict[str, int]) -> list[dict[str, object]]:
    """Every printed example for the senses a character has: ``{sense, example, distance, unit}``."""
    return [{"sense": s.sense, "example": s.example, "distance": reach(s, senses[s.sense]), "unit": s.unit}
            for s in scales() if s.sense in senses]


def effective(senses: Mapping[str, int], equipped: Iterable[ItemTemplate]) -> dict[str, int]:
    """The six senses (L191-L204: Vue, Ouïe, Goûter, Odorat, Toucher, Extrasensoriel; a sense the race
    does not print is 0, the human norm) with every equipped item's Bonus/Handicap on a sense applied
    (L865: "toutes les caractéristiques du personnage (... Sens, etc.)"): an item ``Vue=+2`` moves the
    Vue scale by two points."""
    out = {s: int(senses.get(s, 0)) for s in SENSES}
    by_key = {s.casefold(): s for s in SENSES}
    for item in equipped:
        for key, delta in item.modifiers.items():
            sense = by_key.get(key.casefold())
            if sense is not None:
                out[sense] += delta
    return out
