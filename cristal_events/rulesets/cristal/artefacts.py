"""Magic items outside a fight: Détection Magique, Analyse Magique, manual artefacts (seed 000, L1137-L1167).

A part of the cristal ruleset (``EVENTS``, ``DECIDERS``, ``EVOLVERS``, ``SUMMARIES``), on the streams of
the characters (``character:<id>``). An item is magic when its MAG is above 0 (L1137) and its own DM is its
MAG (L851). Détection Magique (25 XP, CNC 4, 1 PM, L1151-L1157) reveals that MAG; Analyse Magique (100 XP,
CNC 8, 2 PM + 4 PM per MAG, L1161-L1167) makes the caster understand the artefact. An automatic artefact
works for anyone (L1143); a manual one can be set off only by a character who understood it (L1145).
The caster must know the spell (L954), pays its PM (overdraw in PV, L379) and rolls CNC + 1d20.
"""

from __future__ import annotations

from typing import Any

import msgspec

from cristal_events.errors import RuleError
from cristal_events.events import Event
from cristal_events.maps import with_entry
from cristal_events.records import RecordedEvent
from cristal_events.rolls import Roll
from cristal_events.ruleset import Context, Emit

from . import crystals as cr
from . import equipment
from . import magic as m
from .characters.derive import content_of, death_threshold, find, find_item, stable_of, stream_of
from .characters.model import Character
from .state import CristalState
from .texts import _


# ============================================================================ commands
class DetectMagic(msgspec.Struct, frozen=True, kw_only=True):
    """Détection Magique on ``item`` carried by ``owner`` (default: the caster). Dice: the d20 of concentration."""

    character: str
    item: str
    owner: str = ""


class AnalyseMagic(msgspec.Struct, frozen=True, kw_only=True):
    """Analyse Magique with ``pm`` PM in its Magie effect (4 per MAG). Dice: the d20 of concentration."""

    character: str
    item: str
    pm: int
    owner: str = ""


class ActivateItem(msgspec.Struct, frozen=True, kw_only=True):
    """Set off the power of a manual artefact the character carries (L1145)."""

    character: str
    item: str
    what: str = ""


class BreakPotion(msgspec.Struct, frozen=True, kw_only=True):
    """A carried potion's vial breaks (a fall, a blow: "contenant habituellement fragile", L1181)."""

    character: str
    item: str
    reason: str


class CastOnItem(msgspec.Struct, frozen=True, kw_only=True):
    """A spell cast against an item (to destroy or harm it): the item's own DM = MAG reduces its effects
    (L851). Dice: the d20 of concentration, then the effect dice left after the DM."""

    character: str
    item: str
    spell: str
    effects: dict[str, int] = {}
    owner: str = ""


# ============================================================================ events
class MagicDetected(Event, frozen=True, tag="magic.detected", kw_only=True):
    """Détection Magique cast on an item: on a success ``magic`` says whether it is, and ``mag`` its MAG."""

    character: str
    owner: str
    item: str
    pm_cost: int
    pm_spent: int  # PM taken from the caster (the cost, or what was left before an overdraw)
    pm_after: int
    overdraw_pv: int = 0
    dead: bool = False
    cnc: int
    total: int
    spell_cnc: int
    success: bool
    roll: Roll | None = None
    magic: bool = False
    mag: int | None = None


class MagicAnalysed(Event, frozen=True, tag="magic.analysed", kw_only=True):
    """Analyse Magique cast on an artefact: ``understood`` when the roll succeeded with 4 PM per MAG (L1167)."""

    character: str
    owner: str
    item: str
    magie_pm: int
    pm_cost: int
    pm_spent: int  # PM taken from the caster (the cost, or what was left before an overdraw)
    pm_after: int
    overdraw_pv: int = 0
    dead: bool = False
    cnc: int
    total: int
    spell_cnc: int
    success: bool
    roll: Roll | None = None
    understood: bool = False


class ItemActivated(Event, frozen=True, tag="item.activated", kw_only=True):
    character: str
    item: str
    what: str = ""


class PotionBroken(Event, frozen=True, tag="potion.broken", kw_only=True):
    """One vial lost; a contact or ouverture potion goes off on its holder (the liquid touches them, the air
    reaches it, L1174-L1177): ``set_off``; the GM applies its effects."""

    character: str
    item: str
    spell: str
    trigger: str
    set_off: bool
    reason: str


