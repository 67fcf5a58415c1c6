"""Stable states DP, DM, ATT, DMG, CNC, PVmax, PMmax (seed 000, L244-L354, L636-L656).

Each = race base + fixed-state bonus + class bonus + item bonus (L246). Class rows of all classes
are summed (L636), percentages summed and applied once to (race initial + fixed-state bonus)
(L654-L656). Every division and percentage product is rounded with the campaign mode (L23, D1):

* DP    = DP_race + DP_race x sum(DP%) + sum(item DP)                     (L258-L270)
* DM    = DM_race + sum(class DM) + sum(item DM)      class DM only if PM_race > 0 (L497, D26)
* ATT   = DEX / 2 + sum(class ATT) + ATT of the weapon used               (L286-L298)
* DMG   = weapon DMG + (FRC - weapon frc_required) / 3                    (L300-L312, D2)
* CNC   = INT + sum(class CNC)                                            (L314-L326)
* PVmax = (PV_race + CON) + (PV_race + CON) x sum(PV%)                    (L328-L340)
* PMmax = (PM_race + MAG) + (PM_race + MAG) x sum(PM%); 0 if PM_race = 0  (L342-L354, L493)

``fixed`` is the character's fixed states before equipment (permanent + temporary alterations);
the Bonus/Handicap of the EQUIPPED items is applied here, once. A magic item's own DM (= MAG,
L851) protects the item and is not added to the wearer (D7); its ``dm`` field is, and only when
the item is magic (MAG > 0): a non-magic item never raises DM (L861, L1137). Item
Bonus/Handicap on stable states (e.g. ``{"PVmax": 2}``) is added last (L865).
"""

from collections.abc import Mapping, Sequence

import msgspec

from cristal_events.errors import RuleError
from cristal_events.rounding import RoundingMode, divide, percent
from cristal_events.rulesets.cristal.content import Content, ItemTemplate, Race, load_core
from cristal_events.rulesets.cristal.equipment import add_dmg, effective_fixed, wearer_dm
from cristal_events.rulesets.cristal.progression import ClassBonuses, class_bonuses

from .texts import _


class StableStates(msgspec.Struct, frozen=True, kw_only=True):
    """The seven stable states with the weapon in hand (ATT and DMG depend on it, L298)."""

    DP: int
    DM: int
    ATT: int
    DMG: str
    CNC: int
    PVmax: int
    PMmax: int
    frc_bonus: int
    weapon: str


def _item_stable(equipped: Sequence[ItemTemplate], state: str) -> int:
    return sum(i.modifiers.get(state, 0) for i in equipped)


def dp(race: Race, bonuses: ClassBonuses, equipped: Sequence[ItemTemplate], mode: RoundingMode) -> int:
    base = race.dp_initial
    return (base + percent(base, bonuses.percent.get("DP", 0), mode)
            + sum(i.dp for i in equipped) + _item_stable(equipped, "DP"))


def dm(race: Race, bonuses: ClassBonuses, equipped: Sequence[ItemTemplate]) -> int:
    class_dm = bonuses.flat.get("DM", 0) if race.pm_initial > 0 else 0
    return race.dm_initial + class_dm + sum(wearer_dm(i) for i in equipped)  # only MAG > 0 raises it (L861)


def att(fixed: Mapping[str, int], bonuses: ClassBonuses, weapon: ItemTemplate | None,
        equipped: Sequence[ItemTemplate], mode: RoundingMode) -> int:
    return (divide(fixed["DEX"], 2, mode) + bonuses.flat.get("ATT", 0)
            + (weapon.att if weapon else 0) + _item_stable(equipped, "ATT"))


def frc_bonus(frc: int, frc_required: int, mode: RoundingMode) -> int:
    """(FRC - force nécessaire de l'arme) / 3 (L302-L306): Elfe FRC -3 -> -1, Nain FRC 3 -> 1."""
    return divide(frc - frc_required, 3, mode)


