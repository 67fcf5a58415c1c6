"""Characters of Les Lois du Cristal as event streams (``character:<id>``).

Part of the cristal ruleset (see ``ruleset.py`` for the part contract): the character model held in
the state, its events, the decisions of its commands and the pure folds of its events.

Every decision checks the command against the current state and the campaign's content (the core
pack merged with the packs loaded by ``content.pack_loaded`` events, so replay never reads a file),
and returns events that store what an audit needs (a level purchase stores the cost charged AND the
cost the rules required, the new global level and class level). Folds apply deltas, never the
"after" values an event recorded, so a later correction stays consistent.

Pure reads for other parts (the combat engineer, the projections, the CLI):

* :func:`content_of` ``(state) -> Content``
* :func:`current_fixed` ``(character) -> {FRC: .., ...}`` permanent + temporary alterations
* :func:`stable_of` ``(character, content, rounding, weapon=None) -> StableStates``
* :func:`sheet` ``(character, content, rounding) -> dict`` the Feuille de Personnage as JSON
"""

from __future__ import annotations

import functools
from typing import Any

import msgspec

from cristal_events.errors import RuleError, UnknownEntity
from cristal_events.events import Event
from cristal_events.rolls import Roll
from cristal_events.ruleset import Context, Emit
from cristal_events.store import RecordedEvent

from . import alignment as align_rules
from . import equipment, progression, stable
from .content import (
    FIXED_STATES,
    Content,
    ItemTemplate,
    _content_from_sections,
    load_core,
    merge,
    race_for_sex,
)

CONTENT_STREAM = "content"
# sources a heal may not come from: magic never heals a living being (L1186-L1188)
MAGIC_SOURCES = frozenset({"magic", "magie", "spell", "sort", "potion", "crystal", "cristal"})


# ============================================================================ model
class Alteration(msgspec.Struct, kw_only=True, frozen=True):
    """A temporary change of a fixed state (L1468: poison, FRC -3), until the GM ends it."""

    stat: str
    delta: int
    until: str = ""
    reason: str = ""
    since: int = 0  # the position of the event that applied it (its id for ``state --end``)


class OwnedItem(msgspec.Struct, kw_only=True, frozen=True):
    """An item carried: its sheet line (copied into the event, so replay needs no pack), QTÉ and EQ."""

    name: str
    qty: int
    equipped: bool = False
    template: ItemTemplate


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


class ContentPack(msgspec.Struct, kw_only=True, frozen=True):
    """A campaign content pack as loaded: its name and its raw sections (races, classes, ...)."""

    name: str
    data: dict[str, Any]


# ============================================================================ events
class CharacterCreated(Event, tag="character.created", kw_only=True):
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


class XpAwarded(Event, tag="xp.awarded", kw_only=True):
    character: str
    amount: int
    reason: str
    balance_after: int


class LevelBought(Event, tag="xp.level_bought", kw_only=True):
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


class TechniqueBought(Event, tag="xp.technique_bought", kw_only=True):
    character: str
    technique: str
    level: int
    factor: int
    cost_charged: int
    cost_required: int
    balance_after: int


class SpellLearned(Event, tag="xp.spell_learned", kw_only=True):
    character: str
    spell: str
    cost_charged: int
    cost_required: int | None
    balance_after: int


class ItemAdded(Event, tag="item.added", kw_only=True):
    character: str
    item: ItemTemplate
    qty: int
    source: str = "pack"  # pack | custom


class ItemEquipped(Event, tag="item.equipped", kw_only=True):
    character: str
    item: str


class ItemUnequipped(Event, tag="item.unequipped", kw_only=True):
    character: str
    item: str


class ItemDropped(Event, tag="item.dropped", kw_only=True):
    character: str
    item: str
    qty: int
    reason: str = ""


class GoldChanged(Event, tag="gold.changed", kw_only=True):
    character: str
    amount: int
    reason: str
    balance_after: int


class Rested(Event, tag="character.rested", kw_only=True):
    """Days of rest (L367, L377, L491): PV regenerate, PM full after a night, daily pools renew."""

    character: str
    days: int
    regen_per_day: int
    pv_gained: int
    pm_gained: int
    pools_renewed: bool = True


class DamageTaken(Event, tag="character.damaged", kw_only=True):
    character: str
    amount: int
    reason: str
    pv_after: int
    unconscious: bool = False
    dead: bool = False


class Healed(Event, tag="character.healed", kw_only=True):
    """PV healed outside combat; ``source`` says by what (magic never heals, L1186)."""

    character: str
    amount: int
    healed: int
    source: str
    reason: str
    healer: str = ""
    pool_used: int = 0


class AlignmentChanged(Event, tag="alignment.changed", kw_only=True):
    character: str
    amount: int
    reason: str
    alignment_after: int


class StateAltered(Event, tag="character.state_altered", kw_only=True):
    character: str
    stat: str
    delta: int
    until: str = ""
    reason: str


class AlterationEnded(Event, tag="character.alteration_ended", kw_only=True):
    character: str
    since: int
    reason: str = ""


