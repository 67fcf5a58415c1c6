"""Physical combat (I-L3-8, I-L85-99, I-L241-319, I-L454-458, I-L497-512, I-L630-649).

Initiative, the turn's action budget, the Adresse roll, power dice, damage through SR and RN, hit
locations (humanoid and non-humanoid), critical riders, limb loss, death and destiny points.
Pure functions take die faces; ``roll_*`` helpers take a :class:`~cristal_events.dice.Dice`.
"""

from collections.abc import Sequence
from fractions import Fraction
from typing import Literal

import msgspec

from cristal_events.dice import Dice
from cristal_events.errors import RuleError
from cristal_events.rolls import Roll
from cristal_events.rulesets.illergan.checks import skill_check
from cristal_events.rulesets.illergan.content import Armour, Content, DamageType, Weapon
from cristal_events.rulesets.illergan.settings import DEFAULT, IllerganSettings, round_gap

from ...i18n import N_
from .texts import _

# ---------------------------------------------------------------- initiative (I-L3-8)


def initiative_score(dex: int, vol: int, face: int, malus: int = 0) -> int:
    """[Dex + Vol + Dé100] − [Malus de situation], the malus from 0 to 100 (I-L4-5)."""
    if not 0 <= malus <= 100:
        raise RuleError(_('The situation malus must be 0 to 100 (I-L5), not {malus}.').format(malus=malus))
    return dex + vol + face - malus


def can_act(score: int) -> bool:
    """50 or less at initiative: nothing this turn (I-L7)."""
    return score > 50


class Initiative(msgspec.Struct, frozen=True, kw_only=True):
    name: str
    score: int
    acts: bool
    roll: Roll | None = None


def roll_initiative(dice: Dice, name: str, dex: int, vol: int, malus: int = 0) -> Initiative:
    r = dice.roll("1d100", purpose="initiative")
    score = initiative_score(dex, vol, r.total, malus)
    return Initiative(name=name, score=score, acts=can_act(score), roll=r)


def initiative_order(entries: Sequence[Initiative], *, unspotted_by: dict[str, set[str]] | None = None,
                     settings: IllerganSettings = DEFAULT) -> list[Initiative]:
    """Highest score first (I-L6); ties keep the given order (G32, the GM orders the entries).

    ``unspotted_by[attacker]`` names the creatures that have not spotted a stealthy attacker: he goes
    before each of them (I-L8). With ``stealth_ignores_le50_rule`` he also acts at 50 or less (A2).
    """
    order = sorted(entries, key=lambda e: -e.score)
    for attacker, unaware in (unspotted_by or {}).items():
        me = next((e for e in order if e.name == attacker), None)
        if me is None:
            raise RuleError(_('The stealthy attacker {attacker!r} did not roll initiative.').format(attacker=attacker))
        firsts = [i for i, e in enumerate(order) if e.name in unaware]
        pos = order.index(me)
        if firsts and firsts[0] < pos:
            order.pop(pos)
            order.insert(firsts[0], me)
        if settings.stealth_ignores_le50_rule and not me.acts:
            order[order.index(me)] = msgspec.structs.replace(me, acts=True)
    return order


# ---------------------------------------------------------------- turn budget (I-L241-265)

Slot = Literal["major", "minor", "skill", "extra_major"]

#: the refusal when a slot is spent (a whole sentence per slot, so each language says it its own way)
_NONE_LEFT: dict[str, str] = {
    "major": N_("No major action is left this turn (I-L241)."),
    "minor": N_("No minor action is left this turn (I-L241)."),
    "skill": N_("No skill action is left this turn (I-L241)."),
    "extra_major": N_("No extra major action is left this turn (I-L241)."),
}


class TurnBudget(msgspec.Struct, frozen=True, kw_only=True):
    """One turn: 1 major, 1 minor, 1 skill use (I-L241); extra majors from effects (I-L265)."""

    major: int = 1
    minor: int = 1
    skill: int = 1
    extra_major: int = 0
    spells_cast: int = 0
    amelioration_minor: bool = False
    magic_attacks: int = 0


def new_turn(owed_major: int = 0, owed_minor: int = 0) -> TurnBudget:
    """A fresh turn less the actions sacrificed in advance: acting in defence for an ally costs a major
    action (I-L552), a divine power used in defence a minor one (I-L605), a knock-down a major (I-L416)."""
    return TurnBudget(major=max(0, 1 - owed_major), minor=max(0, 1 - owed_minor))


