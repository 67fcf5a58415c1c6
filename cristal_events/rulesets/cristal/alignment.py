"""Alignment reactions, penalties and the healing/harming pool (seed 000, L1369-L1425); Chance (L56-L58).

* Reaction (L1381-L1392): facing a neutral, nothing; a neutral facing A feels A. When both are
  non-neutral only the weaker |alignment| (the target) feels the stronger (the source):
  ``A_source + |A_target|`` for a cursed source, ``A_source - |A_target|`` for a blessed one.
  Equal magnitudes give 0 either way (D32); a demon -10 facing an angel +15 feels +5 (D31).
* Penalty (L1394-L1415, D4): the row with the largest |reaction| not above |R| on the same side;
  beyond ±20, ``-ceil(|R| / 2)`` (setting alignment_beyond_20=cap: -10). The penalty lowers the ATT or CNC total by its size.
* Pool (L1417-L1421, D30): ``|alignment| x 5`` points a day, 1 PV per second, at most 20 per action.
"""

import msgspec

from cristal_events.errors import RuleError

from .texts import _

# (reaction, description, penalty) as printed (L1395-L1413). Row 0 prints "---".
REACTION_TABLE: tuple[tuple[int, str, int], ...] = (
    (-20, "Terreur extrême, paralysie partielle. Risque d'évanouissement soudain.", -10),
    (-16, "Horreur totale, panique ou hystérie en sa présence.", -8),
    (-12, "Présence qui glace le sang. Dégage une aura glaciale.", -6),
    (-10, "Regard insoutenable. Peur manifeste en sa présence.", -5),
    (-8, "Effroi à son approche. Présence non-tolérable.", -4),
    (-6, "Présence très intimidante. Sa voix fait naître la peur.", -3),
    (-4, "Légère peur à sa vue. Très inconfortable lorsqu'il est tout près.", -2),
    (-2, "Léger frisson. Garde ses distances.", -1),
    (-1, "Froid dans le dos. N'apprécie pas sa compagnie.", -1),
    (0, "Aucune réaction.", 0),
    (1, "Respect de base.", -1),
    (2, "Légère admiration. Compagnie souhaitée et appréciée.", -1),
    (4, "Admiration. Présence réconfortante et regard chaleureux.", -2),
    (6, "Grand héros. Calme les tensions et apaise les colères.", -3),
    (8, "Sa présence réconforte l'âme et unit les esprits.", -4),
    (10, "Grand respect. Sa parole est d'or, et ses idées sont justes.", -5),
    (12, "Admiration totale. Dégage une forte aura de puissance.", -6),
    (16, "Admiration divine. On le perçoit comme un demi-dieu.", -8),
    (20, "Contemplation en extase. Respect total, dégage une sagesse infinie.", -10),
)
POOL_PER_POINT = 5  # L1419
MAX_PER_ACTION = 20  # L1419
SECONDS_PER_POINT = 1  # L1419


def reaction(observer: int, other: int) -> int:
    """The reaction ``observer`` feels facing ``other`` (L1381-L1392).

    >>> reaction(0, 15), reaction(15, 15), reaction(-12, 5), reaction(5, -12), reaction(-10, 15)
    (15, 0, 0, -7, 5)
    """
    if other == 0:
        return 0
    if observer == 0:
        return other  # L1381
    if abs(observer) > abs(other):
        return 0  # observer is the source: only the weaker feels a reaction (L1385)
    return other + abs(observer) if other < 0 else other - abs(observer)  # L1388, L1390


def _row(value: int) -> tuple[int, str, int]:
    if value == 0:
        return REACTION_TABLE[9]
    side = [r for r in REACTION_TABLE if r[0] != 0 and (r[0] > 0) == (value > 0) and abs(r[0]) <= abs(value)]
    return max(side, key=lambda r: abs(r[0]))


#: what a reaction beyond ±20 costs (D4; the table stops at ±20, L1395-L1413): "half" goes on with the
#: printed rows' own pattern (each row from ±4 to ±20 is half the reaction, rounded up: -ceil(|R|/2)),
#: "cap" keeps the last printed row (-10)
BEYOND_20 = ("half", "cap")


def penalty(value: int, beyond_20: str = "half") -> int:
    """The printed Pénalité (0 or negative) for reaction ``value`` (D4): +15 -> -6, -7 -> -3, 25 -> -13
    (``beyond_20="cap"``: 25 -> -10)."""
    if abs(value) > 20 and beyond_20 != "cap":
        return -((abs(value) + 1) // 2)
    return _row(value)[2]


def description(value: int) -> str:
    """The table's description of the row used for ``value`` (beyond ±20, the ±20 row)."""
    return _row(value)[1]


def apply_penalty(total: int, value: int, beyond_20: str = "half") -> int:
    """ATT or CNC total against the source of reaction ``value``: lowered by |penalty| (L1415, D4)."""
    return total - abs(penalty(value, beyond_20))


def daily_pool(alignment: int) -> int:
    """Points a day to heal (blessed) or harm (cursed): |alignment| x 5 (L1419, D30); +4 -> 20."""
    return abs(alignment) * POOL_PER_POINT


class PoolUse(msgspec.Struct, frozen=True, kw_only=True):
    """One use of the pool: ``points`` healed or dealt, ``it_seconds`` added to the user's IT,
    ``remaining`` pool for the day, and the target's ``pv_after``."""

    kind: str
    points: int
    it_seconds: int
    remaining: int
    pv_after: int


def use_pool(alignment: int, points: int, remaining: int, target_pv: int, target_pv_max: int) -> PoolUse:
    """Heal (blessed) or harm (cursed) by touch (L1417-L1421): at most 20 per action, 1 s per point;
    neither DP nor DM apply; healing never goes above PVmax (D30)."""
    if alignment == 0:
        raise RuleError(_("A neutral character (alignment 0) has no healing or harming power (L1417)."))
    if points < 1:
        raise RuleError(_("At least 1 point must be used."))
    if points > MAX_PER_ACTION:
        raise RuleError(_("At most {max_per_action} points can be used in one action (L1419), not {points}.").format(max_per_action=MAX_PER_ACTION, points=points))
    if points > remaining:
        raise RuleError(_("Only {remaining} alignment points are left today, not {points}.").format(remaining=remaining, points=points))
    if alignment > 0:
        after = min(target_pv_max, target_pv + points) if target_pv < target_pv_max else target_pv
        kind = "heal"
    else:
        after = target_pv - points
        kind = "harm"
    return PoolUse(kind=kind, points=points, it_seconds=points * SECONDS_PER_POINT,
                   remaining=remaining - points, pv_after=after)


def chance_rerolls(chance: int) -> tuple[int, int]:
    """Rerolls per in-game day (L56-L58, D16): (the player's, the GM's forced). Chance 4 -> (4, 0);
    Chance -2 -> (0, 2); Chance 0 -> (0, 0)."""
    return (chance, 0) if chance >= 0 else (0, -chance)
