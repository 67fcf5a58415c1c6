"""Combat state, events and commands (see the package docstring)."""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from ....events import Event
from ....rolls import Roll
from .. import characters
from .. import magic as m
from ..content import Content


Condition = Literal["conscious", "unconscious", "dead"]
STAT_KEYS = ("ATT", "DP", "DM", "CNC", "DMG", "PV", "PM", "PVmax", "PMmax", "REF", "CON", "FRC", "PVrace", "race",
             "ALIGN", "CHANCE", "VOLEUR", "VOL", "IT")
_TEXT_STATS = ("DMG", "race")


def stream(name: str) -> str:
    return f"combat:{name}"


def content(state: Any) -> Content:
    """The campaign's content: the core pack merged with the packs it loaded (``characters.content_of``)."""
    return characters.content_of(state)


# =========================================================================== state

class Incantation(msgspec.Struct, frozen=True, kw_only=True):
    """A spell whose incantation is paid; effects and combustion come at the caster's next turn (D21)."""

    spell: str
    spends: dict[str, int]
    targets: list[str]
    lowered_dm: dict[str, int] = {}
    combustion: int
    margin: int
    until: int
    cnc: int = 0
    penalty: int = 0
    spell_cnc: int = 0


class LastAttack(msgspec.Struct, frozen=True, kw_only=True):
    """What Chance needs to redo a missed attack roll (L56)."""

    target: str
    att: int
    dp: int
    halved: bool
    dmg: str
    backstab: bool
    hit: bool


class LastRoll(msgspec.Struct, frozen=True, kw_only=True):
    """A combatant's last roll in the fight, what Chance may redo (L56): its kind and what redoing it needs.

    ``kind``: attack, damage, concentration, initiative (redone by ``combat reroll``), or the kind of a
    roll Chance cannot redo here (effects, duration, tie-break, crystal). ``it_after``: the roller's IT
    just after the roll, so a roll is redone before its roller acts again.
    """

    kind: str
    it_after: int
    roll: Roll | None = None
    target: str = ""
    att: int = 0          # attack
    dp: int = 0
    halved: bool = False
    dmg: str = ""         # attack, damage
    backstab: bool = False
    amount: int = 0       # damage dealt
    spell: str = ""       # concentration
    cnc: int = 0
    penalty: int = 0
    spell_cnc: int = 0
    success: bool = False
    time: str = ""
    combustion: int = 0   # the combustion the spell pays when it succeeds
    spends: dict[str, int] = {}
    targets: list[str] = []
    lowered_dm: dict[str, int] = {}
    base_it: int = 0      # initiative
    ref: int = 0


class Fighter(msgspec.Struct, kw_only=True):
    """One combatant's combat-only data (its IT lives in ``Combat.it``)."""

    id: str
    stats: dict[str, int | str] = {}
    pv: int | None = None  # an extra's PV (a character keeps its own)
    pm: int | None = None
    condition: Condition = "conscious"
    bleed_seconds: int = 0
    aided: bool = False
    incantation: Incantation | None = None
    initiative: bool = False
    vol_spent: int = 0
    align_spent: int = 0
    rerolls: int = 0
    last_attack: LastAttack | None = None
    last_roll: LastRoll | None = None


class Combat(msgspec.Struct, kw_only=True):
    """A fight: its participants and their Indice de Temps (seed 000, L1195-L1313)."""

    name: str
    it: dict[str, int] = {}
    active: bool = True
    fighters: dict[str, Fighter] = {}
    actions: int = 0
    clock: int = 0  # the highest "now" reached (smallest IT of those able to act): bleeding runs on it
    tie_it: int | None = None
    tie_rolls: dict[str, int] = {}


# =========================================================================== events

