"""Verrou Cristallin and Vision Cristalline in a fight (seed 000, L1119-L1135) (pure).

Both are spells of the crystal table (``data/crystals.json``): the caster pays the PM and rolls its
concentration like any spell (overdraw in PV, L379), and the whole cast is one action, like ``combat
store``: IT += the Temps and the combustion on a success, the Temps alone on a failure. The rules on
the crystal itself are :func:`..crystals.lock_crystal`, :func:`..crystals.unlock_crystal` and
:func:`..crystals.vision_cristalline`.

Also here: the one-line summaries and the combat-table rows of these events (the other combat
events' are in ``views``).
"""

from __future__ import annotations

import re
from typing import Any

from ....errors import RuleError, UnknownEntity
from ....ruleset import Context, Emit
from .. import crystals as cr
from .. import magic as m
from ..state import CristalState
from ..texts import N_, _
from .common import Scratch, active, finish, turn
from .model import (
    Combat,
    CrystalInspected,
    CrystalLocked,
    CrystalUnlocked,
    InspectCrystal,
    LockCrystal,
    PmSpent,
    UnlockCrystal,
)
from .spells import crystal_spell, pay, require_known, time_of


def _crystal(state: CristalState, name: str) -> cr.Crystal:
    crystal = getattr(state, "crystals", {}).get(name)
    if crystal is None:
        raise UnknownEntity(_("There is no crystal named {name!r}.").format(name=name))
    if crystal.destroyed:
        raise RuleError(_("The crystal {name!r} was destroyed by an explosion.").format(name=name))
    return crystal


def _cast(state: CristalState, cb: Combat, actor: str, key: str, penalties: list[str], ctx: Context) -> tuple[
        Scratch, m.CastResult, int]:
    """Pay and roll a crystal spell; the seconds it takes (Temps + combustion on a success)."""
    spell = crystal_spell(state, key)
    require_known(state, actor, spell.name)
    sc = Scratch(state, cb, ctx.mode)
    res = pay(sc, actor, sc.nums(actor), spell.pm_base, spell.cnc, [], ctx.dice(), ctx, penalties, 0, None)
    dur = m.spell_durations(time_of(spell, ""), spell.cnc, ctx.mode, success=res.success)
    sc.events.append(PmSpent(name=cb.name, character=actor, pm=res.pm_before - res.pm_after, pm_after=res.pm_after))
    sc.change(actor, -res.pv_damage, f"{spell.name} : PM puisés sous 0")
    return sc, res, dur.total


def decide_lock(state: CristalState, cmd: LockCrystal, ctx: Context) -> list[Emit]:
    cb = active(state, cmd.combat)
    turn(state, cb, cmd.actor, ctx.mode)
    cr.lock_crystal(_crystal(state, cmd.crystal), cmd.actor)  # holds a spell, not locked yet
    sc, res, seconds = _cast(state, cb, cmd.actor, "verrou_cristallin", list(cmd.penalties), ctx)
    ev = CrystalLocked(name=cmd.combat, caster=cmd.actor, crystal=cmd.crystal, success=res.success,
                       roll=res.concentration.roll, pm_cost=res.pm_cost, pm_after=res.pm_after, seconds=seconds,
                       overdraw_pv=res.pv_damage, cnc_total=res.concentration.total)
    return finish(state, cmd.combat, [ev, *sc.events], ctx.mode)


def decide_unlock(state: CristalState, cmd: UnlockCrystal, ctx: Context) -> list[Emit]:
    cb = active(state, cmd.combat)
    turn(state, cb, cmd.actor, ctx.mode)
    if cmd.seconds < 0:
        raise RuleError(_("An action cannot last {seconds} seconds.").format(seconds=cmd.seconds))
    cr.unlock_crystal(_crystal(state, cmd.crystal), cmd.actor)
    ev = CrystalUnlocked(name=cmd.combat, caster=cmd.actor, crystal=cmd.crystal, seconds=cmd.seconds)
    return finish(state, cmd.combat, [ev], ctx.mode)


