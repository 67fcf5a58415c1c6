"""Character decisions (pure) and the compensating events of corrections."""

from __future__ import annotations

from typing import Any

import msgspec

from cristal_events.bounds import as_int
from cristal_events.display import plain_id
from cristal_events.errors import RuleError, UnknownEntity
from cristal_events.records import RecordedEvent
from cristal_events.rolls import Roll
from cristal_events.ruleset import Context, Emit, event_of

from .. import alignment as align_rules
from .. import crystals, equipment, magic, progression
from .. import fixed as fixed_tables
from ..content import (
    FIXED_STATES,
    ItemTemplate,
    content_from_sections,
    overrides_of,
    race_for_sex,
)
from ..state import CristalState
from ..texts import _
from .derive import (
    content_of,
    current_fixed,
    death_threshold,
    equipped,
    find,
    find_item,
    regeneration,
    stable_of,
    stream_of,
)
from .fold import CORRECTABLE_FIELD
from .model import (
    CONTENT_STREAM,
    HEAL_SOURCES,
    MAGIC_SOURCES,
    AbilityPracticed,
    AddItem,
    AlignmentChanged,
    AlterationEnded,
    AlterState,
    AwardXp,
    Bleed,
    BuyLevel,
    BuyTechnique,
    ChangeAlignment,
    ChangeGold,
    Character,
    CharacterCorrected,
    CharacterCreated,
    CharacterReady,
    CharacterRetired,
    CheckTechnique,
    ContentPack,
    ContentPackLoaded,
    CreateCharacter,
    Damage,
    DamageTaken,
    DropItem,
    EndAlteration,
    EquipItem,
    GoldChanged,
    Heal,
    Healed,
    ItemAdded,
    ItemDropped,
    ItemEquipped,
    ItemUnequipped,
    LearnSpell,
    LevelBought,
    LoadContentPack,
    MarkReady,
    PointsSet,
    Rest,
    Rested,
    SpellLearned,
    StateAltered,
    SurEffort,
    SurEffortMade,
    TechniqueBought,
    TechniqueChecked,
    UnequipItem,
    UseClassAbility,
    XpAwarded,
)


# ============================================================================ decisions
def _need_reason(reason: str, what: str) -> str:
    if not reason.strip():
        raise RuleError(_("{what} needs a reason (--reason).").format(what=what))
    return reason.strip()


def _alive(ch: Character, what: str) -> None:
    if ch.dead:
        raise RuleError(_("{ch} is dead (L373); {what} is refused.").format(ch=ch.name, what=what))


def _stat(name: str) -> str:
    key = name.strip().upper()
    if key not in FIXED_STATES:
        raise UnknownEntity(_("Unknown fixed state '{name}'; fixed states: {fixed_states}.").format(name=name, fixed_states=', '.join(FIXED_STATES)))
    return key


def _targets(state: CristalState, ids: tuple[str, ...], all_: bool, what: str) -> list[Character]:
    if all_ and ids:
        raise RuleError(_("{what}: give character ids or --all, not both.").format(what=what))
    if all_:
        chars = [c for c in state.characters.values() if not c.dead]
        if not chars:
            raise RuleError(_("{what}: the campaign has no living character.").format(what=what))
        return chars
    if not ids:
        raise RuleError(_("{what}: name a character or use --all.").format(what=what))
    return [find(state, i) for i in ids]


class _At:
    """The envelope a simulated fold needs (the position the next event will get)."""

    def __init__(self, position: int) -> None:
        self.position = position