class CharacterCorrected(Event, tag="character.corrected", kw_only=True):
    """The compensating event of a correction: ``delta`` added to ``field`` (xp, gold, pv, alignment)."""

    character: str
    amends: int
    field: str
    delta: int
    reason: str = ""
    balance_after: int = 0


class ContentPackLoaded(Event, tag="content.pack_loaded", kw_only=True):
    """A campaign content pack, carried whole so that replay does not depend on the file."""

    name: str
    data: dict[str, Any]
    summary: dict[str, list[str]] = {}


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


# ============================================================================ pure reads
@functools.lru_cache(maxsize=32)
def _merged(key: bytes) -> Content:
    packs = msgspec.json.decode(key, type=list[ContentPack])
    content = load_core()
    for pack in packs:
        content = merge(content, _content_from_sections(pack.name, pack.data))
    return content


def content_of(state: Any) -> Content:
    """The campaign's content: the core pack merged with every loaded pack, in log order."""
    packs = getattr(state, "packs", [])
    if not packs:
        return load_core()
    return _merged(msgspec.json.encode(packs))


def stream_of(character_id: str) -> str:
    return f"character:{character_id}"


def find(state: Any, character_id: str) -> Character:
    """The character ``character_id`` of the state, or UnknownEntity."""
    ch = state.characters.get(character_id)
    if ch is None:
        known = ", ".join(sorted(state.characters)) or "none"
        raise UnknownEntity(f"Unknown character '{character_id}'; known characters: {known}.")
    return ch


def current_fixed(ch: Character) -> dict[str, int]:
    """Permanent fixed states plus the temporary alterations (L1468), before equipment."""
    out = {s: ch.fixed.get(s, 0) for s in FIXED_STATES}
    for alt in ch.alterations:
        out[alt.stat] = out.get(alt.stat, 0) + alt.delta
    return out


def equipped(ch: Character) -> list[ItemTemplate]:
    return [i.template for i in ch.items if i.equipped]


def _find_item(ch: Character, name: str) -> OwnedItem:
    key = name.strip().casefold()
    for item in ch.items:
        if item.name.casefold() == key:
            return item
    known = ", ".join(i.name for i in ch.items) or "nothing"
    raise UnknownEntity(f"{ch.name} carries no item '{name}'; carried: {known}.")


def stable_of(ch: Character, content: Content, rounding: str, weapon: str | None = None) -> stable.StableStates:
    """The seven stable states (L244-L354) with the equipped ``weapon`` (None: the main weapon or bare hands)."""
    race = race_for_sex(content.race(ch.race), ch.sex)
    eq = equipped(ch)
    w = _find_item(ch, weapon).template if weapon else _main_weapon(ch)
    if w is not None and w not in eq:
        raise RuleError(f"{w.name} must be equipped to attack with it (L877).")
    return stable.stable_states(race, ch.classes, current_fixed(ch), eq, weapon=w, mode=rounding,  # type: ignore[arg-type]
                                content=content)


def _is_weapon(t: ItemTemplate) -> bool:
    return t.category in ("Principale", "Projectiles") and (t.dmg.strip() != "0" or t.kind == "propulsor")


def _main_weapon(ch: Character) -> ItemTemplate | None:
    return next((t for t in equipped(ch) if _is_weapon(t) and t.kind != "propulsor"), None)


def regeneration(ch: Character, content: Content, rounding: str, minimum_one: bool = False) -> int:
    """PV regenerated per day (L491): PVmax x the race's %, optionally at least 1 (D28)."""
    race = race_for_sex(content.race(ch.race), ch.sex)
    value = stable.regeneration_per_day(race, stable_of(ch, content, rounding).PVmax, rounding)  # type: ignore[arg-type]
    return max(1, value) if minimum_one and value < 1 else value


def death_threshold(ch: Character, content: Content) -> int:
    race = race_for_sex(content.race(ch.race), ch.sex)
    return stable.death_threshold(race, current_fixed(ch)["CON"])


def _num(x: Any) -> float | int:
    f = float(x)
    return int(f) if f.is_integer() else round(f, 3)


