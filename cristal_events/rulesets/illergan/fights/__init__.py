"""Illergan fights as event streams (``fight:<name>``): initiative, attacks, spells, destiny points.

Part of the illergan ruleset. Decisions reuse :mod:`..combat`, :mod:`..locations` and :mod:`..magic`:
the initiative test [Dex + Vol + Dé100] − malus (50 or less: no action, I-L3-8), the Adresse roll with
its critical zone reroll (I-L269-316), the semi-open power dice (I-L301-304), SR then RN rounded up
(I-L279-281), limb loss and death (I-L318), the destiny point that cancels them (I-L377), and the
spell launch with its [50 + 10 × Dé10]% refund or its counter-effect (I-L520-527). Every Roll is
stored; the folds only apply the recorded deltas.

* ``model``: events and commands;
* ``decide``: the turn economy and the decisions (pure);
* ``fold``: the folds;
* ``views``: one-line summaries.
"""

from __future__ import annotations

from typing import Any

from .. import spellbook
from .decide import *
from .decide import (
    decide_action,
    decide_attack,
    decide_cast,
    decide_defend,
    decide_destiny,
    decide_end,
    decide_fly,
    decide_initiative,
    decide_move,
    decide_poison,
    decide_start,
)
from .fold import *
from .fold import (
    evolve_action,
    evolve_affliction,
    evolve_attack,
    evolve_cast,
    evolve_destiny,
    evolve_ended,
    evolve_flight,
    evolve_initiative,
    evolve_moved,
    evolve_poison,
    evolve_started,
)
from .model import *
from .model import (
    ActionTaken,
    AfflictionTicked,
    ApplyPoison,
    Attack,
    AttackResolved,
    CastSpell,
    DefenceUsed,
    Defend,
    DestinyPointSpent,
    EndFight,
    FightEnded,
    FightStarted,
    FlightChanged,
    Fly,
    InitiativeRolled,
    Move,
    Moved,
    PoisonApplied,
    RollInitiative,
    SecondaryCast,
    SpellCast,
    SpendDestiny,
    StartFight,
    TakeAction,
)
from .views import *
from .views import SUMMARIES

EVENTS: tuple[type, ...] = tuple(SUMMARIES)
# fighting (an attack, a parry, dodge or block), casting another spell or sprinting ends a concentration (I-L494)
_breaks = spellbook.breaking_concentration
DECIDERS: dict[type, Any] = {
    StartFight: decide_start, RollInitiative: decide_initiative, SpendDestiny: decide_destiny,
    Attack: _breaks(decide_attack, lambda c: c.attacker),
    CastSpell: _breaks(decide_cast, lambda c: c.caster),
    Defend: _breaks(decide_defend, lambda c: c.character),
    Move: _breaks(decide_move, lambda c: c.character if c.sprint is not None else ""),
    EndFight: decide_end, TakeAction: decide_action, Fly: decide_fly, ApplyPoison: decide_poison,
}
EVOLVERS: dict[type, Any] = {
    FightStarted: evolve_started, InitiativeRolled: evolve_initiative, AttackResolved: evolve_attack,
    DestinyPointSpent: evolve_destiny, SpellCast: evolve_cast, FightEnded: evolve_ended,
    ActionTaken: evolve_action, DefenceUsed: evolve_action, AfflictionTicked: evolve_affliction,
    Moved: evolve_moved, FlightChanged: evolve_flight, PoisonApplied: evolve_poison,
}
COMPENSATORS: dict[type, Any] = {}