class ItemEffect(msgspec.Struct, frozen=True, kw_only=True):
    name: str
    unit: str
    pm_after: int
    amount: str
    roll: Roll | None = None


class SpellOnItem(Event, frozen=True, tag="magic.spell_on_item", kw_only=True):
    """A spell against an item: ``item_dm`` is the item's MAG (L851, 0 for a non-magic item), ``effects``
    what is left of each effect after it (L1024-L1034); the GM rules what the effects do to the item."""

    character: str
    owner: str
    item: str
    spell: str
    spends: dict[str, int] = {}
    item_dm: int
    pm_cost: int
    pm_spent: int
    pm_after: int
    overdraw_pv: int = 0
    dead: bool = False
    cnc: int
    total: int
    spell_cnc: int
    success: bool
    roll: Roll | None = None
    effects: list[ItemEffect] = []


# ============================================================================ decisions
def _knows(ch: Character, spell: str) -> None:
    if spell not in ch.spells:
        raise RuleError(_('{ch} does not know {spell} (L954): learn it first with \'cristal xp buy spell {ch_id} "{spell}"\'.').format(ch=ch.name, spell=spell, ch_id=ch.id))


def _cast(state: CristalState, ch: Character, key: str, spends: list[m.EffectSpend], ctx: Context) -> tuple[
        m.CastResult, bool]:
    """Pay and roll an artefact spell for ``ch``; whether the overdraw kills."""
    content = content_of(state)
    spell = cr.crystal_spell(key)
    if ch.dead:
        raise RuleError(_("{ch} is dead (L373); casting is refused.").format(ch=ch.name))
    _knows(ch, content.spell(spell.name).name)
    race = content.race(ch.race)
    res = m.cast_spell(caster_pm=ch.pm, caster_cnc=stable_of(ch, content, ctx.mode).CNC, base_pm=spell.base_pm,
                       spell_cnc=spell.cnc, spends=spends, dice=ctx.dice(), allow_overdraw=ctx.settings.pm_overdraw,
                       magic_capable=race.pm_initial > 0)
    return res, ch.pv - res.pv_damage < death_threshold(ch, content)


def _owned(state: CristalState, ch: Character, owner: str, item: str) -> tuple[Character, Any]:
    holder = find(state, owner) if owner else ch
    return holder, find_item(holder, item)


def decide_detect(state: CristalState, cmd: DetectMagic, ctx: Context) -> list[Emit]:
    ch = find(state, cmd.character)
    holder, item = _owned(state, ch, cmd.owner, cmd.item)
    res, dead = _cast(state, ch, "detection_magique", [], ctx)
    chk = res.concentration
    mag = cr.detect_magic(item.template.mag) if chk.success else None
    return [Emit(stream_of(ch.id), MagicDetected(
        character=ch.id, owner=holder.id, item=item.name, pm_cost=res.pm_cost, pm_spent=res.pm_before - res.pm_after, pm_after=res.pm_after,
        overdraw_pv=res.pv_damage, dead=dead, cnc=chk.cnc, total=chk.total, spell_cnc=chk.spell_cnc,
        success=chk.success, roll=chk.roll, magic=mag is not None, mag=mag))]


def decide_analyse(state: CristalState, cmd: AnalyseMagic, ctx: Context) -> list[Emit]:
    ch = find(state, cmd.character)
    holder, item = _owned(state, ch, cmd.owner, cmd.item)
    if item.template.mag <= 0:
        raise RuleError(_("{item} is not magic (MAG 0, L1137): Analyse Magique has nothing to understand.").format(item=item.name))
    effect = cr.crystal_spell("analyse_magique").variable_effect
    assert effect is not None
    res, dead = _cast(state, ch, "analyse_magique", [m.EffectSpend(effect=effect, pm=cmd.pm)], ctx)
    chk = res.concentration
    outcome = cr.analyse_magique(item.template.mag, cmd.pm, concentration_success=chk.success)
    return [Emit(stream_of(ch.id), MagicAnalysed(
        character=ch.id, owner=holder.id, item=item.name, magie_pm=cmd.pm, pm_cost=res.pm_cost,
        pm_spent=res.pm_before - res.pm_after, pm_after=res.pm_after, overdraw_pv=res.pv_damage, dead=dead,
        cnc=chk.cnc, total=chk.total, spell_cnc=chk.spell_cnc, success=chk.success, roll=chk.roll,
        understood=outcome.understood))]