def sheet(ch: Character, content: Content, rounding: str, *, regeneration_minimum_one: bool = False) -> dict[str, Any]:
    """The Feuille de Personnage as plain JSON data (issue 4 keys, plus weapons, regeneration, pools)."""
    st = stable_of(ch, content, rounding)
    race = race_for_sex(content.race(ch.race), ch.sex)
    eff = equipment.effective_fixed(current_fixed(ch), equipped(ch))
    bonuses = progression.class_bonuses(content, ch.classes)
    vol_max = bonuses.points.get("Vol", 0)
    player_rr, gm_rr = align_rules.chance_rerolls(ch.luck)
    weapons = []
    for t in equipped(ch):
        if _is_weapon(t) and t.kind != "propulsor":
            w = stable.stable_states(race, ch.classes, current_fixed(ch), equipped(ch), weapon=t,
                                     mode=rounding, content=content)  # type: ignore[arg-type]
            weapons.append({"name": t.name, "ATT": w.ATT, "DMG": w.DMG, "IT": t.it if t.it is not None else 6})
    weight = equipment.carried_weight([(i.template, i.qty) for i in ch.items], gold_coins=ch.gold)
    load = equipment.load(eff["FRC"], weight)
    items = [{"name": i.name, "qty": i.qty, "equipped": i.equipped, "category": i.template.category,
              "section": "main" if i.template.category == "Principale" else "secondary",
              "weight_kg": _num(i.template.weight_kg * i.qty)} for i in ch.items]
    return {
        "id": ch.id, "name": ch.name, "race": race.name, "sex": ch.sex, "player": ch.player,
        "global_level": ch.global_level, "alignment": ch.alignment, "luck": ch.luck,
        "classes": dict(ch.classes),
        "fixed": current_fixed(ch),
        "fixed_permanent": {s: ch.fixed.get(s, 0) for s in FIXED_STATES},
        "fixed_effective": eff,
        "alterations": [msgspec.to_builtins(a) for a in ch.alterations],
        "senses": dict(ch.senses), "specials": list(ch.specials),
        "stable": {"DP": st.DP, "DM": st.DM, "ATT": st.ATT, "DMG": st.DMG, "CNC": st.CNC,
                   "PVmax": st.PVmax, "PMmax": st.PMmax, "weapon": st.weapon},
        "weapons": weapons,
        "variable": {"PV": ch.pv, "PM": ch.pm, "XP": ch.xp, "IT": ch.it},
        "status": "dead" if ch.dead else "unconscious" if ch.unconscious else "conscious",
        "death_threshold": death_threshold(ch, content),
        "regeneration": regeneration(ch, content, rounding, regeneration_minimum_one),
        "vol": {"max": vol_max, "left": max(0, vol_max - ch.pools_used.get("Vol", 0))},
        "chance": {"rerolls": player_rr, "gm_rerolls": gm_rr,
                   "left": max(0, max(player_rr, gm_rr) - ch.pools_used.get("chance", 0))},
        "alignment_pool": {"max": align_rules.daily_pool(ch.alignment),
                           "left": max(0, align_rules.daily_pool(ch.alignment) - ch.pools_used.get("alignment", 0))},
        "techniques": dict(ch.techniques),
        "spells": list(ch.spells),
        "items": items,
        "crystals": [i["name"] for i in items if i["category"] == "Cristal Magique"],
        "encumbrance": {"weight_kg": _num(load.weight_kg), "encumbrance_kg": _num(load.encumbrance_kg),
                        "max_kg": _num(load.max_kg), "status": load.status},
        "gold": ch.gold,
    }


# ============================================================================ decisions
def _need_reason(reason: str, what: str) -> str:
    if not reason.strip():
        raise RuleError(f"{what} needs a reason (--reason).")
    return reason.strip()


def _alive(ch: Character, what: str) -> None:
    if ch.dead:
        raise RuleError(f"{ch.name} is dead (L373); {what} is refused.")


def _stat(name: str) -> str:
    key = name.strip().upper()
    if key not in FIXED_STATES:
        raise UnknownEntity(f"Unknown fixed state '{name}'; fixed states: {', '.join(FIXED_STATES)}.")
    return key


def _targets(state: Any, ids: tuple[str, ...], all_: bool, what: str) -> list[Character]:
    if all_ and ids:
        raise RuleError(f"{what}: give character ids or --all, not both.")
    if all_:
        chars = [c for c in state.characters.values() if not c.dead]
        if not chars:
            raise RuleError(f"{what}: the campaign has no living character.")
        return chars
    if not ids:
        raise RuleError(f"{what}: name a character or use --all.")
    return [find(state, i) for i in ids]


def decide_create(state: Any, cmd: CreateCharacter, ctx: Context) -> list[Emit]:
    cid = cmd.id.strip()
    if not cid or any(c in cid for c in " :/"):
        raise RuleError(f"Character id '{cmd.id}' must be one word without spaces, ':' or '/'.")
    if cid in state.characters:
        raise RuleError(f"Character '{cid}' already exists.")
    if cmd.sex and cmd.sex.upper() not in ("F", "M"):
        raise RuleError(f"Sex must be F or M, not '{cmd.sex}'.")
    if cmd.gold < 0:
        raise RuleError(f"Starting gold cannot be negative ({cmd.gold}).")
    content = content_of(state)
    sex_word = {"F": "Femelle", "M": "Mâle"}.get(cmd.sex.upper(), "")
    race = race_for_sex(content.race(cmd.race), sex_word)
    adjustments = {_stat(k): v for k, v in cmd.adjustments.items()}
    rolls: list[Roll] = []
    if cmd.roll_adjustments:  # L1466: the GM may allow [1d4 -2] on each fixed state
        dice = ctx.dice()
        for s in FIXED_STATES:
            roll = dice.roll("1d4-2", rounding=ctx.rounding, purpose=f"creation {s}")  # type: ignore[arg-type]
            rolls.append(roll)
            adjustments[s] = adjustments.get(s, 0) + roll.total
    fixed = {s: race.fixed[s] + adjustments.get(s, 0) for s in FIXED_STATES}
    draft = Character(id=cid, name=cmd.name or cid, race=race.name, sex=sex_word, fixed=fixed)
    st = stable_of(draft, content, ctx.rounding)
    ev = CharacterCreated(
        character=cid, name=cmd.name or cid, race=race.name, sex=sex_word, player=cmd.player,
        race_fixed=dict(race.fixed), adjustments={k: v for k, v in adjustments.items() if v},
        adjustment_rolls=rolls, fixed=fixed, senses=dict(race.senses), specials=list(race.specials),
        techniques=dict(race.innate_techniques), alignment=cmd.alignment, luck=cmd.luck, gold=cmd.gold,
        pv=st.PVmax, pm=st.PMmax, level_limit=race.level_limit,
    )
    return [Emit(stream_of(cid), ev)]


