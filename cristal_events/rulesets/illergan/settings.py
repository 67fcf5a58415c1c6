"""Campaign switches for the Illergan rules (catalogue Part F, defaults from Part E).

The seed text (I-L<n>) leaves many readings open. Each open reading is one field here, with the
default a game master would expect; ``docs/rulings.md`` (section "Illergan (Dé100)") explains each.
Rounding modes beyond the two the text states (PV loss rounds up, I-L281; concentration minutes to
turns round down, I-L494) are switches too.
"""

from fractions import Fraction
from typing import Literal

import msgspec

import cristal_events.rounding as rounding

GapRounding = Literal["none", "floor", "ceil", "round", "truncate"]


class IllerganSettings(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Every open reading of the Illergan text, as a campaign setting (Part F)."""

    # A1 (I-L7): roll initiative again at every turn.
    initiative_reroll_each_turn: bool = True
    # A2 (I-L8): a stealthy attacker who scores 50 or less still acts.
    stealth_ignores_le50_rule: bool = False
    # A3 (I-L11, I-L161): hearing / smell ranges never exceed the cast range [5 + E].
    sense_range_capped_by_cast_range: bool = True
    # A4 (I-L17): a counter-effect still spends the spell's PM.
    pm_spent_on_counter_effect: bool = False
    # A5 (I-L17, I-L113): whispering is +100% in the additive sum (False: a separate x2).
    whisper_is_additive_pct: bool = True
    # A6 (I-L525): the level that sets the critical and counter-effect thresholds.
    spell_threshold_level_source: Literal["magic", "cast"] = "magic"
    # A10 (I-L274, I-L294): roll FP power dice and sum them, or one die times FP.
    power_dice_mode: Literal["sum_fp_dice", "fp_times_one_die"] = "sum_fp_dice"
    # A11 (I-L290): unarmed damage adds FP flat, or FP power dice.
    unarmed_fp_mode: Literal["flat", "dice"] = "flat"
    # A12 (I-L270-271): 01-02 always hit and 99-100 always miss, whatever the Adresse.
    crit01_02_auto_hit: bool = True
    # A15 (I-L87-99): grip and range Dex maluses come off the Adresse too.
    dex_malus_applies_to_adresse: bool = True
    # A19 (I-L647-648): a roll of 60 on the non-humanoid table hits the tails (or the trunk).
    nonhumanoid_roll60: Literal["tail", "trunk"] = "tail"
    # A21 (I-L404): the thrown object's offset is |50 - d100| / 10 m.
    throw_offset_abs: bool = True
    # A25 (I-L126-129): rounding and inputs of the alcohol thresholds.
    alc_threshold_rounding: GapRounding = "none"
    alc_threshold_inputs: Literal["base", "modified"] = "base"
    # A26 (I-L138): the first event die is rolled at the Gaieté threshold G (or at G + 3).
    alc_event_anchor: Literal["G", "G+3"] = "G"
    # A23 (I-L124): the background Alc minimum counts toward the event-die shift.
    alc_shift_counts_background: bool = False
    # A28 (I-L159): rounding of the coma length [Alc/5] h.
    coma_hours_rounding: GapRounding = "none"
    # A30 (I-L428): rounding of fall damage.
    fall_pv_rounding: GapRounding = "ceil"
    # A31 (I-L437): rounding of magic damage after the Volonté reduction.
    magic_dmg_rounding: GapRounding = "ceil"
    # A36 (I-L505): rounding of an SR reduced by a critical hit.
    sr_crit_rounding: GapRounding = "round"
    # A36 (I-L510): extra SR share ignored by an Impact (contondant) critical, in %.
    impact_extra_sr_ignored_pct: int = 10
    # A29 (I-L413): smallest blindness divisor, and rounding of the divided threshold.
    blind_divisor_min: int = 1
    blind_threshold_rounding: GapRounding = "floor"
    # A38 (I-L571): "avoir dépassé ce niveau" means > 2 (gt2) or >= 2 (ge2); level when not met.
    cult_change_condition: Literal["gt2", "ge2"] = "gt2"
    cult_change_fallback_level: int = 1
    # A40 (I-L597): which faith points a divine power spends first.
    pfb_spend_order: Literal["player", "pf_first", "pfb_first"] = "player"
    # I-L531: PF come back at the cult's Harmonisation hour only, or at any new day (a table simplification).
    faith_renewal: Literal["harmonisation", "new_day"] = "harmonisation"
    # I19 (I-L190-191, I-L479): the text states no natural recovery; True lets a rest give back the PV / PM
    # the game master rules (``recover --source repos``), False leaves potions, healing and destiny points only.
    rest_recovers: bool = True
    # I-L45: a hero may end up encumbered (the penalty has no numbers, G2); False refuses the change instead.
    allow_encumbrance: bool = False
    # A34 (I-L543): the window of the per-turn defence limits.
    defence_window: Literal["round", "own_turn_to_turn"] = "own_turn_to_turn"
    # G35 roundings of the spell cost, the critical refund, lockpicking and resale.
    pm_cost_rounding: GapRounding = "ceil"
    pm_refund_rounding: GapRounding = "floor"
    pm_refund_capped_at_max: bool = True
    lockpick_rounding: GapRounding = "floor"
    resale_rounding: GapRounding = "floor"
    # MAG-2 (I-L110-117): a class with two incantation types needs both usable ("all": the text's "doit"),
    # or either one ("any").
    incantation_needs: Literal["all", "any"] = "all"
    # MAG-5 (I-L207): out of combat 1 pp every 3 casts; False = casts out of combat give no pp at all.
    pp_out_of_combat: bool = True
    # G32 / I-L237: the highest magic level.
    max_magic_level: int = 10
    # --- combat (issue 17 items 2-6, 16) ---
    # A13 (I-L273, I-L439): what a successful block does to physical damage: the shield's SR, then the rest
    # off its PS, the overflow of a broken shield to the character ("shield_ps"); or only the shield's SR
    # subtracted and the rest to the character, the shield unharmed ("shield_sr").
    block_damage: Literal["shield_ps", "shield_sr"] = "shield_ps"
    # I-L318, I-L634: a hit on a limb already lost goes to the trunk ("trunk") or touches nothing ("none").
    lost_limb_hit: Literal["trunk", "none"] = "trunk"
    # I-L507-509 (A37): the critical's Hémorragie still owed when the fight ends is lost at once ("at_end")
    # or dropped with the fight ("drop").
    riders_at_fight_end: Literal["at_end", "drop"] = "at_end"


DEFAULT = IllerganSettings()


def round_gap(value: int | Fraction, mode: GapRounding) -> int | Fraction:
    """Round ``value`` with one of the GAP rounding modes (``none`` keeps the exact fraction).

    >>> round_gap(Fraction(35, 2), "floor"), round_gap(Fraction(35, 2), "ceil"), round_gap(Fraction(35, 2), "round")
    (17, 18, 18)
    """
    v = Fraction(value)
    match mode:
        case "none":
            return v if v.denominator != 1 else int(v)
        case "floor":
            return v.numerator // v.denominator
        case "ceil":
            return -((-v.numerator) // v.denominator)
        case "round" | "truncate":
            return rounding.apply(v, mode)
    raise ValueError(f"unknown rounding mode {mode!r}")
