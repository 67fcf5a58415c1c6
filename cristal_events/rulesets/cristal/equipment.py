"""Equipment rules (seed 000, L801-L927, L1340-L1352): usability, weight, projectiles, range.

* An item whose Handicap drives one of the wearer's fixed states below 0 "should not" be used (L871),
  yet no item is ever forbidden (L801): :func:`usability` says which states go negative, and the
  character equips it only with the GM's override and penalties (ruling D9, ``item equip --gm-allow``).
* Weight carried = sum of Poids x QTÉ over every item, equipped or not (L875); 25 gold coins
  weigh 1 kg and 10 000 PO of diamonds weigh 1 kg (L820).
* A projectile and its propulsor add their ATT and DMG (L899); no FRC bonus on projectile DMG
  (L1340). Thrown range is FRC x 2 m, clamped at 0 (L1344, D15); beyond range, -1 ATT per full
  2 m (L1348-L1350, D15).
"""

from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction
from typing import Literal

import msgspec

from cristal_events.errors import RuleError
from cristal_events.rounding import to_fraction
from cristal_events.rulesets.cristal.content import FIXED_STATES, ItemTemplate
from cristal_events.rulesets.cristal.fixed import encumbrance_limit, lift_max

from .texts import _

COINS_PER_KG = 25  # L820
DIAMOND_PO_PER_KG = 10_000  # L820


def effective_fixed(fixed: Mapping[str, int], equipped: Iterable[ItemTemplate]) -> dict[str, int]:
    """Fixed states with every equipped item's Bonus/Handicap on fixed states applied (L865)."""
    out = {s: int(fixed.get(s, 0)) for s in FIXED_STATES}
    for item in equipped:
        for state, delta in item.modifiers.items():
            if state in out:
                out[state] += delta
    return out


class Usability(msgspec.Struct, frozen=True, kw_only=True):
    """Whether an item can be used, and which fixed states its handicaps would make negative."""

    item: str
    usable: bool
    negative: dict[str, int] = {}


def usability(item: ItemTemplate, fixed: Mapping[str, int]) -> Usability:
    """L871: subtract the item's handicaps; a negative fixed state makes the item unusable.

    ``fixed`` is the wearer's effective fixed states without this item. Only handicaps (negative
    modifiers) on fixed states count; exactly 0 is usable ("négatif" means below 0). FRC +2 with a
    two-handed sword marked FRC -6 gives -4: unusable.
    """
    negative = {}
    for state, delta in item.modifiers.items():
        if state in FIXED_STATES and delta < 0:
            after = int(fixed.get(state, 0)) + delta
            if after < 0:
                negative[state] = after
    return Usability(item=item.name, usable=not negative, negative=negative)


def check_usable(item: ItemTemplate, fixed: Mapping[str, int]) -> None:
    """RuleError naming the state when ``item`` cannot be used (L871)."""
    u = usability(item, fixed)
    if not u.usable:
        states = ", ".join(f"{s} {v:+d}" for s, v in u.negative.items())
        raise RuleError(_("{item} cannot be used: its handicap leaves {states} (L871).").format(item=item.name, states=states))


def gold_weight(coins: int) -> Fraction:
    """Weight in kg of ``coins`` gold coins: 4 kg per 100, 25 coins = 1 kg (L820)."""
    return Fraction(coins, COINS_PER_KG)


def diamond_weight(value_po: int) -> Fraction:
    """Weight in kg of diamonds worth ``value_po`` gold: 10 000 PO = 1 kg (L820)."""
    return Fraction(value_po, DIAMOND_PO_PER_KG)


def carried_weight(items: Iterable[tuple[ItemTemplate, int]], *, gold_coins: int = 0,
                   diamonds_po: int = 0) -> Fraction:
    """Total kg carried: Poids x QTÉ over all ``(item, qty)`` pairs, equipped or not (L875), plus gold."""
    total = gold_weight(gold_coins) + diamond_weight(diamonds_po)
    for item, qty in items:
        total += to_fraction(item.weight_kg) * qty
    return total


