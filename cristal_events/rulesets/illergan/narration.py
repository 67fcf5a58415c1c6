"""The story of one Illergan event in the text's terms, with the state change it made.

:func:`narrate` ``(before, rec, after, fallback) -> str`` is the ruleset's ``narrate`` hook (see
:meth:`cristal_events.ruleset.Ruleset.narrate`). It reads the :class:`~.state.IllerganState` before
and after the event and tells it as a game master would say it::

    Thor attaque Loup gris (Épée longue) : Dé100 45 ≤ Adresse 60, touché au tronc ; 54 dégâts T,
    SR 0, RN 0 % → 54 PV perdus, PV 35 → −19, mort

Names are the heroes' and creatures' display names. Handlers are a dict by event class; an event
without one is told by its one-line summary. Pure; told in the current language (the ruleset's catalog:
the French texts are those the timeline always stored, English msgids).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...i18n import N_
from ...records import RecordedEvent
from .fights import AttackResolved, DestinyPointSpent, FightEnded, FightStarted, InitiativeRolled, SpellCast
from .fights.views import cast_after as _cast_after
from .fights.views import cast_extras as _cast_extras
from .heroes import CreatureCreated, Equipped, HeroCorrected, HeroCreated, MoneyChanged, XpAwarded, XpSpent
from .tavern import DrinkConsumed, TimePassed
from .texts import _
from .trials import CheckRolled

Handler = Callable[[Any, Any, Any], str]

#: the Alc bands (I-L126-129), translated where they are told (the band names are the book's, in both)
BANDS = {None: N_("sober"), "gaiete": "Gaieté", "troublitude": "Troublitude", "titubage": "Titubage", "oubli": "Oubli"}
_SLOTS = {"weapon": N_("weapon"), "armour": N_("armour"), "shield": N_("shield")}


def _band(band: str | None) -> str:
    return _(BANDS[band])


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
    return _separator().join(p for p in parts if p)


def _separator() -> str:
    """The separator of a story's clauses: `` ; `` in French (its typography), ``; `` in English."""
    return _("; ")


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
        found = ", ".join(k for k, v in e.found.items() if v) or _("nothing")
        return _("{who} searches ({what}): Dé100 {face} against {threshold}, finds {found}").format(
            who=who, what=e.what, face=face, threshold=_num(e.threshold), found=found)
    strict = e.kind in _STRICT
    under = face < e.threshold if strict else face <= e.threshold
    if e.success == under:
        cmp = ("<" if strict else "≤") if under else ("≥" if strict else ">")
        judged = f"Dé100 {face} {cmp} {_num(e.threshold)}"
    else:  # 01-02 always succeed, 99-100 always fail (I-L488)
        judged = (_("Dé100 {face} against {threshold} (always succeeds)") if e.success
                  else _("Dé100 {face} against {threshold} (always fails)")).format(face=face, threshold=_num(e.threshold))
    tag = _(", critical") if e.critical else _(", fumble") if e.fumble else ""
    malus = f" (malus {e.malus})" if e.malus else ""
    info = _(", minor information") if e.minor_info else ""
    return _("{who}: {what}{malus}, {judged}, {outcome}{tag}{info}").format(
        who=who, what=e.what, malus=malus, judged=judged, outcome=_("success") if e.success else _("failure"),
        tag=tag, info=info)


# ------------------------------------------------------------------------------------- fights
def _started(b: Any, e: FightStarted, a: Any) -> str:
    return _("Fight « {fight} »: {who}").format(fight=e.fight, who=", ".join(name(a, p) for p in e.participants))


def _initiative(b: Any, e: InitiativeRolled, a: Any) -> str:
    if e.kept:
        return _("Turn {turn} of « {fight} »: the previous turn's initiative is kept: {order}").format(
            turn=e.turn, fight=e.fight, order=", ".join(name(a, c) for c in e.order))
    by = {x.character: x for x in e.entries}
    parts = []
    for cid in e.order:
        x = by[cid]
        malus = f" − {x.malus}" if x.malus else ""
        acts = "" if x.acts else _(" (50 or less: no action)")
        parts.append(f"{name(a, cid)} Dex {x.dex} + Vol {x.vol} + Dé100 {x.roll.total}{malus} = {x.score}{acts}")
    return _("Turn {turn} of « {fight} »: {entries}").format(turn=e.turn, fight=e.fight, entries=", ".join(parts))