def sacrifice(b: TurnBudget, slot: Literal["major", "minor"]) -> tuple[TurnBudget, int]:
    """Give up one action: this turn's if still unused (saved in advance, I-L552), else the next turn's.

    Returns the budget and how many such actions the next turn owes (0 or 1).
    """
    if getattr(b, slot) > 0:
        return msgspec.structs.replace(b, **{slot: getattr(b, slot) - 1}), 0
    return b, 1


def forgo_major(b: TurnBudget) -> TurnBudget:
    """No major action: two more minor actions (I-L243)."""
    if b.major != 1:
        raise RuleError(_('The major action is already used or forgone this turn.'))
    return msgspec.structs.replace(b, major=0, minor=b.minor + 2)


def use(b: TurnBudget, slot: Slot, *, spell: str | None = None) -> TurnBudget:
    """Spend one slot. ``spell`` is the spell class when the action casts a spell.

    A minor action may cast only an amélioration spell, and only if no other spell is cast that turn
    (I-L253); after it, the major action cannot be a magic attack (I-L262) except with an extra major
    action (I-L265). A second skill use costs the minor action (I-L248).
    """
    left = getattr(b, slot)
    if slot == "skill" and left == 0:
        return use(b, "minor")
    if left <= 0:
        raise RuleError(_(_NONE_LEFT[slot]))
    changes: dict[str, object] = {slot: left - 1}
    if spell is not None:
        if slot == "minor":
            if spell != "Amélioration":
                raise RuleError(_('Only an amélioration spell can be cast as a minor action (I-L253).'))
            if b.spells_cast:
                raise RuleError(_("An amélioration spell cast as a minor action must be the turn's only spell (I-L253)."))
            changes["amelioration_minor"] = True
        elif slot == "major" and b.amelioration_minor:
            raise RuleError(_('No magic attack as the major action after an amélioration spell as the minor action (I-L262).'))
        elif slot == "major" and b.magic_attacks and not b.extra_major:
            raise RuleError(_('A second magic attack needs an extra major action (I-L265).'))
        changes["spells_cast"] = b.spells_cast + 1
        if slot in ("major", "extra_major"):
            changes["magic_attacks"] = b.magic_attacks + 1
    return msgspec.structs.replace(b, **changes)


# ---------------------------------------------------------------- Adresse modifiers (I-L85-99)


def grip_malus(grip: Literal["one", "bastard", "two"], *, hands: int, preferred_hand: bool) -> int:
    """−40 Dex for a one-handed weapon off the preferred hand; a two-handed weapon in one hand:
    −40 in the preferred hand, −80 in the other (I-L87-89)."""
    match grip:
        case "one":
            return 0 if preferred_hand else -40
        case "bastard":
            return 0 if hands == 2 or preferred_hand else -40
        case "two":
            if hands == 2:
                return 0
            return -40 if preferred_hand else -80
    raise RuleError(_('Unknown grip {grip!r}.').format(grip=grip))


def range_malus(distance: float | Fraction, rng: tuple[float, float, float] | None, *, thrown_melee: bool = False) -> int:
    """−20 Dex beyond the optimal range, impossible below the minimum or above the maximum (I-L95-97);
    a pure melee weapon thrown: −40 Dex (I-L99), added to the range malus (A16)."""
    malus = -40 if thrown_melee else 0
    if rng is None:
        if thrown_melee:
            raise RuleError(_("The thrown ranges of melee weapons are not set in this campaign's content pack (Part D: G4)."))
        return malus
    low, opt, high = rng
    if distance < low or distance > high:
        raise RuleError(_('A shot at {distance} m is impossible: the range is {low} to {high} m (I-L95-97).').format(distance=distance, low=low, high=high))
    return malus - (20 if distance > opt else 0)


def effective_adresse(adresse: int, dex_maluses: Sequence[int], settings: IllerganSettings = DEFAULT) -> int:
    """Adresse after the Dex maluses of grip and range (A15: the same amount comes off the Adresse)."""
    return adresse + sum(dex_maluses) if settings.dex_malus_applies_to_adresse else adresse


# ---------------------------------------------------------------- the attack roll (I-L267-316)