class Load(msgspec.Struct, frozen=True, kw_only=True):
    """Carried weight against the FRC table (L86-L96, L816): ``normal`` up to Encom., ``encumbered``
    up to Max. (slowed, by GM ruling D17), ``crushed`` above Max."""

    weight_kg: Fraction
    encumbrance_kg: Fraction
    max_kg: Fraction
    status: Literal["normal", "encumbered", "crushed"]


def load(frc: int, weight_kg: Fraction | int) -> Load:
    """Compare ``weight_kg`` with the effective FRC's Encom. and Max. columns."""
    enc, mx, w = encumbrance_limit(frc), lift_max(frc), Fraction(weight_kg)
    status: Literal["normal", "encumbered", "crushed"] = (
        "normal" if w <= enc else "encumbered" if w <= mx else "crushed"
    )
    return Load(weight_kg=w, encumbrance_kg=enc, max_kg=mx, status=status)


def thrown_range(frc: int) -> int:
    """Range without penalty of a weapon thrown by hand: FRC x 2 m, never below 0 (L1344, D15)."""
    return max(0, 2 * frc)


def range_penalty(range_m: int, distance_m: int | Fraction) -> int:
    """ATT modifier (0 or negative): -1 per full 2 m beyond range (L1348-L1350); bow 20 m at 30 m -> -5."""
    excess = Fraction(distance_m) - range_m
    return -int(excess // 2) if excess > 0 else 0


def add_dmg(a: str, b: str) -> str:
    parts = [p for p in (a.strip(), b.strip()) if p and p != "0"]
    return "+".join(parts) if parts else "0"


class RangedWeapon(msgspec.Struct, frozen=True, kw_only=True):
    """A projectile attack's summed properties (L899, L1261, L1346)."""

    att: int
    dmg: str
    range_m: int
    it: int | None


def ranged_weapon(projectile: ItemTemplate, propulsor: ItemTemplate | None, *, frc: int) -> RangedWeapon:
    """ATT and DMG of projectile + propulsor added (L899); range from the propulsor (L1346), or
    FRC x 2 when thrown (L1344); IT is the sum of the IT both define (L1261)."""
    if propulsor is None:
        if projectile.kind not in ("thrown", "projectile"):
            raise RuleError(_("{projectile} is not a projectile.").format(projectile=projectile.name))
        return RangedWeapon(att=projectile.att, dmg=projectile.dmg, range_m=thrown_range(frc), it=projectile.it)
    if propulsor.kind != "propulsor" or propulsor.range_m is None:
        raise RuleError(_("{propulsor} is not a propulsor.").format(propulsor=propulsor.name))
    its: Sequence[int] = [i for i in (projectile.it, propulsor.it) if i is not None]
    return RangedWeapon(att=projectile.att + propulsor.att, dmg=add_dmg(projectile.dmg, propulsor.dmg),
                        range_m=propulsor.range_m, it=sum(its) if its else None)


def item_self_dm(item: ItemTemplate) -> int:
    """The item's own magic protection: every magic item has DM = its MAG (L851, D7)."""
    return max(item.mag, 0)


def wearer_dm(item: ItemTemplate) -> int:
    """The DM an equipped item adds to its wearer (its DM and a DM Bonus/Handicap, L861, L865): only a
    magic item (MAG > 0, L1137) can raise it; a non-magic one may only lower it."""
    total = item.dm + item.modifiers.get("DM", 0)
    return total if item.mag > 0 else min(total, 0)


def check_magic_dm(item: ItemTemplate) -> None:
    """Refuse a non-magic item that would raise DM: "Seul les items magiques ont la capacité de renforcer
    la DM" (L861); an item is magic when its MAG is above 0 (L1137)."""
    if item.mag <= 0 and item.dm + item.modifiers.get("DM", 0) > 0:
        raise RuleError(_("{item} raises DM by {value} but has MAG {item_mag}: only a magic item (MAG > 0) can raise DM (L861, L1137).").format(item=item.name, value=item.dm + item.modifiers.get('DM', 0), item_mag=item.mag))
