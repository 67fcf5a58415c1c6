"""The story of one Lois du Cristal event in the book's terms, with the state change it made, in the
reader's language (the ruleset's catalog; the French is the text it always was).

:func:`narrate` ``(before, rec, after) -> str`` is the ruleset's ``narrate`` hook (see
:meth:`cristal_events.ruleset.Ruleset.narrate`): it reads the state before and after the event (both
:class:`~.ruleset.CristalState`) and tells the event as a game master would say it at the table::

    Gustave attaque Rodrigue : ATT 8 + d20 13 = 21 > DP 18, touché ; 8 dégâts, PV 20 → 12 ; IT 0 → 6

Names are the display names of the character sheets (an extra of the game master, who has no sheet,
is its id with a capital letter); weapons take their French article from ``data/articles.json``
("à l'épée longue", "au fouet"). Handlers are a dict by event class; an event without one is told by
its one-line summary. Pure: no I/O but the packaged article table, read once.
"""

import json
from collections.abc import Callable, Iterable
from functools import cache
from pathlib import Path
from typing import Any

import msgspec

from ... import i18n
from ...records import RecordedEvent
from .characters import (
    AlignmentChanged,
    AlterationEnded,
    CharacterCorrected,
    CharacterCreated,
    DamageTaken,
    GoldChanged,
    Healed,
    ItemAdded,
    ItemDropped,
    ItemEquipped,
    ItemUnequipped,
    LevelBought,
    Rested,
    SpellLearned,
    StateAltered,
    TechniqueBought,
    XpAwarded,
)
from .fights import (
    AbilityUsed,
    ActionTaken,
    AlignmentUsed,
    AttackResolved,
    Bled,
    CombatEnded,
    CombatJoined,
    CombatStarted,
    ConditionChanged,
    CrystalReleased,
    CrystalStored,
    Deconcentrated,
    InitiativeRolled,
    PmSpent,
    PotionUsed,
    PvChanged,
    Rerolled,
    SpellCast,
    SpellReleased,
    Swing,
    TieBroken,
    TurnPassed,
)
from .fights.views import cause_shown, what_shown
from .state import CristalState
from .texts import N_, _, ngettext

Handler = Callable[[Any, Any, Any], str]


class _Articles(msgspec.Struct, frozen=True):
    note: str
    articles: dict[str, str]


@cache
def articles() -> dict[str, str]:
    """The French definite article of each known item (``l'``, ``le``, ``la``, ``les``), by item name."""
    raw = (Path(__file__).parent / "data" / "articles.json").read_text(encoding="utf-8")
    table = msgspec.convert(json.loads(raw), _Articles)
    return {k.casefold(): v for k, v in table.articles.items()}


def _lower_first(name: str) -> str:
    return name[:1].lower() + name[1:]


def _french() -> bool:
    """Whether the story is told in French: the article table is French grammar, so the other language
    names an item as the book writes it (a language's grammar is not a catalog's text)."""
    return i18n.current() == "fr"


def the(item: str) -> str:
    """``"Épée longue"`` → ``"l'épée longue"`` in French; an item the table does not know, or any item in
    English, keeps its name."""
    art = articles().get(item.casefold()) if _french() else None
    if art is None:
        return item
    return f"{art}{_lower_first(item)}" if art.endswith("'") else f"{art} {_lower_first(item)}"


def with_weapon(item: str) -> str:
    """``"Épée longue"`` → ``"à l'épée longue"``, ``"Fouet"`` → ``"au fouet"`` in French; unknown, or in
    English: ``"avec « X »"``, ``"with « X »"``."""
    art = articles().get(item.casefold()) if _french() else None
    if art is None:
        return _("with « {item} »").format(item=item)
    low = _lower_first(item)
    return {"le": f"au {low}", "les": f"aux {low}", "la": f"à la {low}"}.get(art, f"à {art}{low}")


def name(state: CristalState, cid: str) -> str:
    """The display name of a character sheet; an extra (no sheet) is its id with a capital letter."""
    ch = state.characters.get(cid)
    if ch is not None and ch.name:
        return ch.name
    return cid[:1].upper() + cid[1:]


def names(state: CristalState, ids: Iterable[str]) -> str:
    return ", ".join(name(state, i) for i in ids)


