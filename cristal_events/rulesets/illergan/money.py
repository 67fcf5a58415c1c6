"""Starls, resale, equipment slots and charges, armour pieces (I-L22-83).

Amounts are kept in copper Starls ('C). ``1'O = 30'A`` and ``1'A = 30'C`` (I-L24).
"""

from collections.abc import Mapping
from fractions import Fraction

import msgspec

from cristal_events.errors import RuleError
from cristal_events.rulesets.illergan.content import Content
from cristal_events.rulesets.illergan.settings import DEFAULT, IllerganSettings, round_gap

from .texts import _


class Starls(msgspec.Struct, frozen=True, kw_only=True):
    """An amount split into gold, silver and copper Starls."""

    O: int = 0  # noqa: E741 - the book's own abbreviation
    A: int = 0
    C: int = 0

    def __str__(self) -> str:
        parts = [f"{v}'{k}" for k, v in (("O", self.O), ("A", self.A), ("C", self.C)) if v]
        return " ".join(parts) or "0'C"


def _ratio(content: Content) -> int:
    ratio = content.pack.coin_ratio
    if ratio is None:
        raise content.missing(_('The coin ratio'), "G1 coin denominations")
    return ratio


def to_copper(amount: Starls, content: Content) -> int:
    """Copper value of an amount: 2'O 15'A 10'C = 2260'C."""
    r = _ratio(content)
    return (amount.O * r + amount.A) * r + amount.C


def from_copper(copper: int, content: Content) -> Starls:
    """Largest coins first: 75'C = 2'A 15'C."""
    if copper < 0:
        raise RuleError(_("An amount of Starls cannot be negative ({copper}'C).").format(copper=copper))
    r = _ratio(content)
    silver, c = divmod(copper, r)
    gold, a = divmod(silver, r)
    return Starls(O=gold, A=a, C=c)


def resale_price(new_price_c: int, content: Content, *, jewel: bool = False,
                 settings: IllerganSettings = DEFAULT) -> int:
    """Reference resale price: 25% of the new price in correct condition (I-L26); jewels keep their value (I-L27)."""
    if jewel:
        return new_price_c
    pct = content.pack.resale_pct
    if pct is None:
        raise content.missing(_('The resale percentage'), "I-L26")
    return int(round_gap(Fraction(new_price_c * pct, 100), settings.resale_rounding))


def piece_price(full_price_c: int, piece: str, content: Content, *, settings: IllerganSettings = DEFAULT) -> int:
    """A piece bought alone: the cuirasse 40%, each other piece 20% of the full armour (I-L79)."""
    table = content.pack.piece_price_pct
    pct = table["cuirasse"] if piece == "cuirasse" else table["other"]
    return int(round_gap(Fraction(full_price_c * pct, 100), settings.resale_rounding))


def helmet_sr(other_sr: int, content: Content) -> int:
    """The helmet has −10 SR, minimum 0, against the other pieces (I-L83)."""
    return max(0, other_sr - (content.pack.helmet_sr_malus or 0))


def max_charges(fo: int) -> int:
    """Bag plus satchel hold at most [10 + Fo] charges (I-L43)."""
    return 10 + fo


# Equipped slots without encumbrance (I-L31-43): slot -> how many.
SLOT_LIMITS: dict[str, int] = {
    "armour": 1, "hands": 2, "stowed_weapons": 2, "jewels": 5, "belt": 1, "quiver": 1,
    "javelins": 2, "francisques": 3, "daggers": 5, "boots": 1, "cape": 1, "bag": 1, "satchel": 1,
}


class Encumbrance(msgspec.Struct, frozen=True, kw_only=True):
    charges: int
    max_charges: int
    over_slots: tuple[str, ...]
    encumbered: bool


def encumbrance(*, fo: int, equipped: Mapping[str, int], bag: Mapping[str, int], content: Content,
                talismans: int = 0, grigris: int = 0, stowed_two_handed: int = 0, stowed_shields: int = 0) -> Encumbrance:
    """Charges of the bag and satchel and the slots over their limits (I-L29-55).

    ``equipped`` counts items per slot; ``bag`` counts items by name (charges from the pack, G2).
    Stowed: one two-handed weapon, or up to two one-handed/bastard weapons, or one shield (I-L33).
    Talismans: 2 active, or 1 active grigri (I-L34).
    """
    over = [slot for slot, n in equipped.items() if n > SLOT_LIMITS.get(slot, 0)]
    stowed = equipped.get("stowed_weapons", 0)
    if (stowed_two_handed or stowed_shields) and stowed + stowed_two_handed + stowed_shields > 1:
        over.append("stowed_weapons")
    if grigris > 1 or talismans > 2 or (grigris and talismans):
        over.append("talismans")
    charges = 0
    for name, count in bag.items():
        per = content.pack.charges.get(name)
        if per is None:
            raise content.missing(_('The charges of {name!r}').format(name=name), "G2 encumbrance table")
        charges += per * count
    limit = max_charges(fo)
    return Encumbrance(charges=charges, max_charges=limit, over_slots=tuple(dict.fromkeys(over)),
                       encumbered=bool(over) or charges > limit)
