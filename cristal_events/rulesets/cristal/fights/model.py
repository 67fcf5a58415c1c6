"""Combat state and commands (see the package docstring); the events are in ``events`` and re-exported here."""

from typing import Any, Literal

import msgspec

from ....rolls import Roll
from .. import characters
from ..content import Content
from .events import *  # noqa: F401,F403  (re-exported: ``from .model import AttackResolved`` works)
from .events import Condition

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
    move_m: float | None = None   # a move of this many metres at the race's speed (L1286-L1290)
    pace: Literal["cruise", "top"] = "cruise"
    movement: str = ""            # the race's movement mode (Bipède, Nage ...); default: its first


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
    it = cb.it
    return min([it[f.id] for f in cb.fighters.values() if f.condition == "conscious"], default=None)