HUMAN_LIMBS = frozenset({"bras gauche", "bras droit", "jambe gauche", "jambe droite"})


class Attack(msgspec.Struct, frozen=True, kw_only=True):
    face: int
    hit: bool
    critical: bool = False
    fumble: bool = False
    zone: str = ""  # "" until a critical's reroll; "choix" = the attacker picks (I-L315)
    rolls: tuple[Roll, ...] = ()


def _zone(face: int, rows: Sequence) -> str:
    for row in rows:
        if row.low <= face <= row.high:
            return row.zone
    raise RuleError(_('No hit zone covers the face {face}.').format(face=face))


def humanoid_zone(face: int, content: Content) -> str:
    """The zone for a Dé100 face on the humanoid table (I-L309-316)."""
    return _zone(face, content.pack.humanoid_zones)


def attack(face: int, adresse: int, content: Content, *, critical_ceiling: int = 2,
           settings: IllerganSettings = DEFAULT) -> Attack:
    """Hit iff Dé100 ≤ Adresse (I-L269); 01-02 critical, the zone then rerolled (I-L270, I-L308);
    99-100 critical failure, no zone (I-L271, I-L316). A12: 01-02 hit and 99-100 miss whatever the Adresse."""
    if face in (99, 100):
        return Attack(face=face, hit=False, fumble=True, zone="aucune")
    if face <= critical_ceiling:
        return Attack(face=face, hit=settings.crit01_02_auto_hit or face <= adresse, critical=True)
    hit = face <= adresse
    return Attack(face=face, hit=hit, zone=humanoid_zone(face, content) if hit else "")


def critical_zone(reroll: int, content: Content) -> str:
    """The new Dé100 after a critical: a pure location roll, no second critical (I-L308)."""
    zone = humanoid_zone(reroll, content)
    return "choix" if zone == "aucune" else zone  # A17: 99-100 on the reroll cannot fumble; the attacker picks


def roll_attack(dice: Dice, adresse: int, content: Content, *, critical_ceiling: int = 2,
                settings: IllerganSettings = DEFAULT) -> Attack:
    r = dice.roll("1d100", purpose="attack")
    a = attack(r.total, adresse, content, critical_ceiling=critical_ceiling, settings=settings)
    rolls: tuple[Roll, ...] = (r,)
    if a.critical and a.hit:
        z = dice.roll("1d100", purpose="hit location")
        a = msgspec.structs.replace(a, zone=critical_zone(z.total, content))
        rolls += (z,)
    return msgspec.structs.replace(a, rolls=rolls)


# ---------------------------------------------------------------- power dice and damage (I-L274-304)


def explode(faces: Sequence[int], sides: int) -> int:
    """Total of one semi-open die from its faces: a maximum rerolls and adds (I-L301-304)."""
    total = 0
    for i, f in enumerate(faces):
        total += f
        if f < sides:
            if i != len(faces) - 1:
                raise RuleError(_('A semi-open d{sides} stops at its first face below {sides}.').format(sides=sides))
            return total
    raise RuleError(_('A semi-open d{sides} that shows {sides} must be rolled again.').format(sides=sides))


def roll_power_die(dice: Dice, sides: int, purpose: str = "power die") -> Roll:
    """One semi-open die: every face is kept in the Roll (``1d6!`` notation)."""
    faces: list[int] = []
    while True:
        f = dice.roll(f"1d{sides}", purpose=purpose).total
        faces.append(f)
        if f < sides or sides == 1:
            break
    return Roll(expr=f"1d{sides}!", faces=tuple(faces), total=sum(faces), source=dice.source, purpose=purpose)


def roll_power_dice(dice: Dice, content: Content, *, rank: int, fp: int, count: int | None = None,
                    settings: IllerganSettings = DEFAULT) -> tuple[int, tuple[Roll, ...]]:
    """FP power dice (A10 sum of FP dice, or one die × FP); the player may roll fewer, down to 0 (I-L457)."""
    n = fp if count is None else count
    if not 0 <= n <= fp:
        raise RuleError(_('Between 0 and {fp} power dice can be rolled (I-L457), not {n}.').format(fp=fp, n=n))
    sides = content.power_die(rank)
    if settings.power_dice_mode == "fp_times_one_die":
        if n == 0:
            return 0, ()
        r = roll_power_die(dice, sides)
        return r.total * n, (r,)
    rolls = tuple(roll_power_die(dice, sides) for _ in range(n))
    return sum(r.total for r in rolls), rolls


