"""Magic and faith (I-L10-20, I-L110-117, I-L194-239, I-L437-443, I-L494-527, I-L531-617).

Spell launch outcomes, levels and combinations, PM costs and refunds, pp, magic damage through
Volonté and shields, concentration, faith points, divine powers, cults and the Harmonisation.
"""

from collections.abc import Sequence
from fractions import Fraction
from typing import Literal

import msgspec

from cristal_events.dice import Dice
from cristal_events.errors import RuleError
from cristal_events.rolls import Roll
from cristal_events.rulesets.illergan.checks import casting_range_by_sense
from cristal_events.rulesets.illergan.content import Content, Spell
from cristal_events.rulesets.illergan.settings import DEFAULT, IllerganSettings, round_gap

from .texts import _

Outcome = Literal["critical", "normal", "counter"]
VOL_CAP = 90  # I-L437


# ---------------------------------------------------------------- launch roll (I-L520-527)


def counter_threshold(level: int) -> int:
    """A counter-effect from 95, +1 per level above 5 (I-L526): L1-5 → 95 … L10 → 100."""
    return 95 + max(0, level - 5)


class Launch(msgspec.Struct, frozen=True, kw_only=True):
    face: int
    level: int
    outcome: Outcome
    refund_pct: int = 0
    counter_effect: str = ""
    rolls: tuple[Roll, ...] = ()


def launch(face: int, level: int, settings: IllerganSettings = DEFAULT) -> Launch:
    """Critical iff Dé100 ≤ the mage's level (I-L525), counter-effect from :func:`counter_threshold`;
    100 is always a failure (I-L526). Magic does not use the 01-02 rule (I-L512)."""
    if not 1 <= level <= settings.max_magic_level:
        raise RuleError(_('A magic level must be 1 to {max_magic_level}, not {level}.').format(max_magic_level=settings.max_magic_level, level=level))
    if face == 100 or face >= counter_threshold(level):
        return Launch(face=face, level=level, outcome="counter")
    if face <= level:
        return Launch(face=face, level=level, outcome="critical")
    return Launch(face=face, level=level, outcome="normal")


def refund_pct(d10: int) -> int:
    """A critical refunds [50 + 10 × Dé10]% of the spell's PM cost (I-L525): 60% to 150%."""
    if not 1 <= d10 <= 10:
        raise RuleError(_('A Dé10 face must be 1 to 10, not {d10}.').format(d10=d10))
    return 50 + 10 * d10


def refund(cost: int, d10: int, settings: IllerganSettings = DEFAULT) -> int | Fraction:
    """PM given back by a critical (rounding: ``pm_refund_rounding``, G35)."""
    return round_gap(Fraction(cost * refund_pct(d10), 100), settings.pm_refund_rounding)


def pm_after_cast(current: int, maximum: int, cost: int, outcome: Outcome, refund_pm: int = 0,
                  settings: IllerganSettings = DEFAULT) -> int:
    """PM after a launch: the cost is paid (not on a counter-effect unless ``pm_spent_on_counter_effect``, A4),
    a critical then refunds (capped at the maximum with ``pm_refund_capped_at_max``)."""
    if cost > current:
        raise RuleError(_('The spell costs {cost} PM but only {current} PM are usable (I-L17).').format(cost=cost, current=current))
    paid = 0 if outcome == "counter" and not settings.pm_spent_on_counter_effect else cost
    after = current - paid + (refund_pm if outcome == "critical" else 0)
    return min(after, maximum) if settings.pm_refund_capped_at_max else after


def roll_launch(dice: Dice, level: int, content: Content, settings: IllerganSettings = DEFAULT) -> Launch:
    """Roll the launch, then the Dé10 refund on a critical or the Dé20 counter-effect (G10 table from the pack)."""
    r = dice.roll("1d100", purpose="spell launch")
    result = launch(r.total, level, settings)
    match result.outcome:
        case "critical":
            d = dice.roll("1d10", purpose="critical refund")
            return msgspec.structs.replace(result, refund_pct=refund_pct(d.total), rolls=(r, d))
        case "counter":
            d = dice.roll("1d20", purpose="counter-effect")
            effect = content.counter_effect(d.total).effect
            return msgspec.structs.replace(result, counter_effect=effect, rolls=(r, d))
    return msgspec.structs.replace(result, rolls=(r,))


# ---------------------------------------------------------------- levels, cost, combinations (I-L17, I-L213-239)