def _minus(n: int) -> str:
    return f"−{-n}" if n < 0 else str(n)


def arrow(a: Any, b: Any) -> str:
    return f"{_minus(a) if isinstance(a, int) else a} → {_minus(b) if isinstance(b, int) else b}"


def _signed(n: int) -> str:
    return f"+{n}" if n >= 0 else f"−{-n}"


# ------------------------------------------------------------------------------- combat helpers
def pv_of(state: CristalState, combat: str, fid: str) -> int | None:
    """A combatant's current PV as the fights read it: the sheet's, unless the GM gave numbers."""
    cb = state.combats.get(combat)
    f = cb.fighters.get(fid) if cb is not None else None
    ch = state.characters.get(fid)
    if ch is not None and (f is None or "PV" not in f.stats):
        return ch.pv
    if f is None:
        return None
    if f.pv is not None:
        return f.pv
    value = f.stats.get("PV", f.stats.get("PVmax"))
    return value if isinstance(value, int) else None


def it_change(before: CristalState, after: CristalState, combat: str, fid: str) -> str:
    """``IT 0 → 6`` of one combatant across the event (empty when unknown or unchanged)."""
    old = before.combats.get(combat)
    new = after.combats.get(combat)
    if old is None or new is None or fid not in new.it or old.it.get(fid, new.it[fid]) == new.it[fid]:
        return ""
    return f"IT {arrow(old.it[fid], new.it[fid])}"


def _pv_loss(before: CristalState, combat: str, fid: str, damage: int) -> str:
    """``PV 20 → 12``: the hits' damage from the PV before (the ``pv_changed`` event that follows applies it)."""
    pv = pv_of(before, combat, fid)
    if pv is None or damage <= 0:
        return ""
    return f"PV {arrow(pv, pv - damage)}"


def _join(*parts: str) -> str:
    return _("; ").join(p for p in parts if p)


def _swing(att: int, dp: int, s: Swing, chain: bool, split: int = 2) -> str:
    expr = f"(ATT {_minus(att)} + d20 {s.die}) / {split}" if chain else f"ATT {_minus(att)} + d20 {s.die}"
    out = (_("{expr} = {total} > DP {dp}, hit") if s.hit else _("{expr} = {total} ≤ DP {dp}, missed")).format(
        expr=expr, total=_minus(s.total), dp=dp)
    return out + (_("; {damage} damage").format(damage=s.damage) if s.hit else "")


# ------------------------------------------------------------------------------------- combat
def _attack(b: Any, e: AttackResolved, a: Any) -> str:
    arms = ""
    if e.weapon:
        arms = " " + with_weapon(e.weapon)
        if e.projectile:
            arms += f" ({_lower_first(e.projectile)})"
    elif e.projectile:
        arms = " " + with_weapon(e.projectile)
    elif e.natural:
        arms = " " + _("with « {item} »").format(item=e.natural)
    where = ((_(" in the back") if e.back else "")
             + (_(" at {distance} m").format(distance=e.distance) if e.distance is not None else ""))
    mods = [_("range {penalty}").format(penalty=_signed(e.range_penalty))] if e.range_penalty else []
    mods += [_("alignment −{penalty}").format(penalty=abs(e.alignment_penalty))] if e.alignment_penalty else []
    mod = _(" (ATT with {mods})").format(mods=", ".join(mods)) if mods else ""
    swings = _("; then ").join(_swing(e.att, e.dp, s, e.chain, max(2, len(e.swings))) for s in e.swings)
    damage = sum(s.damage for s in e.swings if s.hit)
    vol = _("{vol} Vol* spent").format(vol=e.vol_spent) if e.vol_spent else ""
    head = _("{attacker} attacks {target}{arms}{where}{mod}: ").format(
        attacker=name(b, e.attacker), target=name(b, e.target), arms=arms, where=where, mod=mod)
    pv = _pv_loss(b, e.name, e.target, damage)
    return head + _join(swings + (f", {pv}" if pv else ""), vol, it_change(b, a, e.name, e.attacker))