def decide_award(state: Any, cmd: AwardXp, ctx: Context) -> list[Emit]:
    if cmd.amount <= 0:
        raise RuleError(f"An XP award must be a positive number of XP, not {cmd.amount}.")
    reason = _need_reason(cmd.reason, "An XP award")
    return [Emit(stream_of(c.id), XpAwarded(character=c.id, amount=cmd.amount, reason=reason,
                                            balance_after=c.xp + cmd.amount))
            for c in _targets(state, cmd.characters, cmd.all, "xp award")]


def _pay(ch: Character, cost: int, what: str) -> int:
    if ch.xp < cost:
        raise RuleError(f"{ch.name} has {ch.xp} XP; {what} costs {cost} XP.")
    return ch.xp - cost


def decide_level(state: Any, cmd: BuyLevel, ctx: Context) -> list[Emit]:
    ch = find(state, cmd.character)
    _alive(ch, "buying a level")
    content = content_of(state)
    race = race_for_sex(content.race(ch.race), ch.sex)
    cls = content.class_def(cmd.class_name)
    stat = _stat(cmd.stat)
    nxt = ch.global_level + 1
    if ctx.settings.level_limits:
        cost = progression.check_level_up(race, ch.global_level)
    else:
        cost = race.level_cost * 2 ** (nxt - 1)
    progression.check_prerequisites(content, cls.name, ch.classes)
    balance = _pay(ch, cost, f"global level {nxt}")
    ev = LevelBought(character=ch.id, class_name=cls.name, class_level=ch.classes.get(cls.name, 0) + 1,
                     global_level=nxt, stat=stat, cost_charged=cost, cost_required=cost, balance_after=balance,
                     level_limit=race.level_limit)
    return [Emit(stream_of(ch.id), ev)]


def decide_technique(state: Any, cmd: BuyTechnique, ctx: Context) -> list[Emit]:
    ch = find(state, cmd.character)
    _alive(ch, "buying a technique")
    content = content_of(state)
    race = race_for_sex(content.race(ch.race), ch.sex)
    tech = content.technique(cmd.technique)
    progression.check_technique_restriction(tech, race, ch.classes)
    level = ch.techniques.get(tech.name, 0) + 1
    cost = progression.technique_cost(tech, level, race)
    balance = _pay(ch, cost, f"{tech.name} level {level}")
    return [Emit(stream_of(ch.id), TechniqueBought(
        character=ch.id, technique=tech.name, level=level, factor=progression.technique_factor(tech, race),
        cost_charged=cost, cost_required=cost, balance_after=balance))]


def decide_spell(state: Any, cmd: LearnSpell, ctx: Context) -> list[Emit]:
    ch = find(state, cmd.character)
    _alive(ch, "learning a spell")
    content = content_of(state)
    race = content.race(ch.race)
    if race.pm_initial <= 0:
        raise RuleError(f"A {race.name} cannot practise magic (PM initiaux 0, L493).")
    spell = content.spell(cmd.spell)
    if spell.name in ch.spells:
        raise RuleError(f"{ch.name} already knows {spell.name}.")
    required = spell.learning_cost
    if required is None and cmd.cost is None:
        raise RuleError(f"The book prints no learning cost for {spell.name}; give the GM's price with --cost.")
    if cmd.cost is not None and cmd.cost < 0:
        raise RuleError(f"A learning cost cannot be negative ({cmd.cost}).")
    charged = cmd.cost if cmd.cost is not None else required
    assert charged is not None
    balance = _pay(ch, charged, f"learning {spell.name}")
    return [Emit(stream_of(ch.id), SpellLearned(character=ch.id, spell=spell.name, cost_charged=charged,
                                                cost_required=required if required is not None else charged,
                                                balance_after=balance))]


def decide_add_item(state: Any, cmd: AddItem, ctx: Context) -> list[Emit]:
    ch = find(state, cmd.character)
    if cmd.qty < 1:
        raise RuleError(f"The quantity must be at least 1, not {cmd.qty}.")
    if cmd.properties is None:
        template, source = content_of(state).item(cmd.item), "pack"
    else:
        if not cmd.item.strip():
            raise RuleError("An item needs a name.")
        try:
            template = msgspec.convert({"name": cmd.item.strip(), **cmd.properties}, ItemTemplate)
        except msgspec.ValidationError as exc:
            raise RuleError(f"Item '{cmd.item}' has an invalid property: {exc}.") from None
        source = "custom"
    return [Emit(stream_of(ch.id), ItemAdded(character=ch.id, item=template, qty=cmd.qty, source=source))]


