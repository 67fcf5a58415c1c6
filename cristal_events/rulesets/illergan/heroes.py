"""Illergan heroes as event streams (``character:<id>``): packs, creation, xp, money and gear.

Part of the illergan ruleset (``EVENTS``, ``DECIDERS``, ``EVOLVERS``, ``SUMMARIES``, ``COMPENSATORS``;
see ``ruleset.py``). Decisions reuse the pure rules (:mod:`.character`, :mod:`.xp`, :mod:`.money`);
every event stores what an audit needs (an xp purchase keeps the cost charged AND the cost the rules
required). Folds apply deltas, so a later correction stays consistent.

The text leaves PV, PM and RN without formulas (G12): the game master gives them at creation.
"""

from typing import Any, Literal

import msgspec

from cristal_events.bounds import as_int
from cristal_events.display import plain_id
from cristal_events.errors import ContentError, RuleError
from cristal_events.events import Event
from cristal_events.records import RecordedEvent
from cristal_events.rolls import Roll
from cristal_events.ruleset import Context, Emit, event_of, on_event

from ...i18n import N_
from . import character as creation
from . import gear
from . import money as coins
from . import xp as costs
from .alcohol import start as alc_start
from .content import decode_pack, merge, overrides_of
from .locations import Body
from .magic import pf_per_day
from .state import (
    CHARACTERISTICS,
    CONTENT_STREAM,
    CREATURE_REQUIRED,
    Hero,
    IllerganState,
    LoadedPack,
    MagicEntry,
    content_of,
    find,
    put,
    stream_of,
)
from .texts import _


# ============================================================================ events
class PackLoaded(Event, frozen=True, tag="content.pack_loaded", kw_only=True):
    """A game-master pack, carried whole so that replay does not depend on the file. ``overrides`` names,
    by section, the entries it replaces (each marked ``"override": true`` in the pack)."""

    name: str
    data: dict[str, Any]
    overrides: dict[str, list[str]] = {}


class HeroCreated(Event, frozen=True, tag="hero.created", kw_only=True):
    character: str
    character_data: Hero
    gift_roll: Roll | None = None
    kit: dict[str, int] = {}


class CreatureCreated(Event, frozen=True, tag="hero.creature_created", kw_only=True):
    character: str
    character_data: Hero


class XpAwarded(Event, frozen=True, tag="xp.awarded", kw_only=True):
    character: str
    amount: int
    reason: str
    balance_after: int


XpKind = Literal["skill", "pp", "magic", "characteristic", "faith"]


class XpSpent(Event, frozen=True, tag="xp.spent", kw_only=True):
    """One purchase: a skill %, pp, a magic, a characteristic point or a faith level."""

    character: str
    kind: XpKind
    target: str
    from_value: int | None
    to_value: int
    rank: int | None = None
    acquire_xp: int = 0
    cost_required: int
    cost_charged: int
    pool: Literal["xp", "heritage"] = "xp"
    balance_after: int
    magic_level_after: int | None = None
    unlocked: str = ""  # the weapon mastery unlocked at 50% by this one reaching 100% (I-L491)
    unlocked_rank: int | None = None


class HeroCorrected(Event, frozen=True, tag="hero.corrected", kw_only=True):
    character: str
    amends: int
    field: Literal["xp", "copper"]
    delta: int
    reason: str = ""


class MoneyChanged(Event, frozen=True, tag="money.changed", kw_only=True):
    character: str
    amount_c: int
    reason: str
    balance_after_c: int
    item: str = ""
    qty_delta: int = 0
    reference_c: int | None = None


class Equipped(Event, frozen=True, tag="hero.equipped", kw_only=True):
    character: str
    slot: Literal["weapon", "armour", "shield"]
    item: str | None
    piece: str | None = None  # one armour piece (I-L77): cuirasse, casque, brassards, jambières


class ItemsCarried(Event, frozen=True, tag="hero.items_carried", kw_only=True):
    """Objects picked up (loot, a gift) or left behind, outside a purchase or a sale."""

    character: str
    item: str
    qty_delta: int
    reason: str = ""
    charges_after: int | None = None


# ============================================================================ commands
class LoadPack(msgspec.Struct, frozen=True, kw_only=True):
    name: str
    data: dict[str, Any]


class CreateHero(msgspec.Struct, frozen=True, kw_only=True):
    character: str
    choices: creation.Choices
    characteristics: dict[str, int]
    pv: int
    pm: int
    rn: int
    player: str = ""
    gift_face: int | None = None
    fp: int = 1
    power_rank: int = 1
    kit: tuple[str, ...] = ()
    copper: int = 0
    spells: tuple[str, ...] = ()


