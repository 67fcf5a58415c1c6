"""Combats of Les Lois du Cristal as event streams (``combat:<name>``) on the Indice de Temps timeline.

Part of the cristal ruleset (see ``ruleset.py`` for the part contract). There are no rounds: the
smallest IT acts, and the action's duration is added to it (seed 000, L1195-L1367). The pure rules
live in ``combat.py`` (timeline, initiative, attacks, damage, vitals), ``magic.py`` (spells, crystals,
potions) and ``alignment.py``; this package turns commands into events and folds them:

* ``model``: the state (Combat, Fighter, Incantation, LastRoll) and the commands;
* ``events``: the events (re-exported by ``model``);
* ``common``: what every decision reads (a combatant's numbers, whose turn it is) and its consequences;
* ``decide``: the decisions of the timeline, attacks and abilities (pure, dice through ``ctx.dice()``);
* ``spells``: the decisions of magic (spells, crystals, potions);
* ``chance``: Chance rerolls (L56-L58);
* ``crystal_spells``: Verrou Cristallin and Vision Cristalline (L1119-L1135);
* ``fold``: the pure folds;
* ``views``: summaries, the book's combat-table rows, the combat view.

Who fights: a combatant is a character of the campaign (its numbers come from
``characters.sheet``) or an *extra* the game master describes with numbers (``stats``: ATT, DP, DM,
CNC, DMG, PV, PM, PVmax, REF, CON, race ...), as the book lets the GM give PV and a DP to anything
that is attacked (L1325). GM numbers override the sheet.

Dice order (``faces`` / ``--dice``) is documented on each command struct.
"""

from __future__ import annotations

from typing import Any

from ..state import CristalState
from ..texts import _
from . import corrections as _corrections
from . import crystal_spells as _crystal_spells
from .chance import *
from .chance import decide_reroll, summarize_redone
from .common import *
from .crystal_spells import decide_inspect, decide_lock, decide_unlock
from .decide import *
from .decide import (
    decide_ability,
    decide_act,
    decide_align,
    decide_attack,
    decide_end,
    decide_initiative,
    decide_join,
    decide_next,
    decide_pass,
    decide_start,
    tie_first,
)
from .events import UPCASTERS as _EVENT_UPCASTERS
from .fold import *
from .fold import APPLY, evolver
from .model import *
from .model import (
    Attack,
    CastSpell,
    CombatJoined,
    CombatStarted,
    EndCombat,
    InspectCrystal,
    JoinCombat,
    LockCrystal,
    NextTurn,
    PassTurn,
    ReleaseCrystal,
    ReleaseSpell,
    Reroll,
    RollInitiative,
    RollRedone,
    SpellReleased,
    StartCombat,
    StoreInCrystal,
    TakeAction,
    UnlockCrystal,
    UseAbility,
    UseAlignment,
    UsePotion,
)
from .spells import *
from .spells import decide_cast, decide_potion, decide_release, decide_release_crystal, decide_store
from .views import *
from .views import TURN_EVENTS as _VIEW_TURNS
from .views import log_entry as _view_log_entry
from .views import summarize

#: events that are a row of the book's combat table: ``views``' and the crystal spells'
TURN_EVENTS: dict[type, str] = {**_VIEW_TURNS, **{cls: "caster" for cls in _crystal_spells.SUMMARY}}


def turn_actor(ev: Any) -> str | None:
    """Who acts in ``ev`` when it is a row of the book's combat table (L1298-L1311), else None (a
    spell's effects released by a crystal or a potion are not a turn of their own)."""
    field = TURN_EVENTS.get(type(ev))
    if field is None or (isinstance(ev, SpellReleased) and ev.source != "spell"):
        return None
    return getattr(ev, field)


def log_entry(before: CristalState, after: CristalState, ev: Any) -> dict[str, Any] | None:
    """One row of the book's table (L1298-L1311) for a turn event (see ``views.log_entry``)."""
    if type(ev) in _crystal_spells.SUMMARY:
        return _crystal_spells.log_entry(before, after, ev)
    return _view_log_entry(before, after, ev)

def advise(before: CristalState, after: CristalState, events: list[Any]) -> list[str]:
    """Warnings a game master should see (issue 16 item 24): a session ended with a fight in progress
    (its ITs stay where they are until 'combat end', L1222), an unconscious character joining a fight
    (it cannot act until healed above 0 PV, L369)."""
    from ....events import SessionEnded

    out: list[str] = []
    for ev in events:
        if isinstance(ev, SessionEnded) and after.combats:
            names = ", ".join(repr(n) for n in sorted(after.combats))
            out.append(_("Session {number} ended with the fight {names} still in progress: its ITs stay "
                         "where they are until 'combat end' (L1222).").format(number=ev.number, names=names))
        joined = ([f.id for f in ev.fighters] if isinstance(ev, CombatStarted)
                  else [ev.fighter.id] if isinstance(ev, CombatJoined) else [])
        cb = after.combats.get(getattr(ev, "name", ""))
        for fid in joined:
            f = cb.fighters.get(fid) if cb is not None else None
            if f is not None and f.condition == "unconscious":
                pv = after.characters[fid].pv if fid in after.characters else f.pv
                out.append(_("{fighter} is unconscious ({pv} PV) and joins the fight {name!r} unable to act "
                             "until healed above 0 PV (L369); unaided, it bleeds 1 PV a minute (L371).").format(
                                 fighter=fid, pv=pv, name=ev.name))
    return out


# =========================================================================== the part contract

EVENTS: tuple[type, ...] = tuple(APPLY)
DECIDERS: dict[type, Any] = {
    StartCombat: decide_start, JoinCombat: decide_join, RollInitiative: decide_initiative, NextTurn: decide_next,
    TakeAction: decide_act, PassTurn: decide_pass, Attack: decide_attack, CastSpell: decide_cast,
    ReleaseSpell: decide_release, StoreInCrystal: decide_store, ReleaseCrystal: decide_release_crystal,
    UsePotion: decide_potion, UseAbility: decide_ability, UseAlignment: decide_align, Reroll: decide_reroll,
    LockCrystal: decide_lock, UnlockCrystal: decide_unlock, InspectCrystal: decide_inspect, EndCombat: decide_end,
}
#: a turn command's entered faces may begin with the tie-break of the actors tied on IT and REF (L1202)
DECIDERS.update({cls: tie_first(DECIDERS[cls]) for cls in (
    TakeAction, PassTurn, Attack, CastSpell, ReleaseSpell, StoreInCrystal, ReleaseCrystal, UsePotion, UseAbility,
    UseAlignment, LockCrystal, UnlockCrystal, InspectCrystal)})
EVOLVERS: dict[type, Any] = {cls: evolver(cls) for cls in EVENTS}
SUMMARIES: dict[type, Any] = ({cls: summarize for cls in EVENTS} | {RollRedone: summarize_redone}
                              | {cls: _crystal_spells.summarize for cls in _crystal_spells.SUMMARY})
COMPENSATORS: dict[type, Any] = dict(_corrections.COMPENSATORS)
UPCASTERS = dict(_EVENT_UPCASTERS)  # the events' upcasters (a name the star imports bring too)

