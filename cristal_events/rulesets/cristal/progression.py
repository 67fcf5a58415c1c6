"""Levels, classes and Techniques (seed 000, L60-L66, L499-L501, L628-L799).

* Global level n costs ``race.level_cost * 2^(n-1)`` XP, paid when that level is bought (the
  printed "2(niveau-1)" lost its exponent, L537; ruling D10). The race limit caps the global
  level (L501, D34).
* A class at level L gives only its level-L row (L650); beyond the printed rows the column's
  closed form continues the table (D10).
* A Technique level n costs ``factor * 2^(n-1)`` XP, with a race-specific factor when the data
  gives one (Forestier: Elfe 10, L790; D13). The roll is
  ``[level + adjustment + 1d6] >= difficulty`` (L766), standard difficulty 5 (L770).
"""

from collections.abc import Mapping
from fractions import Fraction

import msgspec

from cristal_events.dice import Dice
from cristal_events.errors import RuleError
from cristal_events.rounding import RoundingMode, apply
from cristal_events.rulesets.cristal.content import Ability, ClassDef, Content, Race, Technique, parse_adjustment

from .texts import _

STANDARD_DIFFICULTY = 5  # L770


def level_cost(race: Race, level: int, *, limit: bool = True) -> int:
    """XP price of global level ``level`` for ``race`` (L536-L626): Elfe 20 -> 91 750 400.

    The one level-cost rule (decisions, checks and audits call it). ``limit``: refuse a level above
    the race limit (L501); a campaign that turns the limits off (setting ``level_limits``) prices any
    level the same way."""
    if level < 1:
        raise RuleError(_("Global level {level} cannot be bought; levels start at 1.").format(level=level))
    if limit and race.level_limit is not None and level > race.level_limit:
        raise RuleError(
            _("A {race} cannot go beyond global level {race_level_limit} (race limit, L501).").format(race=race.name, race_level_limit=race.level_limit)
        )
    return race.level_cost * 2 ** (level - 1)


def cumulative_level_cost(race: Race, level: int) -> int:
    """XP spent to go from level 0 to ``level``: ``base * (2^level - 1)`` (Humain 3 -> 700)."""
    if level < 0:
        raise RuleError(_("Global level {level} is not a level.").format(level=level))
    if level:
        level_cost(race, level)  # checks the race limit
    return race.level_cost * (2**level - 1)


def global_level(class_levels: Mapping[str, int]) -> int:
    """Niveau Global = sum of the class levels (L62): Guerrier 4 + Mage 2 = 6."""
    for name, lvl in class_levels.items():
        if lvl < 0:
            raise RuleError(_("Class {name} cannot have a negative level ({lvl}).").format(name=name, lvl=lvl))
    return sum(class_levels.values())


def check_level_up(race: Race, current_global: int) -> int:
    """The price of the next global level, or RuleError when the race limit is reached (L501)."""
    return level_cost(race, current_global + 1)


class ClassBonuses(msgspec.Struct, frozen=True, kw_only=True):
    """Summed class rows (L636): ``flat`` by stable state, ``percent`` by stable state, ``points`` by pool."""

    flat: dict[str, int] = {}
    percent: dict[str, int] = {}
    points: dict[str, int] = {}


def class_row(cls: ClassDef, level: int) -> dict[str, int]:
    """The bonus row of ``cls`` at class level ``level`` (its own row, not a sum, L650).

    Printed rows (1-20) come from the table; higher levels from the column's pattern.
    """
    if level < 1:
        raise RuleError(_("Class {cls} has no level {level}; class levels start at 1.").format(cls=cls.name, level=level))
    row = {}
    for col in cls.columns:
        printed = cls.table[col.name]
        row[col.name] = printed[level - 1] if level <= len(printed) else cls.patterns[col.name].value(level)
    return row


def class_bonuses(content: Content, class_levels: Mapping[str, int]) -> ClassBonuses:
    """Sum of the current rows of every class (L636); percentages are summed, not compounded (L266)."""
    flat: dict[str, int] = {}
    percent: dict[str, int] = {}
    points: dict[str, int] = {}
    for name, level in class_levels.items():
        if level == 0:
            continue
        cls = content.class_def(name)
        row = class_row(cls, level)
        for col in cls.columns:
            target = {"flat": flat, "percent": percent, "points": points}[col.kind]
            target[col.state] = target.get(col.state, 0) + row[col.name]
    return ClassBonuses(flat=flat, percent=percent, points=points)


def check_prerequisites(content: Content, cls_name: str, class_levels: Mapping[str, int]) -> None:
    """RuleError when a class's Pré-Requis (e.g. "le 5e niveau de Mage", L640) is not met."""
    cls = content.class_def(cls_name)
    lowered = {k.casefold(): v for k, v in class_levels.items()}
    for req, lvl in cls.prerequisites.items():
        if lowered.get(req.casefold(), 0) < lvl:
            raise RuleError(_("Class {cls} requires {req} level {lvl}.").format(cls=cls.name, req=req, lvl=lvl))