def _attack(b: Any, e: AttackResolved, a: Any) -> str:
    arms = f" ({e.weapon})" if e.weapon else _(" bare-handed")
    head = _("{attacker} attacks {target}{arms}: Dé100 {face}").format(
        attacker=name(b, e.attacker), target=name(b, e.target), arms=arms, face=e.rolls[0].total)
    if e.fumble:
        return _("{head}, fumble").format(head=head)
    if not e.hit:
        return _("{head} > Adresse {adresse}, missed").format(head=head, adresse=e.adresse)
    hit = (_("{head} ≤ Adresse {adresse}, critical hit, zone {zone}") if e.critical
           else _("{head} ≤ Adresse {adresse}, hit, zone {zone}")).format(head=head, adresse=e.adresse, zone=e.zone)
    if e.defended:
        return _("{hit}, but the defence succeeds").format(hit=hit)
    old = b.characters.get(e.target)
    pv = f"PV {arrow(old.pv, e.pv_after)}" if old is not None else f"PV {_num(e.pv_after)}"
    fate = _(", loses {limb}").format(limb=e.limb_lost) if e.limb_lost else _(", dead") if e.dead else ""
    rider = _separator() + e.rider.name if e.rider is not None else ""
    return _("{hit}; {damage} damage {type}, SR {sr}, RN {rn} % → {lost} PV lost, {pv}{fate}{rider}").format(
        hit=hit, damage=_num(e.damage), type=e.damage_type, sr=_num(e.sr), rn=e.rn, lost=e.pv_lost, pv=pv, fate=fate,
        rider=rider)


def _destiny(b: Any, e: DestinyPointSpent, a: Any) -> str:
    who = name(b, e.character)
    undo = [f"+{e.pv_restored} PV"] if e.pv_restored else []
    undo += [_("{limb} given back").format(limb=e.limb_restored)] if e.limb_restored else []
    undo += [_("comes back to life")] if e.revived else []
    pv = _field(b, a, e.character, "pv")
    points = _field(b, a, e.character, "destiny_points")
    story = f" — {e.narrative}" if e.narrative else ""
    return _join(_("{who} spends a destiny point: the wound of position {position} is cancelled").format(
                     who=who, position=e.cancels)
                 + (f" ({', '.join(undo)})" if undo else ""), f"PV {pv}" if pv else "",
                 _("destiny points {points}").format(points=points) if points else "") + story


def _cast(b: Any, e: SpellCast, a: Any) -> str:
    who = name(b, e.caster)
    out = {"critical": lambda: _("critical, {pct}% back (+{pm} PM)").format(pct=e.refund_pct, pm=e.refund_pm),
           "normal": lambda: _("success"),
           "counter": lambda: _("failed, counter-effect: {effect}").format(effect=e.counter_effect)}[e.outcome]()
    pm = _field(b, a, e.caster, "pm")
    head = _("{who} casts {spell} level {level} ({magic}, {cost} PM): Dé100 {face}, {outcome}").format(
        who=who, spell=e.spell, level=e.cast_level, magic=e.magic, cost=e.cost, face=e.rolls[0].total, outcome=out)
    target = ""
    if e.target:
        old = b.characters.get(e.target)
        pv = f", PV {arrow(old.pv, e.pv_after)}" if old is not None and e.pv_lost else ""
        hurt = _(": {damage} damage, {lost} PV lost{pv}").format(damage=e.raw_damage, lost=e.pv_lost, pv=pv) \
            if e.pv_lost else ""
        target = _("on {target}{hurt}").format(target=name(b, e.target), hurt=hurt) + (_(", dead") if e.dead else "")
    level = _("magic {magic} level {levels}").format(magic=e.magic, levels=arrow(e.magic_level, e.magic_level_after)) \
        if e.magic_level_after != e.magic_level else ""
    pp = f"+{e.pp_gained} pp" if e.pp_gained else ""
    return _join(head + _cast_extras(e), f"PM {pm}" if pm else "", target, level, pp) + _cast_after(e)


def _ended(b: Any, e: FightEnded, a: Any) -> str:
    return _("End of the fight « {fight} »").format(fight=e.fight)


# ------------------------------------------------------------------------------------- heroes
def _created(b: Any, e: HeroCreated, a: Any) -> str:
    h = e.character_data
    return _("{name} ({race}, {class_name}) enters the story: PV {pv}, PM {pm}, RN {rn} %, gift {gift}, "
             "{destiny} destiny points").format(name=h.name, race=h.race, class_name=h.class_name, pv=h.pv, pm=h.pm,
                                                rn=h.rn, gift=h.gift, destiny=h.destiny_points)


