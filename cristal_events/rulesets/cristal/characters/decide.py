"""Character decisions (pure) and the compensating events of corrections."""

from __future__ import annotations

from typing import Any

import msgspec

from cristal_events.bounds import as_int
from cristal_events.display import plain_id
from cristal_events.errors import RuleError, UnknownEntity
from cristal_events.rolls import Roll
from cristal_events.ruleset import Context, Emit
from cristal_events.records import RecordedEvent

from ..state import CristalState
from .. import alignment as align_rules
from .. import equipment, progression
from ..content import (
    FIXED_STATES,
    ItemTemplate,
    _content_from_sections,
    overrides_of,
    race_for_sex,
)

from .model import AbilityPracticed, Bleed, UseClassAbility, AddItem, AlignmentChanged, AlterState, AlterationEnded, AwardXp, BuyLevel, BuyTechnique, CONTENT_STREAM, ChangeAlignment, ChangeGold, Character, CharacterCorrected, CharacterCreated, CharacterRetired, ContentPack, ContentPackLoaded, CreateCharacter, Damage, DamageTaken, DropItem, EndAlteration, EquipItem, GoldChanged, Heal, Healed, ItemAdded, ItemDropped, ItemEquipped, ItemUnequipped, LearnSpell, LevelBought, LoadContentPack, MAGIC_SOURCES, Rest, Rested, SpellLearned, StateAltered, TechniqueBought, UnequipItem, XpAwarded  # noqa: F401
from .derive import _find_item, content_of, current_fixed, death_threshold, equipped, find, regeneration, stable_of, stream_of  # noqa: F401
from .fold import _CORRECTABLE_FIELD  # noqa: F401


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


def _targets(state: CristalState, ids: tuple[str, ...], all_: bool, what: str) -> list[Character]:
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


def decide_create(state: CristalState, cmd: CreateCharacter, ctx: Context) -> list[Emit]:
    cid = plain_id(cmd.id, "Character id")
    if any(c in cid for c in " :/"):
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


def decide_award(state: CristalState, cmd: AwardXp, ctx: Context) -> list[Emit]:
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


def decide_level(state: CristalState, cmd: BuyLevel, ctx: Context) -> list[Emit]:
    ch = find(state, cmd.character)
    _alive(ch, "buying a level")
    content = content_of(state)
    race = race_for_sex(content.race(ch.race), ch.sex)
    cls = content.class_def(cmd.class_name)
    stat = _stat(cmd.stat)
    nxt = ch.global_level + 1
    cost = progression.level_cost(race, nxt, limit=ctx.settings.level_limits)
    progression.check_prerequisites(content, cls.name, ch.classes)
    balance = _pay(ch, cost, f"global level {nxt}")
    ev = LevelBought(character=ch.id, class_name=cls.name, class_level=ch.classes.get(cls.name, 0) + 1,
                     global_level=nxt, stat=stat, cost_charged=cost, cost_required=cost, balance_after=balance,
                     level_limit=race.level_limit)
    return [Emit(stream_of(ch.id), ev)]


def decide_technique(state: CristalState, cmd: BuyTechnique, ctx: Context) -> list[Emit]:
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


def decide_spell(state: CristalState, cmd: LearnSpell, ctx: Context) -> list[Emit]:
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


def decide_add_item(state: CristalState, cmd: AddItem, ctx: Context) -> list[Emit]:
    ch = find(state, cmd.character)
    if cmd.qty < 1:
        raise RuleError(f"The quantity must be at least 1, not {cmd.qty}.")
    if cmd.properties is None:
        template, source = content_of(state).item(cmd.item), "pack"
    else:
        if not cmd.item.strip():
            raise RuleError("An item needs a name.")
        plain_id(cmd.item.strip(), "Item name")
        try:
            template = msgspec.convert({"name": cmd.item.strip(), **cmd.properties}, ItemTemplate)
        except msgspec.ValidationError as exc:
            raise RuleError(f"Item '{cmd.item}' has an invalid property: {exc}.") from None
        source = "custom"
    return [Emit(stream_of(ch.id), ItemAdded(character=ch.id, item=template, qty=cmd.qty, source=source))]