def _points(state: CristalState, cid: str, events: list[Any], ctx: Context) -> list[Emit]:
    """The ``character.points_set`` that follows ``events`` when they move PVmax or PMmax.

    During the creation phase the current PV and PM move with the maxima, both ways (L1482: they equal
    PVmax and PMmax when the character starts; a wound taken meanwhile stays a wound); afterwards a
    lowered maximum caps them (L328, L342: never PV 12 / PVmax 8), and a raised one leaves them where
    they are (docs/rulings.md, "Current PV and PM capped").
    """
    from . import EVOLVERS  # the part's folds, to see the character after ``events``
    after = state
    for i, ev in enumerate(events):
        after = EVOLVERS[type(ev)](after, ev, _At(ctx.position + 1 + i))
    ch, was = after.characters.get(cid), state.characters.get(cid)
    if ch is None or was is None:
        return []
    st = stable_of(ch, content_of(after), ctx.mode)
    old = stable_of(was, content_of(state), ctx.mode)
    dpv, dpm = min(0, st.PVmax - ch.pv), min(0, st.PMmax - ch.pm)
    why = "cap"
    if ch.creating:
        dpv, dpm, why = st.PVmax - old.PVmax, st.PMmax - old.PMmax, "creation"
        dpv, dpm = min(dpv, st.PVmax - ch.pv), min(dpm, st.PMmax - ch.pm)
    if not dpv and not dpm:
        return []
    return [Emit(stream_of(cid), PointsSet(character=cid, pv_delta=dpv, pm_delta=dpm, pv_max=st.PVmax,
                                           pm_max=st.PMmax, reason=why))]


def _with_points(state: CristalState, cid: str, events: list[Any], ctx: Context) -> list[Emit]:
    return [Emit(stream_of(cid), ev) for ev in events] + _points(state, cid, events, ctx)


def decide_create(state: CristalState, cmd: CreateCharacter, ctx: Context) -> list[Emit]:
    cid = plain_id(cmd.id, "Character id")
    if any(c in cid for c in " :/"):
        raise RuleError(_("Character id '{id}' must be one word without spaces, ':' or '/'.").format(id=cmd.id))
    if cid in state.characters:
        raise RuleError(_("Character '{cid}' already exists.").format(cid=cid))
    if cmd.sex and cmd.sex.upper() not in ("F", "M"):
        raise RuleError(_("Sex must be F or M, not '{sex}'.").format(sex=cmd.sex))
    if cmd.gold < 0:
        raise RuleError(_("Starting gold cannot be negative ({gold}).").format(gold=cmd.gold))
    content = content_of(state)
    sex_word = {"F": "Femelle", "M": "Mâle"}.get(cmd.sex.upper(), "")
    race = race_for_sex(content.race(cmd.race), sex_word)
    adjustments = {_stat(k): v for k, v in cmd.adjustments.items()}
    rolls: list[Roll] = []
    if cmd.roll_adjustments:  # L1466: the GM may allow [1d4 -2] on each fixed state
        dice = ctx.dice()
        for s in FIXED_STATES:
            roll = dice.roll("1d4-2", rounding=ctx.mode, purpose=f"creation {s}")
            rolls.append(roll)
            adjustments[s] = adjustments.get(s, 0) + roll.total
    fixed = {s: race.fixed[s] + adjustments.get(s, 0) for s in FIXED_STATES}
    draft = Character(id=cid, name=cmd.name or cid, race=race.name, sex=sex_word, fixed=fixed)
    st = stable_of(draft, content, ctx.mode)
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
        raise RuleError(_("An XP award must be a positive number of XP, not {amount}.").format(amount=cmd.amount))
    reason = _need_reason(cmd.reason, "An XP award")
    return [Emit(stream_of(c.id), XpAwarded(character=c.id, amount=cmd.amount, reason=reason,
                                            balance_after=c.xp + cmd.amount))
            for c in _targets(state, cmd.characters, cmd.all, "xp award")]


