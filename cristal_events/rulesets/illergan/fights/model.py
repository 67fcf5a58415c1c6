"""Illergan fight events and commands (see the package docstring)."""

from typing import Literal

import msgspec

from cristal_events.events import Event
from cristal_events.rolls import Roll

from .. import combat
from ..state import ActiveSpell, Hero, Turn

Action = Literal["major", "minor", "skill", "forgo_major", "extra_major", "knocked_down", "disarmed", "pick_up"]
AttackSlot = Literal["major", "extra_major"]
#: the action a spell cast in a fight takes (I-L253, I-L261, I-L265)
CastSlot = Literal["major", "minor", "extra_major"]
#: how a spell's target is located (I-L10-15)
Sense = Literal["sight", "hearing", "smell", "touch"]


# ============================================================================ events
class FightStarted(Event, frozen=True, tag="fight.started", kw_only=True):
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


class InitiativeRolled(Event, frozen=True, tag="fight.initiative_rolled", kw_only=True):
    fight: str
    turn: int
    entries: list[InitiativeEntry]
    order: list[str]
    turns: dict[str, Turn] | None = None  # every combatant's new turn (None in logs before the turn economy)
    unspotted_by: dict[str, list[str]] = {}  # a stealthy attacker and those who have not spotted him (I-L8)
    kept: bool = False  # initiative_reroll_each_turn=false: the last order and who acts are kept, no die (A1)


class AttackResolved(Event, frozen=True, tag="fight.attack_resolved", kw_only=True):
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
    defence_threshold: int | None = None  # the defence roll's threshold (−40 after a critical, I-L504)
    shield: str = ""  # the shield a successful block put in the way (I-L273, I-L547, A13)
    shield_sr: int | float = 0
    shield_ps_lost: int = 0
    shield_ps_after: int = 0
    shield_destroyed: bool = False
    redirected_from: str = ""  # a hit on a limb already lost goes to the trunk (I-L318, I-L634)
    same_attack_as: str = ""  # the first target, when this is the same attack on another target (I-L292)


class AfflictionTicked(Event, frozen=True, tag="fight.affliction_ticked", kw_only=True):
    """A critical's Hémorragie at the start of one of the victim's turns (I-L507, A37), or the ticks
    left when the fight ends."""

    fight: str
    character: str
    affliction: str
    turns: int = 1
    pv_lost: int = 0
    pv_after: int = 0
    dead: bool = False


class ActionTaken(Event, frozen=True, tag="fight.action_taken", kw_only=True):
    """A major, minor or skill action other than an attack or a spell (I-L246-259), a forgone major
    action (I-L243), an extra major action from an effect (I-L265) or a knock-down (I-L416)."""

    fight: str
    character: str
    action: str
    what: str = ""
    turn_after: Turn
    by: str = ""


class Moved(Event, frozen=True, tag="fight.moved", kw_only=True):
    """Movement in a fight: the Dep before the attack, or the Sprint as the major action (I-L258-263);
    vertical metres count too and may spill into the next turn (I-L428); doubled in flight (I-L560-561)."""

    fight: str
    character: str
    metres: float
    vertical_m: float = 0
    mode: str = "dep"
    available_m: float
    left_m: float
    owed_m: float = 0
    turn_after: Turn


FLYING, HOVERING, HELD = "en vol", "vol stationnaire", "retenu au sol"  # the flight's conditions (I-L556-565)


class FlightChanged(Event, frozen=True, tag="fight.flight_changed", kw_only=True):
    """A take-off (pure Dex roll, a minor action either way, success doubles the movement left, I-L558)
    or a landing."""

    fight: str
    character: str
    flying: bool
    roll: Roll | None = None
    dex: int = 0
    success: bool = True
    left_before_m: float = 0
    left_after_m: float = 0
    turn_after: Turn | None = None
    passengers: list[str] = []
    hover: bool = False  # a bonus allows stationary flight: the movement need not all be used (I-L564)
    held: bool = False  # held by an opponent on the ground (malus de fuite), cannot get away (I-L565)
    held_by: str = ""
    forced: bool = False  # the forced landing at the end of the held flyer's turn (I-L565)


class PoisonApplied(Event, frozen=True, tag="fight.poison_applied", kw_only=True):
    """A poison's irreducible PV loss per turn (no armour, RN or Volonté), for its turns; poisons add up
    over their common turns (I-L415)."""

    fight: str
    character: str
    poison: str
    pv_per_turn: int
    first_turn: int
    last_turn: int


class DefenceUsed(Event, frozen=True, tag="fight.defence_used", kw_only=True):
    """A defence outside an attack of the log, e.g. a magic defence after a failed parry (I-L553)."""

    fight: str
    character: str
    defence: str
    for_ally: bool = False
    turn_after: Turn