def decide_equip(state: Any, cmd: EquipItem, ctx: Context) -> list[Emit]:
    ch = find(state, cmd.character)
    item = _find_item(ch, cmd.item)
    if item.equipped:
        raise RuleError(f"{item.name} is already equipped.")
    worn = equipment.effective_fixed(current_fixed(ch), equipped(ch))
    equipment.check_usable(item.template, worn)  # a disabling handicap (L871, D9)
    return [Emit(stream_of(ch.id), ItemEquipped(character=ch.id, item=item.name))]


def decide_unequip(state: Any, cmd: UnequipItem, ctx: Context) -> list[Emit]:
    ch = find(state, cmd.character)
    item = _find_item(ch, cmd.item)
    if not item.equipped:
        raise RuleError(f"{item.name} is not equipped.")
    return [Emit(stream_of(ch.id), ItemUnequipped(character=ch.id, item=item.name))]


def decide_drop(state: Any, cmd: DropItem, ctx: Context) -> list[Emit]:
    ch = find(state, cmd.character)
    item = _find_item(ch, cmd.item)
    qty = item.qty if cmd.qty is None else cmd.qty
    if qty < 1 or qty > item.qty:
        raise RuleError(f"{ch.name} carries {item.qty} {item.name}; cannot drop {qty}.")
    return [Emit(stream_of(ch.id), ItemDropped(character=ch.id, item=item.name, qty=qty, reason=cmd.reason))]


def decide_gold(state: Any, cmd: ChangeGold, ctx: Context) -> list[Emit]:
    ch = find(state, cmd.character)
    if cmd.amount == 0:
        raise RuleError("A gold change of 0 changes nothing.")
    reason = _need_reason(cmd.reason, "A gold change")
    if ch.gold + cmd.amount < 0:
        raise RuleError(f"{ch.name} has {ch.gold} PO; cannot pay {-cmd.amount}.")
    return [Emit(stream_of(ch.id), GoldChanged(character=ch.id, amount=cmd.amount, reason=reason,
                                               balance_after=ch.gold + cmd.amount))]


def decide_rest(state: Any, cmd: Rest, ctx: Context) -> list[Emit]:
    if cmd.days < 1:
        raise RuleError(f"A rest lasts at least 1 day, not {cmd.days}.")
    chars = _targets(state, cmd.characters, cmd.all, "rest")
    content = content_of(state)
    out = []
    for ch in chars:
        _alive(ch, "resting")
        st = stable_of(ch, content, ctx.rounding)
        regen = regeneration(ch, content, ctx.rounding, ctx.settings.regeneration_minimum_one)
        gained = max(0, min(st.PVmax, ch.pv + regen * cmd.days) - ch.pv)
        out.append(Emit(stream_of(ch.id), Rested(character=ch.id, days=cmd.days, regen_per_day=regen,
                                                 pv_gained=gained, pm_gained=max(0, st.PMmax - ch.pm))))
    return out


def decide_damage(state: Any, cmd: Damage, ctx: Context) -> list[Emit]:
    ch = find(state, cmd.character)
    _alive(ch, "damage")
    if cmd.amount < 1:
        raise RuleError(f"Damage must be at least 1 PV, not {cmd.amount}.")
    reason = _need_reason(cmd.reason, "Damage")
    after = ch.pv - cmd.amount
    return [Emit(stream_of(ch.id), DamageTaken(
        character=ch.id, amount=cmd.amount, reason=reason, pv_after=after,
        unconscious=after < 0, dead=after < death_threshold(ch, content_of(state))))]


def decide_heal(state: Any, cmd: Heal, ctx: Context) -> list[Emit]:
    ch = find(state, cmd.character)
    _alive(ch, "healing")
    if cmd.amount < 1:
        raise RuleError(f"Healing must be at least 1 PV, not {cmd.amount}.")
    reason = _need_reason(cmd.reason, "Healing")
    source = cmd.source.strip().casefold()
    if not source:
        raise RuleError("Healing needs a source (--source): alignment, care, divine or another non-magic cause.")
    if source in MAGIC_SOURCES:
        raise RuleError("Magic can never heal a living being (L1188); record who or what healed instead.")
    content = content_of(state)
    pv_max = stable_of(ch, content, ctx.rounding).PVmax
    pool_used = 0
    if source in ("alignment", "alignement"):
        if not cmd.healer:
            raise RuleError("Alignment healing needs the healer (--by ID).")
        healer = find(state, cmd.healer)
        if healer.alignment < 0:
            raise RuleError(f"{healer.name} is cursed (alignment {healer.alignment}) and harms instead of healing (L1419).")
        left = align_rules.daily_pool(healer.alignment) - healer.pools_used.get("alignment", 0)
        use = align_rules.use_pool(healer.alignment, cmd.amount, left, ch.pv, pv_max)
        healed, pool_used = use.pv_after - ch.pv, cmd.amount
        if not ctx.settings.alignment_heal_caps_at_pvmax:
            healed = cmd.amount
    else:
        healed = max(0, min(pv_max, ch.pv + cmd.amount) - ch.pv)
    return [Emit(stream_of(ch.id), Healed(character=ch.id, amount=cmd.amount, healed=healed, source=source,
                                          reason=reason, healer=cmd.healer, pool_used=pool_used))]


