"""Illergan fight events and commands (see the package docstring)."""

from typing import Literal

import msgspec

from cristal_events.events import Event
from cristal_events.rolls import Roll

from .. import combat
from ..state import (ActiveSpell, Hero, Turn)



Action = Literal["major", "minor", "skill", "forgo_major", "extra_major", "knocked_down"]
AttackSlot = Literal["major", "extra_major"]


# ============================================================================ events
class FightStarted(Event, tag="fight.started", kw_only=True):
    fight: str
    participants: list[str]


class InitiativeEntry(msgspec.Struct, frozen=True, kw_only=True):
    character: str
    dex: int
    vol: int
    malus: int
    score: int
    acts: bool
    roll: Roll


class InitiativeRolled(Event, tag="fight.initiative_rolled", kw_only=True):
    fight: str
    turn: int
    entries: list[InitiativeEntry]
    order: list[str]
    turns: dict[str, Turn] | None = None  # every combatant's new turn (None in logs before the turn economy)
    kept: bool = False  # initiative_reroll_each_turn=false: the last order and who acts are kept, no die (A1)


class AttackResolved(Event, tag="fight.attack_resolved", kw_only=True):
    fight: str
    attacker: str
    target: str
    weapon: str  # "" = unarmed
    adresse: int
    dex_maluses: list[int] = []
    rolls: list[Roll]
    hit: bool
    critical: bool = False
    fumble: bool = False
    zone: str = ""
    zone_index: int = 0
    defended: bool = False
    damage_type: str = ""
    power_rolls: list[Roll] = []
    damage: int | float = 0
    sr: int | float = 0
    rn: int = 0
    pv_lost: int = 0
    pv_after: int = 0
    limb_lost: str = ""
    dead: bool = False
    rider: combat.Rider | None = None
    action: str = "major"
    turn_after: Turn | None = None  # the attacker's turn after this attack
    defence: str = ""  # the defence used against it (I-L543), "" for none
    defender: str = ""  # who defended (the target, or an ally acting in defence, I-L552)
    defender_turn_after: Turn | None = None


class ActionTaken(Event, tag="fight.action_taken", kw_only=True):
    """A major, minor or skill action other than an attack or a spell (I-L246-259), a forgone major
    action (I-L243), an extra major action from an effect (I-L265) or a knock-down (I-L416)."""

    fight: str
    character: str
    action: str
    what: str = ""
    turn_after: Turn


class DefenceUsed(Event, tag="fight.defence_used", kw_only=True):
    """A defence outside an attack of the log, e.g. a magic defence after a failed parry (I-L553)."""

    fight: str
    character: str
    defence: str
    for_ally: bool = False
    turn_after: Turn


class DestinyPointSpent(Event, tag="fight.destiny_point_spent", kw_only=True):
    character: str
    cancels: int  # the position of the wound cancelled
    pv_restored: int
    limb_restored: str = ""
    revived: bool = False
    destiny_after: int
    narrative: str = ""


class SecondaryCast(msgspec.Struct, frozen=True, kw_only=True):
    """A secondary spell cast with (or on) a primary spell, at its own level (I-L226-228)."""

    spell: str
    level: int
    cost: int = 0


class SpellCast(Event, tag="magic.spell_cast", kw_only=True):
    caster: str
    fight: str = ""
    magic: str
    spell: str
    cast_level: int
    magic_level: int
    threshold_level: int
    cost: int
    rolls: list[Roll]
    outcome: Literal["critical", "normal", "counter"]
    refund_pct: int = 0
    refund_pm: int = 0
    pm_after: int
    counter_effect: str = ""
    effective_level: int
    pp_gained: int = 0
    magic_level_after: int
    target: str = ""
    raw_damage: int = 0
    pv_lost: int = 0
    pv_after: int = 0
    dead: bool = False
    action: str = ""  # the action it took in a fight (I-L253, I-L261)
    turn_after: Turn | None = None
    secondaries: list[SecondaryCast] = []  # cast with the primary, one spell at launch (I-L224-231)
    on_primary: str = ""  # a primary cast at an earlier turn the secondaries are added to (I-L227)
    sense: str = ""  # how the target is located (I-L10-15)
    distance: float | None = None
    reach: float | None = None  # the range by that sense (I-L10-15, I-L161)
    level_bonus: int = 0  # level bonuses: Oubli +1 (I-L134, I-L220)
    superior_effect: bool = False  # the italic superior effect applies (I-L517-518)
    resistance: str = ""  # vol_roll | no_vol_roll | accepted | refused | none (I-L18-20, I-L462-479)
    resisted: bool = False  # the target's Volonté roll countered the effects other than damage (I-L18, I-L467)
    casts_out_of_combat_after: int | None = None  # the magic's counter of casts out of combat (I-L207)
    active: ActiveSpell | None = None  # the spell now in effect on its target (or caster) (I-L494)
    holder: str = ""  # who it is in effect on
    stacking: str = ""  # "replaced" the same spell, or "cancelled" by a higher one (I-L514)


