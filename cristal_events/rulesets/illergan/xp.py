"""Experience costs (I-L208, I-L481-491, I-L575-586).

Rank 1: each % costs 1 xp up to 50%, 2 xp up to 75%, 4 xp up to 100% (200 xp in all, I-L484);
rank 2 doubles it (400 xp, I-L485); rank 0 cannot be raised (I-L483). The point that takes a skill
from p−1 to p is priced at p's tier (catalogue A43): 50→51 is the first 2-xp point.
"""

import msgspec

from cristal_events.errors import RuleError
from cristal_events.rulesets.illergan.content import Content

from .texts import _

SKILL_MAX = 100  # I-L487
NEW_SKILL_XP = 100  # I-L481
PP_XP = 20  # I-L208
NEW_MAGIC_XP = 100  # I-L586
NEW_MAGIC_TEACHER_LEVEL = 5  # I-L586
MASTERY_UNLOCK_PCT = 50  # I-L491
# (upper bound of the tier, xp per % at rank 1) — I-L484
_TIERS = ((50, 1), (75, 2), (100, 4))


def point_cost(pct: int, rank: int) -> int:
    """xp of the single point that raises a skill to ``pct`` %."""
    if rank == 0:
        raise RuleError(_('A rank 0 skill is fixed and cannot be improved (I-L483).'))
    if rank not in (1, 2):
        raise RuleError(_('A skill rank must be 0, 1 or 2, not {rank}.').format(rank=rank))
    for top, per in _TIERS:
        if pct <= top:
            return per * rank
    raise RuleError(_('A skill cannot exceed {SKILL_MAX}% (I-L487).').format(SKILL_MAX=SKILL_MAX))


def cumulative_cost(pct: int, rank: int) -> int:
    """xp from 0% to ``pct`` %: rank 1 → 50 at 50%, 100 at 75%, 200 at 100%.

    >>> cumulative_cost(100, 1), cumulative_cost(100, 2), cumulative_cost(60, 1)
    (200, 400, 70)
    """
    return sum(point_cost(p, rank) for p in range(1, pct + 1))


def raise_cost(current: int, target: int, rank: int) -> int:
    """xp to raise a skill from ``current`` % to ``target`` % (an acuity starts at its race value, A43)."""
    if target > SKILL_MAX:
        raise RuleError(_('A skill cannot exceed {SKILL_MAX}% (I-L487); {target}% was asked.').format(SKILL_MAX=SKILL_MAX, target=target))
    if target < current:
        raise RuleError(_('A skill cannot be lowered with xp ({current}% to {target}%).').format(current=current, target=target))
    if rank == 0 and target != current:
        raise RuleError(_('A rank 0 skill is fixed and cannot be improved (I-L483).'))
    return sum(point_cost(p, rank) for p in range(current + 1, target + 1))


class SkillPurchase(msgspec.Struct, frozen=True, kw_only=True):
    skill: str
    acquire_xp: int
    raise_xp: int
    total: int
    start_pct: int
    target_pct: int


def skill_purchase(content: Content, skill: str, *, current: int | None, target: int,
                   acuity_start: int | None = None) -> SkillPurchase:
    """Acquire (100 xp unless innate, I-L481) and/or raise a skill; ``current`` None = not yet known.

    A new skill starts at 0%, an acuity at its race value (``acuity_start``, I-L486).
    """
    s = content.skill(skill)
    if s.rank is None:
        raise content.missing(_('The rank of skill {skill!r}').format(skill=skill), "G24 skill list")
    acquire = 0
    start = current
    if current is None:
        acquire = 0 if content.is_innate(skill) else NEW_SKILL_XP
        start = acuity_start if acuity_start is not None else 0
    assert start is not None
    cost = raise_cost(start, target, s.rank)
    return SkillPurchase(skill=skill, acquire_xp=acquire, raise_xp=cost, total=acquire + cost,
                         start_pct=start, target_pct=target)


def pp_cost(pp: int) -> int:
    """Buying power points: 20 xp per pp (I-L208)."""
    if pp < 0:
        raise RuleError(_('Cannot buy a negative number of pp ({pp}).').format(pp=pp))
    return PP_XP * pp


def new_magic_cost(teacher_magic_level: int) -> int:
    """A new magic in play: 100 xp, taught by a mage of level 5 or more (I-L586)."""
    if teacher_magic_level < NEW_MAGIC_TEACHER_LEVEL:
        raise RuleError(
            _('A new magic must be taught by a mage of level {NEW_MAGIC_TEACHER_LEVEL} or more (I-L586); the teacher is level {teacher_magic_level}.').format(NEW_MAGIC_TEACHER_LEVEL=NEW_MAGIC_TEACHER_LEVEL, teacher_magic_level=teacher_magic_level)
        )
    return NEW_MAGIC_XP


def faith_level_cost(content: Content, level: int, *, religious: bool) -> int:
    """xp to reach faith ``level``; the tables are GM data (G18, G19)."""
    return content.faith_xp(level, religious=religious)


def mastery_unlock(pct_after: int) -> int | None:
    """A weapon mastery raised to 100% unlocks another one, chosen by the player, at 50% (I-L491)."""
    return MASTERY_UNLOCK_PCT if pct_after == SKILL_MAX else None


def spend(available: int, cost: int, *, what: str) -> int:
    """xp left after paying ``cost``; refuses an overdraft."""
    if cost > available:
        raise RuleError(_('{what} costs {cost} xp but only {available} xp are available.').format(what=what, cost=cost, available=available))
    return available - cost
