"""The state a Lois du Cristal decision reads: the characters, the combats, the crystals and the packs.

One module for the whole ruleset's state (as ``illergan/state.py``), beside the rules it feeds and
below every part: ``characters`` and ``fights`` import their state types from here (and re-export
them from their ``model``), and annotate their decisions and folds with :class:`CristalState`. It
imports only the content, the crystals and the rolls, never a part, so nothing here can make a
circle. The msgpack shape of the snapshots is the one of the structs as they were declared in the
parts' models (same fields, same order): snapshots written before still decode.
"""

from typing import Any, Literal

import msgspec

from cristal_events.rolls import Roll

from .content import ItemTemplate
from .crystals import Crystal, StoredSpell

__all__ = ["Alteration", "OwnedItem", "Character", "ContentPack", "Condition", "Incantation", "LastAttack",
           "LastRoll", "Fighter", "Combat", "CristalState"]

# ============================================================================ characters
class Alteration(msgspec.Struct, kw_only=True, frozen=True):
    """A temporary change of a fixed state (L1468: poison, FRC -3), until the GM ends it."""

    stat: str
    delta: int
    until: str = ""
    reason: str = ""
    since: int = 0  # the position of the event that applied it (its id for ``state --end``)
    pv_capped: int = 0  # the PV / PM it took when it lowered PVmax / PMmax (L328, L342), for its end
    pm_capped: int = 0


class OwnedItem(msgspec.Struct, kw_only=True, frozen=True):
    """An item carried: its sheet line (copied into the event, so replay needs no pack), QTÉ and EQ."""

    name: str
    qty: int
    equipped: bool = False
    template: ItemTemplate
    gm_allowed: str = ""  # the GM's override of a disabling handicap (L871, D9), while equipped
    penalties: dict[str, int] = {}  # the penalties the GM added for it (L871), applied while equipped


class Character(msgspec.Struct, kw_only=True):
    """A character as the rules need it (seed 000, Feuille de Personnage L35-L397).

    ``fixed`` holds the permanent fixed states (race base + GM adjustments + level points);
    temporary alterations are in ``alterations``; equipment Bonus/Handicap are applied when the
    stable states are computed. ``pools_used`` counts the day's spent points (``Vol``, ``chance``,
    ``alignment``) and is emptied by a night's rest.
    """

    id: str
    name: str
    race: str
    sex: str = ""
    player: str = ""
    alignment: int = 0
    luck: int = 0
    fixed: dict[str, int] = {}
    alterations: list[Alteration] = []
    senses: dict[str, int] = {}
    specials: list[str] = []
    classes: dict[str, int] = {}
    global_level: int = 0
    techniques: dict[str, int] = {}
    spells: list[str] = []
    items: list[OwnedItem] = []
    gold: int = 0
    pv: int = 0
    pm: int = 0
    xp: int = 0
    it: int = 0
    pools_used: dict[str, int] = {}
    unconscious: bool = False
    dead: bool = False
    charges: dict[int, int] = {}  # XP charged per purchase position, once a correction changed it
    creating: bool = False  # the creation phase (L1448-L1482): PV = PVmax and PM = PMmax until it closes
    understood: list[str] = []  # magic items this character understood with Analyse Magique (L1145, L1167)
    detected: dict[str, int] = {}  # MAG revealed by Détection Magique, by item name (L1157)


class ContentPack(msgspec.Struct, kw_only=True, frozen=True):
    """A campaign content pack as loaded: its name and its raw sections (races, classes, ...)."""

    name: str
    data: dict[str, Any]


# ============================================================================ combats
Condition = Literal["conscious", "unconscious", "dead"]


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
    split: int = 2  # a chained attack's number of attacks, each (ATT + d20) / split (L1363, D14)


class LastRoll(msgspec.Struct, frozen=True, kw_only=True):
    """A combatant's last roll in the fight, what Chance may redo (L56): its kind and what redoing it needs.

    ``kind``: attack, damage, concentration, initiative, duration, effects, tie-break, explosion (redone
    by ``combat reroll``), or ``crystal``: a crystal spell's d20 (Verrou, Vision, Fermeture, Libération), redone too. ``it_after``: the roller's IT
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
    times: int = 1        # duration: the table action's repetitions, one roll each
    dealt: dict[str, int] = {}  # effects: the damage each target took
    split: int = 2        # attack: a chained attack's number of attacks
    crystal: str = ""     # explosion: the crystal that blew up (``dmg`` its dice, ``amount`` the total, ``targets`` hit)
    stored: StoredSpell | None = None  # Fermeture / Libération: the spell closed in or released from ``crystal``
    spell_ok: bool = False  # Fermeture: the stored spell's own concentration succeeded
    capacity: int = 0     # Fermeture: the crystal's PM max
    locked_by: str = ""   # Libération: the crystal's Verrou before the release


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
    recovering: dict[str, int] = {}  # a natural weapon: the IT from which it can be used again (L469)


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
    tie_rounds: list[dict[str, Roll]] = []  # the last tie-break's rounds (Chance may redo a die, L56)


# ============================================================================ the ruleset's state
class CristalState(msgspec.Struct, kw_only=True):
    """Everything a Lois du Cristal decision may need: the characters and the combats."""

    characters: dict[str, Character] = {}
    combats: dict[str, Combat] = {}
    crystals: dict[str, Crystal] = {}  # magic crystals by name (fights: Fermeture/Libération Cristalline)
    packs: list[ContentPack] = []  # campaign content packs, in log order (content.pack_loaded)
    corrections: dict[int, dict[str, int]] = {}  # a fight event's corrected values, by its position
    spell_times: dict[str, str] = {}  # the Temps the GM gave (--time) to a spell the book prints none for