def decide_alignment(state: Any, cmd: ChangeAlignment, ctx: Context) -> list[Emit]:
    ch = find(state, cmd.character)
    if cmd.amount == 0:
        raise RuleError("An alignment change of 0 changes nothing.")
    reason = _need_reason(cmd.reason, "An alignment change")
    return [Emit(stream_of(ch.id), AlignmentChanged(character=ch.id, amount=cmd.amount, reason=reason,
                                                    alignment_after=ch.alignment + cmd.amount))]


def decide_alter(state: Any, cmd: AlterState, ctx: Context) -> list[Emit]:
    ch = find(state, cmd.character)
    stat = _stat(cmd.stat)
    if cmd.delta == 0:
        raise RuleError("A temporary alteration of 0 changes nothing.")
    reason = _need_reason(cmd.reason, "A temporary alteration")
    return [Emit(stream_of(ch.id), StateAltered(character=ch.id, stat=stat, delta=cmd.delta, until=cmd.until,
                                                reason=reason))]


def decide_end_alteration(state: Any, cmd: EndAlteration, ctx: Context) -> list[Emit]:
    ch = find(state, cmd.character)
    if not any(a.since == cmd.since for a in ch.alterations):
        known = ", ".join(f"{a.since} ({a.stat} {a.delta:+d})" for a in ch.alterations) or "none"
        raise UnknownEntity(f"{ch.name} has no alteration from position {cmd.since}; current: {known}.")
    return [Emit(stream_of(ch.id), AlterationEnded(character=ch.id, since=cmd.since, reason=cmd.reason))]


def decide_pack(state: Any, cmd: LoadContentPack, ctx: Context) -> list[Emit]:
    if not cmd.name.strip():
        raise RuleError("A content pack needs a name.")
    added = _content_from_sections(cmd.name, cmd.data)
    content_of(msgspec.structs.replace(state, packs=[*state.packs, ContentPack(name=cmd.name, data=cmd.data)]))
    summary = {s: sorted(getattr(added, s)) for s in ("races", "classes", "techniques", "items", "spells")
               if getattr(added, s)}
    return [Emit(CONTENT_STREAM, ContentPackLoaded(name=cmd.name, data=cmd.data, summary=summary))]


# ============================================================================ folds
def _put(state: Any, ch: Character) -> Any:
    return msgspec.structs.replace(state, characters={**state.characters, ch.id: ch})


def _update(state: Any, cid: str, **changes: Any) -> Any:
    ch = state.characters.get(cid)
    if ch is None:
        return state
    return _put(state, msgspec.structs.replace(ch, **changes))


def evolve_created(state: Any, rec: RecordedEvent) -> Any:
    ev: CharacterCreated = rec.event  # type: ignore[assignment]
    return _put(state, Character(
        id=ev.character, name=ev.name, race=ev.race, sex=ev.sex, player=ev.player, alignment=ev.alignment,
        luck=ev.luck, fixed=dict(ev.fixed), senses=dict(ev.senses), specials=list(ev.specials),
        techniques=dict(ev.techniques), gold=ev.gold, pv=ev.pv, pm=ev.pm))


def _ch(state: Any, rec: RecordedEvent) -> Character | None:
    return state.characters.get(rec.event.character)  # type: ignore[union-attr]


def evolve_award(state: Any, rec: RecordedEvent) -> Any:
    ch = _ch(state, rec)
    return _update(state, ch.id, xp=ch.xp + rec.event.amount) if ch else state  # type: ignore[union-attr]


def evolve_level(state: Any, rec: RecordedEvent) -> Any:
    ev: LevelBought = rec.event  # type: ignore[assignment]
    ch = _ch(state, rec)
    if ch is None:
        return state
    return _update(state, ch.id, xp=ch.xp - ev.cost_charged, global_level=ch.global_level + 1,
                   classes={**ch.classes, ev.class_name: ch.classes.get(ev.class_name, 0) + 1},
                   fixed={**ch.fixed, ev.stat: ch.fixed.get(ev.stat, 0) + 1})


def evolve_technique(state: Any, rec: RecordedEvent) -> Any:
    ev: TechniqueBought = rec.event  # type: ignore[assignment]
    ch = _ch(state, rec)
    if ch is None:
        return state
    return _update(state, ch.id, xp=ch.xp - ev.cost_charged, techniques={**ch.techniques, ev.technique: ev.level})


def evolve_spell(state: Any, rec: RecordedEvent) -> Any:
    ev: SpellLearned = rec.event  # type: ignore[assignment]
    ch = _ch(state, rec)
    if ch is None:
        return state
    return _update(state, ch.id, xp=ch.xp - ev.cost_charged, spells=[*ch.spells, ev.spell])


