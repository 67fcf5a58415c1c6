"""The character model, its events and its commands (see the package docstring)."""

from typing import Any

import msgspec

from cristal_events.events import Event
from cristal_events.rolls import Roll

from ..content import (
    ItemTemplate,
)

# the character held in the state and the loaded packs live in ``..state``; re-exported here
from ..state import Alteration as Alteration
from ..state import Character as Character
from ..state import ContentPack as ContentPack
from ..state import OwnedItem as OwnedItem

CONTENT_STREAM = "content"
# words of a source that is magic: magic never heals a living being (L1190), in no wording
MAGIC_SOURCES = frozenset({"magic", "magique", "magie", "spell", "sort", "sortilège", "potion", "potions", "crystal",
                           "cristal", "cristaux", "enchantement", "artefact", "fiole", "élixir", "elixir"})
# the closed list of what may heal (the book's): the body's own regeneration (L367, L490), care given by
# someone (first aid is a technique, L749), a blessed alignment (L1417-L1419), a divine being (L1190)
HEAL_SOURCES: dict[str, str] = {
    "natural": "natural", "naturel": "natural", "naturelle": "natural", "régénération": "natural",
    "regeneration": "natural",
    "care": "care", "soins": "care", "soin": "care", "premiers soins": "care", "first aid": "care",
    "alignment": "alignment", "alignement": "alignment",
    "divine": "divine", "divin": "divine", "divinité": "divine", "dieu": "divine",
}


# ============================================================================ events
class CharacterCreated(Event, frozen=True, tag="character.created", kw_only=True):
    """A new character (L1446-L1482): race bases + the GM's adjustments, senses from the race."""

    character: str
    name: str
    race: str
    sex: str = ""
    player: str = ""
    race_fixed: dict[str, int]
    adjustments: dict[str, int] = {}
    adjustment_rolls: list[Roll] = []
    fixed: dict[str, int]
    senses: dict[str, int]
    specials: list[str] = []
    techniques: dict[str, int] = {}
    alignment: int = 0
    luck: int = 0
    gold: int = 0
    pv: int
    pm: int
    level_limit: int | None = None


class XpAwarded(Event, frozen=True, tag="xp.awarded", kw_only=True):
    character: str
    amount: int
    reason: str
    balance_after: int


class LevelBought(Event, frozen=True, tag="xp.level_bought", kw_only=True):
    """One Global Level bought (L60-L66, L395): to ``class_name``, +1 to ``stat``."""

    character: str
    class_name: str
    class_level: int
    global_level: int
    stat: str
    cost_charged: int
    cost_required: int
    balance_after: int
    level_limit: int | None = None
    #: during the creation phase the current PV / PM move with PVmax / PMmax (L1478, L1482)
    pv_gain: int = 0
    pm_gain: int = 0


class TechniqueBought(Event, frozen=True, tag="xp.technique_bought", kw_only=True):
    character: str
    technique: str
    level: int
    factor: int
    cost_charged: int
    cost_required: int
    balance_after: int


class SpellLearned(Event, frozen=True, tag="xp.spell_learned", kw_only=True):
    character: str
    spell: str
    cost_charged: int
    cost_required: int | None
    balance_after: int


class ItemAdded(Event, frozen=True, tag="item.added", kw_only=True):
    character: str
    item: ItemTemplate
    qty: int
    source: str = "pack"  # pack | custom


class ItemEquipped(Event, frozen=True, tag="item.equipped", kw_only=True):
    """An item equipped; ``gm_allowed`` is the GM's reason for letting a disabling handicap pass (L871,
    D9) and ``penalties`` the penalties the GM added for it, applied while the item is equipped."""

    character: str
    item: str
    gm_allowed: str = ""
    penalties: dict[str, int] = {}


class ItemUnequipped(Event, frozen=True, tag="item.unequipped", kw_only=True):
    character: str
    item: str


class ItemDropped(Event, frozen=True, tag="item.dropped", kw_only=True):
    character: str
    item: str
    qty: int
    reason: str = ""