def _cnc(e: Any) -> str:
    pen = f" {'+' if e.penalty > 0 else '−'} {abs(e.penalty)}" if e.penalty else ""
    return _("CNC {cnc}{penalty} + d20 {die} = {total} {cmp} the spell's CNC {spell_cnc}").format(
        cnc=e.cnc, penalty=pen, die=e.die, total=e.total, cmp="≥" if e.success else "<", spell_cnc=e.spell_cnc)


def _cast(b: Any, e: SpellCast, a: Any) -> str:
    who = name(b, e.caster)
    on = _(" on {target}").format(target=names(b, e.targets)) if e.targets else ""
    pm = f"{e.pm_cost} PM, PM {arrow(e.pm_before, e.pm_after)}"
    if e.overdraw_pv:
        pm += _(", {pv} PV drawn for lack of PM").format(pv=e.overdraw_pv)
    if e.success:
        timing = (_("success; incantation {seconds} s, effects on the next turn").format(seconds=e.incantation)
                  if e.incantation > 0 else _("success; immediate effects"))
    else:
        timing = _("failure; incantation {seconds} s lost").format(seconds=e.incantation)
    return _("{caster} casts {spell}{on} ({pm}): {told}").format(
        caster=who, spell=e.spell, on=on, pm=pm, told=_join(_cnc(e) + ", " + timing, it_change(b, a, e.name, e.caster)))


def _effect(eff: Any) -> str:
    if eff.value is None or str(eff.value) == eff.amount:
        return f"{eff.name} {eff.amount} {eff.unit}".rstrip()
    return f"{eff.name} {eff.amount} = {eff.value} {eff.unit}".rstrip()


_SOURCE = {"spell": "", "crystal": N_(" (crystal)"), "potion": N_(" (potion)")}


def _released(b: Any, e: SpellReleased, a: Any) -> str:
    parts = []
    for r in e.results:
        effects = ", ".join(_effect(x) for x in r.effects)
        hurt = _(", {damage} damage").format(damage=r.damage) if r.damage else ""
        pv = _pv_loss(b, e.name, r.target, r.damage)
        parts.append(_("{target} (DM {dm}): {effects}").format(target=name(b, r.target), dm=r.dm, effects=effects)
                     + hurt + (f", {pv}" if pv else ""))
    told = _("; ").join(parts) or _("no target")
    src = _SOURCE.get(e.source, "")
    tail = (_join(_("combustion {seconds} s").format(seconds=e.combustion), it_change(b, a, e.name, e.caster))
            if e.source == "spell" else "")
    return _join(_("{caster}'s {spell} goes off{source}: {told}").format(
        spell=e.spell, caster=name(b, e.caster), source=_(src) if src else "", told=told), tail)


def _decon(b: Any, e: Deconcentrated, a: Any) -> str:
    return _("{caster} loses concentration: {damage} damage > margin {margin}, {spell} is lost").format(
        caster=name(b, e.caster), damage=e.damage, margin=e.margin, spell=e.spell)


def _pv(b: Any, e: PvChanged, a: Any) -> str:
    return _("{character}: PV {change} ({cause})").format(
        character=name(b, e.character), change=arrow(e.pv_after - e.delta, e.pv_after), cause=cause_shown(e.cause))


def _pm(b: Any, e: PmSpent, a: Any) -> str:
    return _("{character} spends {pm} PM: PM {change}").format(
        character=name(b, e.character), pm=e.pm, change=arrow(e.pm_after + e.pm, e.pm_after))


_CONDITION = {"unconscious": N_("{character} falls unconscious (PV {pv})"), "dead": N_("{character} dies (PV {pv})"),
              "conscious": N_("{character} comes to (PV {pv})")}


def _condition(b: Any, e: ConditionChanged, a: Any) -> str:
    return _(_CONDITION[e.condition]).format(character=name(b, e.character), pv=_minus(e.pv))


def _bled(b: Any, e: Bled, a: Any) -> str:
    return _("{character} loses {pv_lost} PV in {seconds} s unconscious: PV {change}").format(
        character=name(b, e.character), pv_lost=e.pv_lost, seconds=e.seconds,
        change=arrow(e.pv_after + e.pv_lost, e.pv_after))


def _started(b: Any, e: CombatStarted, a: Any) -> str:
    return _("Fight « {name} »: {fighters}").format(
        name=e.name, fighters=", ".join(f"{name(a, f.id)} IT {f.it}" for f in e.fighters))