def dmg(fixed: Mapping[str, int], weapon: ItemTemplate | None, mode: RoundingMode) -> tuple[str, int]:
    """The DMG expression and its FRC bonus. Bare hands: FRC / 3 alone, counted once (D2).
    A DMG-0 item never hurts (L847); projectiles get no FRC bonus (L1340)."""
    if weapon is None:
        bonus = frc_bonus(fixed["FRC"], 0, mode)
        return str(bonus), bonus
    if weapon.dmg.strip() == "0" or weapon.kind in ("projectile", "thrown"):
        return weapon.dmg, 0
    bonus = frc_bonus(fixed["FRC"], weapon.frc_required, mode)
    if bonus == 0:
        return weapon.dmg, 0
    return (add_dmg(weapon.dmg, str(bonus)) if bonus > 0 else f"{weapon.dmg}{bonus}"), bonus


def cnc(fixed: Mapping[str, int], bonuses: ClassBonuses, equipped: Sequence[ItemTemplate]) -> int:
    return fixed["INT"] + bonuses.flat.get("CNC", 0) + _item_stable(equipped, "CNC")


def pv_max(race: Race, fixed: Mapping[str, int], bonuses: ClassBonuses,
           equipped: Sequence[ItemTemplate], mode: RoundingMode) -> int:
    base = race.pv_initial + fixed["CON"]
    value = base + percent(base, bonuses.percent.get("PVmax", 0), mode) + _item_stable(equipped, "PVmax")
    return max(0, value)  # D33


def pm_max(race: Race, fixed: Mapping[str, int], bonuses: ClassBonuses,
           equipped: Sequence[ItemTemplate], mode: RoundingMode) -> int:
    if race.pm_initial <= 0:
        return 0  # "incapable de pratiquer la magie (et ce peu importe son niveau)", L493
    base = race.pm_initial + fixed["MAG"]
    value = base + percent(base, bonuses.percent.get("PMmax", 0), mode) + _item_stable(equipped, "PMmax")
    return max(0, value)  # D33


def stable_states(race: Race, class_levels: Mapping[str, int], fixed: Mapping[str, int],
                  equipped: Sequence[ItemTemplate] = (), *, weapon: ItemTemplate | None = None,
                  mode: RoundingMode = "round", content: Content | None = None) -> StableStates:
    """All seven stable states of a character (L244-L354).

    ``weapon`` is the equipped item used to attack (None: bare hands); it must be in ``equipped``.
    Example: a Humain Guerrier 1 with fixed states 0 has PVmax 16 (round) or 15 (truncate).
    """
    if mode not in ("round", "truncate"):
        raise RuleError(_("Unknown rounding mode {mode!r}; use round or truncate.").format(mode=mode))
    if weapon is not None and weapon not in equipped:
        raise RuleError(_("{weapon} must be equipped to attack with it (L877).").format(weapon=weapon.name))
    eff = effective_fixed(fixed, equipped)
    bonuses = class_bonuses(content or load_core(), class_levels)
    dmg_expr, bonus = dmg(eff, weapon, mode)
    return StableStates(
        DP=dp(race, bonuses, equipped, mode),
        DM=dm(race, bonuses, equipped),
        ATT=att(eff, bonuses, weapon, equipped, mode),
        DMG=dmg_expr,
        CNC=cnc(eff, bonuses, equipped),
        PVmax=pv_max(race, eff, bonuses, equipped, mode),
        PMmax=pm_max(race, eff, bonuses, equipped, mode),
        frc_bonus=bonus,
        weapon=weapon.name if weapon else "",
    )


def regeneration_per_day(race: Race, pv_max_value: int, mode: RoundingMode) -> int:
    """PV regenerated per 24 h = PVmax x Régénération % (L491); Humain PVmax 12 -> 2 / 1 (D28)."""
    return percent(pv_max_value, race.regen_pct, mode)


def death_threshold(race: Race, con: int) -> int:
    """Dead when PV falls below ``-(PV_race + 2 CON)`` (L373); clamped at 0 or below (D8, D33)."""
    return min(0, -(race.pv_initial + 2 * con))

