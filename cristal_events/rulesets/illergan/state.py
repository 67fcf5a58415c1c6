"""The state an Illergan decision reads: heroes and creatures, fights, and the campaign's packs.

Shared by the parts (``heroes``, ``trials``, ``fights``, ``tavern``) and the projections. The
content of a campaign is the core text merged with every ``content.pack_loaded`` event in log order
(:func:`content_of`), so replay never reads a file.
"""

from fractions import Fraction
from functools import lru_cache
from typing import Any

import msgspec

from cristal_events.errors import UnknownEntity
from cristal_events.maps import with_entry

from . import alcohol
from .character import SkillEntry
from .combat import DefenceBudget, TurnBudget
from .content import Content, core_pack, decode_pack, merge
from .locations import Body
from .texts import _

CONTENT_STREAM = "content"
# The characteristics of the sheet (catalogue §0.1); Adresse and Agilité are read as given (G28).
CHARACTERISTICS = ("Fo", "Dex", "Vit", "Vol", "Mana", "E", "Cha", "Sav", "Dep", "Agilité", "Adresse")
CREATURE_REQUIRED = ("Fo", "Dex", "Vol", "Vit", "Adresse")


class LoadedPack(msgspec.Struct, frozen=True, kw_only=True):
    """A game-master pack as its event carries it: a name and the raw pack fields."""

    name: str
    data: dict[str, Any]


class MagicEntry(msgspec.Struct, frozen=True, kw_only=True):
    level: int = 1  # every magic starts at level 1 (I-L213)
    pp: int = 0
    casts_out_of_combat: int = 0  # relevant casts out of combat not yet turned into a pp (I-L207, A9)


class ActiveSpell(msgspec.Struct, frozen=True, kw_only=True):
    """A spell in effect on a character (its target, or its caster), for the stacking, concentration and
    cancelling rules (I-L494-495, I-L514-515)."""

    spell: str
    caster: str
    level: int  # the effective cast level (the stacking compares it, I-L514)
    duration: int
    unit: str = "tours"  # tours | minutes
    concentrated: bool = False  # a duration of n turns kept as n minutes (I-L494)
    position: int = 0
    cast_at: int = 0  # the log's clock (minutes) at the cast: the minutes left when concentration breaks


class Affliction(msgspec.Struct, frozen=True, kw_only=True):
    """A critical's rider on its victim (I-L507-509, A37): Hémorragie loses ``pv_per_turn`` PV at the
    start of each fight turn ``first_turn``..``last_turn``; Handicap takes ``dex_malus`` off the Dex in them."""

    name: str
    fight: str
    first_turn: int
    last_turn: int
    pv_per_turn: int = 0
    dex_malus: int = 0


class WoundRef(msgspec.Struct, frozen=True, kw_only=True):
    """The last wound a destiny point may cancel (I-L318, I-L377)."""

    position: int
    pv_lost: int
    limb_lost: str = ""
    dead: bool = False


class Hero(msgspec.Struct, frozen=True, kw_only=True):
    """A player character or a creature of the game master (``kind``)."""

    id: str
    name: str
    kind: str = "hero"  # hero | creature
    player: str = ""
    race: str = ""
    class_name: str = ""
    heritage: str = ""
    race_skill: str = ""
    class_bonuses: tuple[str, ...] = ()
    characteristic_xp_costs: dict[str, int] = {}
    incantation_types: tuple[str, ...] = ()
    critical_ceiling: int = 2
    characteristics: dict[str, int] = {}
    skills: dict[str, SkillEntry] = {}
    destiny_points: int = 0
    gift: str = ""
    gift_effect: str = ""
    cult: str | None = None
    god: str | None = None
    faith_level: int | None = None
    pf_per_day: int = 0
    pf: int = 0
    pfb: int = 0
    former_cults: tuple[str, ...] = ()  # cults left (I-L571, I-L580): a changed worshipper may not combine
    added_cult: str | None = None  # the one cult an initial Ancêtres worshipper adds (I-L573, I-L582)
    added_faith_level: int = 0
    learned_pds: tuple[str, ...] = ()  # divine powers learned after creation (I-L611)
    lock_attempts: dict[str, int] = {}  # a lock's name -> the attempts made on it (I-L108)
    magics: dict[str, MagicEntry] = {}
    spells: tuple[str, ...] = ()
    creature_spells: dict[str, int] = {}  # a creature's spells and their indicated level (I-L619-623)
    preferred_hand: str = "droite"
    languages: tuple[str, ...] = ()
    traits: tuple[str, ...] = ()
    background_alc_min: int = 0
    alc: alcohol.AlcState = alcohol.AlcState(alc=0, alc_min=0)
    heritage_xp: int = 0  # heritage xp left (not in the xp total, I-L352-354)
    heritage_spent: dict[str, int] = {}
    xp: int = 0  # earned xp not yet spent
    xp_total: int = 0  # earned xp (I-L588)
    pv: int = 0
    pv_max: int = 0
    pm: int = 0
    pm_max: int = 0
    rn: int = 0
    fp: int = 1  # I-L294: one power die by default
    power_rank: int = 1  # I-L297
    weapon: str | None = None
    dropped_weapon: str | None = None  # knocked out of the hand, on the ground (I-L414)
    armour: str | None = None
    shield: str | None = None
    shield_ps: int | None = None  # the shield's PS left; None: the pack's full PS (I-L407, I-L439)
    pieces: dict[str, str] = {}  # armour piece worn alone -> the armour it comes from (I-L75-77)
    harmonised_at: int | None = None  # the log's clock (minutes) at the last Harmonisation (I-L531)
    body: Body | None = None  # None: a humanoid
    family: str = ""  # the bestiary family; "végétal": an animated plant (I-L625-628)
    natural_weapons: tuple[str, ...] = ()  # used in turn, a different one at each attack (I-L445-449)
    attacks_per_turn: int = 0  # a bestiary creature's fixed number of attacks (I-L447, I-L452); 0: the usual rules
    copper: int = 0
    items: dict[str, int] = {}
    max_charges: int = 10
    limbs_lost: tuple[str, ...] = ()
    conditions: tuple[str, ...] = ()  # "aveuglé", "invisible" (I-L413)
    afflictions: tuple[Affliction, ...] = ()  # critical riders still running (I-L507-509)
    active_spells: tuple[ActiveSpell, ...] = ()  # spells in effect on this character (I-L494, I-L514)
    last_wound: WoundRef | None = None
    dead: bool = False