def decide_inspect(state: CristalState, cmd: InspectCrystal, ctx: Context) -> list[Emit]:
    cb = active(state, cmd.combat)
    turn(state, cb, cmd.actor, ctx.mode)
    crystal = _crystal(state, cmd.crystal)
    sc, res, seconds = _cast(state, cb, cmd.actor, "vision_cristalline", list(cmd.penalties), ctx)
    locked, stored = crystal.locked_by is not None, None
    if res.success and not locked:
        stored = cr.vision_cristalline(crystal)
    ev = CrystalInspected(name=cmd.combat, caster=cmd.actor, crystal=cmd.crystal, success=res.success,
                          roll=res.concentration.roll, pm_cost=res.pm_cost, pm_after=res.pm_after, seconds=seconds,
                          overdraw_pv=res.pv_damage, cnc_total=res.concentration.total,
                          locked=res.success and locked,
                          spell=stored.name if stored else "", pm=stored.pm if stored else 0,
                          spends={s.effect.name: s.pm for s in stored.spends} if stored else {})
    return finish(state, cmd.combat, [ev, *sc.events], ctx.mode)


# --------------------------------------------------------------------------- read side

def _seen(e: CrystalInspected) -> str:
    """What the Vision Cristalline showed, in the reader's language."""
    if not e.success:
        return _("failure")
    if e.locked:
        return _("a Verrou Cristallin hides the spell")
    if not e.spell:
        return _("the crystal is empty")
    effects = ", ".join(f"{k} {v} PM" for k, v in e.spends.items())
    if effects:
        return _("{spell} ({pm} PM: {effects})").format(spell=e.spell, pm=e.pm, effects=effects)
    return f"{e.spell} ({e.pm} PM)"


def seen(locked: bool, spell: str, pm: int, spends: dict[str, int]) -> str:
    """What a successful Vision Cristalline shows (L1121-L1125), as a Chance reroll's event records it
    (``RollRedone.seen``): in the log's words, French, whatever the language the command was given in (an
    event never depends on the reader's language); :func:`seen_shown` gives it in the reader's."""
    if locked:
        return "un Verrou Cristallin cache le sort"
    if not spell:
        return "le cristal est vide"
    effects = ", ".join(f"{k} {v} PM" for k, v in spends.items())
    return f"{spell} ({pm} PM" + (f" : {effects})" if effects else ")")


#: the log's fixed words of :func:`seen`, and their msgids
_SEEN: dict[str, str] = {"un Verrou Cristallin cache le sort": N_("a Verrou Cristallin hides the spell"),
                         "le cristal est vide": N_("the crystal is empty")}


#: the recorded wording of a spell seen with its PM per effect: ``Rayon Magique (11 PM : Distance 3 PM, ...)``
_SEEN_SPELL = re.compile(r"(?P<spell>.+) \((?P<pm>[0-9]+) PM : (?P<effects>.+)\)")


def seen_shown(recorded: str) -> str:
    """A recorded :func:`seen` in the reader's language (the spell and effect names are the book's)."""
    msgid = _SEEN.get(recorded)
    if msgid is not None:
        return _(msgid)
    found = _SEEN_SPELL.fullmatch(recorded)
    return _("{spell} ({pm} PM: {effects})").format(**found.groupdict()) if found is not None else recorded


def _it(seconds: int) -> str:
    return _("; IT +{seconds}").format(seconds=seconds)


SUMMARY: dict[type, Any] = {
    CrystalLocked: lambda e: (_("{caster} lays a Verrou Cristallin on the crystal {crystal}: success") if e.success
                              else _("{caster} lays a Verrou Cristallin on the crystal {crystal}: failure")).format(
        caster=e.caster, crystal=e.crystal) + _it(e.seconds),
    CrystalUnlocked: lambda e: _("{caster} lifts their Verrou Cristallin from the crystal {crystal}").format(
        caster=e.caster, crystal=e.crystal) + _it(e.seconds),
    CrystalInspected: lambda e: _("{caster}: Vision Cristalline on the crystal {crystal}: {seen}").format(
        caster=e.caster, crystal=e.crystal, seen=_seen(e)) + _it(e.seconds),
}


def summarize(rec: Any) -> str:
    return SUMMARY[type(rec.event)](rec.event)


def log_entry(before: CristalState, after: CristalState, ev: Any) -> dict[str, Any]:
    """The book's table row (L1298-L1311) of one of these events, as ``views.log_entry`` makes the others."""
    old, new = before.combats[ev.name], after.combats[ev.name]
    return {"combat": ev.name, "actor": ev.caster, "action": SUMMARY[type(ev)](ev),
            "duration": new.it[ev.caster] - old.it.get(ev.caster, new.it[ev.caster]),
            "it_before": dict(old.it), "it_after": dict(new.it)}