class CreateCreature(msgspec.Struct, frozen=True, kw_only=True):
    character: str
    name: str
    characteristics: dict[str, int]
    pv: int
    rn: int = 0
    pm: int = 0
    fp: int = 1
    power_rank: int = 1
    weapon: str | None = None
    armour: str | None = None
    body: Body | None = None
    family: str = ""  # "végétal" for an animated plant (I-L625-628)
    natural_weapons: tuple[str, ...] = ()  # pack weapons (I-L445)
    attacks_per_turn: int = 0  # the bestiary's fixed number of attacks a turn (I-L447); 0: the usual rules
    spells: dict[str, int] = {}  # its spells and the level shown in brackets (I-L619-623)


class AwardXp(msgspec.Struct, frozen=True, kw_only=True):
    character: str
    amount: int
    reason: str


class BuyXp(msgspec.Struct, frozen=True, kw_only=True):
    """``kind`` skill (``target`` % in ``value``), pp (``value`` pp), magic (``value`` = teacher level),
    characteristic (``value`` points) or faith (one level)."""

    character: str
    kind: XpKind
    target: str = ""
    value: int = 1
    heritage: bool = False
    charge: int | None = None
    unlock: str = ""  # the weapon mastery a mastery raised to 100% unlocks at 50% (I-L491)


class ChangeMoney(msgspec.Struct, frozen=True, kw_only=True):
    character: str
    amount_c: int
    reason: str


class Trade(msgspec.Struct, frozen=True, kw_only=True):
    character: str
    item: str
    sell: bool = False
    price_c: int | None = None
    piece: str | None = None
    jewel: bool = False


class Equip(msgspec.Struct, frozen=True, kw_only=True):
    character: str
    slot: Literal["weapon", "armour", "shield"]
    item: str | None
    piece: str | None = None


class Carry(msgspec.Struct, frozen=True, kw_only=True):
    """``qty`` objects picked up (positive) or left behind (negative)."""

    character: str
    item: str
    qty: int
    reason: str = ""


# ============================================================================ decisions
def decide_pack(state: IllerganState, cmd: LoadPack, ctx: Context) -> list[Emit]:
    if not cmd.name.strip():
        raise RuleError(_('A content pack needs a name.'))
    plain_id(cmd.name, "Content pack name")
    for section, entries in cmd.data.items():  # the names later commands type: entries and table keys
        keys = ([e.get("name") for e in entries if isinstance(e, dict)] if isinstance(entries, (list, tuple))
                else entries if isinstance(entries, dict) else ())
        for key in keys:
            if isinstance(key, str):
                plain_id(key, f"A name in the pack's {section}")
    if any(p.name == cmd.name for p in state.packs):
        raise ContentError(_('The content pack {name!r} is already loaded in this campaign.').format(name=cmd.name))
    before = content_of(state).pack
    pack = decode_pack(msgspec.json.encode(cmd.data), source=cmd.name)
    merge(before, pack, source=cmd.name)  # strict: a pack may not contradict the text unless it says override
    content_of(msgspec.structs.replace(state, packs=[*state.packs, LoadedPack(name=cmd.name, data=cmd.data)]))
    overrides = overrides_of(before, pack, source=cmd.name)
    return [Emit(CONTENT_STREAM, PackLoaded(name=cmd.name, data=cmd.data, overrides=overrides))]


def _new_id(state: IllerganState, character: str) -> str:
    if not character.strip() or ":" in character:
        raise RuleError(_('A character id needs letters and no colon, not {character!r}.').format(character=character))
    plain_id(character, "Character id")
    if character in state.characters:
        raise RuleError(_("The character '{character}' already exists.").format(character=character))
    return character


def _check_characteristics(values: dict[str, int], required: tuple[str, ...]) -> None:
    missing = [k for k in required if k not in values]
    if missing:
        raise RuleError(_('The characteristic(s) {missing} are missing; give them as KEY=VALUE.').format(missing=', '.join(missing)))
    unknown = [k for k in values if k not in CHARACTERISTICS]
    if unknown:
        raise RuleError(_('Unknown characteristic {value!r}; the sheet has {CHARACTERISTICS}.').format(value=unknown[0], CHARACTERISTICS=', '.join(CHARACTERISTICS)))


def _pools(pv: int, pm: int, rn: int) -> None:
    if pv <= 0:
        raise RuleError(_("A character starts with some PV (the game master's value, G12), not {pv}.").format(pv=pv))
    if pm < 0 or not 0 <= rn <= 100:
        raise RuleError(_('PM must be 0 or more and RN 0 to 100%, not PM {pm} and RN {rn}.').format(pm=pm, rn=rn))


