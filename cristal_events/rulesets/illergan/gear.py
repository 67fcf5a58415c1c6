"""What a hero has equipped and what weighs in the bag and satchel (I-L29-55), from the folded hero.

Pure. The weapon, armour and shield in use are equipped (the weapon takes one hand, two for a
two-handed grip; the shield one hand, I-L32); an item the pack gives an equipment slot (``item_slots``:
boots, cape, belt, quiver, javelins, francisques, daggers, jewels, bag, satchel ...) is equipped up to
the slot's limit (I-L31-43) and the rest goes to the bag. Belt and quiver contents and everyday objects
are not charges (I-L46, I-L51), nor the pieces worn with the armour (``worn``). Everything else carried
is in the bag and satchel and counts its charges (pack ``charges``, G2) against [10 + Fo] (I-L43).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from cristal_events.errors import RuleError

from . import money
from .content import Content
from .state import Hero

UNCOUNTED = frozenset({"belt_contents", "quiver_contents", "everyday", "worn"})
HANDS = {"one": 1, "bastard": 1, "two": 2}
_UNSET: Any = object()


def load(hero: Hero, content: Content, *, items: dict[str, int] | None = None, weapon: Any = _UNSET,
         armour: Any = _UNSET, shield: Any = _UNSET) -> money.Encumbrance:
    """The hero's slots and charges, optionally as they would be after a change (items or gear)."""
    bag = dict(hero.items if items is None else items)
    weapon = hero.weapon if weapon is _UNSET else weapon
    armour = hero.armour if armour is _UNSET else armour
    shield = hero.shield if shield is _UNSET else shield
    equipped: Counter[str] = Counter()

    def take(name: str) -> None:
        held = name if bag.get(name, 0) > 0 else next((k for k in bag if base(k) == name), None)
        if held is not None:
            bag[held] -= 1
            if not bag[held]:
                del bag[held]

    if weapon:
        equipped["hands"] += HANDS[content.entry("weapons", weapon).grip]
        take(weapon)
    if shield:
        equipped["hands"] += 1
        take(shield)
    if armour:
        equipped["armour"] += 1
        take(armour)
    for name, count in list(bag.items()):
        slot = _listed(name, content.pack.item_slots)
        if slot is None:
            continue
        if slot in UNCOUNTED:
            del bag[name]
            continue
        placed = min(count, max(0, money.SLOT_LIMITS.get(slot, 0) - equipped[slot]))
        equipped[slot] += placed
        if placed == count:
            del bag[name]
        else:
            bag[name] = count - placed
    weighed: Counter[str] = Counter()
    for name, n in bag.items():
        weighed[name if name in content.pack.charges else base(name)] += n
    return money.encumbrance(fo=hero.characteristics.get("Fo", 0), equipped=dict(equipped), bag=weighed,
                             content=content)


def base(name: str) -> str:
    """The object without its note: "Potion de soin (20PV)" and "Cotte de mailles (cuirasse)" are a
    Potion de soin and a Cotte de mailles for the slot and charge tables."""
    return name.split(" (", 1)[0]


def _listed(name: str, table: dict[str, Any]) -> Any:
    return table.get(name, table.get(base(name)))


def check(hero: Hero, content: Content, settings: Any, **after: Any) -> None:
    """Refuse a change that leaves the hero encumbered and worse off (more charges or an over-full slot),
    unless the campaign allows encumbrance (I-L45: the penalty has no numbers, G2)."""
    if settings.allow_encumbrance:
        return
    new = load(hero, content, **after)
    if not new.encumbered:
        return
    try:
        old = load(hero, content)
    except RuleError:
        old = None
    fresh = [s for s in new.over_slots if old is None or s not in old.over_slots]
    if fresh:
        what = {"hands": "one object in each hand (I-L32)", "armour": "one full armour (I-L31)",
                "stowed_weapons": "one two-handed weapon, two one-handed ones or a shield stowed (I-L33)",
                "talismans": "2 active talismans or 1 grigri (I-L34)"}.get(fresh[0], f"the {fresh[0]} slot (I-L29-43)")
        raise RuleError(f"{hero.name} cannot equip that: the limit is {what}.")
    if new.charges > new.max_charges and (old is None or new.charges > old.charges):
        raise RuleError(f"{hero.name} would carry {new.charges} charges in the bag and satchel, more than "
                        f"[10 + Fo] = {new.max_charges} (I-L43).")


def summary(hero: Hero, content: Content) -> dict[str, Any]:
    """The sheet's encumbrance block; a missing charge value is named rather than guessed."""
    try:
        enc = load(hero, content)
    except RuleError as err:
        return {"charges": None, "max_charges": money.max_charges(hero.characteristics.get("Fo", 0)),
                "encumbered": None, "over_slots": [], "missing": str(err)}
    return {"charges": enc.charges, "max_charges": enc.max_charges, "encumbered": enc.encumbered,
            "over_slots": list(enc.over_slots), "missing": ""}