def _joined(b: Any, e: CombatJoined, a: Any) -> str:
    avg = _(" (average of those present)") if e.averaged else ""
    return _("{fighter} joins the fight « {name} » at IT {it}").format(
        fighter=name(a, e.fighter.id), name=e.name, it=e.fighter.it) + avg


def _initiative(b: Any, e: InitiativeRolled, a: Any) -> str:
    return _("Initiative: {results}").format(results=", ".join(
        f"{name(a, r.id)} IT {r.base_it} − (d6 {r.die} + REF {r.ref} × 2) = {r.it}" for r in e.results))


def _tie(b: Any, e: TieBroken, a: Any) -> str:
    rolls = _("; then ").join(", ".join(f"{name(a, k)} d6 {r.total}" for k, r in this.items()) for this in e.rounds)
    return _("Tie at IT {it}: {rounds}; {winner} acts").format(it=e.it, rounds=rolls, winner=name(a, e.winner))


def _action(b: Any, e: ActionTaken, a: Any) -> str:
    aided = _(" (aids {character})").format(character=name(b, e.aided)) if e.aided else ""
    return _join(_("{actor}: {what}{aided} ({seconds} s)").format(
        actor=name(b, e.actor), what=what_shown(e.what) or e.action, aided=aided, seconds=e.seconds),
        it_change(b, a, e.name, e.actor))


def _passed(b: Any, e: TurnPassed, a: Any) -> str:
    return _join(_("{actor} passes their turn").format(actor=name(b, e.actor)), it_change(b, a, e.name, e.actor))


def _stored(b: Any, e: CrystalStored, a: Any) -> str:
    out = (_("the crystal explodes ({explosion})").format(explosion=e.explosion) if e.outcome == "exploded"
           else _("stored") if e.outcome == "stored" else _("failure"))
    pm = f"PM {arrow(e.pm_after + e.pm_cost, e.pm_after)}" if e.pm_cost else ""
    return _join(_("{caster} locks {spell} ({pm} PM) in the crystal {crystal}: {outcome}").format(
        caster=name(b, e.caster), spell=e.spell, pm=e.pm, crystal=e.crystal, outcome=out), pm,
        it_change(b, a, e.name, e.caster))


def _crystal_released(b: Any, e: CrystalReleased, a: Any) -> str:
    out = _("{spell} goes off").format(spell=e.spell) if e.success else _("failure")
    pm = f"PM {arrow(e.pm_after + e.pm_cost, e.pm_after)}" if e.pm_cost else ""
    return _join(_("{caster} releases the crystal {crystal}: {spell}").format(
        caster=name(b, e.caster), crystal=e.crystal, spell=out), pm, it_change(b, a, e.name, e.caster))


def _potion(b: Any, e: PotionUsed, a: Any) -> str:
    return _join(_("{actor}: potion of {spell} ({trigger}) on {target}").format(
        actor=name(b, e.actor), spell=e.spell, trigger=e.trigger, target=name(b, e.target)),
        it_change(b, a, e.name, e.actor))


def _ability(b: Any, e: AbilityUsed, a: Any) -> str:
    on = _(" on {target}").format(target=name(b, e.target)) if e.target else ""
    return _join(_("{actor}: {ability}{on} ({cost} Vol*)").format(
        actor=name(b, e.actor), ability=e.ability, on=on, cost=e.cost), it_change(b, a, e.name, e.actor))


def _align(b: Any, e: AlignmentUsed, a: Any) -> str:
    text = (_("{actor} heals {target} by {points} PV through the alignment ({remaining} left)") if e.kind == "heal"
            else _("{actor} harms {target} by {points} PV through the alignment ({remaining} left)"))
    return _join(text.format(actor=name(b, e.actor), target=name(b, e.target), points=e.points,
                             remaining=e.remaining), it_change(b, a, e.name, e.actor))