def decide_create(state: IllerganState, cmd: CreateHero, ctx: Context) -> list[Emit]:
    cid = _new_id(state, cmd.character)
    content = content_of(state)
    _check_characteristics(cmd.characteristics, CHARACTERISTICS)
    _pools(cmd.pv, cmd.pm, cmd.rn)
    dice = ctx.dice() if cmd.gift_face is None else None
    made = creation.create(content, cmd.choices, fo=cmd.characteristics["Fo"], gift_face=cmd.gift_face, dice=dice)
    cls = content.entry("classes", made.class_name)
    per_magic: dict[str, int] = {}
    for spell in cmd.spells:
        sp = content.entry("spells", spell)
        if sp.magic not in made.magics:
            raise RuleError(_('{spell} is a spell of {magic}, which {name} does not know.').format(spell=spell, magic=sp.magic, name=made.name))
        if sp.min_level > made.magics[sp.magic]:  # every magic starts at level 1 (I-L213, I-L443)
            raise RuleError(_('{spell} is of minimum level {min_level}; {magic} starts at level {value} (I-L213, I-L443).').format(spell=spell, min_level=sp.min_level, magic=sp.magic, value=made.magics[sp.magic]))
        per_magic[sp.magic] = per_magic.get(sp.magic, 0) + 1
        if cls.spells_at_creation is not None and per_magic[sp.magic] > cls.spells_at_creation:
            raise RuleError(_('A {name} masters at most {spells_at_creation} spell(s) of a magic at creation (I-L338).').format(name=cls.name, spells_at_creation=cls.spells_at_creation))
    kit = creation.starting_equipment(content, cmd.kit) if cmd.kit else {}
    if cmd.copper < 0:
        raise RuleError(_("Starting Starls cannot be negative ({copper}'C).").format(copper=cmd.copper))
    hero = Hero(
        id=cid, name=made.name, player=cmd.player, race=made.race, class_name=made.class_name,
        heritage=made.heritage, race_skill=made.race_skill, class_bonuses=made.class_bonuses,
        characteristic_xp_costs=made.characteristic_xp_costs, incantation_types=made.incantation_types,
        critical_ceiling=cls.critical_ceiling, characteristics=dict(cmd.characteristics), skills=made.skills,
        destiny_points=made.destiny_points, gift=made.gift, gift_effect=made.gift_effect, cult=made.cult,
        god=made.god, faith_level=made.faith_level, pf_per_day=made.pf_per_day, pf=made.pf_per_day,
        magics={m: MagicEntry(level=lvl) for m, lvl in made.magics.items()}, spells=cmd.spells,
        preferred_hand=made.preferred_hand, languages=made.languages, traits=made.traits,
        background_alc_min=made.alc_min, alc=alc_start(made.alc_min), heritage_xp=made.heritage_xp,
        pv=cmd.pv, pv_max=cmd.pv, pm=cmd.pm, pm_max=cmd.pm, rn=cmd.rn, fp=cmd.fp, power_rank=cmd.power_rank,
        copper=cmd.copper, items=kit, max_charges=made.max_charges,
    )
    return [Emit(stream_of(cid), HeroCreated(character=cid, character_data=hero, gift_roll=made.gift_roll, kit=kit))]


def decide_creature(state: IllerganState, cmd: CreateCreature, ctx: Context) -> list[Emit]:
    cid = _new_id(state, cmd.character)
    content = content_of(state)
    _check_characteristics(cmd.characteristics, CREATURE_REQUIRED)
    _pools(cmd.pv, cmd.pm, cmd.rn)
    for kind, name in (("weapons", cmd.weapon), ("armours", cmd.armour), *(("weapons", w) for w in cmd.natural_weapons)):
        if name is not None:
            content.entry(kind, name)
    if cmd.attacks_per_turn < 0:
        raise RuleError(_('A number of attacks a turn cannot be negative, not {attacks_per_turn}.').format(attacks_per_turn=cmd.attacks_per_turn))
    if cmd.natural_weapons and not cmd.attacks_per_turn:
        raise RuleError(_('A creature with natural weapons has a fixed number of attacks a turn (I-L447): give it.'))
    for spell, level in cmd.spells.items():
        content.entry("spells", spell)
        if not 1 <= level <= 10:
            raise RuleError(_("A creature's spell level must be 1 to 10 (I-L237), not {level} for {spell}.").format(level=level, spell=spell))
    hero = Hero(id=cid, name=cmd.name or cid, kind="creature", characteristics=dict(cmd.characteristics),
                pv=cmd.pv, pv_max=cmd.pv, pm=cmd.pm, pm_max=cmd.pm, rn=cmd.rn, fp=cmd.fp,
                power_rank=cmd.power_rank, weapon=cmd.weapon, armour=cmd.armour, body=cmd.body, family=cmd.family,
                natural_weapons=tuple(cmd.natural_weapons), attacks_per_turn=cmd.attacks_per_turn,
                spells=tuple(cmd.spells), creature_spells=dict(cmd.spells))
    return [Emit(stream_of(cid), CreatureCreated(character=cid, character_data=hero))]


def decide_award(state: IllerganState, cmd: AwardXp, ctx: Context) -> list[Emit]:
    hero = find(state, cmd.character)
    if cmd.amount <= 0:
        raise RuleError(_('An xp award must be positive, not {amount}.').format(amount=cmd.amount))
    if not cmd.reason.strip():
        raise RuleError(_('An xp award needs a reason (I-L590: the game master notes the actions rewarded).'))
    return [Emit(stream_of(hero.id), XpAwarded(character=hero.id, amount=cmd.amount, reason=cmd.reason,
                                               balance_after=hero.xp + cmd.amount))]