def decide_cast_on_item(state: CristalState, cmd: CastOnItem, ctx: Context) -> list[Emit]:
    ch = find(state, cmd.character)
    holder, item = _owned(state, ch, cmd.owner, cmd.item)
    content = content_of(state)
    spell = content.spell(cmd.spell)
    if ch.dead:
        raise RuleError(_("{ch} is dead (L373); casting is refused.").format(ch=ch.name))
    _knows(ch, spell.name)
    known = {e.name.casefold(): m.VariableEffect(name=e.name, scale=e.scale, unit=e.unit, reduction=e.reduction)
             for e in spell.effects}
    spends = []
    for key, pm in cmd.effects.items():
        eff = known.get(key.casefold())
        if eff is None:
            raise RuleError(_("{spell} has no effect {key!r}; its effects: {value}.").format(spell=spell.name, key=key, value=', '.join(e.name for e in spell.effects) or 'none'))
        spends.append(m.EffectSpend(effect=eff, pm=pm))
    missing = [e.name for e in spell.effects if e.name.casefold() not in {k.casefold() for k in cmd.effects}]
    if missing:
        raise RuleError(_("{spell} needs PM in every variable effect (L993); missing: {missing}.").format(spell=spell.name, missing=', '.join(missing)))
    dice = ctx.dice()
    res = m.cast_spell(caster_pm=ch.pm, caster_cnc=stable_of(ch, content, ctx.mode).CNC, base_pm=spell.pm_base,
                       spell_cnc=spell.cnc, spends=spends, dice=dice, pm_max=spell.pm_max,
                       allow_overdraw=ctx.settings.pm_overdraw, magic_capable=content.race(ch.race).pm_initial > 0)
    chk = res.concentration
    item_dm = equipment.item_self_dm(item.template)
    effects = []
    if chk.success:
        for out in m.reduce_effects(spends, item_dm):
            effects.append(ItemEffect(name=out.name, unit=out.unit, pm_after=out.pm_after, amount=out.amount,
                                      roll=m.roll_effect(dice, out)))
    return [Emit(stream_of(ch.id), SpellOnItem(
        character=ch.id, owner=holder.id, item=item.name, spell=spell.name, spends={s.effect.name: s.pm for s in spends},
        item_dm=item_dm, pm_cost=res.pm_cost, pm_spent=res.pm_before - res.pm_after, pm_after=res.pm_after,
        overdraw_pv=res.pv_damage, dead=ch.pv - res.pv_damage < death_threshold(ch, content), cnc=chk.cnc,
        total=chk.total, spell_cnc=chk.spell_cnc, success=chk.success, roll=chk.roll, effects=effects))]


def decide_activate(state: CristalState, cmd: ActivateItem, ctx: Context) -> list[Emit]:
    ch = find(state, cmd.character)
    item = find_item(ch, cmd.item)
    t = item.template
    if t.mag <= 0:
        raise RuleError(_("{item} is not magic (MAG 0, L1137): it has no power to set off.").format(item=item.name))
    if t.activation == "automatic":
        raise RuleError(_("{item} is an automatic artefact: its magic is always active (L1143).").format(item=item.name))
    if item.name.casefold() not in ch.understood:
        raise RuleError(_("{ch} does not understand {item}: a manual artefact must first be understood with Analyse Magique (L1145, L1167).").format(ch=ch.name, item=item.name))
    return [Emit(stream_of(ch.id), ItemActivated(character=ch.id, item=item.name, what=cmd.what.strip()))]


def decide_break(state: CristalState, cmd: BreakPotion, ctx: Context) -> list[Emit]:
    ch = find(state, cmd.character)
    item = find_item(ch, cmd.item)
    spec = item.template.potion
    if spec is None:
        raise RuleError(_("{item} is not a potion.").format(item=item.name))
    if not cmd.reason.strip():
        raise RuleError(_("A broken potion needs a reason (--reason)."))
    return [Emit(stream_of(ch.id), PotionBroken(character=ch.id, item=item.name, spell=spec.spell, trigger=spec.trigger,
                                                set_off=spec.trigger in ("contact", "ouverture"),
                                                reason=cmd.reason.strip()))]


