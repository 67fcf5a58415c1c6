"""Combat state and commands (see the package docstring); the events are in ``events`` and re-exported here."""

from typing import Literal

import msgspec

from .. import characters
from ..content import Content

# the combat state lives in ``..state`` with the rest of the ruleset's state; re-exported here
from ..state import Combat, CristalState
from ..state import Fighter as Fighter
from ..state import Incantation as Incantation
from ..state import LastAttack as LastAttack
from ..state import LastRoll as LastRoll
from .events import *  # noqa: F403  (re-exported: ``from .model import AttackResolved`` works)

STAT_KEYS = ("ATT", "DP", "DM", "CNC", "DMG", "PV", "PM", "PVmax", "PMmax", "REF", "CON", "FRC", "PVrace", "race",
             "ALIGN", "CHANCE", "VOLEUR", "VOL", "IT")
_TEXT_STATS = ("DMG", "race")


def stream(name: str) -> str:
    return f"combat:{name}"


def content(state: CristalState) -> Content:
    """The campaign's content: the core pack merged with the packs it loaded (``characters.content_of``)."""
    return characters.content_of(state)


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
    natural: str = ""  # a natural weapon of the attacker's race (L463-L469)


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
    within: list[str] = []  # the other combatants within 6 m of the crystal: an explosion hits them too (L1093)


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
    item: str = ""          # a potion the actor carries (spell, PM and trigger from it; one is used up)
    day: int | None = None  # the in-game day, to check the potion has not faded (L1182)


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
    """Chance: redo ``actor``'s last roll (attack, damage, concentration, initiative, spell effects,
    duration, tie-break); ``gm`` when the GM orders it for a negative Chance (L58).

    Dice: the new roll (a d20 for an attack or a concentration, the DMG dice, a d6 for initiative or a
    tie-break, the effect dice target by target, the duration dice of each repetition), then
    the damage dice if an attack now hits, or the effect dice if an INSTANTANÉ spell now succeeds.
    """

    combat: str
    actor: str
    gm: bool = False


class EndCombat(msgspec.Struct, frozen=True, kw_only=True):
    combat: str

def combat_now(cb: Combat) -> int | None:
    """The smallest IT among the conscious fighters: the fight's present moment."""
    it = cb.it
    return min([it[f.id] for f in cb.fighters.values() if f.condition == "conscious"], default=None)