class FighterEntry(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    it: int
    stats: dict[str, int | str] = {}


class InitiativeResult(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    base_it: int
    ref: int
    die: int
    it: int
    roll: Roll


class CombatStarted(Event, tag="combat.started"):
    """The fight begins; base ITs set by the game master (initiative method 1, L1317)."""

    name: str
    fighters: list[FighterEntry]


class CombatJoined(Event, tag="combat.joined"):
    """A newcomer: the average IT of those present unless the GM set one (L1220, D24)."""

    name: str
    fighter: FighterEntry
    averaged: bool = False


class InitiativeRolled(Event, tag="combat.initiative_rolled"):
    """``IT = base - ([1d6] + REF x 2)`` for each roller (L1319)."""

    name: str
    results: list[InitiativeResult]


class TieBroken(Event, tag="combat.tie_broken"):
    """Equal IT and REF: each rolled 1d6, highest acts first (L1202)."""

    name: str
    it: int
    rolls: dict[str, Roll]
    winner: str


class ActionTaken(Event, tag="combat.action_taken"):
    """Any action; its duration is added to the actor's IT (L1206-L1259)."""

    name: str
    actor: str
    what: str
    seconds: int
    action: str = ""
    rolls: list[Roll] = []
    aided: str = ""


class TurnPassed(Event, tag="combat.turn_passed"):
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


class AttackResolved(Event, tag="combat.attack_resolved"):
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


class SpellCast(Event, tag="combat.spell_cast"):
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


class SpellReleased(Event, tag="combat.spell_released"):
    """The effects go off per target after its DM (L1024-L1036), then the combustion is added (L1271)."""

    name: str
    caster: str
    spell: str
    results: list[TargetResult]
    combustion: int
    source: str = "spell"  # spell | crystal | potion


class Deconcentrated(Event, tag="combat.deconcentrated"):
    """Hit during the incantation for more than the margin: the spell is lost (L969-L972, D5)."""

    name: str
    caster: str
    spell: str
    damage: int
    margin: int
    roll: Roll | None = None


class PvChanged(Event, tag="combat.pv_changed"):
    """A character's PV change in the fight (damage, overdraw, alignment, explosion)."""

    name: str
    character: str
    delta: int
    pv_after: int
    cause: str


class PmSpent(Event, tag="combat.pm_spent"):
    """PM paid for a spell (floored at 0; the rest is paid in PV, L379)."""

    name: str
    character: str
    pm: int
    pm_after: int


class ConditionChanged(Event, tag="combat.condition_changed"):
    """Unconscious below 0 PV, awake above 0, dead below -(race PV + 2 CON) (L369-L373, D8)."""

    name: str
    character: str
    condition: Condition
    pv: int


class Bled(Event, tag="combat.bled"):
    """An unconscious character loses 1 PV per 60 s of the fight's time, unaided (L371)."""

    name: str
    character: str
    seconds: int
    pv_lost: int
    pv_after: int
    carry: int


class CrystalStored(Event, tag="combat.crystal_stored"):
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


class CrystalReleased(Event, tag="combat.crystal_released"):
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


class CrystalLocked(Event, tag="combat.crystal_locked"):
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


class CrystalUnlocked(Event, tag="combat.crystal_unlocked"):
    """The mage who laid a Verrou Cristallin lifts it (L1135): no PM, no roll; the GM's duration."""

    name: str
    caster: str
    crystal: str
    seconds: int = 0


class CrystalInspected(Event, tag="combat.crystal_inspected"):
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
    locked: bool = False
    spell: str = ""
    pm: int = 0
    spends: dict[str, int] = {}


class PotionUsed(Event, tag="combat.potion_used"):
    """A potion drunk (8 s) or triggered on a target (L1169-L1177)."""

    name: str
    actor: str
    spell: str
    pm: int
    trigger: str
    target: str
    seconds: int


class AbilityUsed(Event, tag="combat.ability_used"):
    """A Voleur ability paid from the day's Vol* points (L728-L741)."""

    name: str
    actor: str
    ability: str
    cost: int
    seconds: int
    target: str = ""


class AlignmentUsed(Event, tag="combat.alignment_used"):
    """The alignment pool by touch: 1 PV per second, at most 20 per action (L1417-L1421)."""

    name: str
    actor: str
    target: str
    kind: Literal["heal", "harm"]
    points: int
    seconds: int
    remaining: int


class Rerolled(Event, tag="combat.rerolled"):
    """Chance: the last attack roll of a character redone; both rolls stay in the log (L56-L58)."""

    name: str
    character: str
    target: str
    swing: Swing
    left: int
    by: Literal["player", "gm"] = "player"
    old: Roll | None = None


class RollRedone(Event, tag="combat.roll_redone"):
    """Chance on a damage, concentration or initiative roll (L56-L58): the new roll replaces the old one
    ("en ignorant le résultat actuel"); both stay in the log. ``by`` the player (Chance > 0) or the GM (< 0)."""

    name: str
    character: str
    kind: Literal["damage", "concentration", "initiative"]
    roll: Roll
    left: int
    by: Literal["player", "gm"] = "player"
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


class CombatEnded(Event, tag="combat.ended"):
    """Every IT goes back to 0 (L1222)."""

    name: str


# =========================================================================== commands
# Every command names the combat (``combat``) and is decided on the combat's current state.

class StartCombat(msgspec.Struct, frozen=True, kw_only=True):
    """Start ``combat`` with ``fighters``; ``its`` are base ITs (default 0); ``stats`` GM numbers per id."""

    combat: str
    fighters: list[str]
    its: dict[str, int] = {}
    stats: dict[str, dict[str, int | str]] = {}


class JoinCombat(msgspec.Struct, frozen=True, kw_only=True):
    combat: str
    fighter: str
    it: int | None = None
    stats: dict[str, int | str] = {}


class RollInitiative(msgspec.Struct, frozen=True, kw_only=True):
    """Dice: one d6 per fighter, in the order given (default: the order they joined)."""

    combat: str
    fighters: list[str] = []


class NextTurn(msgspec.Struct, frozen=True, kw_only=True):
    """Dice (only on a tie of IT and REF): one d6 per tied fighter in join order, rerolls after."""

    combat: str


class TakeAction(msgspec.Struct, frozen=True, kw_only=True):
    """Dice: the duration's dice when the action's duration is rolled (e.g. chercher_sac: one d4)."""

    combat: str
    actor: str
    what: str = ""
    action: str = ""
    seconds: int | None = None
    times: int = 1
    aid: str = ""


class PassTurn(msgspec.Struct, frozen=True, kw_only=True):
    combat: str
    actor: str


class Attack(msgspec.Struct, frozen=True, kw_only=True):
    """Dice: the d20, then the damage dice if it hits; with ``chain`` the two d20, then the damage of each hit."""

    combat: str
    actor: str
    target: str
    weapon: str = ""
    projectile: str = ""
    distance: int | None = None
    chain: bool = False
    back: bool = False


class CastSpell(msgspec.Struct, frozen=True, kw_only=True):
    """Dice: the d20 of concentration; without incantation, then the effects' dice target by target."""

    combat: str
    actor: str
    spell: str
    effects: dict[str, int] = {}
    targets: list[str] = []
    penalties: list[str] = []
    lowered_dm: dict[str, int] = {}
    time: str = ""
    accompanying: int | None = None


class ReleaseSpell(msgspec.Struct, frozen=True, kw_only=True):
    """Dice: the effects' dice, target by target, effect by effect."""

    combat: str
    actor: str


class StoreInCrystal(msgspec.Struct, frozen=True, kw_only=True):
    """Dice: the spell's d20, Fermeture Cristalline's d20, then the explosion's d4s when over capacity."""

    combat: str
    actor: str
    crystal: str
    spell: str
    effects: dict[str, int] = {}
    capacity: int | None = None
    penalties: list[str] = []
    time: str = ""


class ReleaseCrystal(msgspec.Struct, frozen=True, kw_only=True):
    """Dice: Libération Cristalline's d20, then the stored spell's effect dice target by target."""

    combat: str
    actor: str
    crystal: str
    targets: list[str] = []
    lowered_dm: dict[str, int] = {}
    penalties: list[str] = []


class LockCrystal(msgspec.Struct, frozen=True, kw_only=True):
    """Verrou Cristallin on ``crystal``. Dice: the d20 of concentration."""

    combat: str
    actor: str
    crystal: str
    penalties: list[str] = []


class UnlockCrystal(msgspec.Struct, frozen=True, kw_only=True):
    """The locker lifts its own Verrou Cristallin, taking ``seconds`` (the GM's duration)."""

    combat: str
    actor: str
    crystal: str
    seconds: int = 0


class InspectCrystal(msgspec.Struct, frozen=True, kw_only=True):
    """Vision Cristalline on ``crystal``. Dice: the d20 of concentration."""

    combat: str
    actor: str
    crystal: str
    penalties: list[str] = []


class UsePotion(msgspec.Struct, frozen=True, kw_only=True):
    """Dice: the effect dice of the potion's spell on its target."""

    combat: str
    actor: str
    spell: str
    effects: dict[str, int] = {}
    trigger: str = "ingestion"
    target: str = ""
    seconds: int | None = None


class UseAbility(msgspec.Struct, frozen=True, kw_only=True):
    combat: str
    actor: str
    ability: str
    seconds: int
    target: str = ""


class UseAlignment(msgspec.Struct, frozen=True, kw_only=True):
    combat: str
    actor: str
    target: str
    kind: Literal["heal", "harm"]
    points: int


class Reroll(msgspec.Struct, frozen=True, kw_only=True):
    """Chance: redo ``actor``'s last roll (attack, damage, concentration or initiative); ``gm`` when the GM
    orders it for a negative Chance (L58).

    Dice: the new roll (a d20 for an attack or a concentration, the DMG dice, a d6 for initiative), then
    the damage dice if an attack now hits, or the effect dice if an INSTANTANÉ spell now succeeds.
    """

    combat: str
    actor: str
    gm: bool = False


class EndCombat(msgspec.Struct, frozen=True, kw_only=True):
    combat: str

def _now(cb: Combat) -> int | None:
    """The smallest IT among the conscious fighters: the fight's present moment."""
    its = [cb.it[f.id] for f in cb.fighters.values() if f.condition == "conscious"]
    return min(its) if its else None