# ============================================================================ folds
def _paid(state: CristalState, ev: MagicDetected | MagicAnalysed | SpellOnItem, **changes: Any) -> CristalState:
    ch = state.characters.get(ev.character)
    if ch is None:
        return state
    pv = ch.pv - ev.overdraw_pv
    ch = msgspec.structs.replace(ch, pm=ch.pm - ev.pm_spent, pv=pv,
                                 unconscious=ch.unconscious or pv < 0, dead=ch.dead or ev.dead, **changes)
    return msgspec.structs.replace(state, characters=with_entry(state.characters, ch.id, ch))


def evolve_detected(state: CristalState, ev: MagicDetected, rec: RecordedEvent) -> CristalState:
    ch = state.characters.get(ev.character)
    if ch is None:
        return state
    detected = {**ch.detected, ev.item: ev.mag} if ev.mag is not None else ch.detected
    return _paid(state, ev, detected=detected)


def evolve_analysed(state: CristalState, ev: MagicAnalysed, rec: RecordedEvent) -> CristalState:
    ch = state.characters.get(ev.character)
    if ch is None:
        return state
    key = ev.item.casefold()
    understood = [*ch.understood, key] if ev.understood and key not in ch.understood else ch.understood
    return _paid(state, ev, understood=understood)


def evolve_broken(state: CristalState, ev: PotionBroken, rec: RecordedEvent) -> CristalState:
    ch = state.characters.get(ev.character)
    if ch is None:
        return state
    key, items = ev.item.casefold(), []
    for i in ch.items:
        if i.name.casefold() == key:
            if i.qty <= 1:
                continue
            i = msgspec.structs.replace(i, qty=i.qty - 1)
        items.append(i)
    return msgspec.structs.replace(state, characters=with_entry(state.characters, ch.id,
                                                                  msgspec.structs.replace(ch, items=items)))


# ============================================================================ summaries
def _detected(rec: Any) -> str:
    e = rec.event
    if not e.success:
        found = _("failure")
    else:
        found = _("magic, MAG {mag}").format(mag=e.mag) if e.magic else _("not magic")
    return _("{character}: Détection Magique on {item} ({owner}): {found} (−{pm} PM)").format(
        character=e.character, item=e.item, owner=e.owner, found=found, pm=e.pm_cost)


def _analysed(rec: Any) -> str:
    e = rec.event
    result = _("understood") if e.understood else _("failure") if not e.success else _("not enough PM")
    return _("{character}: Analyse Magique on {item} ({owner}, {magie_pm} PM of Magie): {result} (−{pm} PM)").format(
        character=e.character, item=e.item, owner=e.owner, magie_pm=e.magie_pm, result=result, pm=e.pm_cost)


def _on_item(rec: Any) -> str:
    e = rec.event
    effects = ", ".join(f"{x.name} {x.roll.total if x.roll else x.amount} {x.unit}" for x in e.effects)
    result = (effects or _("no effect")) if e.success else _("failure")
    return _("{character}: {spell} against {item} ({owner}, DM {dm}): {result} (−{pm} PM)").format(
        character=e.character, spell=e.spell, item=e.item, owner=e.owner, dm=e.item_dm, result=result, pm=e.pm_cost)


def _broken(rec: Any) -> str:
    e = rec.event
    text = _("{character}: the vial {item} breaks ({reason})").format(character=e.character, item=e.item,
                                                                     reason=e.reason)
    if e.set_off:
        text += _("; {spell} goes off on {character}").format(spell=e.spell, character=e.character)
    return text


def _activated(rec: Any) -> str:
    e = rec.event
    return (_("{character} activates {item}: {what}").format(character=e.character, item=e.item, what=e.what)
            if e.what else _("{character} activates {item}").format(character=e.character, item=e.item))


EVENTS: tuple[type, ...] = (MagicDetected, MagicAnalysed, ItemActivated, PotionBroken, SpellOnItem)
DECIDERS: dict[type, Any] = {DetectMagic: decide_detect, AnalyseMagic: decide_analyse, ActivateItem: decide_activate,
                             BreakPotion: decide_break, CastOnItem: decide_cast_on_item}
EVOLVERS: dict[type, Any] = {MagicDetected: evolve_detected, MagicAnalysed: evolve_analysed, PotionBroken: evolve_broken,
                             SpellOnItem: lambda s, e, r: _paid(s, e)}
SUMMARIES: dict[type, Any] = {
    MagicDetected: _detected, MagicAnalysed: _analysed, SpellOnItem: _on_item, PotionBroken: _broken,
    ItemActivated: _activated,
}