def _skill_price(hero: Hero, content: Any, cmd: BuyXp) -> tuple[int | None, int, int | None, int, int]:
    entry = hero.skills.get(cmd.target)
    buy = costs.skill_purchase(content, cmd.target, current=None if entry is None else entry.pct, target=cmd.value)
    if entry is not None and entry.fixed:
        raise RuleError(_('A rank 0 skill is fixed and cannot be improved (I-L483).'))
    if entry is not None and cmd.value == entry.pct:
        raise RuleError(_('{target} is already at {pct}%.').format(target=cmd.target, pct=entry.pct))
    rank = content.skill(cmd.target).rank
    return (None if entry is None else entry.pct), cmd.value, rank, buy.acquire_xp, buy.total


def _price(hero: Hero, state: IllerganState, cmd: BuyXp) -> tuple[int | None, int, int | None, int, int, int | None]:
    """(from, to, rank, acquire xp, cost the rules require, magic level after) of one purchase."""
    content = content_of(state)
    match cmd.kind:
        case "skill":
            frm, to, rank, acquire, cost = _skill_price(hero, content, cmd)
            return frm, to, rank, acquire, cost, None
        case "pp":
            magic = hero.magics.get(cmd.target)
            if magic is None:
                raise RuleError(_('{name} does not know the magic {target!r}.').format(name=hero.name, target=cmd.target))
            cost = costs.pp_cost(cmd.value)
            from .magic import magic_level_for_pp
            level = magic_level_for_pp(magic.pp + cmd.value, content)
            return magic.pp, magic.pp + cmd.value, None, 0, cost, max(level, magic.level)
        case "magic":
            if cmd.target in hero.magics:
                raise RuleError(_('{name} already knows the magic {target!r}.').format(name=hero.name, target=cmd.target))
            if not any(s.magic == cmd.target for s in content.pack.spells):
                raise RuleError(_("The magic {target!r} has no spell in this campaign's content pack.").format(target=cmd.target))
            return None, 1, None, 0, costs.new_magic_cost(cmd.value), 1
        case "characteristic":
            if cmd.target not in hero.characteristics:
                raise RuleError(_('Unknown characteristic {target!r}; the sheet has {CHARACTERISTICS}.').format(target=cmd.target, CHARACTERISTICS=', '.join(CHARACTERISTICS)))
            per = hero.characteristic_xp_costs.get(cmd.target)
            if per is None:
                raise content.missing(_('The xp cost of {target} for the {class_name} class').format(target=cmd.target, class_name=hero.class_name), "G13 xp weighting")
            if cmd.value <= 0:
                raise RuleError(_('Buy at least one characteristic point, not {value}.').format(value=cmd.value))
            now = hero.characteristics[cmd.target]
            return now, now + cmd.value, None, 0, per * cmd.value, None
        case "faith":
            if hero.cult is None or hero.faith_level is None:
                raise RuleError(_('{name} follows no cult (I-L333).').format(name=hero.name))
            if cmd.target and cmd.target == hero.added_cult:  # the added cult: non-religious costs (I-L573)
                nxt = hero.added_faith_level + 1
                return hero.added_faith_level, nxt, None, 0, costs.faith_level_cost(content, nxt, religious=False), None
            if cmd.target and cmd.target not in ("foi", hero.cult):
                raise RuleError(_('{name} does not worship the {target} (I-L571-573).').format(name=hero.name, target=cmd.target))
            religious = content.entry("classes", hero.class_name).religious
            nxt = hero.faith_level + 1
            return hero.faith_level, nxt, None, 0, costs.faith_level_cost(content, nxt, religious=religious), None
    raise RuleError(_('Unknown purchase {kind!r}.').format(kind=cmd.kind))


def _heritage_target(cmd: BuyXp) -> str:
    return "characteristics" if cmd.kind == "characteristic" else cmd.target


def decide_buy(state: IllerganState, cmd: BuyXp, ctx: Context) -> list[Emit]:
    hero = find(state, cmd.character)
    if hero.kind != "hero":
        raise RuleError(_('{name} is a creature and has no xp.').format(name=hero.name))
    if hero.dead:
        raise RuleError(_('{name} is dead and cannot spend xp.').format(name=hero.name))
    frm, to, rank, acquire, required, level = _price(hero, state, cmd)
    charged = required if cmd.charge is None else cmd.charge
    if charged < 0:
        raise RuleError(_('An xp price cannot be negative ({charged}).').format(charged=charged))
    if cmd.heritage:
        content = content_of(state)
        key = _heritage_target(cmd)
        spends = {**hero.heritage_spent, key: hero.heritage_spent.get(key, 0) + charged}
        creation.heritage_leftover(content, hero.heritage, spends)
        left = costs.spend(hero.heritage_xp, charged, what=_('{value} from the heritage').format(value=cmd.target or cmd.kind))
        balance = left + hero.xp
    else:
        balance = costs.spend(hero.xp, charged, what=cmd.target or cmd.kind) + hero.heritage_xp
    unlocked = _mastery_unlock(hero, state, cmd, to)
    ev = XpSpent(character=hero.id, kind=cmd.kind, target=cmd.target, from_value=frm, to_value=to, rank=rank,
                 acquire_xp=acquire, cost_required=required, cost_charged=charged,
                 pool="heritage" if cmd.heritage else "xp", balance_after=balance, magic_level_after=level,
                 unlocked=unlocked, unlocked_rank=content_of(state).skill(unlocked).rank if unlocked else None)
    return [Emit(stream_of(hero.id), ev)]