def evolve_item_added(state: Any, rec: RecordedEvent) -> Any:
    ev: ItemAdded = rec.event  # type: ignore[assignment]
    ch = _ch(state, rec)
    if ch is None:
        return state
    key = ev.item.name.casefold()
    if any(i.name.casefold() == key for i in ch.items):
        items = [msgspec.structs.replace(i, qty=i.qty + ev.qty) if i.name.casefold() == key else i for i in ch.items]
    else:
        items = [*ch.items, OwnedItem(name=ev.item.name, qty=ev.qty, template=ev.item)]
    return _update(state, ch.id, items=items)


def _set_equipped(state: Any, rec: RecordedEvent, flag: bool) -> Any:
    ch = _ch(state, rec)
    if ch is None:
        return state
    key = rec.event.item.casefold()  # type: ignore[union-attr]
    return _update(state, ch.id, items=[msgspec.structs.replace(i, equipped=flag) if i.name.casefold() == key else i
                                        for i in ch.items])


def evolve_dropped(state: Any, rec: RecordedEvent) -> Any:
    ev: ItemDropped = rec.event  # type: ignore[assignment]
    ch = _ch(state, rec)
    if ch is None:
        return state
    key = ev.item.casefold()
    items = []
    for i in ch.items:
        if i.name.casefold() == key:
            if i.qty - ev.qty <= 0:
                continue
            i = msgspec.structs.replace(i, qty=i.qty - ev.qty)
        items.append(i)
    return _update(state, ch.id, items=items)


def evolve_gold(state: Any, rec: RecordedEvent) -> Any:
    ch = _ch(state, rec)
    return _update(state, ch.id, gold=ch.gold + rec.event.amount) if ch else state  # type: ignore[union-attr]


def evolve_rested(state: Any, rec: RecordedEvent) -> Any:
    ev: Rested = rec.event  # type: ignore[assignment]
    ch = _ch(state, rec)
    if ch is None:
        return state
    pv = ch.pv + ev.pv_gained
    return _update(state, ch.id, pv=pv, pm=ch.pm + ev.pm_gained, it=0,
                   pools_used={} if ev.pools_renewed else ch.pools_used,
                   unconscious=ch.unconscious and pv <= 0)


def evolve_damaged(state: Any, rec: RecordedEvent) -> Any:
    ev: DamageTaken = rec.event  # type: ignore[assignment]
    ch = _ch(state, rec)
    if ch is None:
        return state
    pv = ch.pv - ev.amount
    return _update(state, ch.id, pv=pv, unconscious=ch.unconscious or pv < 0, dead=ch.dead or ev.dead)


def evolve_healed(state: Any, rec: RecordedEvent) -> Any:
    ev: Healed = rec.event  # type: ignore[assignment]
    ch = _ch(state, rec)
    if ch is None:
        return state
    pv = ch.pv + ev.healed
    state = _update(state, ch.id, pv=pv, unconscious=ch.unconscious and pv <= 0)  # D8: wakes above 0
    healer = state.characters.get(ev.healer) if ev.healer else None
    if healer is not None and ev.pool_used:
        used = {**healer.pools_used, "alignment": healer.pools_used.get("alignment", 0) + ev.pool_used}
        state = _update(state, healer.id, pools_used=used)
    return state


def evolve_alignment(state: Any, rec: RecordedEvent) -> Any:
    ch = _ch(state, rec)
    return _update(state, ch.id, alignment=ch.alignment + rec.event.amount) if ch else state  # type: ignore[union-attr]


def evolve_altered(state: Any, rec: RecordedEvent) -> Any:
    ev: StateAltered = rec.event  # type: ignore[assignment]
    ch = _ch(state, rec)
    if ch is None:
        return state
    alt = Alteration(stat=ev.stat, delta=ev.delta, until=ev.until, reason=ev.reason, since=rec.position)
    return _update(state, ch.id, alterations=[*ch.alterations, alt])


def evolve_alteration_ended(state: Any, rec: RecordedEvent) -> Any:
    ch = _ch(state, rec)
    if ch is None:
        return state
    return _update(state, ch.id, alterations=[a for a in ch.alterations if a.since != rec.event.since])  # type: ignore[union-attr]


_CORRECTABLE_FIELD = {"xp": "xp", "gold": "gold", "pv": "pv", "alignment": "alignment"}


def evolve_corrected(state: Any, rec: RecordedEvent) -> Any:
    ev: CharacterCorrected = rec.event  # type: ignore[assignment]
    ch = _ch(state, rec)
    if ch is None or ev.field not in _CORRECTABLE_FIELD:
        return state
    attr = _CORRECTABLE_FIELD[ev.field]
    return _update(state, ch.id, **{attr: getattr(ch, attr) + ev.delta})


def evolve_pack(state: Any, rec: RecordedEvent) -> Any:
    ev: ContentPackLoaded = rec.event  # type: ignore[assignment]
    return msgspec.structs.replace(state, packs=[*state.packs, ContentPack(name=ev.name, data=ev.data)])