def flat_of_weapon_fo(fo: int) -> Fraction:
    """Attacking with the flat of the weapon: Fo / 3, minimum 0.5, damage becomes contondant (I-L458)."""
    return max(Fraction(1, 2), Fraction(fo, 3))


def weapon_damage(fo: int | Fraction, power_total: int) -> int | Fraction:
    """[Force × 10] + [FP × Dé de puissance] (I-L274)."""
    v = Fraction(fo) * 10 + power_total
    return int(v) if v.denominator == 1 else v


def unarmed_damage(fo: int, fp: int, power_total: int | None = None, settings: IllerganSettings = DEFAULT) -> int:
    """Unarmed, contondant: [Force × 5] + [FP] (I-L290); A11 ``dice`` mode adds the FP dice instead."""
    if settings.unarmed_fp_mode == "dice":
        if power_total is None:
            raise RuleError(_('Unarmed damage in dice mode needs the power dice total.'))
        return fo * 5 + power_total
    return fo * 5 + fp


def crossbow_damage(weapon: Weapon, content: Content) -> int:
    """Crossbows deal fixed damage, with neither Fo nor power dice (I-L277)."""
    if weapon.fixed_damage is None:
        raise content.missing(_('The fixed damage of {name!r}').format(name=weapon.name), "G30 weapon statistics")
    return weapon.fixed_damage


def effective_sr(sr: int, *, critical: bool, damage_type: DamageType | None = None,
                 settings: IllerganSettings = DEFAULT) -> int | Fraction:
    """A critical ignores 10% of every SR (I-L505), an Impact (contondant) 10% more (I-L510, A36)."""
    if not critical:
        return sr
    ignored = 10 + (settings.impact_extra_sr_ignored_pct if damage_type == "C" else 0)
    return round_gap(Fraction(sr * (100 - ignored), 100), settings.sr_crit_rounding)


def zone_sr(armour: Armour, zone: str, damage_type: DamageType, content: Content) -> int:
    """The SR against a hit: the piece covering the zone, for the damage type (A14); the helmet has
    −10 SR, minimum 0 (I-L83)."""
    sr = getattr(armour.sr, damage_type)
    if zone in ("tête", "têtes"):
        return max(0, sr - (content.pack.helmet_sr_malus or 0))
    return sr