def _pay(ch: Character, cost: int, what: str) -> int:
    if ch.xp < cost:
        raise RuleError(_("{ch} has {ch_xp} XP; {what} costs {cost} XP.").format(ch=ch.name, ch_xp=ch.xp, what=what, cost=cost))
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
    if ch.creating:  # L1478, L1482: a level bought at creation leaves the character at PVmax / PMmax
        before = stable_of(ch, content, ctx.mode)
        after = stable_of(msgspec.structs.replace(ch, classes={**ch.classes, cls.name: ev.class_level},
                                                  fixed={**ch.fixed, stat: ch.fixed.get(stat, 0) + 1}),
                          content, ctx.mode)
        ev = msgspec.structs.replace(ev, pv_gain=max(0, after.PVmax - before.PVmax),
                                     pm_gain=max(0, after.PMmax - before.PMmax))
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
        raise RuleError(_("A {race} cannot practise magic (PM initiaux 0, L493).").format(race=race.name))
    spell = content.spell(cmd.spell)
    if spell.name in ch.spells:
        raise RuleError(_("{ch} already knows {spell}.").format(ch=ch.name, spell=spell.name))
    required = spell.learning_cost
    if required is None and cmd.cost is None:
        raise RuleError(_("The book prints no learning cost for {spell}; give the GM's price with --cost.").format(spell=spell.name))
    if cmd.cost is not None and cmd.cost < 0:
        raise RuleError(_("A learning cost cannot be negative ({cost}).").format(cost=cmd.cost))
    charged = cmd.cost if cmd.cost is not None else required
    assert charged is not None
    balance = _pay(ch, charged, f"learning {spell.name}")
    return [Emit(stream_of(ch.id), SpellLearned(character=ch.id, spell=spell.name, cost_charged=charged,
                                                cost_required=required if required is not None else charged,
                                                balance_after=balance))]


def decide_add_item(state: CristalState, cmd: AddItem, ctx: Context) -> list[Emit]:
    ch = find(state, cmd.character)
    if cmd.qty < 1:
        raise RuleError(_("The quantity must be at least 1, not {qty}.").format(qty=cmd.qty))
    if cmd.properties is None:
        template, source = content_of(state).item(cmd.item), "pack"
    else:
        if not cmd.item.strip():
            raise RuleError(_("An item needs a name."))
        plain_id(cmd.item.strip(), "Item name")
        try:
            template = msgspec.convert({"name": cmd.item.strip(), **cmd.properties}, ItemTemplate)
        except msgspec.ValidationError as exc:
            raise RuleError(_("Item '{item}' has an invalid property: {exc}.").format(item=cmd.item, exc=exc)) from None
        source = "custom"
    equipment.check_magic_dm(template)
    template = _potion_item(_crystal_item(template), content_of(state))
    return [Emit(stream_of(ch.id), ItemAdded(character=ch.id, item=template, qty=cmd.qty, source=source))]


def _potion_item(template: ItemTemplate, content: Any) -> ItemTemplate:
    """A potion carried as an object (L1179-L1184): its spell and PM per effect are fixed when it is made
    (L1177), at most 15 PM (L1184), one trigger (L1173-L1175)."""
    spec = template.potion
    if spec is None:
        return template
    spell = content.spell(spec.spell)
    known = {e.name.casefold(): magic.VariableEffect(name=e.name, scale=e.scale, unit=e.unit, reduction=e.reduction)
             for e in spell.effects}
    spends = []
    for key, pm in spec.spends.items():
        eff = known.get(key.casefold())
        if eff is None:
            raise UnknownEntity(_("{spell} has no effect {key!r}; its effects: {value}.").format(spell=spell.name, key=key, value=', '.join(e.name for e in spell.effects) or 'none'))
        spends.append(magic.EffectSpend(effect=eff, pm=pm))
    missing = [e.name for e in spell.effects if e.name.casefold() not in {k.casefold() for k in spec.spends}]
    if missing:
        raise RuleError(_("{spell} needs PM in every variable effect (L993); missing: {missing}.").format(spell=spell.name, missing=', '.join(missing)))
    pm = magic.spell_pm_cost(spell.pm_base, spends, spell.pm_max)
    crystals.make_potion(crystals.StoredSpell(name=spell.name, pm=pm, spends=tuple(spends)), spec.trigger)
    return msgspec.structs.replace(template, potion=msgspec.structs.replace(
        spec, spell=spell.name, pm=pm, spends={s.effect.name: s.pm for s in spends}))