def legal_cast_levels(magic_level: int, min_level: int) -> range:
    """Niveau de magie ≥ Niveau de lancement ≥ Niveau minimum (I-L219)."""
    return range(min_level, magic_level + 1)


def check_cast_level(spell: Spell, magic_level: int, cast_level: int) -> None:
    if cast_level not in legal_cast_levels(magic_level, spell.min_level):
        raise RuleError(
            _('{name} can be cast at levels {min_level} to {magic_level} with {magic} at level {magic_level} (I-L219), not at level {cast_level}.').format(name=spell.name, min_level=spell.min_level, magic_level=magic_level, magic=spell.magic, cast_level=cast_level)
        )


def effective_level(cast_level: int, bonuses: int = 0, *, critical: bool = False) -> int:
    """Level bonuses and a critical raise the cast level only, possibly above the magic level (I-L220, I-L525, A7)."""
    return cast_level + bonuses + (1 if critical else 0)


def superior_effect_active(spell: Spell, magic_level: int) -> bool:
    """The italic superior effect applies once the MAGIC level reaches the spell's threshold (I-L517)."""
    return spell.superior_effect_level is not None and magic_level >= spell.superior_effect_level


def spell_base_cost(content: Content, spell: Spell, cast_level: int) -> int:
    """PM cost at the chosen cast level (not the bonused level, I-L220); the costs are GM data (G25)."""
    cost = spell.pm_cost.get(cast_level)
    if cost is None:
        raise content.missing(_('The PM cost of {name} at level {cast_level}').format(name=spell.name, cast_level=cast_level), "G25 spell lists")
    return cost


def pm_cost(base: int, modifiers_pct: Sequence[int] = (), *, whispered: bool = False,
            settings: IllerganSettings = DEFAULT) -> int | Fraction:
    """Sum every % modifier, then apply it once (I-L17); whispering doubles the PM (I-L113, A5)."""
    total = sum(modifiers_pct)
    factor = Fraction(1)
    if whispered:
        if settings.whisper_is_additive_pct:
            total += 100
        else:
            factor = Fraction(2)
    value = max(Fraction(0), base * (1 + Fraction(total, 100)) * factor)
    return round_gap(value, settings.pm_cost_rounding)


def can_learn_spell(spell: Spell, magic_level: int) -> bool:
    """A spell of minimum level X needs the magic at level X or more (I-L443)."""
    return magic_level >= spell.min_level


def spell_price_o(spell: Spell) -> int:
    """Average teaching price: [niveau minimum du sort]'O (I-L443)."""
    return spell.min_level


def max_secondaries(magic_level: int, content: Content) -> int:
    """Secondaries cast at once: 3 (levels 1-5), 4 (6-7), 5 (8-9), 6 (10) (I-L233-237)."""
    value = content.pack.secondaries_by_magic_level.get(magic_level)
    if value is None:
        raise RuleError(_('A magic level must be 1 to 10 (I-L237), not {magic_level}.').format(magic_level=magic_level))
    return value


def check_combination(primary_cast_level: int, secondary_levels: Sequence[int], magic_level: int, content: Content) -> None:
    """Each secondary ≤ the primary's cast level (I-L228); at most :func:`max_secondaries` at once."""
    limit = max_secondaries(magic_level, content)
    if len(secondary_levels) > limit:
        raise RuleError(_('At magic level {magic_level} at most {limit} secondary spells are cast at once (I-L231).').format(magic_level=magic_level, limit=limit))
    for lvl in secondary_levels:
        if lvl > primary_cast_level:
            raise RuleError(_("A secondary spell at level {lvl} exceeds the primary's level {primary_cast_level} (I-L228).").format(lvl=lvl, primary_cast_level=primary_cast_level))


def check_known(spell: Spell, known_spells: Sequence[str], who: str) -> None:
    """A character casts only his own mastered spells (I-L17 "ses propres sorts", I-L338, I-L443, I-L586)."""
    if spell.name not in known_spells:
        raise RuleError(_('{who} has not learned the spell {name} (I-L17, I-L443): learn it from a teacher first.').format(who=who, name=spell.name))


Incantation = Literal["orale", "gestuelle", "canalisateur"]