def _creature(b: Any, e: CreatureCreated, a: Any) -> str:
    h = e.character_data
    return _("Creature {name}: PV {pv}, RN {rn} %").format(name=h.name, pv=h.pv, rn=h.rn)


def _award(b: Any, e: XpAwarded, a: Any) -> str:
    xp = _field(b, a, e.character, "xp")
    return _join(_("{who} receives {amount} xp ({reason})").format(who=name(a, e.character), amount=e.amount,
                                                                   reason=e.reason), f"xp {xp}" if xp else "")


_WHAT = {
    "skill": lambda e: f"{e.target} {e.from_value if e.from_value is not None else '—'} → {e.to_value} %",
    "pp": lambda e: _("{n} pp of {magic}").format(n=e.to_value - (e.from_value or 0), magic=e.target),
    "magic": lambda e: _("the magic {magic}").format(magic=e.target),
    "characteristic": lambda e: f"{e.target} {e.from_value} → {e.to_value}",
    "faith": lambda e: _("faith level {level}").format(level=e.to_value),
}


def _spent(b: Any, e: XpSpent, a: Any) -> str:
    pool, label = ("heritage_xp", _("heritage xp")) if e.pool == "heritage" else ("xp", "xp")
    left = _field(b, a, e.character, pool)
    rule = _(" (the rules asked {cost})").format(cost=e.cost_required) if e.cost_required != e.cost_charged else ""
    return _join(_("{who} buys {what} for {cost} {label}{rule}").format(
                     who=name(a, e.character), what=_WHAT[e.kind](e), cost=e.cost_charged, label=label, rule=rule),
                 f"{label} {left}" if left else "")


def _corrected(b: Any, e: HeroCorrected, a: Any) -> str:
    label = {"xp": "xp", "copper": "'C"}[e.field]
    v = _field(b, a, e.character, e.field)
    why = f" ({e.reason})" if e.reason else ""
    return _join(_("{who}: position {position} is corrected, {label} {delta}{why}").format(
                     who=name(a, e.character), position=e.amends, label=label, delta=_signed(e.delta), why=why),
                 f"{label} {v}" if v else "")


def _money(b: Any, e: MoneyChanged, a: Any) -> str:
    v = _field(b, a, e.character, "copper")
    item = f", {_signed(e.qty_delta)} × {e.item}" if e.item and e.qty_delta else ""
    return _join(f"{name(a, e.character)} : {_signed(e.amount_c)}'C ({e.reason}){item}", f"'C {v}" if v else "")


def _equipped(b: Any, e: Equipped, a: Any) -> str:
    slot = _(_SLOTS[e.slot]) if e.piece is None and e.slot in _SLOTS else e.slot if e.piece is None else e.piece
    if e.item:
        return _("{who}: {slot} = {item}").format(who=name(a, e.character), slot=slot, item=e.item)
    return _("{who}: no more {slot}").format(who=name(a, e.character), slot=slot)


# ------------------------------------------------------------------------------------- tavern
def _drink(b: Any, e: DrinkConsumed, a: Any) -> str:
    old = b.characters.get(e.character)
    before = f"Alc {arrow(old.alc.alc, e.after.alc)}" if old is not None else f"Alc {_num(e.after.alc)}"
    dice = [f"{h.result} ({h.action})" for h in e.happenings if h.kind == "event_die"]
    extra = _("; event die: {dice}").format(dice=", ".join(dice)) if dice else ""
    return _("{who} drinks {beverage} (+{alc} Alc): {before}, {band}, minimum {minimum}{extra}").format(
        who=name(b, e.character), beverage=e.beverage, alc=e.alc_gained, before=before, band=_band(e.after.band),
        minimum=_num(e.after.alc_min), extra=extra)


def _time(b: Any, e: TimePassed, a: Any) -> str:
    who = []
    for s in e.sobering:
        old = b.characters.get(s.character)
        alc = arrow(old.alc.alc, s.after.alc) if old is not None else _num(s.after.alc)
        who.append(f"{name(b, s.character)} Alc {alc} ({_band(s.after.band)})")
    why = f" ({e.reason})" if e.reason else ""
    return (_("{minutes} minutes pass{why}: {who}") if who else _("{minutes} minutes pass{why}")).format(
        minutes=e.minutes, why=why, who=", ".join(who))


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