def decide_equip(state: CristalState, cmd: EquipItem, ctx: Context) -> list[Emit]:
    ch = find(state, cmd.character)
    item = _find_item(ch, cmd.item)
    if item.equipped:
        raise RuleError(f"{item.name} is already equipped.")
    worn = equipment.effective_fixed(current_fixed(ch), equipped(ch))
    equipment.check_usable(item.template, worn)  # a disabling handicap (L871, D9)
    return [Emit(stream_of(ch.id), ItemEquipped(character=ch.id, item=item.name))]


def decide_unequip(state: CristalState, cmd: UnequipItem, ctx: Context) -> list[Emit]:
    ch = find(state, cmd.character)
    item = _find_item(ch, cmd.item)
    if not item.equipped:
        raise RuleError(f"{item.name} is not equipped.")
    return [Emit(stream_of(ch.id), ItemUnequipped(character=ch.id, item=item.name))]


def decide_drop(state: CristalState, cmd: DropItem, ctx: Context) -> list[Emit]:
    ch = find(state, cmd.character)
    item = _find_item(ch, cmd.item)
    qty = item.qty if cmd.qty is None else cmd.qty
    if qty < 1 or qty > item.qty:
        raise RuleError(f"{ch.name} carries {item.qty} {item.name}; cannot drop {qty}.")
    return [Emit(stream_of(ch.id), ItemDropped(character=ch.id, item=item.name, qty=qty, reason=cmd.reason))]


def decide_gold(state: CristalState, cmd: ChangeGold, ctx: Context) -> list[Emit]:
    ch = find(state, cmd.character)
    if cmd.amount == 0:
        raise RuleError("A gold change of 0 changes nothing.")
    reason = _need_reason(cmd.reason, "A gold change")
    if ch.gold + cmd.amount < 0:
        raise RuleError(f"{ch.name} has {ch.gold} PO; cannot pay {-cmd.amount}.")
    return [Emit(stream_of(ch.id), GoldChanged(character=ch.id, amount=cmd.amount, reason=reason,
                                               balance_after=ch.gold + cmd.amount))]


def decide_rest(state: CristalState, cmd: Rest, ctx: Context) -> list[Emit]:
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


def decide_damage(state: CristalState, cmd: Damage, ctx: Context) -> list[Emit]:
    ch = find(state, cmd.character)
    _alive(ch, "damage")
    if cmd.amount < 1:
        raise RuleError(f"Damage must be at least 1 PV, not {cmd.amount}.")
    reason = _need_reason(cmd.reason, "Damage")
    after = ch.pv - cmd.amount
    return [Emit(stream_of(ch.id), DamageTaken(
        character=ch.id, amount=cmd.amount, reason=reason, pv_after=after,
        unconscious=after < 0, dead=after < death_threshold(ch, content_of(state))))]


def decide_heal(state: CristalState, cmd: Heal, ctx: Context) -> list[Emit]:
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


def decide_alignment(state: CristalState, cmd: ChangeAlignment, ctx: Context) -> list[Emit]:
    ch = find(state, cmd.character)
    if cmd.amount == 0:
        raise RuleError("An alignment change of 0 changes nothing.")
    reason = _need_reason(cmd.reason, "An alignment change")
    return [Emit(stream_of(ch.id), AlignmentChanged(character=ch.id, amount=cmd.amount, reason=reason,
                                                    alignment_after=ch.alignment + cmd.amount))]


def decide_alter(state: CristalState, cmd: AlterState, ctx: Context) -> list[Emit]:
    ch = find(state, cmd.character)
    stat = _stat(cmd.stat)
    if cmd.delta == 0:
        raise RuleError("A temporary alteration of 0 changes nothing.")
    reason = _need_reason(cmd.reason, "A temporary alteration")
    return [Emit(stream_of(ch.id), StateAltered(character=ch.id, stat=stat, delta=cmd.delta, until=cmd.until,
                                                reason=reason))]