def check_incantation(types: Sequence[str], *, whispered: bool = False, gagged: bool = False, paralysed: bool = False,
                      canalisateur_in_hand: bool = True, needs: Literal["all", "any"] = "all") -> None:
    """The class's incantation types (I-L110-117): orale is stopped by a gag or paralysis and alone allows a
    whisper (I-L113); gestuelle is stopped by paralysis only (I-L115); a canalisateur must be in hand, and
    then paralysis does not stop it (I-L117). ``needs`` (setting ``incantation_needs``): every type of
    the class must be usable ("all", the text's "doit"), or one suffices ("any")."""
    if whispered and "orale" not in types:
        raise RuleError(_('Only an oral incantation can be whispered (I-L113).'))
    if not types:
        raise RuleError(_('This character has no incantation type and cannot cast spells (I-L110).'))
    blocked = {
        "orale": "a gag or paralysis makes an oral incantation impossible (I-L113)" if gagged or paralysed else "",
        "gestuelle": "paralysis stops a gestural incantation (I-L115)" if paralysed else "",
        "canalisateur": "" if canalisateur_in_hand else "the canalisateur (sceptre or bourdon) must be in hand (I-L117)",
    }
    reasons = [blocked[t] for t in types if blocked.get(t)]
    usable = [t for t in types if not blocked.get(t)]
    if (needs == "all" and reasons) or (needs == "any" and not usable):
        raise RuleError(_('The spell cannot be cast: {reasons}.').format(reasons='; '.join(reasons)))


def check_reach(sense: str, distance: float | None, *, energie: int, acuity: int = 0,
                settings: IllerganSettings = DEFAULT) -> Fraction | int:
    """The target must be located by one sense, within its range (I-L10-15), and never beyond [5 + E] m
    (I-L161-162) when seen. Returns the range; ``distance`` None = within reach as the GM says."""
    reach = casting_range_by_sense(sense, energie, acuity, settings)
    if distance is not None:
        if distance < 0:
            raise RuleError(_('A distance cannot be negative ({distance} m).').format(distance=distance))
        if distance > reach:
            shown = float(reach) if Fraction(reach).denominator != 1 else int(reach)
            raise RuleError(_('A target located by {sense} can be reached at {shown} m at most (I-L10-15, I-L161), not at {distance:g} m.').format(sense=sense, shown=shown, distance=distance))
    return reach


# The target rolls Volonté automatically (I-L462, I-L476). A destruction spell has victims in a zone, not a
# target: its magic damage is reduced by Volonté (I-L437) with no roll (ruling MAG-3).
HOSTILE_CLASSES = ("altération", "projection")
CONSENTED_CLASSES = ("amélioration", "protection", "soin")  # the target accepts or refuses (I-L465, I-L477-479)


def resistance(spell: Spell, *, stealth: bool, spotted: bool, accept: bool | None, self_target: bool) -> str:
    """How the target meets the spell (I-L18-20, I-L462-479): "vol_roll" (an automatic Volonté roll),
    "no_vol_roll" (a stealthy mage not spotted: no roll, I-L20, I-L462), "accepted"/"refused" (a benefic
    spell is accepted or refused without detecting the mage, I-L465; ``accept`` None = accepted), or "none"
    (on oneself / no class)."""
    cls = spell.spell_class.casefold()
    if self_target:
        return "none"
    if cls in CONSENTED_CLASSES:
        return "refused" if accept is False else "accepted"  # accepted unless the target says no (MAG-3)
    if accept is not None:
        raise RuleError(_('Only an amélioration, protection or soin spell is accepted or refused (I-L465), not {name}.').format(name=spell.name))
    if cls in HOSTILE_CLASSES:
        return "no_vol_roll" if stealth and not spotted else "vol_roll"
    return "none"


def vol_roll_resists(face: int, vol: int) -> bool:
    """The target's Volonté roll counters the spell's effects when the Dé100 is at most its Vol (I-L18;
    the text gives no other threshold, ruling MAG-3)."""
    return face <= vol


def combination_cost(costs: Sequence[int]) -> int:
    """A combination is one spell at launch (I-L224): its PM are the sum of its spells' PM."""
    return sum(costs)