def _crystal_item(template: ItemTemplate) -> ItemTemplate:
    """A Cristal Magique is written with its PM max (L921: "on doit uniquement inscrire le nombre de PM
    maximum"); its price is the band's (L1083-L1089) unless one is given; 50 PM and above is "spéciale"."""
    if template.crystal_pm is None:
        if template.category == "Cristal Magique":
            raise RuleError(_("The crystal {template} needs its PM max (--crystal-pm N, L919).").format(template=template.name))
        return template
    band = crystals.crystal_band(template.crystal_pm)
    return msgspec.structs.replace(template, category="Cristal Magique",
                                   price_po=template.price_po if template.price_po is not None else band.price_po)


def decide_equip(state: CristalState, cmd: EquipItem, ctx: Context) -> list[Emit]:
    """Equip an item (L877). The use of an item is never forbidden (L801); when its handicap leaves a
    fixed state below 0 the character "should not" use it (L871) and the GM decides: the equip needs
    ``gm_allowed`` (the GM's reason), with the penalties the GM adds (L871) applied while it is worn (D9)."""
    ch = find(state, cmd.character)
    item = find_item(ch, cmd.item)
    if item.equipped:
        raise RuleError(_("{item} is already equipped.").format(item=item.name))
    allowed = cmd.gm_allowed.strip()
    penalties = {_penalty_key(k): v for k, v in cmd.penalties.items()}
    worn = equipment.effective_fixed(current_fixed(ch), equipped(ch))
    u = equipment.usability(item.template, worn)
    if u.usable and (allowed or penalties):
        raise RuleError(_("{item}'s handicap leaves no fixed state below 0 (L871): there is nothing for the GM to allow or penalise.").format(item=item.name))
    if not u.usable and not allowed:
        states = ", ".join(f"{k} {v:+d}" for k, v in u.negative.items())
        raise RuleError(_("{item}'s handicap leaves {states} (L871): the GM may still let {ch} use it (L801) with --gm-allow REASON, adding penalties with --penalty STATE=N.").format(item=item.name, states=states, ch=ch.name))
    if any(v >= 0 for v in penalties.values()):
        raise RuleError(_("A GM penalty must be negative (L871), e.g. --penalty ATT=-2."))
    ev = ItemEquipped(character=ch.id, item=item.name, gm_allowed=allowed, penalties=penalties)
    return _with_points(state, ch.id, [ev], ctx)


_PENALTY_KEYS = (*FIXED_STATES, "DP", "DM", "ATT", "CNC", "PVmax", "PMmax")


def _penalty_key(name: str) -> str:
    key = next((k for k in _PENALTY_KEYS if k.casefold() == name.strip().casefold()), None)
    if key is None:
        raise UnknownEntity(_("Unknown state '{name}' for a GM penalty; use one of {penalty_keys}.").format(name=name, penalty_keys=', '.join(_PENALTY_KEYS)))
    return key


def decide_unequip(state: CristalState, cmd: UnequipItem, ctx: Context) -> list[Emit]:
    ch = find(state, cmd.character)
    item = find_item(ch, cmd.item)
    if not item.equipped:
        raise RuleError(_("{item} is not equipped.").format(item=item.name))
    return _with_points(state, ch.id, [ItemUnequipped(character=ch.id, item=item.name)], ctx)


def decide_drop(state: CristalState, cmd: DropItem, ctx: Context) -> list[Emit]:
    ch = find(state, cmd.character)
    item = find_item(ch, cmd.item)
    qty = item.qty if cmd.qty is None else cmd.qty
    if qty < 1 or qty > item.qty:
        raise RuleError(_("{ch} carries {item_qty} {item}; cannot drop {qty}.").format(ch=ch.name, item_qty=item.qty, item=item.name, qty=qty))
    return _with_points(state, ch.id, [ItemDropped(character=ch.id, item=item.name, qty=qty, reason=cmd.reason)], ctx)