class DestinyPointSpent(Event, frozen=True, tag="fight.destiny_point_spent", kw_only=True):
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


class SpellCast(Event, frozen=True, tag="magic.spell_cast", kw_only=True):
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
    shield: str = ""  # the target's shield that blocked the magic damage (I-L439)
    shield_ps_lost: int = 0
    shield_ps_after: int = 0
    shield_destroyed: bool = False
    target_turn_after: Turn | None = None  # the target's defences after the block, in a fight (I-L543)
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


class FightEnded(Event, frozen=True, tag="fight.ended", kw_only=True):
    fight: str


# ============================================================================ commands
class StartFight(msgspec.Struct, frozen=True, kw_only=True):
    fight: str
    participants: tuple[str, ...]


class RollInitiative(msgspec.Struct, frozen=True, kw_only=True):
    fight: str
    maluses: dict[str, int] = {}
    unspotted_by: dict[str, tuple[str, ...]] = {}  # I-L8: he wins initiative against those who did not spot him


class OtherTarget(msgspec.Struct, frozen=True, kw_only=True):
    """Another target of the same attack, with its own defence (I-L292)."""

    target: str
    defence: combat.Defence | None = None
    defended: bool = False
    defence_pct: int | None = None


class Attack(msgspec.Struct, frozen=True, kw_only=True):
    fight: str
    attacker: str
    target: str
    weapon: str | None = None  # None: the equipped weapon; "" : unarmed
    hands: int = 1
    off_hand: bool = False
    distance: float | None = None
    thrown: bool = False  # a pure melee weapon thrown as a last resort: −40 Dex (I-L99)
    power_dice: int | None = None  # fewer dice for a non-lethal blow (I-L457)
    flat: bool = False  # the flat of the weapon: Fo / 3, contondant (I-L458)
    zone: str | None = None  # the attacker's choice when the table says so (I-L315)
    defended: bool = False  # the defence succeeded: no damage (I-L273)
    defence: combat.Defence | None = None  # the defence tried against the hit (I-L543)
    defence_pct: int | None = None  # the defender's defence skill %: the engine rolls it (−40 after a critical, I-L504)
    defender: str = ""  # an ally acting in defence for the target (I-L552); "" = the target itself
    action: AttackSlot = "major"  # an attack is a major action (I-L260-261), or an extra one (I-L265)
    others: tuple[OtherTarget, ...] = ()  # the same attack on more targets: same damage and zone (I-L292)
    letalite: int | None = None  # a "coup précis": its Hémorragie is −[Létalité × 2] PV a turn (I-L507, G29)


class TakeAction(msgspec.Struct, frozen=True, kw_only=True):
    fight: str
    character: str
    action: Action
    what: str = ""
    by: str = ""  # knocked_down by a physical action of this combatant: limited by Vitalité (I-L416)


class Move(msgspec.Struct, frozen=True, kw_only=True):
    fight: str
    character: str
    metres: float = 0
    vertical_m: float = 0
    sprint: float | None = None  # the Sprint on the sheet (I-L358, no formula in the text): sprint as the major action
    u_turns: int = 0  # in flight a U-turn costs 2 m more (I-L564)


class ApplyPoison(msgspec.Struct, frozen=True, kw_only=True):
    fight: str
    character: str
    poison: str
    pv_per_turn: int
    turns: int


class Fly(msgspec.Struct, frozen=True, kw_only=True):
    fight: str
    character: str
    land: bool = False
    means: str = ""  # what lets a creature without wings fly (I-L556)
    passengers: tuple[str, ...] = ()  # carried: their Vitalités at most 6 × Fo (I-L566)
    hover: str = ""  # the bonus that allows stationary flight (I-L564), named at the take-off
    held: str = ""  # the opponent on the ground who imposes a malus de fuite the flyer cannot get away
    #                 from, as the GM says: the flyer must land at the end of his turn (I-L565)


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
    blocked: bool = False  # the target blocked with its shield: SRM, then PS, the rest by Volonté (I-L439)
    action: CastSlot = "major"  # in a fight (I-L253, I-L261, I-L265)
    secondaries: tuple[SecondaryCast, ...] = ()  # secondary spells cast with this primary (I-L226)
    on_primary: str = ""  # ``spell`` is a secondary added to this primary cast at an earlier turn (I-L227) ...
    on_primary_level: int = 0  # ... at this cast level
    sense: Sense = "sight"  # how the target is located (I-L10-15)
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


def acuity_pct(hero: Hero, name: str) -> int:
    entry = hero.skills.get(name)
    return entry.pct if entry is not None else 0  # an acuity not shown is 0% (I-L441)