def check_secondary(primary: Spell | None, secondary: Spell, *, primary_level: int, level: int, magic_level: int) -> None:
    """A secondary spell works only on a compatible primary (same magic, ruling MAG-4), at a level ≤ the
    primary's cast level and within its own min level and the magic level (I-L219, I-L226-228)."""
    if secondary.kind != "secondaire":
        raise RuleError(_('{name} is not a secondary spell (I-L226).').format(name=secondary.name))
    if primary is not None:
        if primary.kind != "primaire":
            raise RuleError(_('Secondary spells are cast on a primary spell; {name} is not one (I-L224-226).').format(name=primary.name))
        if primary.magic != secondary.magic:
            raise RuleError(_('{name} ({magic}) is not compatible with {name2} ({magic2}) (I-L226).').format(name=secondary.name, magic=secondary.magic, name2=primary.name, magic2=primary.magic))
    check_cast_level(secondary, magic_level, level)
    if level > primary_level:
        raise RuleError(_("A secondary spell at level {level} exceeds the primary's level {primary_level} (I-L228).").format(level=level, primary_level=primary_level))


# ---------------------------------------------------------------- pp and magic levels (I-L194-214)


def pp_in_combat(spells_in_cast: int, content: Content, *, counter_effect: bool) -> int:
    """In combat: 1 pp per cast without counter-effect; a combination gives 1/2/3 pp for 1-2/3-4/5+ spells (I-L198-203)."""
    if counter_effect:
        return 0
    table = content.pack.pp_by_combination_size
    return table[min(spells_in_cast, max(table))]


def pp_out_of_combat(counter: int, relevant_casts: int) -> tuple[int, int]:
    """Out of combat: 1 pp every 3 casts (or combinations) the GM deems relevant (I-L207).

    Returns (pp gained, counter carried). A9: one counter per magic.
    """
    total = counter + relevant_casts
    return total // 3, total % 3


def magic_level_for_pp(pp: int, content: Content, settings: IllerganSettings = DEFAULT) -> int:
    """The magic level reached with ``pp`` accumulated pp (thresholds are GM data, G9)."""
    level = 1
    for nxt in range(2, settings.max_magic_level + 1):
        if pp >= content.pp_for_level(nxt):
            level = nxt
        else:
            break
    return level


# ---------------------------------------------------------------- magic damage (I-L437-439)


def vol_reduced(damage: int, vol: int, settings: IllerganSettings = DEFAULT) -> int | Fraction:
    """Magic damage reduced by Volonté %, the reduction capped at 90% (I-L437)."""
    pct = min(max(vol, 0), VOL_CAP)
    return round_gap(Fraction(damage * (100 - pct), 100), settings.magic_dmg_rounding)


class Block(msgspec.Struct, frozen=True, kw_only=True):
    shield_ps_after: int
    destroyed: bool
    to_character: int | Fraction


def block_magic(damage: int, *, srm: int, shield_ps: int, vol: int, settings: IllerganSettings = DEFAULT) -> Block:
    """Magic damage can only be blocked: minus the shield's SRM, then off its PS; if the shield is
    destroyed the rest hits the character, reduced by Volonté (I-L439). A32: 0 PS = destroyed, no rest."""
    to_shield = max(0, damage - srm)
    after = shield_ps - to_shield
    if after > 0:
        return Block(shield_ps_after=after, destroyed=False, to_character=0)
    rest = -after
    return Block(shield_ps_after=0, destroyed=True, to_character=vol_reduced(rest, vol, settings) if rest else 0)


# ---------------------------------------------------------------- duration (I-L494-495)


def concentrated_minutes(turns: int) -> int:
    """A spell of n turns lasts n minutes while the mage only concentrates on it (I-L494)."""
    return turns


def concentration_broken(remaining_minutes: int | Fraction) -> int:
    """The remaining minutes become turns, rounded down (I-L494)."""
    v = Fraction(remaining_minutes)
    return v.numerator // v.denominator


# ---------------------------------------------------------------- faith (I-L531-617)

RELIGIOUS_START_LEVEL = 1  # I-L569
OTHER_START_LEVEL = 0  # I-L578
PD_TEACHER_LEVEL = 6  # I-L611


def pf_per_day(class_name: str, faith_level: int) -> int:
    """Prêtre: [5 + 3 × niveau] PF a day; other classes: [2 × niveau] (I-L594-595)."""
    return 5 + 3 * faith_level if class_name == "Prêtre" else 2 * faith_level


def pd_range(faith_level: int) -> int:
    """A PD reaches [5 × niveau de foi] m (I-L607)."""
    return 5 * faith_level