def ability(cls: ClassDef, name: str) -> Ability:
    """A class ability by name (case-insensitive)."""
    from cristal_events.errors import UnknownEntity

    from .content import did_you_mean, find_named

    found = find_named(cls.abilities, name, lambda a: a.name)
    if found is not None:
        return found
    known = ", ".join(a.name for a in cls.abilities) or "none"
    hint = did_you_mean(name, [a.name for a in cls.abilities])
    raise UnknownEntity(_("Unknown {cls} ability '{name}';{value} known abilities: {known}.").format(cls=cls.name, name=name, value=hint or '', known=known))


def find_ability(cls: ClassDef, name: str) -> Ability | None:
    """The class ability named ``name`` (matched as every name is), or None."""
    from .content import find_named

    return find_named(cls.abilities, name, lambda a: a.name)


def check_ability(cls: ClassDef, name: str, class_level: int, points_left: int) -> Ability:
    """The ability if the class level and the day's points allow it (L666-L668), else RuleError."""
    ab = ability(cls, name)
    if class_level < ab.min_level:
        raise RuleError(_("{ab} needs {cls} level {ab_min_level} (has {class_level}).").format(ab=ab.name, cls=cls.name, ab_min_level=ab.min_level, class_level=class_level))
    if points_left < ab.cost:
        raise RuleError(_("{ab} costs {ab_cost} {ab_pool} points; only {points_left} left today.").format(ab=ab.name, ab_cost=ab.cost, ab_pool=ab.pool, points_left=points_left))
    return ab


# ---------------------------------------------------------------------------------------------
# Techniques


def technique_factor(tech: Technique, race: Race | None = None) -> int:
    """The XP factor of ``tech`` for ``race``: the Technique's race entry (Forestier: Elfe 10, L790),
    else the race's own override, else the printed factor."""
    if race is not None:
        for rname, factor in tech.race_factors.items():
            if rname.casefold() == race.name.casefold():
                return factor
        for tname, factor in race.technique_factors.items():
            if tname.casefold() == tech.name.casefold():
                return factor
    return tech.factor


def technique_cost(tech: Technique, level: int, race: Race | None = None) -> int:
    """XP price of Technique level ``level``: ``factor * 2^(level-1)`` (Natation 9 -> 5 120)."""
    if level < 1:
        raise RuleError(_("Technique level {level} cannot be bought; levels start at 1.").format(level=level))
    return technique_factor(tech, race) * 2 ** (level - 1)


def check_technique_restriction(tech: Technique, race: Race, class_levels: Mapping[str, int]) -> None:
    """RuleError when the character lacks the Technique's qualification (L757)."""
    r = tech.restriction
    if r is None:
        return
    if r.races and race.name.casefold() not in {n.casefold() for n in r.races}:
        raise RuleError(_("{tech} is restricted to {r_races}.").format(tech=tech.name, r_races=', '.join(r.races)))
    lowered = {k.casefold(): v for k, v in class_levels.items()}
    for cname, lvl in r.classes.items():
        if lowered.get(cname.casefold(), 0) < lvl:
            raise RuleError(_("{tech} requires {cname} level {lvl}.").format(tech=tech.name, cname=cname, lvl=lvl))


def technique_adjustment(tech: Technique, fixed: Mapping[str, int], mode: RoundingMode) -> int:
    """The adjustment formula on fixed states, each division rounded (L759, L23): OBS 3 -> 1."""
    total = 0
    for sign, name, op, operand in parse_adjustment(tech.adjustment):
        value = Fraction(int(name)) if name.isdigit() else Fraction(fixed[name])
        if op == "/":
            value = Fraction(apply(value / operand, mode))
        elif op == "*":
            value = value * operand
        total += sign * int(value)
    return total


class TechniqueRoll(msgspec.Struct, frozen=True, kw_only=True):
    """A resolved Technique roll (L766): total = level + adjustment + d6; success on >=."""

    technique: str
    level: int
    adjustment: int
    face: int
    total: int
    difficulty: int
    success: bool
    margin: int


def technique_roll(tech: Technique, level: int, fixed: Mapping[str, int], dice: Dice, *,
                   difficulty: int = STANDARD_DIFFICULTY, mode: RoundingMode = "round") -> TechniqueRoll:
    """Roll ``[level + adjustment + 1d6] >= difficulty`` with ``dice`` (L766-L774).

    Untrained (level 0) rolls with no adjustment (L774); a GM may still rule an untrained success a
    failure (L776), which is the caller's ruling event, not this function's.
    """
    if level < 0:
        raise RuleError(_("Technique level {level} is not a level.").format(level=level))
    face = dice.roll("1d6", rounding=mode, purpose=f"technique {tech.name}").total
    adj = technique_adjustment(tech, fixed, mode) if level >= 1 else 0
    total = level + adj + face
    return TechniqueRoll(technique=tech.name, level=level, adjustment=adj, face=face, total=total,
                         difficulty=difficulty, success=total >= difficulty, margin=total - difficulty)