def decide_end_alteration(state: CristalState, cmd: EndAlteration, ctx: Context) -> list[Emit]:
    ch = find(state, cmd.character)
    if not any(a.since == cmd.since for a in ch.alterations):
        known = ", ".join(f"{a.since} ({a.stat} {a.delta:+d})" for a in ch.alterations) or "none"
        raise UnknownEntity(f"{ch.name} has no alteration from position {cmd.since}; current: {known}.")
    return [Emit(stream_of(ch.id), AlterationEnded(character=ch.id, since=cmd.since, reason=cmd.reason))]


def decide_pack(state: CristalState, cmd: LoadContentPack, ctx: Context) -> list[Emit]:
    if not cmd.name.strip():
        raise RuleError("A content pack needs a name.")
    plain_id(cmd.name, "Content pack name")
    added = _content_from_sections(cmd.name, cmd.data)
    for section in ("races", "classes", "techniques", "items", "spells"):
        for key in getattr(added, section):
            plain_id(key, f"The {section[:-1]} name")
    overrides = overrides_of(content_of(state), added, cmd.data, source=cmd.name,
                             packs=[(p.name, p.data) for p in state.packs])
    content_of(msgspec.structs.replace(state, packs=[*state.packs, ContentPack(name=cmd.name, data=cmd.data)]))
    summary = {s: sorted(getattr(added, s)) for s in ("races", "classes", "techniques", "items", "spells")
               if getattr(added, s)}
    return [Emit(CONTENT_STREAM, ContentPackLoaded(name=cmd.name, data=cmd.data, summary=summary,
                                                   overrides=overrides))]


# ============================================================================ corrections
def _amount_change(changes: dict[str, Any], original: int) -> int:
    if set(changes) != {"amount"}:
        raise RuleError("This event can only be corrected with --set amount=N.")
    value = as_int(changes["amount"])
    if value is None:
        raise RuleError(f"amount must be a whole number, not {changes['amount']!r}.")
    if value == original:
        raise RuleError(f"The amount is already {original}; nothing to correct.")
    return value


def _compensator(field: str, sign: int, positive: bool) -> Any:
    def compensate(state: CristalState, original: RecordedEvent, changes: dict[str, Any], ctx: Context) -> list[Emit]:
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


def _purchase_label(ev: Any) -> str:
    match ev:
        case LevelBought():
            return f"global level {ev.global_level} ({ev.class_name} {ev.class_level})"
        case TechniqueBought():
            return f"technique {ev.technique} level {ev.level}"
        case _:
            return f"spell {ev.spell}"


def compensate_purchase(state: CristalState, original: RecordedEvent, changes: dict[str, Any], ctx: Context) -> list[Emit]:
    """A level, technique or spell charged the wrong XP: ``--set cost=N`` gives back (or takes) the difference.

    The purchase itself stands; a later correction of the same purchase starts from the last corrected charge.
    """
    ev = original.event
    ch = find(state, ev.character)  # type: ignore[union-attr]
    if set(changes) != {"cost"}:
        raise RuleError("A purchase can only be corrected with --set cost=N (the XP it should have cost).")
    raw = changes["cost"]
    value = as_int(raw)
    if value is None or value < 0:
        raise RuleError(f"cost must be a whole number of XP, 0 or more, not {raw!r}.")
    before = ch.charges.get(original.position, ev.cost_charged)  # type: ignore[union-attr]
    if value == before:
        raise RuleError(f"The purchase at position {original.position} already costs {before} XP; nothing to correct.")
    delta = before - value
    return [Emit(stream_of(ch.id), CharacterCorrected(
        character=ch.id, amends=original.position, field="xp", delta=delta, balance_after=ch.xp + delta,
        what=_purchase_label(ev), cost_before=before, cost_after=value,
        cost_required=ev.cost_required))]  # type: ignore[union-attr]