# ============================================================================ corrections
def _amount_change(changes: dict[str, Any], original: int) -> int:
    if set(changes) != {"amount"}:
        raise RuleError("This event can only be corrected with --set amount=N.")
    value = changes["amount"]
    if isinstance(value, bool) or not isinstance(value, int):
        try:
            value = int(str(value))
        except ValueError:
            raise RuleError(f"amount must be a whole number, not {changes['amount']!r}.") from None
    if value == original:
        raise RuleError(f"The amount is already {original}; nothing to correct.")
    return value


def _compensator(field: str, sign: int, positive: bool) -> Any:
    def compensate(state: Any, original: RecordedEvent, changes: dict[str, Any], ctx: Context) -> list[Emit]:
        ev = original.event
        ch = find(state, ev.character)  # type: ignore[union-attr]
        value = _amount_change(changes, ev.amount)  # type: ignore[union-attr]
        if positive and value <= 0:
            raise RuleError(f"The corrected amount must be positive, not {value}.")
        delta = sign * (value - ev.amount)  # type: ignore[union-attr]
        current = getattr(ch, _CORRECTABLE_FIELD[field])
        return [Emit(stream_of(ch.id), CharacterCorrected(character=ch.id, amends=original.position, field=field,
                                                          delta=delta, balance_after=current + delta))]
    return compensate


# ============================================================================ summaries
def _s(fmt: str) -> Any:
    return lambda rec: fmt.format(e=rec.event)


SUMMARIES: dict[type, Any] = {
    CharacterCreated: _s("{e.name} ({e.race}) créé : PV {e.pv}, PM {e.pm}"),
    XpAwarded: _s("{e.character} reçoit {e.amount} XP ({e.reason}) → {e.balance_after} XP"),
    LevelBought: _s("{e.character} achète le niveau global {e.global_level} ({e.class_name} {e.class_level}, "
                    "+1 {e.stat}) pour {e.cost_charged} XP → {e.balance_after} XP"),
    TechniqueBought: _s("{e.character} achète {e.technique} niveau {e.level} pour {e.cost_charged} XP"),
    SpellLearned: _s("{e.character} apprend {e.spell} pour {e.cost_charged} XP"),
    ItemAdded: lambda rec: f"{rec.event.character} reçoit {rec.event.qty} × {rec.event.item.name}",
    ItemEquipped: _s("{e.character} équipe {e.item}"),
    ItemUnequipped: _s("{e.character} déséquipe {e.item}"),
    ItemDropped: _s("{e.character} laisse {e.qty} × {e.item}"),
    GoldChanged: _s("{e.character} : {e.amount:+d} PO ({e.reason}) → {e.balance_after} PO"),
    Rested: _s("{e.character} se repose {e.days} jour(s) : +{e.pv_gained} PV, +{e.pm_gained} PM"),
    DamageTaken: _s("{e.character} subit {e.amount} dommages ({e.reason}) → PV {e.pv_after}"),
    Healed: _s("{e.character} est soigné de {e.healed} PV ({e.source} : {e.reason})"),
    AlignmentChanged: _s("{e.character} : alignement {e.amount:+d} ({e.reason}) → {e.alignment_after}"),
    StateAltered: _s("{e.character} : {e.stat} {e.delta:+d} temporaire ({e.reason})"),
    AlterationEnded: _s("{e.character} : fin de l'altération de la position {e.since}"),
    CharacterCorrected: _s("{e.character} : correction de la position {e.amends}, {e.field} {e.delta:+d}"),
    ContentPackLoaded: _s("Pack de contenu « {e.name} » chargé"),
}

EVENTS: tuple[type, ...] = tuple(SUMMARIES)
DECIDERS: dict[type, Any] = {
    CreateCharacter: decide_create, AwardXp: decide_award, BuyLevel: decide_level,
    BuyTechnique: decide_technique, LearnSpell: decide_spell, AddItem: decide_add_item,
    EquipItem: decide_equip, UnequipItem: decide_unequip, DropItem: decide_drop, ChangeGold: decide_gold,
    Rest: decide_rest, Damage: decide_damage, Heal: decide_heal, ChangeAlignment: decide_alignment,
    AlterState: decide_alter, EndAlteration: decide_end_alteration, LoadContentPack: decide_pack,
}
EVOLVERS: dict[type, Any] = {
    CharacterCreated: evolve_created, XpAwarded: evolve_award, LevelBought: evolve_level,
    TechniqueBought: evolve_technique, SpellLearned: evolve_spell, ItemAdded: evolve_item_added,
    ItemEquipped: lambda s, r: _set_equipped(s, r, True), ItemUnequipped: lambda s, r: _set_equipped(s, r, False),
    ItemDropped: evolve_dropped, GoldChanged: evolve_gold, Rested: evolve_rested, DamageTaken: evolve_damaged,
    Healed: evolve_healed, AlignmentChanged: evolve_alignment, StateAltered: evolve_altered,
    AlterationEnded: evolve_alteration_ended, CharacterCorrected: evolve_corrected, ContentPackLoaded: evolve_pack,
}
COMPENSATORS: dict[type, Any] = {
    XpAwarded: _compensator("xp", 1, True),
    GoldChanged: _compensator("gold", 1, False),
    AlignmentChanged: _compensator("alignment", 1, False),
    DamageTaken: _compensator("pv", -1, True),
}