def _mastery_unlock(hero: Hero, state: IllerganState, cmd: BuyXp, to: int) -> str:
    """A weapon mastery raised to 100% unlocks another, chosen, at 50% (I-L491); none left: nothing."""
    content = content_of(state)
    skill = content._index["skills"].get(cmd.target) if cmd.kind == "skill" else None
    reached = skill is not None and skill.weapon_mastery and costs.mastery_unlock(to) is not None
    if not reached:
        if cmd.unlock:
            raise RuleError(_('Only a weapon mastery raised to 100% unlocks another one (I-L491).'))
        return ""
    open_ = [s.name for s in content.pack.skills if s.weapon_mastery and s.name != cmd.target
             and (hero.skills.get(s.name) is None or hero.skills[s.name].pct < costs.MASTERY_UNLOCK_PCT)]
    if not open_:
        return ""
    if not cmd.unlock:
        raise RuleError(_('{target} reaches 100%: choose the weapon mastery it unlocks at 50% ({open_}) (I-L491).').format(target=cmd.target, open_=', '.join(open_)))
    if cmd.unlock not in open_:
        raise RuleError(_('{unlock} cannot be unlocked at 50%; choose one of {open_} (I-L491).').format(unlock=cmd.unlock, open_=', '.join(open_)))
    return cmd.unlock


def decide_money(state: IllerganState, cmd: ChangeMoney, ctx: Context) -> list[Emit]:
    hero = find(state, cmd.character)
    if cmd.amount_c == 0:
        raise RuleError(_('A change of Starls needs a non-zero amount.'))
    if not cmd.reason.strip():
        raise RuleError(_('A change of Starls needs a reason.'))
    after = hero.copper + cmd.amount_c
    if after < 0:
        have = coins.from_copper(hero.copper, content_of(state))
        raise RuleError(_("{name} has only {have}; {value}'C cannot be paid.").format(name=hero.name, have=have, value=-cmd.amount_c))
    return [Emit(stream_of(hero.id), MoneyChanged(character=hero.id, amount_c=cmd.amount_c, reason=cmd.reason,
                                                  balance_after_c=after))]


def _list_price(content: Any, item: str) -> int:
    for kind in ("weapons", "armours", "shields"):
        entry = content._index[kind].get(item)
        if entry is not None:
            if not entry.price_c:
                raise content.missing(_('The price of {item!r}').format(item=item), "G3/G30 item lists")
            return entry.price_c
    raise content.missing(_('The item {item!r}').format(item=item), "G3/G30 item lists")


def decide_trade(state: IllerganState, cmd: Trade, ctx: Context) -> list[Emit]:
    """Buy at the list price (an armour piece at 40% / 20%, I-L79) or sell at 25% of it (I-L26)."""
    hero = find(state, cmd.character)
    content = content_of(state)
    listed = cmd.price_c if cmd.price_c is not None and not cmd.sell else _list_price(content, cmd.item)
    label = cmd.item if cmd.piece is None else f"{cmd.item} ({cmd.piece})"
    if cmd.piece is not None:
        content.entry("armours", cmd.item)
        listed = coins.piece_price(listed, cmd.piece, content)
    if cmd.sell:
        held = next((k for k, n in hero.items.items() if n > 0 and k == label), None) or next(
            (k for k, n in hero.items.items() if n > 0 and gear.base(k) == label), None)
        if held is None and label not in (hero.weapon, hero.armour, hero.shield):
            raise RuleError(_('{name} does not carry {label}.').format(name=hero.name, label=label))
        label = held or label
        reference = coins.resale_price(listed, content, jewel=cmd.jewel)
        amount = reference if cmd.price_c is None else cmd.price_c
        return [Emit(stream_of(hero.id), MoneyChanged(
            character=hero.id, amount_c=amount, reason=f"vente de {label}", balance_after_c=hero.copper + amount,
            item=label, qty_delta=-1, reference_c=reference))]
    if listed > hero.copper:
        raise RuleError(_('{label} costs {from_copper}; {name} has {from_copper2}.').format(label=label, from_copper=coins.from_copper(listed, content), name=hero.name, from_copper2=coins.from_copper(hero.copper, content)))
    gear.check(hero, content, ctx.settings, items={**hero.items, label: hero.items.get(label, 0) + 1})
    return [Emit(stream_of(hero.id), MoneyChanged(
        character=hero.id, amount_c=-listed, reason=f"achat de {label}", balance_after_c=hero.copper - listed,
        item=label, qty_delta=1, reference_c=listed))]