def pv_lost(damage: int | Fraction, sr: int | Fraction, rn: int) -> int:
    """[(Dégâts − SR), 0 if negative] then − RN %, rounded up (I-L279-281, I-L287)."""
    through = max(Fraction(0), Fraction(damage) - Fraction(sr))
    v = through * (100 - rn) / 100
    return -((-v.numerator) // v.denominator)


# ---------------------------------------------------------------- critical riders (I-L502-510)


class Rider(msgspec.Struct, frozen=True, kw_only=True):
    name: str
    turns: int = 0
    pv_per_turn: int = 0
    dex_malus: int = 0
    extra_sr_ignored_pct: int = 0


def critical_rider(damage_type: DamageType, *, attacker_fo: int, precise: bool = False, letalite: int | None = None,
                   settings: IllerganSettings = DEFAULT) -> Rider:
    """Hémorragie (P), Handicap (T) or Impact (C) for a physical critical (I-L506-510)."""
    match damage_type:
        case "P":
            if precise:
                if letalite is None:
                    raise RuleError(_("A 'coup précis' hémorragie needs the weapon's Létalité (Part D: G29)."))
                return Rider(name="Hémorragie", turns=3, pv_per_turn=2 * letalite)
            return Rider(name="Hémorragie", turns=3, pv_per_turn=attacker_fo)
        case "T":
            return Rider(name="Handicap", turns=3, dex_malus=2 * attacker_fo)
        case "C":
            return Rider(name="Impact", extra_sr_ignored_pct=settings.impact_extra_sr_ignored_pct)
    raise RuleError(_('Unknown damage type {damage_type!r}; use P, T or C.').format(damage_type=damage_type))


CRITICAL_DEFENCE_MALUS = 40  # I-L504: −40 to parry, block and dodge
PHYSICAL_DEFENCES = frozenset({"esquive", "parade", "blocage", "vivacite_elfique"})  # I-L547


def defence_threshold(pct: int, kind: str, *, critical: bool) -> int:
    """The defence roll's threshold: a critical attack gives −40 to the physical defences (I-L504)."""
    return pct - CRITICAL_DEFENCE_MALUS if critical and kind in PHYSICAL_DEFENCES else pct


def rider_turns(hit_turn: int, rider: Rider) -> tuple[int, int]:
    """A rider's 3 turns are the victim's next three fight turns (I-L507-509, A37)."""
    return hit_turn + 1, hit_turn + rider.turns


def can_knock_down(attacker_vit: int, target_vit: int, *, quadruped: bool) -> None:
    """A physical action cannot knock down a biped of more than 4 × the attacker's Vitalité, nor a
    quadruped (or more legs) of more than his Vitalité (I-L416)."""
    if quadruped and target_vit > attacker_vit:
        raise RuleError(_('A creature on four legs or more with {target_vit} Vit cannot be knocked down by a physical action of {attacker_vit} Vit (I-L416).').format(target_vit=target_vit, attacker_vit=attacker_vit))
    if not quadruped and target_vit > 4 * attacker_vit:
        raise RuleError(_('A biped with {target_vit} Vit cannot be knocked down by a physical action of {attacker_vit} Vit: more than 4 × {attacker_vit} (I-L416).').format(target_vit=target_vit, attacker_vit=attacker_vit))


# ---------------------------------------------------------------- blocks and objects (I-L273, I-L407-409, I-L439)


class BlockResult(msgspec.Struct, frozen=True, kw_only=True):
    ps_lost: int
    ps_after: int
    destroyed: bool
    to_character: int | Fraction  # damage that goes on to the character (then his armour's SR and RN)


def block(damage: int | Fraction, *, shield_sr: int | Fraction, shield_ps: int,
          settings: IllerganSettings = DEFAULT) -> BlockResult:
    """A successful block still leads to the damage (I-L273). A13, by analogy with the magic block (I-L439):
    the shield's SR comes off, the rest off its PS (rounded up like a PV loss, I-L281); a shield brought
    to 0 PS is destroyed and what its PS could not take goes on to the character. With
    ``block_damage=shield_sr`` only the shield's SR comes off and the rest goes to the character."""
    through = max(Fraction(0), Fraction(damage) - Fraction(shield_sr))
    if settings.block_damage == "shield_sr":
        return BlockResult(ps_lost=0, ps_after=shield_ps, destroyed=False, to_character=plain_fraction(through))
    to_shield = -((-through.numerator) // through.denominator)
    if to_shield < shield_ps:
        return BlockResult(ps_lost=to_shield, ps_after=shield_ps - to_shield, destroyed=False, to_character=0)
    return BlockResult(ps_lost=shield_ps, ps_after=0, destroyed=True,
                       to_character=plain_fraction(through - shield_ps))


def break_object(damage: int | Fraction, *, sr: int, ps: int) -> BlockResult:
    """An object loses [damage − SR] PS (I-L407-409), rounded up; broken at 0 PS."""
    through = max(Fraction(0), Fraction(damage) - sr)
    lost = min(ps, -((-through.numerator) // through.denominator))
    return BlockResult(ps_lost=lost, ps_after=ps - lost, destroyed=ps - lost <= 0, to_character=0)


def plain_fraction(v: Fraction) -> int | Fraction:
    return int(v) if v.denominator == 1 else v


ARMS = ("bras gauche", "bras droit")


def hands_free(limbs_lost: Sequence[str], *, weapon: bool, hands: int) -> int:
    """The arms left hold the weapon: none left, no weapon; one left, no two-handed hold (I-L318)."""
    left = sum(1 for arm in ARMS if arm not in limbs_lost)
    if weapon and left == 0:
        raise RuleError(_('Both arms are lost: no weapon can be wielded (I-L318).'))
    if weapon and hands > left:
        raise RuleError(_('Only {left} arm is left: the weapon cannot be held in {hands} hands (I-L318).').format(left=left, hands=hands))
    return left


# ---------------------------------------------------------------- PV, limbs, death, destiny (I-L318, I-L376-378)


class Wound(msgspec.Struct, frozen=True, kw_only=True):
    pv_before: int
    pv_lost: int
    pv_after: int
    limb_lost: str = ""
    dead: bool = False
    destiny_can_cancel: bool = False


def is_limb(zone: str) -> bool:
    """Arms and legs, and a non-humanoid's limbs (A45: not wings, tails or heads)."""
    return zone in HUMAN_LIMBS or zone.startswith("membres")


def lost_limb_zone(zone: str, limbs_lost: Sequence[str], settings: IllerganSettings = DEFAULT) -> str:
    """A limb lost cannot be lost again (I-L318): a hit on it goes to the trunk (by I-L634), or with
    ``lost_limb_hit=none`` touches nothing."""
    if zone not in limbs_lost:
        return zone
    return "tronc" if settings.lost_limb_hit == "trunk" else "aucune"


def apply_pv_loss(pv: int, lost: int, zone: str = "", *, destiny_points: int = 0) -> Wound:
    """Death below 0 PV; a limb hit that would kill leaves 0 PV and loses the limb (I-L318).

    A destiny point can cancel the cause when it is certain to bring the character below 0 PV (I-L377)
    or to cost a limb (I-L318); spend it with :func:`spend_destiny_point` instead of applying the loss.
    """
    after = pv - lost
    if after >= 0:
        return Wound(pv_before=pv, pv_lost=lost, pv_after=after)
    can = destiny_points > 0
    if is_limb(zone):
        return Wound(pv_before=pv, pv_lost=pv, pv_after=0, limb_lost=zone, destiny_can_cancel=can)
    return Wound(pv_before=pv, pv_lost=lost, pv_after=after, dead=True, destiny_can_cancel=can)


def spend_destiny_point(points: int) -> int:
    """Cancel the cause of a death or a limb loss: the GM rewrites it, no damage is taken (I-L377-378)."""
    if points <= 0:
        raise RuleError(_('The character has no destiny point left (I-L377).'))
    return points - 1


# ---------------------------------------------------------------- defences (I-L542-554)

Defence = Literal["esquive", "parade", "blocage", "vivacite_elfique", "magique"]


class DefenceBudget(msgspec.Struct, frozen=True, kw_only=True):
    """Per turn: one block, one magic defence and either one parry or one dodge (I-L543);
    Vivacité elfique takes the dodge slot (A35)."""

    block: int = 1
    magic: int = 1
    parry_or_dodge: int = 1


_DEFENCE_SLOT = {"esquive": "parry_or_dodge", "parade": "parry_or_dodge", "vivacite_elfique": "parry_or_dodge",
                 "blocage": "block", "magique": "magic"}


def use_defence(b: DefenceBudget, kind: Defence, *, against_magic: bool = False) -> DefenceBudget:
    """Spend a defence; magic damage can only be blocked, never dodged or parried (I-L439)."""
    if against_magic and kind in ("esquive", "parade", "vivacite_elfique"):
        raise RuleError(_('Magic damage cannot be dodged or parried, only blocked (I-L439).'))
    slot = _DEFENCE_SLOT[kind]
    if getattr(b, slot) <= 0:
        raise RuleError(_('The {kind} defence is already used this turn (I-L543).').format(kind=kind))
    return msgspec.structs.replace(b, **{slot: getattr(b, slot) - 1})


# ---------------------------------------------------------------- flight (I-L556-566)

U_TURN_EXTRA_M = 2  # I-L564


def flight_speeds(dep: int, sprint: int) -> tuple[int, int]:
    """Dep and Sprint double in flight (I-L560-561)."""
    return 2 * dep, 2 * sprint


def takeoff(face: int, dex_pure: int, remaining_m: int | Fraction) -> tuple[bool, int | Fraction]:
    """A pure Dex roll (equipment maluses ignored) costs a minor action either way; success doubles the
    remaining movement (I-L558). Returns (success, remaining movement)."""
    if remaining_m <= 0:
        raise RuleError(_('Taking off needs some movement left this turn (I-L558).'))
    ok = skill_check(face, dex_pure).success  # 01-02 succeed, 99-100 fail (I-L497-502)
    return ok, (2 * remaining_m if ok else remaining_m)


def passengers_allowed(fo: int, passenger_vits: Sequence[int]) -> bool:
    """Passengers whose Vitalités sum to at most [6 × Fo] (I-L566)."""
    return sum(passenger_vits) <= 6 * fo