class Turn(msgspec.Struct, frozen=True, kw_only=True):
    """One combatant's turn: the action budget (I-L241-265), the defences left (I-L543), the divine
    powers used (once each per turn, I-L605) and what the next turn owes (I-L416, I-L552, I-L605)."""

    budget: TurnBudget = TurnBudget()
    defences: DefenceBudget = DefenceBudget()
    defences_turn: int = 0  # the fight turn the defence budget belongs to (A34)
    pds: tuple[str, ...] = ()
    owed_major: int = 0
    owed_minor: int = 0
    owed_pds: tuple[str, ...] = ()
    attacks: int = 0  # attacks made this turn by a creature with a fixed number (I-L447)
    cycle: tuple[str, ...] = ()  # natural weapons used in the current cycle (I-L449)
    moved_m: float = 0  # metres of movement used this turn, vertical ones carried from the last turn included (I-L428)
    owed_m: float = 0  # vertical metres that spill over into the next turn (I-L428)
    extra_m: float = 0  # movement added this turn (a take-off doubles what is left, I-L558)
    sprint_m: float = 0  # the Sprint used as this turn's major action (I-L258); 0: the Dep


class Fight(msgspec.Struct, frozen=True, kw_only=True):
    name: str
    participants: tuple[str, ...]
    turn: int = 0
    order: tuple[str, ...] = ()
    acting: tuple[str, ...] = ()
    ended: bool = False
    turns: dict[str, Turn] = {}


class IllerganState(msgspec.Struct, kw_only=True):
    characters: dict[str, Hero] = {}
    clock: int = 0  # minutes the log's clock has run (``wait``, time.passed)
    fights: dict[str, Fight] = {}
    packs: list[LoadedPack] = []


# ------------------------------------------------------------------------------ reads
@lru_cache(maxsize=32)
def _merged(key: bytes) -> Content:
    packs = msgspec.json.decode(key, type=list[LoadedPack])
    merged = core_pack()
    for p in packs:
        pack = decode_pack(msgspec.json.encode(p.data), source=p.name)
        merged = merge(merged, pack, source=p.name, strict=False)  # content load checked it strictly
    return Content(merged)


def content_of(state: Any) -> Content:
    """The core text merged with every pack the campaign loaded, in log order."""
    return _merged(msgspec.json.encode(list(state.packs)))


def stream_of(character: str) -> str:
    return f"character:{character}"


def fight_stream(name: str) -> str:
    return f"fight:{name}"


def find(state: IllerganState, character: str) -> Hero:
    hero = state.characters.get(character)
    if hero is None:
        known = ", ".join(sorted(state.characters)) or _("none")
        raise UnknownEntity(_("Unknown character '{character}'; known characters: {known}.").format(character=character, known=known))
    return hero


def find_fight(state: IllerganState, name: str) -> Fight:
    fight = state.fights.get(name)
    if fight is None or fight.ended:
        raise UnknownEntity(_("No fight named '{name}' is under way.").format(name=name))
    return fight


def stat(hero: Hero, key: str) -> int:
    """A characteristic as it is now: the alcohol band's effects applied (I-L131-134), rounded down."""
    value = alcohol.affected(hero.characteristics, hero.alc.band).get(key)
    if value is None:
        raise UnknownEntity(_('{name} has no characteristic {key!r} on the sheet.').format(name=hero.name, key=key))
    v = Fraction(value)
    return v.numerator // v.denominator


def put(state: IllerganState, hero: Hero) -> IllerganState:
    return msgspec.structs.replace(state, characters=with_entry(state.characters, hero.id, hero))


def plain(value: int | float | Fraction) -> int | float:
    """A rule's exact value as the JSON of an event can hold it."""
    v = Fraction(value)
    return int(v) if v.denominator == 1 else float(v)