class GoldChanged(Event, frozen=True, tag="gold.changed", kw_only=True):
    character: str
    amount: int
    reason: str
    balance_after: int


class Rested(Event, frozen=True, tag="character.rested", kw_only=True):
    """Days of rest (L367, L377, L491): PV regenerate, PM full after a night, daily pools renew."""

    character: str
    days: int
    regen_per_day: int
    pv_gained: int
    pm_gained: int
    pools_renewed: bool = True


class DamageTaken(Event, frozen=True, tag="character.damaged", kw_only=True):
    character: str
    amount: int
    reason: str
    pv_after: int
    unconscious: bool = False
    dead: bool = False


class Healed(Event, frozen=True, tag="character.healed", kw_only=True):
    """PV healed outside combat; ``source`` says by what (magic never heals, L1186)."""

    character: str
    amount: int
    healed: int
    source: str
    reason: str
    healer: str = ""
    pool_used: int = 0


class AlignmentChanged(Event, frozen=True, tag="alignment.changed", kw_only=True):
    character: str
    amount: int
    reason: str
    alignment_after: int


class StateAltered(Event, frozen=True, tag="character.state_altered", kw_only=True):
    character: str
    stat: str
    delta: int
    until: str = ""
    reason: str


class AlterationEnded(Event, frozen=True, tag="character.alteration_ended", kw_only=True):
    character: str
    since: int
    reason: str = ""


class PointsSet(Event, frozen=True, tag="character.points_set", kw_only=True):
    """Current PV / PM moved by a change of PVmax / PMmax: ``reason`` "creation" moves them with the maxima
    during the creation phase (L1482), "cap" brings them down to a lowered maximum (L328, L342), "restore"
    gives back what an alteration's cap took when it ends (setting ``points_return_when_state_ends``)."""

    character: str
    pv_delta: int
    pm_delta: int
    pv_max: int
    pm_max: int
    reason: str


class CharacterReady(Event, frozen=True, tag="character.ready", kw_only=True):
    """The creation phase closes (L1448-L1482): PV = PVmax and PM = PMmax; explicit or at the first session."""

    character: str
    pv_delta: int = 0
    pm_delta: int = 0
    pv_max: int = 0
    pm_max: int = 0


class TechniqueChecked(Event, frozen=True, tag="technique.checked", kw_only=True):
    """A Jet de Technique (L763-L776): ``[level + adjustment + 1d6] >= difficulty``; untrained: level 0,
    no adjustment (L774)."""

    character: str
    technique: str
    level: int
    adjustment: int
    face: int
    total: int
    difficulty: int
    success: bool
    roll: Roll
    reason: str = ""


class SurEffortMade(Event, frozen=True, tag="character.sur_effort", kw_only=True):
    """A Sur-Effort the GM granted (L233-L242): the band's die added to one fixed state for one action
    only (it is gone when the action ends), with the table value it reaches (L235)."""

    character: str
    stat: str
    score: int
    die: str
    bonus: int
    value: int
    table_before: str = ""
    table_after: str = ""
    roll: Roll
    reason: str


class CharacterCorrected(Event, frozen=True, tag="character.corrected", kw_only=True):
    """The compensating event of a correction: ``delta`` added to ``field`` (xp, gold, pv, alignment).

    For a purchase whose charge was wrong, ``what`` names it, ``cost_before`` / ``cost_after`` are the
    charge before and after, ``cost_required`` what the rules required (the purchase stays in the log).
    """

    character: str
    amends: int
    field: str
    delta: int
    reason: str = ""
    balance_after: int = 0
    what: str = ""
    cost_before: int | None = None
    cost_after: int | None = None
    cost_required: int | None = None
    fixed: dict[str, int] = {}  # a fight's correction after the fight: the corrected values (die, damage, delta)


class CharacterRetired(Event, frozen=True, tag="character.retired", kw_only=True):
    """A character created by mistake, withdrawn by a correction of its ``character.created`` (at
    ``amends``): it leaves the party, the sheets and the fights; its history stays in the log."""

    character: str
    amends: int
    name: str = ""