def decide_gold(state: CristalState, cmd: ChangeGold, ctx: Context) -> list[Emit]:
    ch = find(state, cmd.character)
    if cmd.amount == 0:
        raise RuleError(_("A gold change of 0 changes nothing."))
    reason = _need_reason(cmd.reason, "A gold change")
    if ch.gold + cmd.amount < 0:
        raise RuleError(_("{ch} has {ch_gold} PO; cannot pay {value}.").format(ch=ch.name, ch_gold=ch.gold, value=-cmd.amount))
    return [Emit(stream_of(ch.id), GoldChanged(character=ch.id, amount=cmd.amount, reason=reason,
                                               balance_after=ch.gold + cmd.amount))]


def decide_rest(state: CristalState, cmd: Rest, ctx: Context) -> list[Emit]:
    if cmd.days < 1:
        raise RuleError(_("A rest lasts at least 1 day, not {days}.").format(days=cmd.days))
    chars = _targets(state, cmd.characters, cmd.all, "rest")
    content = content_of(state)
    out = []
    for ch in chars:
        _alive(ch, "resting")
        st = stable_of(ch, content, ctx.mode)
        regen = regeneration(ch, content, ctx.mode, ctx.settings.regeneration_minimum_one)
        gained = max(0, min(st.PVmax, ch.pv + regen * cmd.days) - ch.pv)
        out.append(Emit(stream_of(ch.id), Rested(character=ch.id, days=cmd.days, regen_per_day=regen,
                                                 pv_gained=gained, pm_gained=max(0, st.PMmax - ch.pm))))
    return out


def decide_damage(state: CristalState, cmd: Damage, ctx: Context) -> list[Emit]:
    ch = find(state, cmd.character)
    _alive(ch, "damage")
    if cmd.amount < 1:
        raise RuleError(_("Damage must be at least 1 PV, not {amount}.").format(amount=cmd.amount))
    reason = _need_reason(cmd.reason, "Damage")
    after = ch.pv - cmd.amount
    return [Emit(stream_of(ch.id), DamageTaken(
        character=ch.id, amount=cmd.amount, reason=reason, pv_after=after,
        unconscious=after < 0, dead=after < death_threshold(ch, content_of(state))))]


def heal_source(text: str) -> str:
    """The heal's source, one of the closed list (natural, care, alignment, divine): any wording of magic
    (a spell, a potion, a crystal ...) is refused, since magic never heals (L1190)."""
    words = " ".join(text.strip().casefold().replace("-", " ").replace("_", " ").split())
    if not words:
        raise RuleError(_("Healing needs a source (--source): natural, care, alignment or divine."))
    if any(w.strip(".,;:'()") in MAGIC_SOURCES for w in words.replace("'", " ").split()):
        raise RuleError(_("Magic can never heal a living being (L1190); record who or what healed instead."))
    canon = HEAL_SOURCES.get(words)
    if canon is None:
        raise RuleError(_("Unknown heal source {value!r}; a heal comes from natural, care, alignment or divine (L367, L1190, L1419).").format(value=text.strip()))
    return canon


def decide_heal(state: CristalState, cmd: Heal, ctx: Context) -> list[Emit]:
    ch = find(state, cmd.character)
    _alive(ch, "healing")
    if cmd.amount < 1:
        raise RuleError(_("Healing must be at least 1 PV, not {amount}.").format(amount=cmd.amount))
    reason = _need_reason(cmd.reason, "Healing")
    source = heal_source(cmd.source)
    content = content_of(state)
    pv_max = stable_of(ch, content, ctx.mode).PVmax
    pool_used = 0
    if source == "alignment":
        if not cmd.healer:
            raise RuleError(_("Alignment healing needs the healer (--by ID)."))
        healer = find(state, cmd.healer)
        if healer.alignment < 0:
            raise RuleError(_("{healer} is cursed (alignment {healer_alignment}) and harms instead of healing (L1419).").format(healer=healer.name, healer_alignment=healer.alignment))
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
        raise RuleError(_("An alignment change of 0 changes nothing."))
    reason = _need_reason(cmd.reason, "An alignment change")
    return [Emit(stream_of(ch.id), AlignmentChanged(character=ch.id, amount=cmd.amount, reason=reason,
                                                    alignment_after=ch.alignment + cmd.amount))]