class FightEnded(Event, tag="fight.ended", kw_only=True):
    fight: str


# ============================================================================ commands
class StartFight(msgspec.Struct, frozen=True, kw_only=True):
    fight: str
    participants: tuple[str, ...]


class RollInitiative(msgspec.Struct, frozen=True, kw_only=True):
    fight: str
    maluses: dict[str, int] = {}


class Attack(msgspec.Struct, frozen=True, kw_only=True):
    fight: str
    attacker: str
    target: str
    weapon: str | None = None  # None: the equipped weapon; "" : unarmed
    hands: int = 1
    off_hand: bool = False
    distance: float | None = None
    power_dice: int | None = None  # fewer dice for a non-lethal blow (I-L457)
    flat: bool = False  # the flat of the weapon: Fo / 3, contondant (I-L458)
    zone: str | None = None  # the attacker's choice when the table says so (I-L315)
    defended: bool = False  # the defence succeeded: no damage (I-L273)
    defence: combat.Defence | None = None  # the defence tried against the hit (I-L543)
    defender: str = ""  # an ally acting in defence for the target (I-L552); "" = the target itself
    action: AttackSlot = "major"  # an attack is a major action (I-L260-261), or an extra one (I-L265)


class TakeAction(msgspec.Struct, frozen=True, kw_only=True):
    fight: str
    character: str
    action: Action
    what: str = ""


class Defend(msgspec.Struct, frozen=True, kw_only=True):
    fight: str
    character: str
    defence: combat.Defence
    for_ally: bool = False
    against_magic: bool = False


class SpendDestiny(msgspec.Struct, frozen=True, kw_only=True):
    character: str
    narrative: str = ""


class CastSpell(msgspec.Struct, frozen=True, kw_only=True):
    caster: str
    spell: str
    cast_level: int
    fight: str = ""
    modifiers_pct: tuple[int, ...] = ()
    whispered: bool = False
    target: str = ""
    damage: int = 0  # the spell's raw magic damage (G25: the spell lists are the game master's)
    action: Literal["major", "minor", "extra_major"] = "major"  # in a fight (I-L253, I-L261, I-L265)
    secondaries: tuple[SecondaryCast, ...] = ()  # secondary spells cast with this primary (I-L226)
    on_primary: str = ""  # ``spell`` is a secondary added to this primary cast at an earlier turn (I-L227) ...
    on_primary_level: int = 0  # ... at this cast level
    sense: Literal["sight", "hearing", "smell", "touch"] = "sight"  # how the target is located (I-L10-15)
    distance: float | None = None  # metres to the target or the zone's centre (I-L161, I-L467)
    stealth: bool = False  # cast stealthily: the target perceives the mage with none of its senses (I-L20)
    spotted: bool = False  # ... but the target spotted him all the same (I-L462)
    accept: bool | None = None  # a benefic spell's target accepts (True) or refuses (False) it (I-L465)
    gagged: bool = False  # I-L113
    paralysed: bool = False  # I-L113-117
    canalisateur: bool = True  # the canalisateur is in hand (I-L117)
    relevant: bool = True  # out of combat: the GM deems the cast relevant (I-L207)
    duration: int = 0  # the duration its description gives (0: instantaneous)
    duration_unit: Literal["tours", "minutes"] = "tours"
    concentrate: bool = False  # n turns become n minutes while the mage only keeps this spell (I-L494)


class EndFight(msgspec.Struct, frozen=True, kw_only=True):
    fight: str


def _acuity(hero: Hero, name: str) -> int:
    entry = hero.skills.get(name)
    return entry.pct if entry is not None else 0  # an acuity not shown is 0% (I-L441)