class AbilityPracticed(Event, frozen=True, tag="character.ability_used", kw_only=True):
    """A class ability used outside a fight, "à tout moment au cours du jeu" (L664), paid from the
    day's points of its class (Voleur's Vol*, L666-L668)."""

    character: str
    ability: str
    class_name: str
    cost: int
    pool: str
    left: int
    target: str = ""
    reason: str = ""


class ContentPackLoaded(Event, frozen=True, tag="content.pack_loaded", kw_only=True):
    """A campaign content pack, carried whole so that replay does not depend on the file. ``overrides``
    names, by section, the entries it replaces (each marked ``"override": true`` in the pack)."""

    name: str
    data: dict[str, Any]
    summary: dict[str, list[str]] = {}
    overrides: dict[str, list[str]] = {}


# ============================================================================ commands
class CreateCharacter(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    race: str
    name: str = ""
    sex: str = ""
    adjustments: dict[str, int] = {}
    roll_adjustments: bool = False
    alignment: int = 0
    luck: int = 0
    gold: int = 0
    player: str = ""


class AwardXp(msgspec.Struct, frozen=True, kw_only=True):
    characters: tuple[str, ...] = ()
    all: bool = False
    amount: int
    reason: str


class BuyLevel(msgspec.Struct, frozen=True, kw_only=True):
    character: str
    class_name: str
    stat: str


class BuyTechnique(msgspec.Struct, frozen=True, kw_only=True):
    character: str
    technique: str


class LearnSpell(msgspec.Struct, frozen=True, kw_only=True):
    character: str
    spell: str
    cost: int | None = None


class AddItem(msgspec.Struct, frozen=True, kw_only=True):
    character: str
    item: str
    qty: int = 1
    properties: dict[str, Any] | None = None  # None: the item of the content pack


class EquipItem(msgspec.Struct, frozen=True, kw_only=True):
    character: str
    item: str
    gm_allowed: str = ""
    penalties: dict[str, int] = {}


class MarkReady(msgspec.Struct, frozen=True, kw_only=True):
    character: str


class CheckTechnique(msgspec.Struct, frozen=True, kw_only=True):
    character: str
    technique: str
    difficulty: int = 5
    reason: str = ""


class SurEffort(msgspec.Struct, frozen=True, kw_only=True):
    character: str
    stat: str
    reason: str


class UnequipItem(msgspec.Struct, frozen=True, kw_only=True):
    character: str
    item: str


class DropItem(msgspec.Struct, frozen=True, kw_only=True):
    character: str
    item: str
    qty: int | None = None
    reason: str = ""


class ChangeGold(msgspec.Struct, frozen=True, kw_only=True):
    character: str
    amount: int
    reason: str


class Rest(msgspec.Struct, frozen=True, kw_only=True):
    characters: tuple[str, ...] = ()
    all: bool = False
    days: int = 1


class Damage(msgspec.Struct, frozen=True, kw_only=True):
    character: str
    amount: int
    reason: str


class Heal(msgspec.Struct, frozen=True, kw_only=True):
    character: str
    amount: int
    source: str
    reason: str
    healer: str = ""


class ChangeAlignment(msgspec.Struct, frozen=True, kw_only=True):
    character: str
    amount: int
    reason: str


class AlterState(msgspec.Struct, frozen=True, kw_only=True):
    character: str
    stat: str
    delta: int
    until: str = ""
    reason: str


class EndAlteration(msgspec.Struct, frozen=True, kw_only=True):
    character: str
    since: int
    reason: str = ""


class LoadContentPack(msgspec.Struct, frozen=True, kw_only=True):
    name: str
    data: dict[str, Any]


class UseClassAbility(msgspec.Struct, frozen=True, kw_only=True):
    """A class ability outside a fight (L664); in a fight it is 'combat ability' (its IT counts)."""

    character: str
    ability: str
    target: str = ""
    reason: str = ""


class Bleed(msgspec.Struct, frozen=True, kw_only=True):
    """Minutes an unconscious character spends unaided outside a fight: 1 PV a minute (L371)."""

    character: str
    minutes: int

