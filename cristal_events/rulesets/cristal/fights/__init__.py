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

import importlib
from typing import Any

from ....ruleset import Deferred
from ..state import CristalState
from ..texts import _
from .events import UPCASTERS as _EVENT_UPCASTERS
from .fold import *
from .fold import APPLY, evolver
from .model import *
from .model import (
    AbilityUsed,
    ActionTaken,
    AlignmentUsed,
    Attack,
    AttackResolved,
    CastSpell,
    CombatJoined,
    CombatStarted,
    CrystalInspected,
    CrystalLocked,
    CrystalReleased,
    CrystalStored,
    CrystalUnlocked,
    EndCombat,
    InspectCrystal,
    JoinCombat,
    LockCrystal,
    NextTurn,
    PassTurn,
    PotionUsed,
    PvChanged,
    ReleaseCrystal,
    ReleaseSpell,
    Reroll,
    RollInitiative,
    RollRedone,
    SpellCast,
    SpellReleased,
    StartCombat,
    StoreInCrystal,
    TakeAction,
    TurnPassed,
    UnlockCrystal,
    UseAbility,
    UseAlignment,
    UsePotion,
)

# The decisions (decide, spells, chance, crystal_spells), their corrections and the summaries and views
# are imported when first used, not with the package: the state, the events and their folds (model,
# events, fold) are what every command needs, and a command outside a fight ('xp award', 'note') needs no
# more of this package. The names the package gave by star imports before (``fights.decide_attack``,
# ``fights.view``, ``fights.numbers`` ...) are still its attributes, found in those modules when asked
# for (``__getattr__`` below; tests/rules/test_lazy_fights.py checks they are the same objects).
#: the modules whose public names the package hands on, the later winning as their star imports did
_LAZY_MODULES = ("views", "spells", "decide", "common", "chance")
#: the names the package imported one by one from a module it did not star-import
_LAZY_NAMES = {"decide_inspect": "crystal_spells", "decide_lock": "crystal_spells", "decide_unlock": "crystal_spells"}


def __getattr__(name: str) -> Any:
    """A name of the decision modules (PEP 562), imported the first time it is asked for."""
    if not name.startswith("_"):
        for module in (_LAZY_NAMES[name],) if name in _LAZY_NAMES else _LAZY_MODULES:
            mod = importlib.import_module(f"{__name__}.{module}")
            public = getattr(mod, "__all__", None)
            if (public is None or name in public) and hasattr(mod, name):
                value = getattr(mod, name)
                globals()[name] = value  # found once
                return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _d(module: str, function: str, *, tie: bool = False) -> Deferred:
    """The decision ``function`` of ``module`` (in this package), imported when first called; ``tie``: a
    turn command, whose entered faces may begin with the tie-break (``decide.tie_first``, L1202)."""
    return Deferred(f"{__name__}.{module}:{function}", wrap=f"{__name__}.decide:tie_first" if tie else None)


#: the crystal spells' events (Verrou Cristallin, Vision Cristalline: ``crystal_spells.SUMMARY``)
CRYSTAL_SPELL_EVENTS: tuple[type, ...] = (CrystalLocked, CrystalUnlocked, CrystalInspected)

#: events that are a row of the book's combat table, and the field naming who acted: ``views``' and the
#: crystal spells' (written out here so that the combat read model knows them without importing the views;
#: tests/rules/test_lazy_fights.py checks it against both modules)
TURN_EVENTS: dict[type, str] = {
    ActionTaken: "actor", TurnPassed: "actor", AttackResolved: "attacker", SpellCast: "caster",
    SpellReleased: "caster", CrystalStored: "caster", CrystalReleased: "caster", PotionUsed: "actor",
    AbilityUsed: "actor", AlignmentUsed: "actor", **{cls: "caster" for cls in CRYSTAL_SPELL_EVENTS},
}


def turn_actor(ev: Any) -> str | None:
    """Who acts in ``ev`` when it is a row of the book's combat table (L1298-L1311), else None (a
    spell's effects released by a crystal or a potion are not a turn of their own)."""
    field = TURN_EVENTS.get(type(ev))
    if field is None or (isinstance(ev, SpellReleased) and ev.source != "spell"):
        return None
    return getattr(ev, field)


def log_entry(before: CristalState, after: CristalState, ev: Any) -> dict[str, Any] | None:
    """One row of the book's table (L1298-L1311) for a turn event (see ``views.log_entry``)."""
    if type(ev) in CRYSTAL_SPELL_EVENTS:
        from .crystal_spells import log_entry as crystal_spell_entry

        return crystal_spell_entry(before, after, ev)
    from .views import log_entry as view_entry

    return view_entry(before, after, ev)


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
    StartCombat: _d("decide", "decide_start"), JoinCombat: _d("decide", "decide_join"),
    RollInitiative: _d("decide", "decide_initiative"), NextTurn: _d("decide", "decide_next"),
    EndCombat: _d("decide", "decide_end"), Reroll: _d("chance", "decide_reroll"),
    # a turn command's entered faces may begin with the tie-break of the actors tied on IT and REF (L1202)
    TakeAction: _d("decide", "decide_act", tie=True), PassTurn: _d("decide", "decide_pass", tie=True),
    Attack: _d("decide", "decide_attack", tie=True), CastSpell: _d("spells", "decide_cast", tie=True),
    ReleaseSpell: _d("spells", "decide_release", tie=True), StoreInCrystal: _d("spells", "decide_store", tie=True),
    ReleaseCrystal: _d("spells", "decide_release_crystal", tie=True),
    UsePotion: _d("spells", "decide_potion", tie=True), UseAbility: _d("decide", "decide_ability", tie=True),
    UseAlignment: _d("decide", "decide_align", tie=True),
    LockCrystal: _d("crystal_spells", "decide_lock", tie=True),
    UnlockCrystal: _d("crystal_spells", "decide_unlock", tie=True),
    InspectCrystal: _d("crystal_spells", "decide_inspect", tie=True),
}
EVOLVERS: dict[type, Any] = {cls: evolver(cls) for cls in EVENTS}
_SUMMARIZE = _d("views", "summarize")
SUMMARIES: dict[type, Any] = ({cls: _SUMMARIZE for cls in EVENTS} | {RollRedone: _d("chance", "summarize_redone")}
                              | {cls: _d("crystal_spells", "summarize") for cls in CRYSTAL_SPELL_EVENTS})
#: the corrections of a fight's events (``corrections.COMPENSATORS``, checked by tests/rules/test_lazy_fights.py)
COMPENSATORS: dict[type, Any] = {AttackResolved: _d("corrections", "compensate_attack"),
                                 PvChanged: _d("corrections", "compensate_pv")}
UPCASTERS = dict(_EVENT_UPCASTERS)  # the events' upcasters (a name the star imports bring too)
