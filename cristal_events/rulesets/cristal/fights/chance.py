"""Chance rerolls in a fight (L56-L58): the last roll of a combatant redone (pure)."""

from __future__ import annotations

from typing import Any

from ....errors import RuleError
from ....ruleset import Context, Emit
from .. import combat as c
from .common import _active, _fighter, _finish, _hurt, _left, _Scratch, numbers
from .model import Reroll, Rerolled, Swing


def decide_reroll(state: Any, cmd: Reroll, ctx: Context) -> list[Emit]:
    mode = ctx.rounding
    cb = _active(state, cmd.combat)
    f = _fighter(cb, cmd.actor)
    if not ctx.settings.chance_enabled:
        raise RuleError("The Chance rule is turned off in this campaign (setting chance_enabled).")
    last = f.last_attack
    if last is None:
        raise RuleError(f"{cmd.actor} has no attack roll to redo in this combat.")
    if last.hit:
        raise RuleError(f"{cmd.actor}'s last attack hit; Chance redoes a missed roll.")
    nums = numbers(state, cb, cmd.actor, mode)
    left = _left(state, nums, f, "chance")
    if left < 1:
        raise RuleError(f"{cmd.actor} has no Chance reroll left today (L56).")
    if cb.fighters[last.target].condition == "dead":
        raise RuleError(f"{last.target} is dead and can no longer be attacked.")
    dice = ctx.dice()
    roll = dice.roll("1d20", purpose="chance reroll")
    total = c.rounding.divide(last.att + roll.total, 2, mode) if last.halved else last.att + roll.total  # type: ignore[arg-type]
    hit = total > last.dp
    sc = _Scratch(state, cb, mode)
    dmg_amount, dmg_roll = 0, None
    if hit:
        dealt = c.roll_damage(dice, last.dmg, mode, backstab=last.backstab)  # type: ignore[arg-type]
        dmg_amount, dmg_roll = dealt.amount, dealt.roll
        _hurt(sc, dice, last.target, dmg_amount, f"attaque de {cmd.actor} (Chance)", mode, ctx.settings)
    swing = Swing(die=roll.total, total=total, hit=hit, roll=roll, damage=dmg_amount, damage_roll=dmg_roll)
    ev = Rerolled(name=cmd.combat, character=cmd.actor, target=last.target, swing=swing, left=left - 1)
    return _finish(state, cmd.combat, [ev, *sc.events], mode)