def _reroll(b: Any, e: Rerolled, a: Any) -> str:
    cb = b.combats.get(e.name)
    last = cb.fighters[e.character].last_attack if cb is not None and e.character in cb.fighters else None
    if last is not None:
        told = _swing(last.att, last.dp, e.swing, last.halved, last.split)
        pv = _pv_loss(b, e.name, e.target, e.swing.damage if e.swing.hit else 0)
        told += f", {pv}" if pv else ""
    else:
        told = (_("d20 {die} = {total}, hit") if e.swing.hit else _("d20 {die} = {total}, missed")).format(
            die=e.swing.die, total=e.swing.total)
    return _("{character} uses their Chance against {target} ({left} left): {told}").format(
        character=name(b, e.character), target=name(b, e.target), left=e.left, told=told)


def _ended(b: Any, e: CombatEnded, a: Any) -> str:
    return _("End of the fight « {name} »: IT reset to 0").format(name=e.name)


# ---------------------------------------------------------------------------------- characters
def _ch(state: CristalState, cid: str) -> Any:
    return state.characters.get(cid)


def _value(b: Any, a: Any, cid: str, attr: str) -> str:
    old, new = _ch(b, cid), _ch(a, cid)
    if old is None or new is None:
        return ""
    return arrow(getattr(old, attr), getattr(new, attr))


def _xp(b: Any, a: Any, cid: str) -> str:
    v = _value(b, a, cid, "xp")
    return f"XP {v}" if v else ""


def _rule_cost(charged: int, required: int | None) -> str:
    return (_(" (the rule asked for {required} XP)").format(required=required)
            if required is not None and required != charged else "")


def _created(b: Any, e: CharacterCreated, a: Any) -> str:
    return _("{name} ({race}) enters the story: PV {pv}, PM {pm}").format(
        name=e.name or name(a, e.character), race=e.race, pv=e.pv, pm=e.pm)


def _award(b: Any, e: XpAwarded, a: Any) -> str:
    return _join(_("{character} receives {amount} XP ({reason})").format(
        character=name(a, e.character), amount=e.amount, reason=e.reason), _xp(b, a, e.character))


def _level(b: Any, e: LevelBought, a: Any) -> str:
    return _join(_("{character} buys global level {level} ({class_name} {class_level}, +1 {stat}) for {cost} XP"
                   "{rule}").format(character=name(a, e.character), level=e.global_level, class_name=e.class_name,
                                    class_level=e.class_level, stat=e.stat, cost=e.cost_charged,
                                    rule=_rule_cost(e.cost_charged, e.cost_required)),
                 _xp(b, a, e.character))


def _technique(b: Any, e: TechniqueBought, a: Any) -> str:
    return _join(_("{character} buys {technique} level {level} for {cost} XP{rule}").format(
        character=name(a, e.character), technique=e.technique, level=e.level, cost=e.cost_charged,
        rule=_rule_cost(e.cost_charged, e.cost_required)), _xp(b, a, e.character))


def _spell(b: Any, e: SpellLearned, a: Any) -> str:
    return _join(_("{character} learns {spell} for {cost} XP{rule}").format(
        character=name(a, e.character), spell=e.spell, cost=e.cost_charged,
        rule=_rule_cost(e.cost_charged, e.cost_required)), _xp(b, a, e.character))


def _item_added(b: Any, e: ItemAdded, a: Any) -> str:
    return _("{character} receives {qty} × {item}").format(character=name(a, e.character), qty=e.qty, item=e.item.name)


def _equipped(b: Any, e: ItemEquipped, a: Any) -> str:
    return _("{character} equips {item}").format(character=name(a, e.character), item=the(e.item))


def _unequipped(b: Any, e: ItemUnequipped, a: Any) -> str:
    return _("{character} takes off {item}").format(character=name(a, e.character), item=the(e.item))


def _dropped(b: Any, e: ItemDropped, a: Any) -> str:
    why = f" ({e.reason})" if e.reason else ""
    return _("{character} leaves {qty} × {item}{why}").format(character=name(a, e.character), qty=e.qty,
                                                              item=e.item, why=why)


def _gold(b: Any, e: GoldChanged, a: Any) -> str:
    v = _value(b, a, e.character, "gold")
    return _join(_("{character}: {amount} PO ({reason})").format(
        character=name(a, e.character), amount=_signed(e.amount), reason=e.reason), f"PO {v}" if v else "")