def decide_alter(state: CristalState, cmd: AlterState, ctx: Context) -> list[Emit]:
    ch = find(state, cmd.character)
    stat = _stat(cmd.stat)
    if cmd.delta == 0:
        raise RuleError(_("A temporary alteration of 0 changes nothing."))
    reason = _need_reason(cmd.reason, "A temporary alteration")
    return _with_points(state, ch.id, [StateAltered(character=ch.id, stat=stat, delta=cmd.delta, until=cmd.until,
                                                    reason=reason)], ctx)


def decide_end_alteration(state: CristalState, cmd: EndAlteration, ctx: Context) -> list[Emit]:
    ch = find(state, cmd.character)
    if not any(a.since == cmd.since for a in ch.alterations):
        known = ", ".join(f"{a.since} ({a.stat} {a.delta:+d})" for a in ch.alterations) or "none"
        raise UnknownEntity(_("{ch} has no alteration from position {since}; current: {known}.").format(ch=ch.name, since=cmd.since, known=known))
    ended = AlterationEnded(character=ch.id, since=cmd.since, reason=cmd.reason)
    out = _with_points(state, ch.id, [ended], ctx)
    alt = next(a for a in ch.alterations if a.since == cmd.since)
    if ctx.settings.points_return_when_state_ends and (alt.pv_capped or alt.pm_capped) and len(out) == 1:
        from . import EVOLVERS
        after = EVOLVERS[AlterationEnded](state, ended, _At(ctx.position + 1)).characters[ch.id]
        st = stable_of(after, content_of(state), ctx.mode)
        dpv = max(0, min(alt.pv_capped, st.PVmax - after.pv))
        dpm = max(0, min(alt.pm_capped, st.PMmax - after.pm))
        if dpv or dpm:
            out.append(Emit(stream_of(ch.id), PointsSet(character=ch.id, pv_delta=dpv, pm_delta=dpm, pv_max=st.PVmax,
                                                        pm_max=st.PMmax, reason="restore")))
    return out


def decide_ready(state: CristalState, cmd: MarkReady, ctx: Context) -> list[Emit]:
    """Close the creation phase (L1448-L1482): "ses PV et ses PM actuels sont égaux à ses PVmax et PMmax"."""
    ch = find(state, cmd.character)
    if not ch.creating:
        raise RuleError(_("{ch} is no longer being created: the creation phase closed (with 'character ready' or the first session).").format(ch=ch.name))
    st = stable_of(ch, content_of(state), ctx.mode)
    return [Emit(stream_of(ch.id), CharacterReady(character=ch.id, pv_delta=st.PVmax - ch.pv, pm_delta=st.PMmax - ch.pm,
                                                  pv_max=st.PVmax, pm_max=st.PMmax))]


