"""The story of one Lois du Cristal event in the book's terms, with the state change it made.

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
from .state import CristalState

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


def the(item: str) -> str:
    """``"Épée longue"`` → ``"l'épée longue"``; an item the table does not know keeps its name."""
    art = articles().get(item.casefold())
    if art is None:
        return item
    return f"{art}{_lower_first(item)}" if art.endswith("'") else f"{art} {_lower_first(item)}"


def with_weapon(item: str) -> str:
    """``"Épée longue"`` → ``"à l'épée longue"``, ``"Fouet"`` → ``"au fouet"``; unknown: ``"avec « X »"``."""
    art = articles().get(item.casefold())
    if art is None:
        return f"avec « {item} »"
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
    return " ; ".join(p for p in parts if p)


def _swing(att: int, dp: int, s: Swing, chain: bool, split: int = 2) -> str:
    expr = f"(ATT {_minus(att)} + d20 {s.die}) / {split}" if chain else f"ATT {_minus(att)} + d20 {s.die}"
    cmp = ">" if s.hit else "≤"
    out = f"{expr} = {_minus(s.total)} {cmp} DP {dp}, {'touché' if s.hit else 'manqué'}"
    return out + (f" ; {s.damage} dégâts" if s.hit else "")


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
        arms = f" avec « {e.natural} »"
    where = (" dans le dos" if e.back else "") + (f" à {e.distance} m" if e.distance is not None else "")
    mods = [f"portée {_signed(e.range_penalty)}"] if e.range_penalty else []
    mods += [f"alignement −{abs(e.alignment_penalty)}"] if e.alignment_penalty else []
    mod = f" (ATT avec {', '.join(mods)})" if mods else ""
    swings = " ; puis ".join(_swing(e.att, e.dp, s, e.chain, max(2, len(e.swings))) for s in e.swings)
    damage = sum(s.damage for s in e.swings if s.hit)
    vol = f"{e.vol_spent} Vol* dépensés" if e.vol_spent else ""
    head = f"{name(b, e.attacker)} attaque {name(b, e.target)}{arms}{where}{mod} : "
    pv = _pv_loss(b, e.name, e.target, damage)
    return head + _join(swings + (f", {pv}" if pv else ""), vol, it_change(b, a, e.name, e.attacker))


def _cnc(e: Any) -> str:
    pen = f" {'+' if e.penalty > 0 else '−'} {abs(e.penalty)}" if e.penalty else ""
    return f"CNC {e.cnc}{pen} + d20 {e.die} = {e.total} {'≥' if e.success else '<'} CNC du sort {e.spell_cnc}"


def _cast(b: Any, e: SpellCast, a: Any) -> str:
    who = name(b, e.caster)
    on = f" sur {names(b, e.targets)}" if e.targets else ""
    pm = f"{e.pm_cost} PM, PM {arrow(e.pm_before, e.pm_after)}"
    if e.overdraw_pv:
        pm += f", {e.overdraw_pv} PV puisés faute de PM"
    if e.success:
        timing = (f"réussi ; incantation {e.incantation} s, effets au prochain tour" if e.incantation > 0
                  else "réussi ; effets immédiats")
    else:
        timing = f"échoué ; incantation {e.incantation} s perdue"
    return f"{who} lance {e.spell}{on} ({pm}) : {_join(_cnc(e) + ', ' + timing, it_change(b, a, e.name, e.caster))}"


def _effect(eff: Any) -> str:
    if eff.value is None or str(eff.value) == eff.amount:
        return f"{eff.name} {eff.amount} {eff.unit}".rstrip()
    return f"{eff.name} {eff.amount} = {eff.value} {eff.unit}".rstrip()


def _released(b: Any, e: SpellReleased, a: Any) -> str:
    parts = []
    for r in e.results:
        effects = ", ".join(_effect(x) for x in r.effects)
        hurt = f", {r.damage} dégâts" if r.damage else ""
        pv = _pv_loss(b, e.name, r.target, r.damage)
        parts.append(f"{name(b, r.target)} (DM {r.dm}) : {effects}{hurt}" + (f", {pv}" if pv else ""))
    told = " ; ".join(parts) or "sans cible"
    src = {"spell": "", "crystal": " (cristal)", "potion": " (potion)"}.get(e.source, "")
    tail = _join(f"combustion {e.combustion} s", it_change(b, a, e.name, e.caster)) if e.source == "spell" else ""
    return _join(f"{e.spell} de {name(b, e.caster)} se libère{src} : {told}", tail)


def _decon(b: Any, e: Deconcentrated, a: Any) -> str:
    return (f"{name(b, e.caster)} est déconcentré : {e.damage} dégâts > marge {e.margin}, {e.spell} est perdu")


def _pv(b: Any, e: PvChanged, a: Any) -> str:
    return f"{name(b, e.character)} : PV {arrow(e.pv_after - e.delta, e.pv_after)} ({e.cause})"


def _pm(b: Any, e: PmSpent, a: Any) -> str:
    return f"{name(b, e.character)} dépense {e.pm} PM : PM {arrow(e.pm_after + e.pm, e.pm_after)}"


_CONDITION = {"unconscious": "tombe inconscient", "dead": "meurt", "conscious": "reprend conscience"}


def _condition(b: Any, e: ConditionChanged, a: Any) -> str:
    return f"{name(b, e.character)} {_CONDITION[e.condition]} (PV {_minus(e.pv)})"


def _bled(b: Any, e: Bled, a: Any) -> str:
    return (f"{name(b, e.character)} perd {e.pv_lost} PV en {e.seconds} s d'inconscience : "
            f"PV {arrow(e.pv_after + e.pv_lost, e.pv_after)}")


def _started(b: Any, e: CombatStarted, a: Any) -> str:
    return f"Combat « {e.name} » : " + ", ".join(f"{name(a, f.id)} IT {f.it}" for f in e.fighters)


def _joined(b: Any, e: CombatJoined, a: Any) -> str:
    avg = " (moyenne des présents)" if e.averaged else ""
    return f"{name(a, e.fighter.id)} rejoint le combat « {e.name} » à IT {e.fighter.it}{avg}"


def _initiative(b: Any, e: InitiativeRolled, a: Any) -> str:
    return "Initiative : " + ", ".join(f"{name(a, r.id)} IT {r.base_it} − (d6 {r.die} + REF {r.ref} × 2) = {r.it}"
                                       for r in e.results)


def _tie(b: Any, e: TieBroken, a: Any) -> str:
    rolls = " ; puis ".join(", ".join(f"{name(a, k)} d6 {r.total}" for k, r in this.items()) for this in e.rounds)
    return f"Égalité à IT {e.it} : {rolls} ; {name(a, e.winner)} agit"


def _action(b: Any, e: ActionTaken, a: Any) -> str:
    aided = f" (aide {name(b, e.aided)})" if e.aided else ""
    return _join(f"{name(b, e.actor)} : {e.what or e.action}{aided} ({e.seconds} s)", it_change(b, a, e.name, e.actor))


def _passed(b: Any, e: TurnPassed, a: Any) -> str:
    return _join(f"{name(b, e.actor)} passe son tour", it_change(b, a, e.name, e.actor))


def _stored(b: Any, e: CrystalStored, a: Any) -> str:
    out = {"stored": "emmagasiné", "failed": "échec", "exploded": f"le cristal explose ({e.explosion})"}[e.outcome]
    pm = f"PM {arrow(e.pm_after + e.pm_cost, e.pm_after)}" if e.pm_cost else ""
    return _join(f"{name(b, e.caster)} enferme {e.spell} ({e.pm} PM) dans le cristal {e.crystal} : {out}", pm,
                 it_change(b, a, e.name, e.caster))


def _crystal_released(b: Any, e: CrystalReleased, a: Any) -> str:
    out = f"{e.spell} se libère" if e.success else "échec"
    pm = f"PM {arrow(e.pm_after + e.pm_cost, e.pm_after)}" if e.pm_cost else ""
    return _join(f"{name(b, e.caster)} libère le cristal {e.crystal} : {out}", pm, it_change(b, a, e.name, e.caster))


def _potion(b: Any, e: PotionUsed, a: Any) -> str:
    return _join(f"{name(b, e.actor)} : potion de {e.spell} ({e.trigger}) sur {name(b, e.target)}",
                 it_change(b, a, e.name, e.actor))


def _ability(b: Any, e: AbilityUsed, a: Any) -> str:
    on = f" sur {name(b, e.target)}" if e.target else ""
    return _join(f"{name(b, e.actor)} : {e.ability}{on} ({e.cost} Vol*)", it_change(b, a, e.name, e.actor))


def _align(b: Any, e: AlignmentUsed, a: Any) -> str:
    verb = "soigne" if e.kind == "heal" else "blesse"
    return _join(f"{name(b, e.actor)} {verb} {name(b, e.target)} de {e.points} PV par l'alignement "
                 f"({e.remaining} restants)", it_change(b, a, e.name, e.actor))


def _reroll(b: Any, e: Rerolled, a: Any) -> str:
    cb = b.combats.get(e.name)
    last = cb.fighters[e.character].last_attack if cb is not None and e.character in cb.fighters else None
    if last is not None:
        told = _swing(last.att, last.dp, e.swing, last.halved, last.split)
        pv = _pv_loss(b, e.name, e.target, e.swing.damage if e.swing.hit else 0)
        told += f", {pv}" if pv else ""
    else:
        told = f"d20 {e.swing.die} = {e.swing.total}, {'touché' if e.swing.hit else 'manqué'}"
    return f"{name(b, e.character)} utilise sa Chance contre {name(b, e.target)} ({e.left} restantes) : {told}"


def _ended(b: Any, e: CombatEnded, a: Any) -> str:
    return f"Fin du combat « {e.name} » : IT remis à 0"


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
    return f" (la règle demandait {required} XP)" if required is not None and required != charged else ""


def _created(b: Any, e: CharacterCreated, a: Any) -> str:
    return f"{e.name or name(a, e.character)} ({e.race}) entre dans l'histoire : PV {e.pv}, PM {e.pm}"


def _award(b: Any, e: XpAwarded, a: Any) -> str:
    return _join(f"{name(a, e.character)} reçoit {e.amount} XP ({e.reason})", _xp(b, a, e.character))


def _level(b: Any, e: LevelBought, a: Any) -> str:
    return _join(f"{name(a, e.character)} achète le niveau global {e.global_level} ({e.class_name} {e.class_level}, "
                 f"+1 {e.stat}) pour {e.cost_charged} XP{_rule_cost(e.cost_charged, e.cost_required)}",
                 _xp(b, a, e.character))


def _technique(b: Any, e: TechniqueBought, a: Any) -> str:
    return _join(f"{name(a, e.character)} achète {e.technique} niveau {e.level} pour {e.cost_charged} XP"
                 f"{_rule_cost(e.cost_charged, e.cost_required)}", _xp(b, a, e.character))


def _spell(b: Any, e: SpellLearned, a: Any) -> str:
    return _join(f"{name(a, e.character)} apprend {e.spell} pour {e.cost_charged} XP"
                 f"{_rule_cost(e.cost_charged, e.cost_required)}", _xp(b, a, e.character))


def _item_added(b: Any, e: ItemAdded, a: Any) -> str:
    return f"{name(a, e.character)} reçoit {e.qty} × {e.item.name}"


def _equipped(b: Any, e: ItemEquipped, a: Any) -> str:
    return f"{name(a, e.character)} équipe {the(e.item)}"


def _unequipped(b: Any, e: ItemUnequipped, a: Any) -> str:
    return f"{name(a, e.character)} ôte {the(e.item)}"


def _dropped(b: Any, e: ItemDropped, a: Any) -> str:
    why = f" ({e.reason})" if e.reason else ""
    return f"{name(a, e.character)} laisse {e.qty} × {e.item}{why}"


def _gold(b: Any, e: GoldChanged, a: Any) -> str:
    v = _value(b, a, e.character, "gold")
    return _join(f"{name(a, e.character)} : {_signed(e.amount)} PO ({e.reason})", f"PO {v}" if v else "")


def _rested(b: Any, e: Rested, a: Any) -> str:
    days = f"{e.days} jour{'s' if e.days > 1 else ''}"
    pv, pm = _value(b, a, e.character, "pv"), _value(b, a, e.character, "pm")
    gains = f"+{e.pv_gained} PV, +{e.pm_gained} PM"
    return _join(f"{name(a, e.character)} se repose {days} : {gains}", f"PV {pv}, PM {pm}" if pv else "")


def _damaged(b: Any, e: DamageTaken, a: Any) -> str:
    pv = _value(b, a, e.character, "pv")
    state = ", mort" if e.dead else ", inconscient" if e.unconscious else ""
    return _join(f"{name(a, e.character)} subit {e.amount} dégâts ({e.reason})", f"PV {pv}{state}" if pv else "")


def _healed(b: Any, e: Healed, a: Any) -> str:
    by = f" par {name(a, e.healer)}" if e.healer else ""
    pv = _value(b, a, e.character, "pv")
    return _join(f"{name(a, e.character)} est soigné de {e.healed} PV{by} ({e.source} : {e.reason})",
                 f"PV {pv}" if pv else "")


def _alignment(b: Any, e: AlignmentChanged, a: Any) -> str:
    v = _value(b, a, e.character, "alignment")
    return _join(f"{name(a, e.character)} : alignement {_signed(e.amount)} ({e.reason})",
                 f"alignement {v}" if v else "")


def _altered(b: Any, e: StateAltered, a: Any) -> str:
    until = f" jusqu'à {e.until}" if e.until else ""
    return f"{name(a, e.character)} : {e.stat} {_signed(e.delta)} temporaire{until} ({e.reason})"


def _alteration_ended(b: Any, e: AlterationEnded, a: Any) -> str:
    return f"{name(a, e.character)} : fin de l'altération de la position {e.since}"


_FIELD = {"xp": "XP", "gold": "PO", "pv": "PV", "alignment": "alignement"}


def _corrected(b: Any, e: CharacterCorrected, a: Any) -> str:
    label = _FIELD.get(e.field, e.field)
    v = _value(b, a, e.character, e.field) if e.field in _FIELD else ""
    why = f" ({e.reason})" if e.reason else ""
    return _join(f"{name(a, e.character)} : la position {e.amends} est corrigée, {label} {_signed(e.delta)}{why}",
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