_SLOT_KIND = {"weapon": "weapons", "armour": "armours", "shield": "shields"}


def decide_equip(state: IllerganState, cmd: Equip, ctx: Context) -> list[Emit]:
    """Hold, wear or put away what the hero carries (I-L47-48); a lone armour piece covers its zone (I-L77)."""
    hero = find(state, cmd.character)
    content = content_of(state)
    if cmd.piece is not None:
        if cmd.slot != "armour":
            raise RuleError(_('Only an armour comes in pieces (I-L75).'))
        if cmd.piece not in gear.PIECES:
            raise RuleError(_('Unknown armour piece {piece!r}; the pieces are {value} (I-L75).').format(piece=cmd.piece, value=', '.join(gear.PIECES)))
        if hero.pieces.get(cmd.piece) == cmd.item:
            raise RuleError(_('{name} already wears that {piece}.').format(name=hero.name, piece=cmd.piece))
        if cmd.item is not None:
            content.entry("armours", cmd.item)
            label = gear.piece_label(cmd.item, cmd.piece)
            if not gear.owns(hero, label):
                raise RuleError(_('{name} does not carry {label}; buy or pick it up first (I-L47-48).').format(name=hero.name, label=label))
        pieces = {k: v for k, v in hero.pieces.items() if k != cmd.piece}
        if cmd.item is not None:
            pieces[cmd.piece] = cmd.item
        gear.check(hero, content, ctx.settings, pieces=pieces)
        return [Emit(stream_of(hero.id), Equipped(character=hero.id, slot="armour", item=cmd.item, piece=cmd.piece))]
    if cmd.item is not None:
        content.entry(_SLOT_KIND[cmd.slot], cmd.item)
    if getattr(hero, cmd.slot) == cmd.item:
        raise RuleError(_('{name} already has that {slot}.').format(name=hero.name, slot=cmd.slot))
    if cmd.item is not None and not gear.owns(hero, cmd.item):
        raise RuleError(_('{name} does not carry {item}; buy or pick it up first (I-L47-48).').format(name=hero.name, item=cmd.item))
    gear.check(hero, content, ctx.settings, **{cmd.slot: cmd.item})
    return [Emit(stream_of(hero.id), Equipped(character=hero.id, slot=cmd.slot, item=cmd.item))]


def decide_carry(state: IllerganState, cmd: Carry, ctx: Context) -> list[Emit]:
    hero = find(state, cmd.character)
    if not cmd.item.strip():
        raise RuleError(_('Name the object carried or left.'))
    if cmd.qty > 0:  # a new key of the bag; leaving an object already carried stays possible
        plain_id(cmd.item, "An object's name")
    if cmd.qty == 0:
        raise RuleError(_('Give how many objects are picked up (positive) or left (negative).'))
    have = hero.items.get(cmd.item, 0)
    if have + cmd.qty < 0:
        raise RuleError(_('{name} carries {have} {item}, not {value}.').format(name=hero.name, have=have, item=cmd.item, value=-cmd.qty))
    content = content_of(state)
    items = {**hero.items, cmd.item: have + cmd.qty}
    if cmd.qty > 0:
        gear.check(hero, content, ctx.settings, items=items)
    try:
        after: int | None = gear.load(hero, content, items={k: v for k, v in items.items() if v}).charges
    except RuleError:
        after = None
    return [Emit(stream_of(hero.id), ItemsCarried(character=hero.id, item=cmd.item, qty_delta=cmd.qty,
                                                  reason=cmd.reason, charges_after=after))]


# ============================================================================ folds
def evolve_pack(state: IllerganState, ev: PackLoaded, rec: RecordedEvent) -> IllerganState:
    return msgspec.structs.replace(state, packs=[*state.packs, LoadedPack(name=ev.name, data=ev.data)])


def evolve_created(state: IllerganState, ev: HeroCreated | CreatureCreated, rec: RecordedEvent) -> IllerganState:
    return put(state, ev.character_data)


def _update(state: IllerganState, character: str, **changes: Any) -> IllerganState:
    hero = state.characters[character]
    return put(state, msgspec.structs.replace(hero, **changes))


def evolve_award(state: IllerganState, ev: XpAwarded, rec: RecordedEvent) -> IllerganState:
    hero = state.characters[ev.character]
    return _update(state, ev.character, xp=hero.xp + ev.amount, xp_total=hero.xp_total + ev.amount)


