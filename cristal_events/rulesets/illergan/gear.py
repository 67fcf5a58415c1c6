"""What a hero has equipped and what weighs in the bag and satchel (I-L29-55), from the folded hero.

Pure. The weapon, armour and shield in use are equipped (the weapon takes one hand, two for a
two-handed grip; the shield one hand, I-L32); the armour pieces worn (``Hero.pieces``) are the armour
too (I-L75-77). Weapons and shields carried but not in hand are stowed, back or belt, and so not
charges: one two-handed weapon, or up to two one-handed or bastard ones, or one shield (I-L33); the
rest goes to the bag (I-L48). An item the pack gives an equipment slot (``item_slots``: boots, cape,
belt, quiver, javelins, francisques, daggers, jewels, bag, satchel ...) is equipped up to the slot's
limit (I-L31-43) and the rest goes to the bag. Belt and quiver contents are free only in a belt or a
quiver the hero carries (I-L36-37, I-L46); without one they weigh in the bag. Everyday objects and the
pieces worn with the armour (``worn``) are not charges. Everything else carried is in the bag and
satchel and counts its charges (pack ``charges``, G2) against [10 + Fo] (I-L43).

Armour pieces (I-L75-79): a full armour protects the four zones; a piece (``cuirasse`` the trunk,
``casque`` the head, ``brassards`` the arms, ``jambières`` the legs; only the first two are named by
the text, ruling I7) protects its zone only, over the full armour's piece there. Every bonus and the
Dex and Dep maluses are the cuirasse's (I-L78).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from cristal_events.errors import RuleError

from . import money
from .content import Content
from .state import Hero
from .texts import _

UNCOUNTED = frozenset({"everyday", "worn"})
#: contents free only in their container (I-L36-37, I-L46): the content slot -> the container's slot
CONTAINED = {"belt_contents": "belt", "quiver_contents": "quiver"}
#: the four armour pieces (I-L75) and the hit zones each protects (ruling I7)
PIECES: dict[str, tuple[str, ...]] = {
    "cuirasse": ("tronc",), "casque": ("tête", "têtes"), "brassards": ("bras gauche", "bras droit"),
    "jambières": ("jambe gauche", "jambe droite"),
}
PIECE_OF_ZONE = {zone: piece for piece, zones in PIECES.items() for zone in zones}
HANDS = {"one": 1, "bastard": 1, "two": 2}
_UNSET: Any = object()


def load(hero: Hero, content: Content, *, items: dict[str, int] | None = None, weapon: Any = _UNSET,
         armour: Any = _UNSET, shield: Any = _UNSET, pieces: dict[str, str] | None = None) -> money.Encumbrance:
    """The hero's slots and charges, optionally as they would be after a change (items or gear)."""
    bag = dict(hero.items if items is None else items)
    pieces = hero.pieces if pieces is None else pieces
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
    if armour or pieces:
        equipped["armour"] += 1
    if armour:
        take(armour)
    for piece, name in pieces.items():
        take(piece_label(name, piece))
    _stow(bag, content)
    containers = {listed(name, content.pack.item_slots) for name in bag}
    for name, count in list(bag.items()):
        slot = listed(name, content.pack.item_slots)
        if slot is None:
            continue
        if slot in UNCOUNTED or (slot in CONTAINED and CONTAINED[slot] in containers):
            del bag[name]
            continue
        if slot in CONTAINED:
            continue  # no belt (quiver) to hold it: in the bag (I-L46, I-L48)
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


def _weapon_or_shield(name: str, content: Content) -> tuple[str, Any] | None:
    for kind in ("weapons", "shields"):
        table = content._index[kind]
        entry = table.get(name, table.get(base(name)))
        if entry is not None:
            return kind, entry
    return None


def _stow(bag: dict[str, int], content: Content) -> None:
    """Take from the bag what is stowed on the back or at the belt (I-L33): the option that spares the
    most charges among one two-handed weapon, up to two one-handed or bastard ones, or one shield."""
    def weight(name: str) -> int:
        return content.pack.charges.get(name, content.pack.charges.get(base(name), 0))

    ones: list[str] = []
    twos: list[str] = []
    shields: list[str] = []
    for name, count in bag.items():
        found = _weapon_or_shield(name, content)
        if found is None:
            continue
        kind, entry = found
        into = shields if kind == "shields" else twos if entry.grip == "two" else ones
        into.extend([name] * count)
    options = [sorted(ones, key=weight, reverse=True)[:2], sorted(twos, key=weight, reverse=True)[:1],
               sorted(shields, key=weight, reverse=True)[:1]]
    best = max(options, key=lambda names: (sum(weight(n) for n in names), len(names)))
    for name in best:
        bag[name] -= 1
        if not bag[name]:
            del bag[name]


def piece_label(armour: str, piece: str) -> str:
    """How a lone piece is carried: "Cotte de mailles (cuirasse)" (I-L77, I-L79)."""
    return f"{armour} ({piece})"


def owns(hero: Hero, item: str) -> bool:
    """The hero carries the object (its name, with or without the note the kit gave it, I-L47-48)."""
    return any(n > 0 and (name == item or base(name) == item) for name, n in hero.items.items())


def armour_on(hero: Hero, zone: str) -> str | None:
    """The armour covering ``zone``: the piece worn there, else the full armour (I-L75-77)."""
    piece = PIECE_OF_ZONE.get(zone)
    if piece is not None and piece in hero.pieces:
        return hero.pieces[piece]
    return hero.armour


def cuirasse(hero: Hero) -> str | None:
    """The armour whose bonuses and Dex / Dep maluses apply: the cuirasse's (I-L78)."""
    return hero.pieces.get("cuirasse", hero.armour)


def base(name: str) -> str:
    """The object without its note: "Potion de soin (20PV)" and "Cotte de mailles (cuirasse)" are a
    Potion de soin and a Cotte de mailles for the slot and charge tables."""
    return name.split(" (", 1)[0]


def listed(name: str, table: dict[str, Any]) -> Any:
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
        raise RuleError(_('{name} cannot equip that: the limit is {what}.').format(name=hero.name, what=what))
    if new.charges > new.max_charges and (old is None or new.charges > old.charges):
        raise RuleError(_('{name} would carry {charges} charges in the bag and satchel, more than [10 + Fo] = {max_charges} (I-L43).').format(name=hero.name, charges=new.charges, max_charges=new.max_charges))


def summary(hero: Hero, content: Content) -> dict[str, Any]:
    """The sheet's encumbrance block; a missing charge value is named rather than guessed."""
    try:
        enc = load(hero, content)
    except RuleError as err:
        return {"charges": None, "max_charges": money.max_charges(hero.characteristics.get("Fo", 0)),
                "encumbered": None, "over_slots": [], "missing": str(err)}
    return {"charges": enc.charges, "max_charges": enc.max_charges, "encumbered": enc.encumbered,
            "over_slots": list(enc.over_slots), "missing": ""}
