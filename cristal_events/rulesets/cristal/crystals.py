"""Crystals, artefacts and potions of *Les Lois du Cristal* (seed 000, L1071-L1184).

Pure functions over plain values, as in :mod:`.magic`, on which this module builds (the import goes
one way only: :mod:`.magic` never imports this module). The crystal bands, the four crystal spells, the two
artefact spells, the explosion and the potion limits are data in ``data/crystals.json``, loaded and
validated once.
"""

from functools import cache
from typing import Literal

import msgspec

from cristal_events.dice import Dice
from cristal_events.errors import ContentError, RuleError, UnknownEntity
from cristal_events.rolls import Roll

from . import datafiles
from .magic import (
    SIMPLE_DICE,
    EffectSpend,
    VariableEffect,
    effect_outcome,
    parse_scale,
    spell_pm_cost,
)
from .texts import _

__all__ = [
    "CrystalBand",
    "CrystalSpell",
    "StoredSpell",
    "Crystal",
    "StoreResult",
    "Explosion",
    "AnalyseResult",
    "Potion",
    "PotionRelease",
    "crystal_band",
    "crystal_spell",
    "fermeture_pm",
    "store_in_crystal",
    "roll_explosion",
    "release_crystal",
    "lock_crystal",
    "unlock_crystal",
    "vision_cristalline",
    "detect_magic",
    "analyse_cost",
    "analyse_magique",
    "make_potion",
    "trigger_potion",
    "PotionTrigger",
]


# --------------------------------------------------------------------------- crystals