def _apply_purchase(hero: Hero, ev: XpSpent) -> dict[str, Any]:
    match ev.kind:
        case "skill":
            old = hero.skills.get(ev.target)
            entry = creation.SkillEntry(pct=ev.to_value, rank=ev.rank, fixed=bool(old and old.fixed))
            skills = {**hero.skills, ev.target: entry}
            if ev.unlocked:  # unlocked at 50%, its rank kept if it had one (I-L491)
                had = hero.skills.get(ev.unlocked)
                skills[ev.unlocked] = creation.SkillEntry(pct=costs.MASTERY_UNLOCK_PCT,
                                                          rank=had.rank if had else ev.unlocked_rank)
            return {"skills": skills}
        case "pp":
            m = hero.magics[ev.target]
            level = ev.magic_level_after or m.level
            return {"magics": {**hero.magics, ev.target: MagicEntry(level=level, pp=m.pp + ev.to_value - (ev.from_value or 0))}}
        case "magic":
            return {"magics": {**hero.magics, ev.target: MagicEntry(level=1)}}
        case "characteristic":
            delta = ev.to_value - (ev.from_value or 0)
            value = hero.characteristics[ev.target] + delta
            more = {"max_charges": coins.max_charges(value)} if ev.target == "Fo" else {}  # [10 + Fo] (I-L43)
            return {"characteristics": {**hero.characteristics, ev.target: value}, **more}
        case "faith":  # the day's PF follow the new level from the next Harmonisation (I-L592-595)
            if ev.target and ev.target == hero.added_cult:
                return {"added_faith_level": ev.to_value}
            return {"faith_level": ev.to_value, "pf_per_day": pf_per_day(hero.class_name, ev.to_value)}
    return {}


def evolve_spent(state: IllerganState, ev: XpSpent, rec: RecordedEvent) -> IllerganState:
    hero = state.characters[ev.character]
    changes = _apply_purchase(hero, ev)
    if ev.pool == "heritage":
        key = "characteristics" if ev.kind == "characteristic" else ev.target
        changes["heritage_xp"] = hero.heritage_xp - ev.cost_charged
        changes["heritage_spent"] = {**hero.heritage_spent, key: hero.heritage_spent.get(key, 0) + ev.cost_charged}
    else:
        changes["xp"] = hero.xp - ev.cost_charged
    return _update(state, ev.character, **changes)


def evolve_corrected(state: IllerganState, ev: HeroCorrected, rec: RecordedEvent) -> IllerganState:
    hero = state.characters[ev.character]
    if ev.field == "xp":
        return _update(state, ev.character, xp=hero.xp + ev.delta, xp_total=hero.xp_total + ev.delta)
    return _update(state, ev.character, copper=hero.copper + ev.delta)


def evolve_money(state: IllerganState, ev: MoneyChanged, rec: RecordedEvent) -> IllerganState:
    hero = state.characters[ev.character]
    items = dict(hero.items)
    changes: dict[str, Any] = {}
    if ev.item and ev.qty_delta < 0 and ev.item not in items:
        # selling the weapon, armour or shield in use (the only one carried)
        changes = {slot: None for slot in ("weapon", "armour", "shield") if getattr(hero, slot) == ev.item}
    elif ev.item:
        qty = items.get(ev.item, 0) + ev.qty_delta
        if qty > 0:
            items[ev.item] = qty
        else:
            items.pop(ev.item, None)
            changes = _unequip_sold(hero, ev.item, items)
    return _update(state, ev.character, copper=hero.copper + ev.amount_c, items=items, **changes)


def _unequip_sold(hero: Hero, sold: str, items: dict[str, int]) -> dict[str, Any]:
    """The last copy of what is in use is sold: it is no longer held or worn (I-L26, I-L79)."""
    after = msgspec.structs.replace(hero, items=items)
    changes: dict[str, Any] = {slot: None for slot in ("weapon", "armour", "shield")
                               if getattr(hero, slot) in (sold, gear.base(sold)) and not gear.owns(after, getattr(hero, slot))}
    pieces = {p: a for p, a in hero.pieces.items() if gear.owns(after, gear.piece_label(a, p))}
    if pieces != hero.pieces:
        changes["pieces"] = pieces
    return changes


def evolve_equipped(state: IllerganState, ev: Equipped, rec: RecordedEvent) -> IllerganState:
    if ev.piece is not None:
        pieces = {k: v for k, v in state.characters[ev.character].pieces.items() if k != ev.piece}
        if ev.item is not None:
            pieces[ev.piece] = ev.item
        return _update(state, ev.character, pieces=pieces)
    fresh = {"shield_ps": None} if ev.slot == "shield" else {}  # a shield taken up has its own PS (I-L407)
    return _update(state, ev.character, **{ev.slot: ev.item}, **fresh)


def evolve_carried(state: IllerganState, ev: ItemsCarried, rec: RecordedEvent) -> IllerganState:
    items = dict(state.characters[ev.character].items)
    qty = items.get(ev.item, 0) + ev.qty_delta
    if qty > 0:
        items[ev.item] = qty
    else:
        items.pop(ev.item, None)
    return _update(state, ev.character, items=items)