def decide_check_technique(state: CristalState, cmd: CheckTechnique, ctx: Context) -> list[Emit]:
    """A Jet de Technique (L763-L776): level + adjustment + 1d6 >= difficulty (standard 5, L770); a
    character without the technique rolls at level 0 and without adjustment (L774)."""
    ch = find(state, cmd.character)
    _alive(ch, "a Technique roll")
    if cmd.difficulty < 0:
        raise RuleError(_("A difficulty is 0 or more, not {difficulty} (standard 5, L770).").format(difficulty=cmd.difficulty))
    tech = content_of(state).technique(cmd.technique)
    level = ch.techniques.get(tech.name, 0)
    fixed = equipment.effective_fixed(current_fixed(ch), equipped(ch))
    roll = ctx.dice().roll("1d6", rounding=ctx.mode, purpose=f"technique {tech.name}")
    adjustment = progression.technique_adjustment(tech, fixed, ctx.mode) if level >= 1 else 0
    total = level + adjustment + roll.total
    return [Emit(stream_of(ch.id), TechniqueChecked(
        character=ch.id, technique=tech.name, level=level, adjustment=adjustment, face=roll.total, total=total,
        difficulty=cmd.difficulty, success=total >= cmd.difficulty, roll=roll, reason=cmd.reason.strip()))]


def decide_sur_effort(state: CristalState, cmd: SurEffort, ctx: Context) -> list[Emit]:
    """A Sur-Effort the GM grants (L233-L242): the band's die of the state's current value (D27) added to
    that fixed state for one action; the event records the table value reached (FRC 4: 240 kg, L235)."""
    ch = find(state, cmd.character)
    _alive(ch, "a Sur-Effort")
    reason = _need_reason(cmd.reason, "A Sur-Effort (the GM's reason, L237)")
    stat = _stat(cmd.stat)
    score = equipment.effective_fixed(current_fixed(ch), equipped(ch))[stat]
    die = fixed_tables.sur_effort_die(score)
    roll = ctx.dice().roll(die, rounding=ctx.mode, purpose=f"Sur-Effort {stat}")
    value = score + roll.total
    before = after = ""
    if stat in fixed_tables.TABLE_COLUMNS:
        before = str(fixed_tables.table_row(stat, score)["value"])
        after = str(fixed_tables.table_row(stat, value)["value"])
    return [Emit(stream_of(ch.id), SurEffortMade(character=ch.id, stat=stat, score=score, die=die, bonus=roll.total,
                                                 value=value, table_before=before, table_after=after, roll=roll,
                                                 reason=reason))]


def decide_pack(state: CristalState, cmd: LoadContentPack, ctx: Context) -> list[Emit]:
    if not cmd.name.strip():
        raise RuleError(_("A content pack needs a name."))
    plain_id(cmd.name, "Content pack name")
    added = content_from_sections(cmd.name, cmd.data)
    for section in ("races", "classes", "techniques", "items", "spells"):
        for key in getattr(added, section):
            plain_id(key, f"The {section[:-1]} name")
    for item in added.items.values():
        equipment.check_magic_dm(item)  # L861: only a magic item raises DM
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
        raise RuleError(_("This event can only be corrected with --set amount=N."))
    value = as_int(changes["amount"])
    if value is None:
        raise RuleError(_("amount must be a whole number, not {changes!r}.").format(changes=changes['amount']))
    if value == original:
        raise RuleError(_("The amount is already {original}; nothing to correct.").format(original=original))
    return value


def compensator(field: str, sign: int, positive: bool) -> Any:
    def compensate(state: CristalState, original: RecordedEvent, changes: dict[str, Any], ctx: Context) -> list[Emit]:
        ev = event_of(original, (XpAwarded, GoldChanged, AlignmentChanged, DamageTaken))
        ch = find(state, ev.character)
        value = _amount_change(changes, ev.amount)
        if positive and value <= 0:
            raise RuleError(_("The corrected amount must be positive, not {value}.").format(value=value))
        delta = sign * (value - ev.amount)
        current = getattr(ch, CORRECTABLE_FIELD[field])
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
    ev = event_of(original, (LevelBought, TechniqueBought, SpellLearned))
    ch = find(state, ev.character)
    if set(changes) != {"cost"}:
        raise RuleError(_("A purchase can only be corrected with --set cost=N (the XP it should have cost)."))
    raw = changes["cost"]
    value = as_int(raw)
    if value is None or value < 0:
        raise RuleError(_("cost must be a whole number of XP, 0 or more, not {raw!r}.").format(raw=raw))
    before = ch.charges.get(original.position, ev.cost_charged)
    if value == before:
        raise RuleError(_("The purchase at position {original_position} already costs {before} XP; nothing to correct.").format(original_position=original.position, before=before))
    delta = before - value
    return [Emit(stream_of(ch.id), CharacterCorrected(
        character=ch.id, amends=original.position, field="xp", delta=delta, balance_after=ch.xp + delta,
        what=_purchase_label(ev), cost_before=before, cost_after=value,
        cost_required=ev.cost_required))]


