"""The story of one Illergan event in the text's terms, with the state change it made.

:func:`narrate` ``(before, rec, after, fallback) -> str`` is the ruleset's ``narrate`` hook (see
:meth:`cristal_events.ruleset.Ruleset.narrate`). It reads the :class:`~.state.IllerganState` before
and after the event and tells it as a game master would say it::

    Thor attaque Loup gris (Épée longue) : Dé100 45 ≤ Adresse 60, touché au tronc ; 54 dégâts T,
    SR 0, RN 0 % → 54 PV perdus, PV 35 → −19, mort

Names are the heroes' and creatures' display names. Handlers are a dict by event class; an event
without one is told by its one-line summary. Pure.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...records import RecordedEvent
from .fights import AttackResolved, DestinyPointSpent, FightEnded, FightStarted, InitiativeRolled, SpellCast
from .fights.views import cast_after as _cast_after
from .fights.views import cast_extras as _cast_extras
from .heroes import CreatureCreated, Equipped, HeroCorrected, HeroCreated, MoneyChanged, XpAwarded, XpSpent
from .tavern import DrinkConsumed, TimePassed
from .trials import CheckRolled

Handler = Callable[[Any, Any, Any], str]

#: the Alc bands (I-L126-129)
BANDS = {None: "sobre", "gaiete": "Gaieté", "troublitude": "Troublitude", "titubage": "Titubage", "oubli": "Oubli"}
_SLOTS = {"weapon": "arme", "armour": "armure", "shield": "bouclier"}


def name(state: Any, cid: str) -> str:
    """A hero's or creature's display name (its id when the state does not know it)."""
    hero = state.characters.get(cid)
    return hero.name if hero is not None and hero.name else cid


def _num(n: Any) -> str:
    if isinstance(n, float) and n.is_integer():
        n = int(n)
    if isinstance(n, float):
        n = round(n, 2)
    return f"−{-n}" if n < 0 else str(n)


def arrow(a: Any, b: Any) -> str:
    return f"{_num(a)} → {_num(b)}"


def _signed(n: int) -> str:
    return f"+{n}" if n >= 0 else f"−{-n}"


def _join(*parts: str) -> str:
    return " ; ".join(p for p in parts if p)


def _field(b: Any, a: Any, cid: str, attr: str) -> str:
    old, new = b.characters.get(cid), a.characters.get(cid)
    if old is None or new is None:
        return ""
    return arrow(getattr(old, attr), getattr(new, attr))


# ------------------------------------------------------------------------------------- checks
_STRICT = ("search", "skinning")  # strictly below the threshold (A22); the others: at most


def _check(b: Any, e: CheckRolled, a: Any) -> str:
    who, face = name(b, e.character), e.roll.total
    if e.kind == "search":
        found = ", ".join(k for k, v in e.found.items() if v) or "rien"
        return f"{who} fouille ({e.what}) : Dé100 {face} contre {_num(e.threshold)}, trouve {found}"
    strict = e.kind in _STRICT
    under = face < e.threshold if strict else face <= e.threshold
    if e.success == under:
        cmp = ("<" if strict else "≤") if under else ("≥" if strict else ">")
        judged = f"Dé100 {face} {cmp} {_num(e.threshold)}"
    else:  # 01-02 always succeed, 99-100 always fail (I-L488)
        judged = f"Dé100 {face} contre {_num(e.threshold)} (toujours {'réussi' if e.success else 'raté'})"
    tag = ", critique" if e.critical else ", échec critique" if e.fumble else ""
    malus = f" (malus {e.malus})" if e.malus else ""
    info = ", information mineure" if e.minor_info else ""
    return f"{who} : {e.what}{malus}, {judged}, {'réussi' if e.success else 'raté'}{tag}{info}"


# ------------------------------------------------------------------------------------- fights
def _started(b: Any, e: FightStarted, a: Any) -> str:
    return f"Combat « {e.fight} » : " + ", ".join(name(a, p) for p in e.participants)


def _initiative(b: Any, e: InitiativeRolled, a: Any) -> str:
    if e.kept:
        return (f"Tour {e.turn} de « {e.fight} » : l'initiative du tour précédent est gardée : "
                + ", ".join(name(a, c) for c in e.order))
    by = {x.character: x for x in e.entries}
    parts = []
    for cid in e.order:
        x = by[cid]
        malus = f" − {x.malus}" if x.malus else ""
        acts = "" if x.acts else " (50 ou moins : sans action)"
        parts.append(f"{name(a, cid)} Dex {x.dex} + Vol {x.vol} + Dé100 {x.roll.total}{malus} = {x.score}{acts}")
    return f"Tour {e.turn} de « {e.fight} » : " + ", ".join(parts)


def _attack(b: Any, e: AttackResolved, a: Any) -> str:
    arms = f" ({e.weapon})" if e.weapon else " à mains nues"
    head = f"{name(b, e.attacker)} attaque {name(b, e.target)}{arms} : Dé100 {e.rolls[0].total}"
    if e.fumble:
        return f"{head}, échec critique"
    if not e.hit:
        return f"{head} > Adresse {e.adresse}, raté"
    crit = " critique" if e.critical else ""
    hit = f"{head} ≤ Adresse {e.adresse}, touché{crit}, zone {e.zone}"
    if e.defended:
        return f"{hit}, mais la défense réussit"
    old = b.characters.get(e.target)
    pv = f"PV {arrow(old.pv, e.pv_after)}" if old is not None else f"PV {_num(e.pv_after)}"
    fate = f", perd {e.limb_lost}" if e.limb_lost else ", mort" if e.dead else ""
    rider = f" ; {e.rider.name}" if e.rider is not None else ""
    return (f"{hit} ; {_num(e.damage)} dégâts {e.damage_type}, SR {_num(e.sr)}, RN {e.rn} % → "
            f"{e.pv_lost} PV perdus, {pv}{fate}{rider}")


def _destiny(b: Any, e: DestinyPointSpent, a: Any) -> str:
    who = name(b, e.character)
    undo = [f"+{e.pv_restored} PV"] if e.pv_restored else []
    undo += [f"{e.limb_restored} rendue"] if e.limb_restored else []
    undo += ["revient à la vie"] if e.revived else []
    pv = _field(b, a, e.character, "pv")
    points = _field(b, a, e.character, "destiny_points")
    story = f" — {e.narrative}" if e.narrative else ""
    return _join(f"{who} dépense un point de destin : la blessure de la position {e.cancels} est annulée"
                 + (f" ({', '.join(undo)})" if undo else ""), f"PV {pv}" if pv else "",
                 f"points de destin {points}" if points else "") + story


def _cast(b: Any, e: SpellCast, a: Any) -> str:
    who = name(b, e.caster)
    out = {"critical": f"critique, {e.refund_pct}% rendus (+{e.refund_pm} PM)", "normal": "réussi",
           "counter": f"raté, contre-effet : {e.counter_effect}"}[e.outcome]
    pm = _field(b, a, e.caster, "pm")
    head = (f"{who} lance {e.spell} niveau {e.cast_level} ({e.magic}, {e.cost} PM) : Dé100 {e.rolls[0].total}, {out}")
    target = ""
    if e.target:
        old = b.characters.get(e.target)
        pv = f", PV {arrow(old.pv, e.pv_after)}" if old is not None and e.pv_lost else ""
        hurt = f" : {e.raw_damage} dégâts, {e.pv_lost} PV perdus{pv}" if e.pv_lost else ""
        target = f"sur {name(b, e.target)}{hurt}" + (", mort" if e.dead else "")
    level = f"magie {e.magic} niveau {arrow(e.magic_level, e.magic_level_after)}" \
        if e.magic_level_after != e.magic_level else ""
    pp = f"+{e.pp_gained} pp" if e.pp_gained else ""
    return _join(head + _cast_extras(e), f"PM {pm}" if pm else "", target, level, pp) + _cast_after(e)


def _ended(b: Any, e: FightEnded, a: Any) -> str:
    return f"Fin du combat « {e.fight} »"


# ------------------------------------------------------------------------------------- heroes
def _created(b: Any, e: HeroCreated, a: Any) -> str:
    h = e.character_data
    return (f"{h.name} ({h.race}, {h.class_name}) entre dans l'histoire : PV {h.pv}, PM {h.pm}, RN {h.rn} %, "
            f"don {h.gift}, {h.destiny_points} points de destin")


def _creature(b: Any, e: CreatureCreated, a: Any) -> str:
    h = e.character_data
    return f"Créature {h.name} : PV {h.pv}, RN {h.rn} %"


def _award(b: Any, e: XpAwarded, a: Any) -> str:
    xp = _field(b, a, e.character, "xp")
    return _join(f"{name(a, e.character)} reçoit {e.amount} xp ({e.reason})", f"xp {xp}" if xp else "")


_WHAT = {
    "skill": lambda e: f"{e.target} {e.from_value if e.from_value is not None else '—'} → {e.to_value} %",
    "pp": lambda e: f"{e.to_value - (e.from_value or 0)} pp de {e.target}",
    "magic": lambda e: f"la magie {e.target}",
    "characteristic": lambda e: f"{e.target} {e.from_value} → {e.to_value}",
    "faith": lambda e: f"le niveau de foi {e.to_value}",
}


def _spent(b: Any, e: XpSpent, a: Any) -> str:
    pool, label = ("heritage_xp", "xp d'héritage") if e.pool == "heritage" else ("xp", "xp")
    left = _field(b, a, e.character, pool)
    rule = f" (la règle demandait {e.cost_required})" if e.cost_required != e.cost_charged else ""
    return _join(f"{name(a, e.character)} achète {_WHAT[e.kind](e)} pour {e.cost_charged} {label}{rule}",
                 f"{label} {left}" if left else "")


def _corrected(b: Any, e: HeroCorrected, a: Any) -> str:
    label = {"xp": "xp", "copper": "'C"}[e.field]
    v = _field(b, a, e.character, e.field)
    why = f" ({e.reason})" if e.reason else ""
    return _join(f"{name(a, e.character)} : la position {e.amends} est corrigée, {label} {_signed(e.delta)}{why}",
                 f"{label} {v}" if v else "")


def _money(b: Any, e: MoneyChanged, a: Any) -> str:
    v = _field(b, a, e.character, "copper")
    item = f", {_signed(e.qty_delta)} × {e.item}" if e.item and e.qty_delta else ""
    return _join(f"{name(a, e.character)} : {_signed(e.amount_c)}'C ({e.reason}){item}", f"'C {v}" if v else "")


def _equipped(b: Any, e: Equipped, a: Any) -> str:
    slot = _SLOTS.get(e.slot, e.slot) if e.piece is None else e.piece
    return f"{name(a, e.character)} : {slot} = {e.item}" if e.item else f"{name(a, e.character)} : plus d'{slot}"


# ------------------------------------------------------------------------------------- tavern
def _drink(b: Any, e: DrinkConsumed, a: Any) -> str:
    old = b.characters.get(e.character)
    before = f"Alc {arrow(old.alc.alc, e.after.alc)}" if old is not None else f"Alc {_num(e.after.alc)}"
    dice = [f"{h.result} ({h.action})" for h in e.happenings if h.kind == "event_die"]
    extra = f" ; dé d'événement : {', '.join(dice)}" if dice else ""
    return (f"{name(b, e.character)} boit {e.beverage} (+{e.alc_gained} Alc) : {before}, {BANDS[e.after.band]}, "
            f"minimum {_num(e.after.alc_min)}{extra}")


def _time(b: Any, e: TimePassed, a: Any) -> str:
    who = []
    for s in e.sobering:
        old = b.characters.get(s.character)
        alc = arrow(old.alc.alc, s.after.alc) if old is not None else _num(s.after.alc)
        who.append(f"{name(b, s.character)} Alc {alc} ({BANDS[s.after.band]})")
    why = f" ({e.reason})" if e.reason else ""
    return f"{e.minutes} minutes passent{why}" + (f" : {', '.join(who)}" if who else "")


HANDLERS: dict[type, Handler] = {
    CheckRolled: _check,
    FightStarted: _started, InitiativeRolled: _initiative, AttackResolved: _attack, DestinyPointSpent: _destiny,
    SpellCast: _cast, FightEnded: _ended,
    HeroCreated: _created, CreatureCreated: _creature, XpAwarded: _award, XpSpent: _spent,
    HeroCorrected: _corrected, MoneyChanged: _money, Equipped: _equipped,
    DrinkConsumed: _drink, TimePassed: _time,
}


def narrate(before: Any, rec: RecordedEvent, after: Any, fallback: Callable[[RecordedEvent], str]) -> str:
    """The event told in the text's terms; ``fallback(rec)`` (the summary) for an event with no handler."""
    fn = HANDLERS.get(type(rec.event))
    return fn(before, rec.event, after) if fn is not None else fallback(rec)