# ============================================================================ corrections
def _amount(changes: dict[str, Any], original: int) -> int:
    if set(changes) != {"amount"}:
        raise RuleError(_('Only the amount of this event can be corrected: give amount=N.'))
    value = as_int(changes["amount"])
    if value is None:
        raise RuleError(_('The corrected amount must be a whole number, not {value!r}.').format(value=changes['amount']))
    if value == original:
        raise RuleError(_('The amount is already {original}; nothing to correct.').format(original=original))
    return value


def compensate_award(state: IllerganState, original: RecordedEvent, changes: dict[str, Any], ctx: Context) -> list[Emit]:
    ev = event_of(original, XpAwarded)
    find(state, ev.character)
    value = _amount(changes, ev.amount)
    if value <= 0:
        raise RuleError(_('The corrected award must be positive, not {value}.').format(value=value))
    return [Emit(stream_of(ev.character), HeroCorrected(character=ev.character, amends=original.position,
                                                        field="xp", delta=value - ev.amount))]


def compensate_money(state: IllerganState, original: RecordedEvent, changes: dict[str, Any], ctx: Context) -> list[Emit]:
    ev = event_of(original, MoneyChanged)
    find(state, ev.character)
    value = _amount(changes, ev.amount_c)
    return [Emit(stream_of(ev.character), HeroCorrected(character=ev.character, amends=original.position,
                                                        field="copper", delta=value - ev.amount_c))]


# ============================================================================ summaries
def _s(fmt: str) -> Any:
    """A summary from one text of the catalog (its msgid, marked for extraction at the call), told in the
    current language with the event's fields (``{e.field}``)."""
    return lambda rec: _(fmt).format(e=rec.event)


def _spent(e: XpSpent) -> str:
    what = {"skill": lambda: f"{e.target} {e.from_value if e.from_value is not None else '—'}→{e.to_value}%",
            "pp": lambda: _("{n} pp of {magic}").format(n=e.to_value - (e.from_value or 0), magic=e.target),
            "magic": lambda: _("the magic {magic}").format(magic=e.target),
            "characteristic": lambda: f"{e.target} {e.from_value}→{e.to_value}",
            "faith": lambda: _("the faith level {level}").format(level=e.to_value)}[e.kind]()
    pool = _(" (heritage)") if e.pool == "heritage" else ""
    return _("{who} buys {what} for {cost} xp{pool}").format(who=e.character, what=what, cost=e.cost_charged, pool=pool)


def _pack_loaded(rec: Any) -> str:
    e = rec.event
    text = _("Content pack « {name} » loaded").format(name=e.name)
    if e.overrides:
        text += _("; overrides: {list}").format(
            list=", ".join(f"{section} {', '.join(names)}" for section, names in e.overrides.items()))
    return text


def _created(rec: Any) -> str:
    h = rec.event.character_data
    return _("{name} ({race}, {class_name}) created: gift {gift}, {destiny} destiny points").format(
        name=h.name, race=h.race, class_name=h.class_name, gift=h.gift, destiny=h.destiny_points)


def _carried(rec: Any) -> str:
    e = rec.event
    told = (_("{who} takes {n} {item}") if e.qty_delta > 0 else _("{who} leaves {n} {item}")).format(
        who=e.character, n=abs(e.qty_delta), item=e.item)
    return (told + (f" ({e.reason})" if e.reason else "")
            + (_(", {n} charges").format(n=e.charges_after) if e.charges_after is not None else ""))


SUMMARIES: dict[type, Any] = {
    PackLoaded: _pack_loaded,
    HeroCreated: _created,
    CreatureCreated: _s(N_("Creature {e.character_data.name}: PV {e.character_data.pv}")),
    XpAwarded: _s(N_("{e.character} receives {e.amount} xp ({e.reason})")),
    XpSpent: on_event(_spent),
    HeroCorrected: _s(N_("{e.character}: correction of position {e.amends}, {e.field} {e.delta:+d}")),
    MoneyChanged: _s(N_("{e.character}: {e.amount_c:+d}'C ({e.reason})")),
    Equipped: lambda r: _("{who}: {slot} = {item}").format(
        who=r.event.character, slot=r.event.piece or r.event.slot, item=r.event.item or _("nothing")),
    ItemsCarried: _carried,
}
EVENTS: tuple[type, ...] = tuple(SUMMARIES)
DECIDERS: dict[type, Any] = {
    LoadPack: decide_pack, CreateHero: decide_create, CreateCreature: decide_creature, AwardXp: decide_award,
    BuyXp: decide_buy, ChangeMoney: decide_money, Trade: decide_trade, Equip: decide_equip, Carry: decide_carry,
}
EVOLVERS: dict[type, Any] = {
    PackLoaded: evolve_pack, HeroCreated: evolve_created, CreatureCreated: evolve_created, XpAwarded: evolve_award,
    XpSpent: evolve_spent, HeroCorrected: evolve_corrected, MoneyChanged: evolve_money, Equipped: evolve_equipped,
    ItemsCarried: evolve_carried,
}
COMPENSATORS: dict[type, Any] = {XpAwarded: compensate_award, MoneyChanged: compensate_money}