def pd_target_allowed(*, caster_is_pretre: bool, target_is_self: bool, target_same_cult: bool,
                      distance: float, faith_level: int) -> bool:
    """Self, or a faithful of the same cult within range; a Prêtre may target anyone in range (I-L607)."""
    if target_is_self:
        return True
    if distance > pd_range(faith_level):
        return False
    return caster_is_pretre or target_same_cult


def check_pd_level(faith_level: int, pd_level: int, cast_level: int) -> None:
    """faith level ≥ PD cast level ≥ PD level (I-L609, A41)."""
    if not pd_level <= cast_level <= faith_level:
        raise RuleError(
            _('A level {pd_level} divine power can be cast at levels {pd_level} to {faith_level} with faith level {faith_level} (I-L609), not at level {cast_level}.').format(pd_level=pd_level, faith_level=faith_level, cast_level=cast_level)
        )


def can_learn_pd(faith_level: int, pd_level: int, *, teacher_level: int | None = None, from_book: bool = False) -> bool:
    """From a book or a faithful of level 6+; the learner must have unlocked the PD's level (I-L611)."""
    source_ok = from_book or (teacher_level is not None and teacher_level >= PD_TEACHER_LEVEL)
    return source_ok and faith_level >= pd_level


def mastered_pds(faith_level: int, pd_levels: dict[str, int]) -> list[str]:
    """By default every PD of level ≤ the faith level is mastered (I-L335)."""
    return [name for name, lvl in pd_levels.items() if lvl <= faith_level]


def new_cult_level(*, religious: bool, old_level: int, settings: IllerganSettings = DEFAULT) -> int:
    """Changing cult: religious classes start at 2 if they passed that level, others at 0 (I-L571, I-L580, A38)."""
    if not religious:
        return OTHER_START_LEVEL
    passed = old_level > 2 if settings.cult_change_condition == "gt2" else old_level >= 2
    return 2 if passed else settings.cult_change_fallback_level


def added_cult_level(initial_cult: str, cults_held: int) -> int:
    """Only an initial Ancêtres worshipper may add one (and only one) cult, at level 0 (I-L573, I-L582)."""
    if initial_cult != "Ancêtres":
        raise RuleError(_('Only characters who first worshipped the Ancêtres may add a second cult (I-L573).'))
    if cults_held >= 2:
        raise RuleError(_('An Ancêtres worshipper may add one new cult only (I-L573).'))
    return 0


def harmonisation_start(cult: str, content: Content, *, sunrise: int | None = None, sunset: int | None = None) -> int:
    """Minute of the day the cult's Harmonisation begins (I-L534-540); sunrise and sunset are inputs (G32)."""
    when = content.entry("cults", cult).harmonisation
    match when:
        case "sunrise" | "sunset":
            value = sunrise if when == "sunrise" else sunset
            if value is None:
                raise RuleError((_('The {cult} Harmonisation is at sunrise: give the sunrise time of the day.') if when == 'sunrise' else _('The {cult} Harmonisation is at sunset: give the sunset time of the day.')).format(cult=cult))
            return value
        case "":
            raise content.missing(_('The Harmonisation time of {cult}').format(cult=cult), "cults")
    hours, minutes = when.split(":")
    return int(hours) * 60 + int(minutes)


def harmonised(cult: str, prayed_at: int, content: Content, *, sunrise: int | None = None, sunset: int | None = None) -> bool:
    """All PF come back if the prayer starts within one hour of the Harmonisation time (I-L531)."""
    start = harmonisation_start(cult, content, sunrise=sunrise, sunset=sunset)
    return (prayed_at - start) % (24 * 60) < 60


def spend_faith(pf: int, pfb: int, cost: int, *, from_pfb: int | None = None,
                settings: IllerganSettings = DEFAULT) -> tuple[int, int]:
    """(PF, PFb) after paying ``cost``; PFb may pay beyond the PF maximum (I-L597, A40)."""
    match settings.pfb_spend_order:
        case "pf_first":
            use_b = max(0, cost - pf)
        case "pfb_first":
            use_b = min(pfb, cost)
        case _:
            if from_pfb is None:
                raise RuleError(_("Say how many of the cost's faith points come from the bonus points (PFb)."))
            use_b = from_pfb
    if use_b > pfb or cost - use_b > pf or use_b < 0 or use_b > cost:
        raise RuleError(_('The divine power costs {cost} faith points; {pf} PF and {pfb} PFb are available.').format(cost=cost, pf=pf, pfb=pfb))
    return pf - (cost - use_b), pfb - use_b
