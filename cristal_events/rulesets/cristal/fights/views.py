"""Combat read side: one-line summaries, the book's combat-table rows, the combat view."""

from __future__ import annotations

import re
from typing import Any

from ....errors import RuleError
from ....rounding import as_mode
from ..state import CristalState
from ..texts import N_, _
from .common import combat_named, int_or, numbers, whose_turn
from .model import (
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

# =========================================================================== summaries

#: what ``from .views import *`` gives the package: the package builds its own TURN_EVENTS and log_entry
#: over these (adding the crystal spells')
__all__ = ["cause_shown", "summarize", "view", "what_shown"]


#: the causes the rules record on a ``combat.pv_changed``: in the log's words (French), whatever the language
#: a command was given in (an event never depends on its reader), each told in the reader's language from
#: its msgid (whose French is the recorded wording); the first pattern that matches the whole cause wins,
#: and a cause none knows (the correction of an attack, which lists what it changed) is shown as recorded
_CAUSES: tuple[tuple[re.Pattern[str], str], ...] = tuple((re.compile(pattern), msgid) for pattern, msgid in (
    (r"attaque de (?P<actor>.+) \(Chance\)", N_("attack by {actor} (Chance)")),
    (r"attaque de (?P<actor>.+)", N_("attack by {actor}")),
    (r"alignement de (?P<actor>.+)", N_("alignment of {actor}")),
    (r"dommages de (?P<actor>.+) rebrassés \(Chance\)", N_("damage by {actor} rerolled (Chance)")),
    (r"explosion du cristal (?P<crystal>.+) \(Fermeture rebrassée, Chance\)",
     N_("explosion of the crystal {crystal} (Fermeture rerolled, Chance)")),
    (r"explosion du cristal (?P<crystal>.+) rebrassée \(Chance\)", N_("explosion of the crystal {crystal} rerolled (Chance)")),
    (r"explosion du cristal (?P<crystal>.+)", N_("explosion of the crystal {crystal}")),
    (r"correction de la position (?P<position>[0-9]+) : (?P<change>.+) PV",
     N_("correction of position {position}: {change} PV")),
    (r"(?P<spell>.+) du cristal (?P<crystal>.+) non libéré \(Chance\)",
     N_("{spell} of the crystal {crystal} not released (Chance)")),
    (r"(?P<spell>.+) : PM puisés sous 0", N_("{spell}: PM drawn below 0")),
    (r"(?P<spell>.+) de (?P<actor>.+) rebrassé \(Chance\)", N_("{spell} of {actor} rerolled (Chance)")),
    (r"(?P<spell>.+) de (?P<actor>.+)", N_("{spell} of {actor}")),
))


def cause_shown(cause: str) -> str:
    """A recorded PV change's cause in the reader's language (see :data:`_CAUSES`)."""
    if cause.startswith("correction de l'attaque"):
        return cause
    for pattern, msgid in _CAUSES:
        found = pattern.fullmatch(cause)
        if found is not None:
            return _(msgid).format(**found.groupdict())
    return cause


#: a move's description as the rules record it in ``combat.action_taken`` (``what``; the GM's own words are
#: shown as typed): ``Bipède 10 m (vitesse de croisière, 5 km/h)``
_MOVE = re.compile(r"(?P<mode>.+) (?P<metres>[^ ]+) m \(vitesse de (?P<pace>croisière|pointe), (?P<kmh>[^ ]+) km/h\)")
_PACE = {"croisière": N_("{mode} {metres} m (cruise speed, {kmh} km/h)"),
         "pointe": N_("{mode} {metres} m (top speed, {kmh} km/h)")}


def what_shown(what: str) -> str:
    """A recorded action's description in the reader's language (a move the rules described; anything
    else, the GM's words, as typed)."""
    found = _MOVE.fullmatch(what)
    if found is None:
        return what
    parts = found.groupdict()
    return _(_PACE[parts.pop("pace")]).format(**parts)


def _swing_text(s: Swing) -> str:
    """The d20 face, the total it made (ATT + d20) and the outcome: ``d20 13 → 14 (hit, 6 damage)``."""
    if s.hit:
        return _("d20 {die} → {total} (hit, {damage} damage)").format(die=s.die, total=s.total, damage=s.damage)
    return _("d20 {die} → {total} (missed)").format(die=s.die, total=s.total)


def _it(seconds: int) -> str:
    return _("; IT +{seconds}").format(seconds=seconds)


def _started(e: CombatStarted) -> str:
    return _("Fight « {name} »: {fighters}").format(name=e.name, fighters=", ".join(f"{f.id} IT {f.it}" for f in e.fighters))


def _joined(e: CombatJoined) -> str:
    return (_("{fighter} joins the fight « {name} » at IT {it}").format(fighter=e.fighter.id, name=e.name, it=e.fighter.it)
            + (_(" (average)") if e.averaged else ""))


def _initiative(e: InitiativeRolled) -> str:
    return _("Initiative: {results}").format(
        results=", ".join(f"{r.id} {r.base_it} − ({r.die} + {r.ref}×2) = {r.it}" for r in e.results))


def _tie(e: TieBroken) -> str:
    rounds = _("; then ").join(", ".join(f"{k} {r.total}" for k, r in this.items()) for this in e.rounds)
    return _("Tie at IT {it}: {rounds}; {winner} acts").format(it=e.it, rounds=rounds, winner=e.winner)


def _attack(e: AttackResolved) -> str:
    arms = e.weapon or e.projectile or e.natural
    return (_("{attacker} attacks {target}").format(attacker=e.attacker, target=e.target)
            + (f" ({arms})" if arms else "")
            + _(": ATT {att} against DP {dp}: {swings}").format(att=e.att, dp=e.dp,
                                                              swings=", ".join(_swing_text(s) for s in e.swings))
            + _it(e.seconds))


def _cast(e: SpellCast) -> str:
    text = (_("{caster} casts {spell} ({pm} PM): CNC {cnc} + d20 {die} = {total} against {spell_cnc}, success")
            if e.success else
            _("{caster} casts {spell} ({pm} PM): CNC {cnc} + d20 {die} = {total} against {spell_cnc}, failure"))
    return text.format(caster=e.caster, spell=e.spell, pm=e.pm_cost, cnc=e.cnc, die=e.die, total=e.total,
                       spell_cnc=e.spell_cnc) + _it(e.incantation)


def _released(e: SpellReleased) -> str:
    results = ", ".join(_("{target} {damage} damage").format(target=r.target, damage=r.damage) for r in e.results)
    return (_("{caster}'s {spell} goes off: {results}").format(spell=e.spell, caster=e.caster,
                                                               results=results or _("no target"))
            + (_it(e.combustion) if e.source == "spell" else ""))


_CONDITION = {"conscious": N_("{character} is conscious ({pv} PV)"),
              "unconscious": N_("{character} is unconscious ({pv} PV)"),
              "dead": N_("{character} is dead ({pv} PV)")}


def _stored(e: CrystalStored) -> str:
    outcome = (_("explosion {explosion}").format(explosion=e.explosion) if e.outcome == "exploded"
               else _("stored") if e.outcome == "stored" else _("failure"))
    return _("{caster} locks {spell} ({pm} PM) in the crystal {crystal}: {outcome}").format(
        caster=e.caster, spell=e.spell, pm=e.pm, crystal=e.crystal, outcome=outcome) + _it(e.seconds)


def _ability(e: AbilityUsed) -> str:
    return (_("{actor}: {ability} ({cost} Vol*)").format(actor=e.actor, ability=e.ability, cost=e.cost)
            + (_(" on {target}").format(target=e.target) if e.target else "") + _it(e.seconds))


def _align(e: AlignmentUsed) -> str:
    text = (_("{actor} heals {target} by {points} PV") if e.kind == "heal"
            else _("{actor} harms {target} by {points} PV"))
    return text.format(actor=e.actor, target=e.target, points=e.points) + _it(e.seconds)


#: one line per combat event, in the reader's language (looked up when the line is shown: the read model
#: stores no text, see projections/cristal_combats.py)
_SUMMARY: dict[type, Any] = {
    CombatStarted: _started,
    CombatJoined: _joined,
    InitiativeRolled: _initiative,
    TieBroken: _tie,
    ActionTaken: lambda e: _("{actor}: {what}").format(actor=e.actor, what=what_shown(e.what) or e.action)
    + _it(e.seconds),
    TurnPassed: lambda e: _("{actor} passes their turn").format(actor=e.actor) + _it(e.seconds),
    AttackResolved: _attack,
    SpellCast: _cast,
    SpellReleased: _released,
    Deconcentrated: lambda e: _("{caster} loses concentration ({damage} > {margin}): {spell} is lost").format(
        caster=e.caster, damage=e.damage, margin=e.margin, spell=e.spell),
    PvChanged: lambda e: _("{character}: {delta} PV → {pv_after} ({cause})").format(
        character=e.character, delta=f"{e.delta:+d}", pv_after=e.pv_after, cause=cause_shown(e.cause)),
    PmSpent: lambda e: _("{character} spends {pm} PM → {pm_after}").format(character=e.character, pm=e.pm,
                                                                          pm_after=e.pm_after),
    ConditionChanged: lambda e: _(_CONDITION[e.condition]).format(character=e.character, pv=e.pv),
    Bled: lambda e: _("{character} loses {pv_lost} PV in {seconds} s unconscious → {pv_after}").format(
        character=e.character, pv_lost=e.pv_lost, seconds=e.seconds, pv_after=e.pv_after),
    CrystalStored: _stored,
    CrystalReleased: lambda e: _("{caster} releases the crystal {crystal}: {spell}").format(
        caster=e.caster, crystal=e.crystal, spell=e.spell if e.success else _("failure")) + _it(e.seconds),
    PotionUsed: lambda e: _("{actor}: potion of {spell} ({trigger}) on {target}").format(
        actor=e.actor, spell=e.spell, trigger=e.trigger, target=e.target) + _it(e.seconds),
    AbilityUsed: _ability,
    AlignmentUsed: _align,
    Rerolled: lambda e: _("{character} uses their Chance against {target}: {swing}").format(
        character=e.character, target=e.target, swing=_swing_text(e.swing)),
    CombatEnded: lambda e: _("End of the fight « {name} »: IT reset to 0").format(name=e.name),
}


def summarize(rec: Any) -> str:
    return _SUMMARY[type(rec.event)](rec.event)



# =========================================================================== read side (pure)

#: events that are a row of the book's combat table (an actor acts and its IT moves)
TURN_EVENTS: dict[type, str] = {
    ActionTaken: "actor", TurnPassed: "actor", AttackResolved: "attacker", SpellCast: "caster",
    SpellReleased: "caster", CrystalStored: "caster", CrystalReleased: "caster", PotionUsed: "actor",
    AbilityUsed: "actor", AlignmentUsed: "actor",
}


def log_entry(before: CristalState, after: CristalState, ev: Any) -> dict[str, Any] | None:
    """One row of the book's table (L1298-L1311) for a turn event: actor, action, duration, every IT before/after."""
    field = TURN_EVENTS.get(type(ev))
    if field is None or (isinstance(ev, SpellReleased) and ev.source != "spell"):
        return None
    actor = getattr(ev, field)
    old, new = before.combats[ev.name], after.combats[ev.name]
    return {"combat": ev.name, "actor": actor, "action": _SUMMARY[type(ev)](ev),
            "duration": new.it[actor] - old.it.get(actor, new.it[actor]),
            "it_before": dict(old.it), "it_after": dict(new.it)}


def view(state: CristalState, name: str, mode: str = "round") -> dict[str, Any]:
    """The combat state: participants with IT, PV/PM, condition, incantation; who acts next."""
    cb = combat_named(state, name)
    try:
        nxt: str | None = whose_turn(state, name, mode) if cb.active else None
        why = ""
    except RuleError as exc:
        nxt, why = None, str(exc)
    rows = []
    for f in sorted(cb.fighters.values(), key=lambda f: (cb.it[f.id], f.id)):
        nums = numbers(state, cb, f.id, as_mode(mode))
        inc = f.incantation
        rows.append({"id": f.id, "it": cb.it[f.id], "pv": nums.PV, "pm": nums.PM,
                     "ref": int_or(nums.REF), "condition": f.condition,
                     "incanting": inc.spell if inc else None, "until": inc.until if inc else None,
                     "next": f.id == nxt})
    return {"combat": name, "active": cb.active, "next": nxt, "waiting": why, "clock": cb.clock,
            "participants": rows}