class CrystalBand(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One row of the crystal table (L1084-L1089); ``None`` price or size means "spéciale"."""

    min_pm: int
    max_pm: int | None
    price_po: int | None
    size_cm3: int | None
    line: int


class _SpellEffect(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    name: str
    scale: str
    unit: str
    reduction: int


class CrystalSpell(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The printed fields of a crystal or artefact spell (L1099-L1167)."""

    key: str
    name: str
    xp_cost: int
    cnc: int
    base_pm: int
    time: str
    line: int
    effect: _SpellEffect | None = None

    @property
    def variable_effect(self) -> VariableEffect | None:
        e = self.effect
        return None if e is None else VariableEffect(name=e.name, scale=e.scale, unit=e.unit, reduction=e.reduction)


class _Explosion(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    radius_m: int
    die_per_pm: str
    line: int


class _PotionRules(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    max_pm: int
    triggers: tuple[str, ...]
    line: int


class _CrystalFile(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    source: str
    bands: tuple[CrystalBand, ...]
    explosion: _Explosion
    fermeture_slice_pm: int
    spells: tuple[CrystalSpell, ...]
    potion: _PotionRules


@cache
def _crystal_data() -> _CrystalFile:
    try:
        return msgspec.json.decode(datafiles.read("crystals.json"), type=_CrystalFile)
    except msgspec.ValidationError as exc:
        raise ContentError(_("crystals.json is malformed: {exc}.").format(exc=exc)) from exc


def crystal_band(capacity_pm: int) -> CrystalBand:
    """The price and size band of a crystal holding up to ``capacity_pm`` PM (L1083-L1089)."""
    if capacity_pm < 0:
        raise RuleError(_("A crystal cannot hold a negative number of PM ({capacity_pm}).").format(capacity_pm=capacity_pm))
    for band in _crystal_data().bands:
        if capacity_pm >= band.min_pm and (band.max_pm is None or capacity_pm <= band.max_pm):
            return band
    raise ContentError(_("No crystal band covers {capacity_pm} PM.").format(capacity_pm=capacity_pm))  # pragma: no cover - bands are contiguous


def crystal_spell(key: str) -> CrystalSpell:
    """Printed fields of ``liberation_cristalline``, ``fermeture_cristalline``, ``vision_cristalline``,
    ``verrou_cristallin``, ``detection_magique`` or ``analyse_magique``."""
    for spell in _crystal_data().spells:
        if spell.key == key:
            return spell
    raise UnknownEntity(_("Unknown crystal or artefact spell {key!r}.").format(key=key))


class StoredSpell(msgspec.Struct, frozen=True, kw_only=True):
    """A cast spell kept in a crystal or potion: its name, total PM and PM per effect (fixed, L1105)."""

    name: str
    pm: int
    spends: tuple[EffectSpend, ...] = ()


class Crystal(msgspec.Struct, frozen=True, kw_only=True):
    """A crystal's sheet: exact PM capacity (L919), the stored spell, and who locked it (Verrou)."""

    capacity: int
    stored: StoredSpell | None = None
    locked_by: str | None = None
    destroyed: bool = False


def fermeture_pm(stored_pm: int) -> int:
    """PM of Fermeture Cristalline: 3 base + 1 per started slice of 6 stored PM, at least 1 (L1115, ruling D12)."""
    data = _crystal_data()
    base = crystal_spell("fermeture_cristalline").base_pm
    return base + max(-(-stored_pm // data.fermeture_slice_pm), 1)


class Explosion(msgspec.Struct, frozen=True, kw_only=True):
    """Over-capacity blast: ``[1d4]`` damage per PM of the spell, to everyone within 6 m (L1093)."""

    radius_m: int
    expr: str
    roll: Roll | None = None


class StoreResult(msgspec.Struct, frozen=True, kw_only=True):
    """What an attempt to store a spell did: ``stored``, ``failed`` (a spell failed, L1077) or ``exploded``."""

    outcome: Literal["stored", "failed", "exploded"]
    crystal: Crystal
    explosion: Explosion | None = None


def store_in_crystal(
    crystal: Crystal, spell: StoredSpell, *, spell_success: bool, fermeture_success: bool
) -> StoreResult:
    """Close a successfully cast spell in a crystal with Fermeture Cristalline (L1077, L1091-L1093, L1115).

    Both spells must succeed or nothing happens. A spell above the crystal's capacity explodes it;
    a crystal that already holds a spell must be released first.
    """
    if crystal.destroyed:
        raise RuleError(_("This crystal was destroyed by an explosion."))
    if crystal.stored is not None:
        raise RuleError(_("The crystal already holds {crystal_stored}; release it before storing another spell.").format(crystal_stored=crystal.stored.name))
    if not (spell_success and fermeture_success):
        return StoreResult(outcome="failed", crystal=crystal)
    if spell.pm > crystal.capacity:
        blast = _crystal_data().explosion
        count = SIMPLE_DICE.match(blast.die_per_pm)
        assert count is not None
        expr = f"{int(count['count'] or 1) * spell.pm}d{count['faces']}"
        return StoreResult(
            outcome="exploded",
            crystal=msgspec.structs.replace(crystal, destroyed=True),
            explosion=Explosion(radius_m=blast.radius_m, expr=expr),
        )
    return StoreResult(outcome="stored", crystal=msgspec.structs.replace(crystal, stored=spell, locked_by=None))


def roll_explosion(dice: Dice, explosion: Explosion) -> Explosion:
    """Roll an over-capacity explosion's damage (the same total hits everyone in the radius)."""
    return msgspec.structs.replace(explosion, roll=dice.roll(explosion.expr, purpose="explosion"))


def release_crystal(crystal: Crystal, releaser: str) -> tuple[Crystal, StoredSpell]:
    """Libération Cristalline: the stored spell goes off as it was cast, with no CNC roll nor PM (L1105).

    Only the locker may release a locked crystal (L1135); the lock vanishes with the release.
    """
    if crystal.stored is None:
        raise RuleError(_("The crystal holds no spell to release."))
    if crystal.locked_by is not None and crystal.locked_by != releaser:
        raise RuleError(_("The crystal is locked by {crystal_locked_by}; only they can release it.").format(crystal_locked_by=crystal.locked_by))
    return msgspec.structs.replace(crystal, stored=None, locked_by=None), crystal.stored


def lock_crystal(crystal: Crystal, locker: str) -> Crystal:
    """Verrou Cristallin: only ``locker`` can release the stored spell from now on (L1135)."""
    if crystal.stored is None:
        raise RuleError(_("Verrou Cristallin needs a crystal that holds a spell."))
    if crystal.locked_by is not None:
        raise RuleError(_("The crystal is already locked by {crystal_locked_by}.").format(crystal_locked_by=crystal.locked_by))
    return msgspec.structs.replace(crystal, locked_by=locker)


def unlock_crystal(crystal: Crystal, mage: str) -> Crystal:
    """Lift a Verrou Cristallin: only the mage who laid it can (L1135, ruling in docs/rulings.md)."""
    if crystal.locked_by is None:
        raise RuleError(_("This crystal is not locked."))
    if crystal.locked_by != mage:
        raise RuleError(_("The crystal is locked by {crystal_locked_by}; only they can lift the lock.").format(crystal_locked_by=crystal.locked_by))
    return msgspec.structs.replace(crystal, locked_by=None)


def vision_cristalline(crystal: Crystal) -> StoredSpell | None:
    """The stored spell and its PM per effect (L1125); a locked crystal hides it (L1135)."""
    if crystal.locked_by is not None:
        raise RuleError(_("Vision Cristalline cannot see through a Verrou Cristallin."))
    return crystal.stored


# --------------------------------------------------------------------------- artefacts

def detect_magic(item_mag: int) -> int | None:
    """Détection Magique (L1157): the item's MAG when it is magic (MAG > 0, L1137), else None."""
    return item_mag if item_mag > 0 else None


def analyse_cost(item_mag: int) -> int:
    """PM of Analyse Magique on an artefact: 2 base + 4 per MAG (L1167); MAG 2 -> 10 PM."""
    spell = crystal_spell("analyse_magique")
    effect = spell.variable_effect
    assert effect is not None
    return spell.base_pm + parse_scale(effect.scale).per_pm * item_mag


class AnalyseResult(msgspec.Struct, frozen=True, kw_only=True):
    """Whether the caster now understands the artefact, and the PM the cast took."""

    understood: bool
    pm_spent: int


def analyse_magique(item_mag: int, magie_pm: int, *, concentration_success: bool = True) -> AnalyseResult:
    """Analyse Magique with ``magie_pm`` PM in its Magie effect: it needs 4 PM per MAG (L1167).

    Too few PM, or a failed concentration, leave the artefact unknown and the PM spent (ruling D36).
    """
    spell = crystal_spell("analyse_magique")
    effect = spell.variable_effect
    assert effect is not None
    spend = EffectSpend(effect=effect, pm=magie_pm)
    cost = spell_pm_cost(spell.base_pm, [spend])
    enough = effect_outcome(effect, magie_pm).steps >= item_mag
    return AnalyseResult(understood=enough and concentration_success, pm_spent=cost)


# --------------------------------------------------------------------------- potions

PotionTrigger = Literal["ingestion", "contact", "ouverture"]
#: the triggers a Potion event can carry (the data's ``triggers`` name them, L1173-L1175)
POTION_TRIGGERS: tuple[PotionTrigger, ...] = ("ingestion", "contact", "ouverture")


class Potion(msgspec.Struct, frozen=True, kw_only=True):
    """A liquid holding one spell (L1169), released once by its trigger (L1173-L1175)."""

    spell: StoredSpell
    trigger: PotionTrigger
    used: bool = False


class PotionRelease(msgspec.Struct, frozen=True, kw_only=True):
    """A potion went off: its spell acts on whoever or whatever triggered it (L1177)."""

    potion: Potion
    spell: StoredSpell
    target: str


def make_potion(spell: StoredSpell, trigger: str) -> Potion:
    """Put a spell in a potion: at most 15 PM (L1184) and one of the three triggers (L1173-L1175)."""
    rules = _crystal_data().potion
    if trigger not in rules.triggers:
        raise RuleError(_("A potion is triggered by {rules_triggers}, not {trigger!r}.").format(rules_triggers=', '.join(rules.triggers), trigger=trigger))
    kind = next((t for t in POTION_TRIGGERS if t == trigger), None)
    if kind is None:
        raise RuleError(_("A potion is triggered by {potion_triggers}, not {trigger!r}.").format(potion_triggers=', '.join(POTION_TRIGGERS), trigger=trigger))
    if spell.pm > rules.max_pm:
        raise RuleError(_("A potion holds at most {rules_max_pm} PM; {spell} has {spell_pm}.").format(rules_max_pm=rules.max_pm, spell=spell.name, spell_pm=spell.pm))
    return Potion(spell=spell, trigger=kind, used=False)


def trigger_potion(potion: Potion, how: str, target: str) -> PotionRelease | None:
    """``how`` happens to the potion (ingestion, contact, ouverture); None if that is not its trigger."""
    if potion.used:
        raise RuleError(_("This potion was already used; an empty vial has no power left."))
    if how not in _crystal_data().potion.triggers:
        raise RuleError(_("Unknown potion trigger {how!r}.").format(how=how))
    if how != potion.trigger:
        return None
    return PotionRelease(potion=msgspec.structs.replace(potion, used=True), spell=potion.spell, target=target)
