"""Character creation, the 13 steps of I-L321-371, from the campaign's content.

Race, class and heritage come from the game master's pack (G23); the text itself fixes 2 destiny
points (I-L330), the d8 gift roll (I-L380, table G14), faith level 1 for religious classes and 0 for
the others (I-L569, I-L578), every magic at level 1 (I-L213), 400 heritage xp not counted in the xp
total (I-L352-354, I-L588) and a bag-and-satchel limit of [10 + Fo] charges (I-L43).
"""

from collections.abc import Mapping, Sequence
from typing import Literal

import msgspec

from cristal_events.dice import Dice
from cristal_events.errors import RuleError
from cristal_events.rolls import Roll
from cristal_events.rulesets.illergan.content import Content
from cristal_events.rulesets.illergan.magic import OTHER_START_LEVEL, RELIGIOUS_START_LEVEL, pf_per_day
from cristal_events.rulesets.illergan.money import max_charges

from .texts import _

DESTINY_POINTS = 2  # I-L330, I-L376
MAX_LANGUAGES = 2  # I-L382
MAX_TRAITS = 2  # I-L386
TRAITS = ("Téméraire", "Prudent", "Cruel", "Honnête", "Sans scrupules", "Susceptible", "Positif",
          "Négatif", "Altruiste", "Agressif", "Réfléchi")  # I-L388-398
# Not listed by the text; the evident opposites (ruling, see docs/rulings.md).
CONTRADICTORY = frozenset({frozenset({"Téméraire", "Prudent"}), frozenset({"Honnête", "Sans scrupules"}),
                           frozenset({"Positif", "Négatif"}), frozenset({"Agressif", "Réfléchi"})})
ACUITY_SKILLS = {"visual": "Acuité visuelle", "auditory": "Acuité auditive", "olfactory": "Acuité olfactive"}