def compensate_created(state: CristalState, original: RecordedEvent, changes: dict[str, Any], ctx: Context) -> list[Emit]:
    """A character created by mistake: ``correct POS --reason ...`` (no --set) retires it, visibly."""
    ev = original.event
    if changes:
        raise RuleError("A character's creation is corrected only by retiring it (no --set); "
                        "create it again with the right numbers.")
    ch = find(state, ev.character)  # type: ignore[union-attr]
    fights = sorted(n for n, cb in state.combats.items() if ch.id in cb.fighters)
    if fights:
        raise RuleError(f"{ch.id} is in the fight {fights[0]!r}; end it before retiring the character.")
    return [Emit(stream_of(ch.id), CharacterRetired(character=ch.id, amends=original.position, name=ch.name))]


def decide_class_ability(state: CristalState, cmd: UseClassAbility, ctx: Context) -> list[Emit]:
    """"À tout moment au cours du jeu, le joueur peut décider d'exécuter l'une des habiletés qu'il
    maîtrise" (L664): an ability of one of the character's classes, its level and the day's points
    checked (L666-L668)."""
    ch = find(state, cmd.character)
    _alive(ch, "an ability")
    if ch.unconscious:
        raise RuleError(f"{ch.name} is unconscious and cannot use an ability (L369).")
    fights = sorted(n for n, cb in state.combats.items() if ch.id in cb.fighters)
    if fights:
        raise RuleError(f"{ch.id} is in the fight {fights[0]!r}: use 'combat ability {fights[0]} {ch.id} ...' "
                        "(the ability takes its time on the IT).")
    content = content_of(state)
    owned = [(content.class_def(k), v) for k, v in ch.classes.items() if v > 0]
    found = next(((cls, lvl) for cls, lvl in owned if progression.find_ability(cls, cmd.ability) is not None), None)
    if found is None:
        names = [a.name for cls, _ in owned for a in cls.abilities]
        if not names:
            raise RuleError(f"{ch.name} has no class with abilities (Voleur, L728-L741).")
        progression.ability(msgspec.structs.replace(owned[0][0], abilities=[a for c, _ in owned for a in c.abilities]),
                            cmd.ability)  # "Unknown ... ability; Did you mean ...?"
        raise RuleError(f"{ch.name} knows no ability {cmd.ability!r}.")
    cls, level = found
    ab = progression.ability(cls, cmd.ability)
    per_day = progression.class_bonuses(content, ch.classes).points.get(ab.pool.rstrip("*"), 0)
    left = max(0, per_day - ch.pools_used.get(ab.pool.rstrip("*"), 0))
    ab = progression.check_ability(cls, ab.name, level, left)
    if cmd.target:
        plain_id(cmd.target, "Target")
    return [Emit(stream_of(ch.id), AbilityPracticed(character=ch.id, ability=ab.name, class_name=cls.name,
                                                    cost=ab.cost, pool=ab.pool.rstrip("*"), left=left - ab.cost,
                                                    target=cmd.target, reason=cmd.reason.strip()))]


def decide_bleed(state: CristalState, cmd: Bleed, ctx: Context) -> list[Emit]:
    """An unconscious character left unaided outside a fight loses 1 PV a minute until death (L371, D8)."""
    ch = find(state, cmd.character)
    _alive(ch, "bleeding")
    if cmd.minutes < 1:
        raise RuleError(f"Bleeding lasts at least 1 minute, not {cmd.minutes}.")
    if not ch.unconscious:
        raise RuleError(f"{ch.name} is conscious ({ch.pv} PV): only an unconscious character bleeds (L371).")
    if any(ch.id in cb.fighters for cb in state.combats.values()):
        raise RuleError(f"{ch.id} is in a fight: there it bleeds on the fight's IT (L371).")
    threshold = death_threshold(ch, content_of(state))
    lost = min(cmd.minutes, ch.pv - threshold + 1)  # death ends the bleeding
    after = ch.pv - lost
    return [Emit(stream_of(ch.id), DamageTaken(
        character=ch.id, amount=lost, reason=f"inconscience sans aide, {cmd.minutes} min (L371)", pv_after=after,
        unconscious=True, dead=after < threshold))]