def _rested(b: Any, e: Rested, a: Any) -> str:
    days = ngettext("{days} day", "{days} days", e.days).format(days=e.days)
    pv, pm = _value(b, a, e.character, "pv"), _value(b, a, e.character, "pm")
    gains = f"+{e.pv_gained} PV, +{e.pm_gained} PM"
    return _join(_("{character} rests {days}: {gains}").format(character=name(a, e.character), days=days,
                                                              gains=gains), f"PV {pv}, PM {pm}" if pv else "")


def _damaged(b: Any, e: DamageTaken, a: Any) -> str:
    pv = _value(b, a, e.character, "pv")
    state = _(", dead") if e.dead else _(", unconscious") if e.unconscious else ""
    return _join(_("{character} takes {amount} damage ({reason})").format(
        character=name(a, e.character), amount=e.amount, reason=e.reason), f"PV {pv}{state}" if pv else "")


def _healed(b: Any, e: Healed, a: Any) -> str:
    by = _(" by {healer}").format(healer=name(a, e.healer)) if e.healer else ""
    pv = _value(b, a, e.character, "pv")
    return _join(_("{character} is healed {healed} PV{by} ({source}: {reason})").format(
        character=name(a, e.character), healed=e.healed, by=by, source=e.source, reason=e.reason),
        f"PV {pv}" if pv else "")


def _alignment(b: Any, e: AlignmentChanged, a: Any) -> str:
    v = _value(b, a, e.character, "alignment")
    return _join(_("{character}: alignment {amount} ({reason})").format(
        character=name(a, e.character), amount=_signed(e.amount), reason=e.reason),
        _("alignment {change}").format(change=v) if v else "")


def _altered(b: Any, e: StateAltered, a: Any) -> str:
    until = _(" until {until}").format(until=e.until) if e.until else ""
    return _("{character}: {stat} {delta} temporary{until} ({reason})").format(
        character=name(a, e.character), stat=e.stat, delta=_signed(e.delta), until=until, reason=e.reason)


def _alteration_ended(b: Any, e: AlterationEnded, a: Any) -> str:
    return _("{character}: end of the alteration of position {since}").format(character=name(a, e.character),
                                                                            since=e.since)


_FIELD = {"xp": "XP", "gold": "PO", "pv": "PV", "alignment": N_("alignment")}


def _corrected(b: Any, e: CharacterCorrected, a: Any) -> str:
    label = _(_FIELD[e.field]) if e.field in _FIELD else e.field
    v = _value(b, a, e.character, e.field) if e.field in _FIELD else ""
    why = f" ({e.reason})" if e.reason else ""
    return _join(_("{character}: position {amends} is corrected, {label} {delta}{why}").format(
        character=name(a, e.character), amends=e.amends, label=label, delta=_signed(e.delta), why=why),
        f"{label} {v}" if v else "")


HANDLERS: dict[type, Handler] = {
    # combat (seed 000, L1195-L1421)
    CombatStarted: _started, CombatJoined: _joined, InitiativeRolled: _initiative, TieBroken: _tie,
    ActionTaken: _action, TurnPassed: _passed, AttackResolved: _attack, SpellCast: _cast, SpellReleased: _released,
    Deconcentrated: _decon, PvChanged: _pv, PmSpent: _pm, ConditionChanged: _condition, Bled: _bled,
    CrystalStored: _stored, CrystalReleased: _crystal_released, PotionUsed: _potion, AbilityUsed: _ability,
    AlignmentUsed: _align, Rerolled: _reroll, CombatEnded: _ended,
    # characters
    CharacterCreated: _created, XpAwarded: _award, LevelBought: _level, TechniqueBought: _technique,
    SpellLearned: _spell, ItemAdded: _item_added, ItemEquipped: _equipped, ItemUnequipped: _unequipped,
    ItemDropped: _dropped, GoldChanged: _gold, Rested: _rested, DamageTaken: _damaged, Healed: _healed,
    AlignmentChanged: _alignment, StateAltered: _altered, AlterationEnded: _alteration_ended,
    CharacterCorrected: _corrected,
}


def narrate(before: CristalState, rec: RecordedEvent, after: CristalState, fallback: Callable[[RecordedEvent], str]) -> str:
    """The event told in the book's terms; ``fallback(rec)`` (the summary) for an event with no handler."""
    fn = HANDLERS.get(type(rec.event))
    return fn(before, rec.event, after) if fn is not None else fallback(rec)