class Choices(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """What the player and the GM choose at creation (steps 1, 4-8)."""

    name: str
    race: str
    class_name: str
    heritage: str
    cult: str | None = None
    god: str | None = None
    magics: tuple[str, ...] = ()
    alc_min: int = 0
    preferred_hand: Literal["gauche", "droite"] = "droite"
    languages: tuple[str, ...] = ()
    traits: tuple[str, ...] = ()
    skills: tuple[str, ...] = ()


class SkillEntry(msgspec.Struct, frozen=True, kw_only=True):
    pct: int
    rank: int | None
    fixed: bool = False  # ticked on the sheet: rank 0 (I-L349, A42)


class Character(msgspec.Struct, frozen=True, kw_only=True):
    name: str
    race: str
    class_name: str
    heritage: str
    race_skill: str
    class_bonuses: tuple[str, ...]
    characteristic_xp_costs: dict[str, int]
    acuities: dict[str, int]
    incantation_types: tuple[str, ...]
    destiny_points: int
    gift: str
    gift_effect: str
    cult: str | None
    god: str | None
    faith_level: int | None
    pf_per_day: int
    magics: dict[str, int]
    alc_min: int
    preferred_hand: str
    languages: tuple[str, ...]
    traits: tuple[str, ...]
    skills: dict[str, SkillEntry]
    heritage_xp: int
    xp_total: int = 0
    max_charges: int = 10
    gift_roll: Roll | None = None


def check_traits(traits: Sequence[str]) -> None:
    """0-2 traits from the list, never two contradictory ones (I-L386-398)."""
    if len(traits) > MAX_TRAITS:
        raise RuleError(_('A character has at most {MAX_TRAITS} traits (I-L386), not {n}.').format(MAX_TRAITS=MAX_TRAITS, n=len(traits)))
    for t in traits:
        if t not in TRAITS:
            raise RuleError(_('{t!r} is not a trait of the list (I-L388-398).').format(t=t))
    if len(traits) == 2 and frozenset(traits) in CONTRADICTORY:
        raise RuleError(_('The traits {value} and {value2} contradict each other (I-L386).').format(value=traits[0], value2=traits[1]))


def roll_gift(dice: Dice, content: Content) -> tuple[str, str, Roll]:
    """Step 3: a Dé8 on the GM's gift table (I-L380, G14)."""
    r = dice.roll("1d8", purpose="gift")
    g = content.gift(r.total)
    return g.name, g.effect, r


def create(content: Content, choices: Choices, *, fo: int, gift_face: int | None = None,
           dice: Dice | None = None) -> Character:
    """Steps 1-10 of creation from the content pack; the gift is a d8 face or rolled with ``dice``."""
    race = content.entry("races", choices.race)
    cls = content.entry("classes", choices.class_name)
    heritage = content.entry("heritages", choices.heritage)
    if race.acuities is None:
        raise content.missing(_('The acuities of race {name!r}').format(name=race.name), "G23 race catalogue")
    if not cls.characteristic_xp_costs:
        raise content.missing(_('The characteristic xp costs of class {name!r}').format(name=cls.name), "G13 xp weighting")
    if cls.has_magic and choices.magics and not cls.incantation_types:
        raise content.missing(_('The incantation type of class {name!r}').format(name=cls.name), "G6 class → incantation")
    # Step 3: the gift.
    roll = None
    if gift_face is None:
        if dice is None:
            raise RuleError(_("Give the gift's d8 face or dice to roll it (I-L380)."))
        gift_name, gift_effect, roll = roll_gift(dice, content)
    else:
        g = content.gift(gift_face)
        gift_name, gift_effect = g.name, g.effect
    # Step 4: cult and faith.
    faith_level = None
    if choices.cult is not None:
        cult = content.entry("cults", choices.cult)
        faith_level = RELIGIOUS_START_LEVEL if cls.religious else OTHER_START_LEVEL
        if cls.chooses_god and not choices.god:
            raise RuleError(_('A {name} also chooses a god (I-L333).').format(name=cls.name))
        if choices.god and cult.gods and choices.god not in cult.gods:
            raise RuleError(_('{god!r} is not a god of the {name} cult in this campaign.').format(god=choices.god, name=cult.name))
    elif cls.religious:
        raise RuleError(_('A {name} starts at faith level 1 in a chosen cult (I-L569): choose a cult.').format(name=cls.name))
    # Step 5: magics, each at level 1.
    if not cls.has_magic and choices.magics:
        raise RuleError(_('The {name} class has no magic (I-L336).').format(name=cls.name))
    # "aucune classe n'est obligée d'en choisir une" (I-L336): the class's number is a most, never a must.
    if cls.magics_at_creation is not None and cls.has_magic and len(choices.magics) > cls.magics_at_creation:
        raise RuleError(_('A {name} chooses at most {magics_at_creation} magic(s) at creation (I-L336), not {n}.').format(name=cls.name, magics_at_creation=cls.magics_at_creation, n=len(choices.magics)))
    # Step 6-7.
    if len(choices.languages) > MAX_LANGUAGES:
        raise RuleError(_('A character speaks at most {MAX_LANGUAGES} languages fluently (I-L382).').format(MAX_LANGUAGES=MAX_LANGUAGES))
    check_traits(choices.traits)
    if choices.alc_min > 0:
        raise RuleError(_('The Alc minimum is written negatively (I-L346), not {alc_min}.').format(alc_min=choices.alc_min))
    # Step 8: skills (innate at 0, acuities at the race's value, chosen and imposed ones).
    skills: dict[str, SkillEntry] = {}
    for key, skill in ACUITY_SKILLS.items():
        skills[skill] = SkillEntry(pct=getattr(race.acuities, key), rank=_rank(content, skill))
    for name in content.pack.innate_skills:
        skills.setdefault(name, SkillEntry(pct=0, rank=_rank(content, name)))
    for name in (*choices.skills, *heritage.imposed_skills, *([race.race_skill] if race.race_skill else [])):
        if name in skills:
            continue
        rank = _rank(content, name)
        skills[name] = SkillEntry(pct=0, rank=rank, fixed=rank == 0)
    return Character(
        name=choices.name, race=race.name, class_name=cls.name, heritage=heritage.name,
        race_skill=race.race_skill, class_bonuses=cls.bonuses,
        characteristic_xp_costs=dict(cls.characteristic_xp_costs),
        acuities={k: getattr(race.acuities, k) for k in ACUITY_SKILLS},
        incantation_types=tuple(cls.incantation_types) if cls.has_magic else (),
        destiny_points=DESTINY_POINTS, gift=gift_name, gift_effect=gift_effect,
        cult=choices.cult, god=choices.god, faith_level=faith_level,
        pf_per_day=pf_per_day(cls.name, faith_level) if faith_level is not None else 0,
        magics={m: 1 for m in choices.magics}, alc_min=choices.alc_min,
        preferred_hand=choices.preferred_hand, languages=choices.languages, traits=choices.traits,
        skills=skills, heritage_xp=heritage.xp, xp_total=0, max_charges=max_charges(fo), gift_roll=roll,
    )


def _rank(content: Content, name: str) -> int | None:
    found = content.pack.skills
    for s in found:
        if s.name == name:
            return s.rank
    if name in content.pack.innate_skills:
        return None
    raise content.missing(_('The skill {name!r}').format(name=name), "G24 skill list")


def heritage_leftover(content: Content, heritage_name: str, spends: Mapping[str, int]) -> int:
    """Check the heritage xp spending against its constraints; return the xp left over, which may go
    to any rank 1 skill (I-L352, I-L374)."""
    heritage = content.entry("heritages", heritage_name)
    total = 0
    for target, amount in spends.items():
        if amount < 0:
            raise RuleError(_('Heritage xp spent on {target!r} cannot be negative.').format(target=target))
        limit = heritage.spend_limits.get(target)
        if limit is not None and amount > limit:
            raise RuleError(_('The {name} heritage allows at most {limit} xp on {target} (I-L352), not {amount}.').format(name=heritage.name, limit=limit, target=target, amount=amount))
        total += amount
    if total > heritage.xp:
        raise RuleError(_('The {name} heritage gives {xp} xp; {total} xp were spent.').format(name=heritage.name, xp=heritage.xp, total=total))
    return heritage.xp - total


def starting_equipment(content: Content, profiles: Sequence[str]) -> dict[str, int]:
    """The usual starting kit (I-L164-192): everyone's items plus each profile's (mage, guerrier,
    roublard, archer) and class extras (paladin, traqueur, espion); the GM may change it (I-L164)."""
    out: dict[str, int] = {}
    for key in ("tous", *profiles):
        items = content.pack.starting_kit.get(key)
        if items is None:
            raise RuleError(_('No starting kit is listed for {key!r} (I-L164-192).').format(key=key))
        for item in items:
            label = f"{item.name} ({item.note})" if item.note else item.name
            out[label] = out.get(label, 0) + item.qty
    return out