def compensate_created(state: CristalState, original: RecordedEvent, changes: dict[str, Any], ctx: Context) -> list[Emit]:
    """A character created by mistake: ``correct POS --reason ...`` (no --set) retires it, visibly."""
    ev = event_of(original, CharacterCreated)
    if changes:
        raise RuleError(_("A character's creation is corrected only by retiring it (no --set); create it again with the right numbers."))
    ch = find(state, ev.character)
    fights = sorted(n for n, cb in state.combats.items() if ch.id in cb.fighters)
    if fights:
        raise RuleError(_("{ch_id} is in the fight {fights!r}; end it before retiring the character.").format(ch_id=ch.id, fights=fights[0]))
    return [Emit(stream_of(ch.id), CharacterRetired(character=ch.id, amends=original.position, name=ch.name))]


def decide_class_ability(state: CristalState, cmd: UseClassAbility, ctx: Context) -> list[Emit]:
    """"À tout moment au cours du jeu, le joueur peut décider d'exécuter l'une des habiletés qu'il
    maîtrise" (L664): an ability of one of the character's classes, its level and the day's points
    checked (L666-L668)."""
    ch = find(state, cmd.character)
    _alive(ch, "an ability")
    if ch.unconscious:
        raise RuleError(_("{ch} is unconscious and cannot use an ability (L369).").format(ch=ch.name))
    fights = sorted(n for n, cb in state.combats.items() if ch.id in cb.fighters)
    if fights:
        raise RuleError(_("{ch_id} is in the fight {fights!r}: use 'combat ability {fights} {ch_id} ...' (the ability takes its time on the IT).").format(ch_id=ch.id, fights=fights[0]))
    content = content_of(state)
    owned = [(content.class_def(k), v) for k, v in ch.classes.items() if v > 0]
    found = next(((cls, lvl) for cls, lvl in owned if progression.find_ability(cls, cmd.ability) is not None), None)
    if found is None:
        names = [a.name for cls, _ in owned for a in cls.abilities]
        if not names:
            raise RuleError(_("{ch} has no class with abilities (Voleur, L728-L741).").format(ch=ch.name))
        progression.ability(msgspec.structs.replace(owned[0][0], abilities=[a for c, _ in owned for a in c.abilities]),
                            cmd.ability)  # "Unknown ... ability; Did you mean ...?"
        raise RuleError(_("{ch} knows no ability {ability!r}.").format(ch=ch.name, ability=cmd.ability))
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
        raise RuleError(_("Bleeding lasts at least 1 minute, not {minutes}.").format(minutes=cmd.minutes))
    if not ch.unconscious:
        raise RuleError(_("{ch} is conscious ({ch_pv} PV): only an unconscious character bleeds (L371).").format(ch=ch.name, ch_pv=ch.pv))
    if any(ch.id in cb.fighters for cb in state.combats.values()):
        raise RuleError(_("{ch_id} is in a fight: there it bleeds on the fight's IT (L371).").format(ch_id=ch.id))
    threshold = death_threshold(ch, content_of(state))
    lost = min(cmd.minutes, ch.pv - threshold + 1)  # death ends the bleeding
    after = ch.pv - lost
    return [Emit(stream_of(ch.id), DamageTaken(
        character=ch.id, amount=lost, reason=f"inconscience sans aide, {cmd.minutes} min (L371)", pv_after=after,
        unconscious=True, dead=after < threshold))]

