"""Combat events: what happened in a fight, frozen and tagged (explicit, stable tags; past tense).

Re-exported by ``model`` (``from .model import AttackResolved`` keeps working). Any event that used
dice stores its :class:`~cristal_events.rolls.Roll`s, so replay never rolls.
"""

from typing import Any, ClassVar, Literal

import msgspec

from ....events import Event
from ....rolls import Roll
from .. import magic as m
from ..state import Condition  # a fighter's condition: a state type the events carry

# =========================================================================== events

class FighterEntry(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    it: int
    stats: dict[str, int | str] = {}

#: who spends the Chance reroll (L56): the player (Chance > 0) or the GM (Chance < 0)
RerolledBy = Literal["player", "gm"]


class InitiativeResult(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    base_it: int
    ref: int
    die: int
    it: int
    roll: Roll


class CombatStarted(Event, frozen=True, tag="combat.started"):
    """The fight begins; base ITs set by the game master (initiative method 1, L1317)."""

    name: str
    fighters: list[FighterEntry]


class CombatJoined(Event, frozen=True, tag="combat.joined"):
    """A newcomer: the average IT of those present unless the GM set one (L1220, D24)."""

    name: str
    fighter: FighterEntry
    averaged: bool = False


class InitiativeRolled(Event, frozen=True, tag="combat.initiative_rolled"):
    """``IT = base - ([1d6] + REF x 2)`` for each roller (L1319)."""

    name: str
    results: list[InitiativeResult]


class TieBroken(Event, frozen=True, tag="combat.tie_broken"):
    """Equal IT and REF: each rolled 1d6, highest acts first (L1202); those level at the top rolled
    again. v2: ``rounds`` keeps every round's faces (v1's ``rolls`` kept only each one's last die)."""

    version: ClassVar[int] = 2
    name: str
    it: int
    rounds: list[dict[str, Roll]]
    winner: str

    @property
    def rolls(self) -> dict[str, Roll]:
        """Each contender's last die (the view of v1)."""
        last: dict[str, Roll] = {}
        for this in self.rounds:
            last.update(this)
        return last


def upcast_tie_broken_v1(payload: dict[str, Any]) -> dict[str, Any]:
    """combat.tie_broken v1 -> v2: the one dict of last dice becomes the only round (the earlier
    rounds' faces were never stored)."""
    out = {k: v for k, v in payload.items() if k != "rolls"}
    out["rounds"] = [payload.get("rolls", {})]
    return out


UPCASTERS = {("combat.tie_broken", 1): upcast_tie_broken_v1}


class ActionTaken(Event, frozen=True, tag="combat.action_taken"):
    """Any action; its duration is added to the actor's IT (L1206-L1259)."""

    name: str
    actor: str
    what: str
    seconds: int
    action: str = ""
    rolls: list[Roll] = []
    aided: str = ""


class TurnPassed(Event, frozen=True, tag="combat.turn_passed"):
    """+1 IT at a time until the actor no longer holds the turn (L1292, D25)."""

    name: str
    actor: str
    seconds: int


class Swing(msgspec.Struct, frozen=True, kw_only=True):
    die: int
    total: int
    hit: bool
    roll: Roll | None = None
    damage: int = 0
    damage_roll: Roll | None = None


class AttackResolved(Event, frozen=True, tag="combat.attack_resolved"):
    """``ATT + 1d20 > DP`` (L1334), damage on a hit (L1354); IT += the weapon's IT (L1261)."""

    name: str
    attacker: str
    target: str
    att: int
    dp: int
    swings: list[Swing]
    seconds: int
    weapon: str = ""
    projectile: str = ""
    distance: int | None = None
    range_penalty: int = 0
    alignment_penalty: int = 0
    chain: bool = False
    back: bool = False
    vol_spent: int = 0
    dmg: str = ""
    projectiles_used: int = 0  # taken from the attacker's inventory (a character's); 0 in logs before this field
    natural: str = ""  # the race's natural weapon used (L463-L469)
    ready_at: int | None = None  # ... which recovers until this IT (L469)


class SpellCast(Event, frozen=True, tag="combat.spell_cast"):
    """PM paid and the concentration rolled (L1040-L1046); the incantation is added at once (L1267)."""

    name: str
    caster: str
    spell: str
    spends: dict[str, int]
    targets: list[str]
    pm_cost: int
    pm_before: int
    pm_after: int
    overdraw_pv: int
    cnc: int
    penalty: int
    die: int
    total: int
    spell_cnc: int
    success: bool
    margin: int
    time: str
    incantation: int
    combustion: int
    roll: Roll | None = None
    penalties: list[str] = []
    lowered_dm: dict[str, int] = {}
    combustion_on_success: int | None = None  # what a Chance reroll that succeeds would add


class EffectResult(msgspec.Struct, frozen=True, kw_only=True):
    name: str
    unit: str
    pm_after: int
    amount: str
    value: int | None = None
    roll: Roll | None = None


class TargetResult(msgspec.Struct, frozen=True, kw_only=True):
    target: str
    dm: int
    effects: list[EffectResult]
    damage: int = 0


class SpellReleased(Event, frozen=True, tag="combat.spell_released"):
    """The effects go off per target after its DM (L1024-L1036), then the combustion is added (L1271)."""

    name: str
    caster: str
    spell: str
    results: list[TargetResult]
    combustion: int
    source: str = "spell"  # spell | crystal | potion


class Deconcentrated(Event, frozen=True, tag="combat.deconcentrated"):
    """Hit during the incantation for more than the margin: the spell is lost (L969-L972, D5)."""

    name: str
    caster: str
    spell: str
    damage: int
    margin: int
    roll: Roll | None = None


class PvChanged(Event, frozen=True, tag="combat.pv_changed"):
    """A character's PV change in the fight (damage, overdraw, alignment, explosion)."""

    name: str
    character: str
    delta: int
    pv_after: int
    cause: str
    amends: int | None = None  # a correction's compensation: the position of the event corrected
    fixed: dict[str, int] = {}  # ... and the corrected values (die, damage, delta)


class PmSpent(Event, frozen=True, tag="combat.pm_spent"):
    """PM paid for a spell (floored at 0; the rest is paid in PV, L379)."""

    name: str
    character: str
    pm: int
    pm_after: int


class ConditionChanged(Event, frozen=True, tag="combat.condition_changed"):
    """Unconscious below 0 PV, awake above 0, dead below -(race PV + 2 CON) (L369-L373, D8)."""

    name: str
    character: str
    condition: Condition
    pv: int


class Bled(Event, frozen=True, tag="combat.bled"):
    """An unconscious character loses 1 PV per 60 s of the fight's time, unaided (L371)."""

    name: str
    character: str
    seconds: int
    pv_lost: int
    pv_after: int
    carry: int


class CrystalStored(Event, frozen=True, tag="combat.crystal_stored"):
    """A spell cast with Fermeture Cristalline (L1077, L1091-L1093, L1115): stored, failed or exploded."""

    name: str
    caster: str
    crystal: str
    capacity: int
    spell: str
    spends: list[m.EffectSpend]
    pm: int
    fermeture_pm: int
    outcome: Literal["stored", "failed", "exploded"]
    spell_roll: Roll | None = None
    fermeture_roll: Roll | None = None
    spell_success: bool = False
    fermeture_success: bool = False
    explosion: str = ""
    explosion_roll: Roll | None = None
    seconds: int = 0
    pm_cost: int = 0
    pm_after: int = 0
    overdraw_pv: int = 0
    hit: list[str] = []  # exploded: who the blast hit (the caster, then those within 6 m, L1093); [] in older logs
    fermeture_cnc: int | None = None  # Fermeture's concentration total (Chance redoes its d20); None in older logs
    time: str = ""  # the stored spell's Temps (its duration when Chance redoes Fermeture's roll)
    zone: list[str] = []  # who a blast would hit (the caster, then those named within 6 m, L1093)


class CrystalReleased(Event, frozen=True, tag="combat.crystal_released"):
    """Libération Cristalline (L1099-L1105): its own 2 PM and CNC 5 roll; the stored spell needs neither."""

    name: str
    caster: str
    crystal: str
    success: bool
    roll: Roll | None
    pm_cost: int
    pm_after: int
    seconds: int
    spell: str = ""
    overdraw_pv: int = 0
    cnc_total: int | None = None  # Libération's concentration total (Chance redoes its d20); None in older logs
    targets: list[str] = []  # whom the stored spell goes off on (a Chance reroll that now succeeds)
    lowered_dm: dict[str, int] = {}


class CrystalLocked(Event, frozen=True, tag="combat.crystal_locked"):
    """Verrou Cristallin cast on a crystal holding a spell (L1129-L1135): 5 PM, CNC 16, 60 s.

    On a success only ``caster`` can release the stored spell; a failure loses the PM (L1022).
    """

    name: str
    caster: str
    crystal: str
    success: bool
    roll: Roll | None
    pm_cost: int
    pm_after: int
    seconds: int
    overdraw_pv: int = 0
    cnc_total: int | None = None  # the concentration total (CNC + penalties + d20), for a Chance reroll


class CrystalUnlocked(Event, frozen=True, tag="combat.crystal_unlocked"):
    """The mage who laid a Verrou Cristallin lifts it (L1135): no PM, no roll; the GM's duration."""

    name: str
    caster: str
    crystal: str
    seconds: int = 0


class CrystalInspected(Event, frozen=True, tag="combat.crystal_inspected"):
    """Vision Cristalline (L1119-L1125): 1 PM, CNC 8, 20 s, touching the crystal; on a success the stored
    spell and its PM per variable effect (``spell`` empty: the crystal is empty; ``locked``: a Verrou hides it)."""

    name: str
    caster: str
    crystal: str
    success: bool
    roll: Roll | None
    pm_cost: int
    pm_after: int
    seconds: int
    overdraw_pv: int = 0
    cnc_total: int | None = None  # the concentration total (CNC + penalties + d20), for a Chance reroll
    locked: bool = False
    spell: str = ""
    pm: int = 0
    spends: dict[str, int] = {}


class PotionUsed(Event, frozen=True, tag="combat.potion_used"):
    """A potion drunk (8 s) or triggered on a target (L1169-L1177)."""

    name: str
    actor: str
    spell: str
    pm: int
    trigger: str
    target: str
    seconds: int
    item: str = ""  # the carried potion used up (single use, L1181); "" for a potion the GM describes


class AbilityUsed(Event, frozen=True, tag="combat.ability_used"):
    """A Voleur ability paid from the day's Vol* points (L728-L741)."""

    name: str
    actor: str
    ability: str
    cost: int
    seconds: int
    target: str = ""


class AlignmentUsed(Event, frozen=True, tag="combat.alignment_used"):
    """The alignment pool by touch: 1 PV per second, at most 20 per action (L1417-L1421)."""

    name: str
    actor: str
    target: str
    kind: Literal["heal", "harm"]
    points: int
    seconds: int
    remaining: int


class Rerolled(Event, frozen=True, tag="combat.rerolled"):
    """Chance: the last attack roll of a character redone; both rolls stay in the log (L56-L58)."""

    name: str
    character: str
    target: str
    swing: Swing
    left: int
    by: RerolledBy = "player"
    old: Roll | None = None


class RollRedone(Event, frozen=True, tag="combat.roll_redone"):
    """Chance on a damage, concentration, initiative, duration, spell-effect, tie-break, crystal explosion or crystal spell roll (L56-L58): the new roll replaces the old one
    ("en ignorant le résultat actuel"); both stay in the log. ``by`` the player (Chance > 0) or the GM (< 0)."""

    name: str
    character: str
    kind: Literal["damage", "concentration", "initiative", "duration", "effects", "tie-break", "explosion", "crystal"]
    roll: Roll
    left: int
    by: RerolledBy = "player"
    old: Roll | None = None
    target: str = ""
    damage_before: int = 0
    damage: int = 0
    spell: str = ""
    total: int = 0
    margin: int = 0
    success: bool = False
    it_before: int = 0
    it_after: int = 0
    rolls: list[Roll] = []  # duration: every repetition's roll (``roll`` is the first)
    results: list[TargetResult] = []  # effects: the effects rolled again, target by target
    crystal: str = ""  # explosion: the crystal that blew up
    targets: list[str] = []  # explosion: everyone its one total hit (L1093)
    seen: str = ""  # crystal (Vision Cristalline): what the new roll shows
    outcome: str = ""  # crystal (Fermeture Cristalline): stored, failed or exploded after the new roll
    blast: Roll | None = None  # crystal (Fermeture): the explosion's dice when the new roll blows the crystal up
    released: str = ""  # crystal (Libération Cristalline): the spell the new roll releases ("" none)


class CombatEnded(Event, frozen=True, tag="combat.ended"):
    """Every IT goes back to 0 (L1222)."""

    name: str
