"""Magic of Les Lois du Cristal (seed 000, L929-L1193): given the book's numbers, the rules give the book's results."""

from __future__ import annotations

import pytest

from cristal_events.dice import Dice
from cristal_events.errors import RuleError, UnknownEntity
from cristal_events.rulesets.cristal import crystals as cr
from cristal_events.rulesets.cristal import magic as m

DISTANCE = m.VariableEffect(name="Distance", scale="5", unit="Mètres", reduction=0)  # L998, L1059
DOMMAGE = m.VariableEffect(name="Dommage", scale="[1d6/2]", unit="DMG", reduction=2)  # L1059, L1067


def rayon(distance_pm: int = 3, dommage_pm: int = 8) -> list[m.EffectSpend]:
    return [m.EffectSpend(effect=DISTANCE, pm=distance_pm), m.EffectSpend(effect=DOMMAGE, pm=dommage_pm)]


# --------------------------------------------------------------------------- TV-14 scales

@pytest.mark.parametrize(
    ("scale", "pm", "amount"),
    [
        ("5", 3, "15"),  # L1006: 3 PM on 5 m -> 15 m
        ("[1d6]", 1, "1d6"),  # L1006: one d6 per PM
        ("[1d6]", 3, "3d6"),
        ("[1/4]", 4, "1"),  # L1006: 4 PM per unit
        ("[(1d6) /3]", 3, "1d6"),  # L1006
        ("[(1d6) /3]", 6, "2d6"),
        ("[(1d6) /3]", 9, "3d6"),
        ("[(1d6) /3]", 12, "4d6"),
        ("[1d6/4]", 4, "1d6"),  # L991: 4 PM for [1d6] DMG
        ("[1d6/2]", 8, "4d6"),  # L1059: 8 PM -> [4d6]
    ],
    ids=["distance-15m", "d6-1pm", "d6-3pm", "quarter-4pm", "d6-third-3", "d6-third-6", "d6-third-9",
         "d6-third-12", "d6-quarter-L991", "rayon-8pm"],
)
def test_effect_scale(scale, pm, amount):
    assert m.effect_outcome(m.VariableEffect(name="x", scale=scale), pm).amount == amount


@pytest.mark.parametrize(
    ("scale", "pm", "message"),
    [
        ("5", 0, "The effect x needs at least 1 PM (got 0); no effect may be left at 0 PM."),  # L993
        ("5", -1, "The effect x needs at least 1 PM (got -1); no effect may be left at 0 PM."),  # L993
        ("[(1d6) /3]", 4, "The effect x takes PM in multiples of 3 (got 4)."),  # L1006
    ],
    ids=["zero-pm", "negative-pm", "not-a-multiple"],
)
def test_allocation_refused(scale, pm, message):
    with pytest.raises(RuleError) as err:
        m.spell_pm_cost(0, [m.EffectSpend(effect=m.VariableEffect(name="x", scale=scale), pm=pm)])
    assert str(err.value) == message


def test_pm_max_caps_base_plus_effects():
    # L1018: base + variable PM never exceed PM MAX.
    assert m.spell_pm_cost(0, rayon(), pm_max=11) == 11
    with pytest.raises(RuleError, match="The spell costs 11 PM, above its PM MAX of 10."):
        m.spell_pm_cost(0, rayon(), pm_max=10)


# --------------------------------------------------------------------------- TV-15 Xar and Taz

def test_xar_casts_rayon_magique_at_taz():
    spends = rayon()
    outcomes = m.reduce_effects(spends, target_dm=0)
    assert outcomes[0].amount == "15"  # L1059: 3 PM -> 15 m
    assert outcomes[1].amount == "4d6"  # L1059: 8 PM -> [4d6]
    cast = m.cast_spell(caster_pm=15, caster_cnc=4, base_pm=0, spell_cnc=7, spends=spends, die=8)
    assert cast.pm_cost == 11  # L1061
    assert cast.pm_after == 4  # L1063
    assert cast.concentration.total == 12 and cast.success  # L1065: 4 + 8 = 12 >= 7
    assert cast.pv_damage == 0
    distance, dommage = m.reduce_effects(spends, target_dm=3)  # L1067: Taz DM 3
    assert (distance.pm_after, distance.amount) == (3, "15")  # range never reduced (L1026)
    assert (dommage.pm_after, dommage.amount) == (2, "1d6")  # 8 - 3*2 = 2 PM -> [1d6]
    roll = m.roll_effect(Dice.entered([5]), dommage)
    assert roll is not None and (roll.faces, roll.total) == ((5,), 5)  # L1069: Taz takes [1d6]


@pytest.mark.parametrize(
    ("dm", "lowered", "pm_after", "amount", "absorbed"),
    [
        (4, None, 0, "0", True),  # 8 - 4*2 = 0: fully absorbed (L1032)
        (3, 0, 8, "4d6", False),  # the target lowers its DM to 0 (L1036)
        (3, 1, 6, "3d6", False),  # ... or to any value up to its DM
        (2, None, 4, "2d6", False),
    ],
    ids=["dm4-absorbed", "dm-lowered-to-0", "dm-lowered-to-1", "dm2"],
)
def test_dm_reduction(dm, lowered, pm_after, amount, absorbed):
    _, dommage = m.reduce_effects(rayon(), target_dm=dm, lowered_dm=lowered)
    assert (dommage.pm_after, dommage.amount, dommage.absorbed) == (pm_after, amount, absorbed)


def test_dm_cannot_be_raised_voluntarily():
    with pytest.raises(RuleError, match="A target may lower its DM to between 0 and 3, not 4."):
        m.reduce_effects(rayon(), target_dm=3, lowered_dm=4)


def test_odd_pm_left_by_the_dm_buys_whole_steps_only():
    # 8 PM in [1d6/2] with Réduction 1 against DM 3: 8 - 3 = 5 PM -> two whole steps, [2d6];
    # the odd PM is lost (ruling on partial steps).
    soft = m.VariableEffect(name="Dommage", scale="[1d6/2]", unit="DMG", reduction=1)
    (dommage,) = m.reduce_effects([m.EffectSpend(effect=soft, pm=8)], target_dm=3)
    assert (dommage.pm_after, dommage.steps, dommage.amount) == (5, 2, "2d6")


# --------------------------------------------------------------------------- concentration

@pytest.mark.parametrize(
    ("cnc", "die", "spell_cnc", "situations", "alignment", "total", "success"),
    [
        (4, 8, 7, (), 0, 12, True),  # L1065
        (4, 2, 7, (), 0, 6, False),  # L1022: below the spell's CNC
        (4, 3, 7, (), 0, 7, True),  # ">=": equal succeeds (L1020)
        (7, 1, 7, (), 0, 8, True),  # CNC >= spell CNC always succeeds (L1020)
        (4, 8, 7, ("armure_rigide",), 0, 10, True),  # L944: -2
        (4, 8, 7, ("armure_rigide", "armure_lourde"), 0, 8, True),  # armour rows do not stack: -4 (D20)
        (4, 8, 7, ("main_occupee", "pieds_lies"), 0, 6, False),  # L946 + L947 stack: -6
        (4, 8, 7, ("main_occupee", "mains_liees"), 0, 4, False),  # hands rows do not stack: -8 (D20)
        (4, 8, 7, ("baillonne", "baillonne"), 0, 2, False),  # the gag row counts once (L949-L950)
        (4, 8, 7, (), -3, 9, True),  # alignment penalty lowers the CNC total (L1415)
        (4, 8, 7, (), 3, 9, True),  # its size is subtracted whatever its sign (D4)
    ],
    ids=["xar", "fail", "equal", "sure", "rigid-armour", "armours-exclusive", "hand-and-feet",
         "hands-exclusive", "gag-once", "alignment-neg", "alignment-pos"],
)
def test_concentration(cnc, die, spell_cnc, situations, alignment, total, success):
    check = m.concentration(cnc, die, spell_cnc, situations=situations, alignment_penalty=alignment)
    assert (check.total, check.success) == (total, success)


def test_cnc_penalty_table_values():
    # L944-L950
    assert [m.cnc_penalty([k]) for k in
            ("armure_rigide", "armure_lourde", "main_occupee", "pieds_lies", "mains_liees", "baillonne")] == \
        [-2, -4, -2, -4, -8, -10]
    with pytest.raises(UnknownEntity, match="Unknown CNC situation 'nu'"):
        m.cnc_penalty(["nu"])


def test_failed_cast_still_spends_the_pm():
    # L1022: no effect, but every PM set aside is lost.
    cast = m.cast_spell(caster_pm=15, caster_cnc=4, base_pm=0, spell_cnc=7, spends=rayon(), dice=Dice.entered([2]))
    assert (cast.success, cast.pm_after, cast.concentration.roll.faces) == (False, 4, (2,))


def test_predefined_spell_skips_allocation():
    # L976, L1050: pay the predefined total, roll CNC.
    cast = m.cast_spell(caster_pm=10, caster_cnc=4, base_pm=0, spell_cnc=7, predefined_pm=6, die=3)
    assert (cast.pm_cost, cast.pm_after, cast.success) == (6, 4, True)


def test_race_without_pm_cannot_cast():
    # L493: PM initial 0 means no magic at all (D6c).
    with pytest.raises(RuleError, match="PM initial 0"):
        m.cast_spell(caster_pm=0, caster_cnc=0, base_pm=0, spell_cnc=7, spends=rayon(), die=8, magic_capable=False)


# --------------------------------------------------------------------------- TV-27 overdraw

def test_pm_overdraw_costs_two_pv_per_pm():
    # L379: 1 PM contre 2 PV. A mage with 3 PM casts an 11-PM spell: PM 0, 16 PV of damage.
    assert m.pm_overdraw(3, 11) == m.Overdraw(pm_after=0, overdrawn_pm=8, pv_damage=16)
    cast = m.cast_spell(caster_pm=3, caster_cnc=4, base_pm=0, spell_cnc=7, spends=rayon(), die=8)
    assert (cast.pm_after, cast.pv_damage) == (0, 16)
    assert m.pm_overdraw(15, 11) == m.Overdraw(pm_after=4, overdrawn_pm=0, pv_damage=0)


def test_overdraw_can_be_forbidden_by_the_gm():
    # L1045 "le mage doit avoir suffisamment de PM" (D6).
    with pytest.raises(RuleError, match="The spell costs 11 PM and the caster has only 3."):
        m.cast_spell(caster_pm=3, caster_cnc=4, base_pm=0, spell_cnc=7, spends=rayon(), die=8, allow_overdraw=False)


# --------------------------------------------------------------------------- deconcentration (D5)

@pytest.mark.parametrize(
    ("damage", "time", "expected"),
    [
        (5, 10, False),  # margin 12 - 7 = 5: damage must exceed it (L972)
        (6, 10, True),
        (99, "INSTANTANÉ", False),  # L966: an instantaneous spell cannot be deconcentrated
        (99, "SIMULTANÉ", False),
    ],
    ids=["equal-margin", "above-margin", "instantane", "simultane"],
)
def test_deconcentration(damage, time, expected):
    check = m.concentration(4, 8, 7)
    assert m.deconcentrates(damage, check, time) is expected


# --------------------------------------------------------------------------- incantation and combustion

@pytest.mark.parametrize(
    ("time", "cnc", "mode", "kwargs", "incantation", "combustion"),
    [
        (10, 16, "round", {}, 10, 8),  # Boule de Feu: L1306, L1313
        (10, 16, "truncate", {}, 10, 8),
        ("12 secondes", 7, "round", {}, 12, 4),  # 7/2 = 3.5 -> 4 (L1271, D1)
        ("12 secondes", 7, "truncate", {}, 12, 3),  # -> 3
        ("INSTANTANÉ", 5, "round", {}, 0, 3),  # Libération: combustion still applies (L1271): 2.5 -> 3
        ("INSTANTANÉ", 5, "truncate", {}, 0, 2),
        ("SIMULTANÉ", 12, "round", {"accompanying_seconds": 14}, 0, 14),  # replaced by the action (L1271, D23)
        ("1 minute (60 secondes)", 16, "round", {}, 60, 8),  # Verrou Cristallin (L1132)
        (10, 16, "round", {"success": False}, 10, 0),  # failed: incantation only (L1284)
    ],
    ids=["boule-round", "boule-trunc", "odd-round", "odd-trunc", "instant-round", "instant-trunc",
         "simultane", "verrou-minute", "failed"],
)
def test_spell_durations(time, cnc, mode, kwargs, incantation, combustion):
    d = m.spell_durations(time, cnc, mode, **kwargs)
    assert (d.incantation, d.combustion) == (incantation, combustion)


def test_simultane_needs_its_accompanying_action():
    with pytest.raises(RuleError, match="SIMULTANÉ"):
        m.spell_durations("SIMULTANÉ", 12, "round")


# --------------------------------------------------------------------------- TV-16 crystals (D12)

@pytest.mark.parametrize(
    ("capacity", "price", "size"),
    [(0, 500, 5), (9, 500, 5), (10, 1500, 10), (19, 1500, 10), (20, 6000, 15), (29, 6000, 15),
     (30, 30000, 20), (40, 180000, 25), (49, 180000, 25), (50, None, None), (120, None, None)],
    ids=["0", "9", "10", "19", "20", "29", "30", "40", "49", "50-special", "120-special"],
)
def test_crystal_band(capacity, price, size):
    band = cr.crystal_band(capacity)  # L1084-L1089
    assert (band.price_po, band.size_cm3) == (price, size)


@pytest.mark.parametrize(
    ("key", "xp", "cnc", "base", "time"),
    [
        ("liberation_cristalline", 30, 5, 2, "INSTANTANÉ"),  # L1099-L1102
        ("fermeture_cristalline", 200, 12, 3, "SIMULTANÉ"),  # L1109-L1112
        ("vision_cristalline", 100, 8, 1, "20 secondes"),  # L1119-L1122
        ("verrou_cristallin", 500, 16, 5, "1 minute (60 secondes)"),  # L1129-L1132
        ("detection_magique", 25, 4, 1, "4 secondes"),  # L1151-L1154
        ("analyse_magique", 100, 8, 2, "12 secondes"),  # L1161-L1164
    ],
    ids=["liberation", "fermeture", "vision", "verrou", "detection", "analyse"],
)
def test_crystal_and_artefact_spell_fields(key, xp, cnc, base, time):
    s = cr.crystal_spell(key)
    assert (s.xp_cost, s.cnc, s.base_pm, s.time) == (xp, cnc, base, time)


@pytest.mark.parametrize(("stored", "cost"), [(1, 4), (6, 4), (7, 5), (11, 5), (12, 5), (13, 6)],
                         ids=["1", "6", "7", "11-rayon", "12", "13"])
def test_fermeture_cost_per_started_slice_of_six(stored, cost):
    assert cr.fermeture_pm(stored) == cost  # L1115: 3 base + 1 PM per slice of 6 (ceil, D12)


RAYON_STORED = cr.StoredSpell(name="Rayon Magique", pm=11, spends=tuple(rayon()))


def test_store_release_and_lock_cycle():
    crystal = cr.Crystal(capacity=15)
    stored = cr.store_in_crystal(crystal, RAYON_STORED, spell_success=True, fermeture_success=True)
    assert stored.outcome == "stored" and stored.crystal.stored == RAYON_STORED
    assert cr.vision_cristalline(stored.crystal) == RAYON_STORED  # L1125
    with pytest.raises(RuleError, match="release it before storing another spell"):  # L1091
        cr.store_in_crystal(stored.crystal, RAYON_STORED, spell_success=True, fermeture_success=True)
    locked = cr.lock_crystal(stored.crystal, "Xar")
    with pytest.raises(RuleError, match="Vision Cristalline cannot see through a Verrou Cristallin."):  # L1135
        cr.vision_cristalline(locked)
    with pytest.raises(RuleError, match="The crystal is locked by Xar; only they can release it."):
        cr.release_crystal(locked, "Taz")
    emptied, spell = cr.release_crystal(locked, "Xar")  # L1105: effects as encapsulated
    assert spell.spends == tuple(rayon()) and emptied.stored is None and emptied.locked_by is None


@pytest.mark.parametrize(("spell_ok", "fermeture_ok"), [(False, True), (True, False), (False, False)],
                         ids=["spell-failed", "fermeture-failed", "both-failed"])
def test_store_fails_unless_both_spells_succeed(spell_ok, fermeture_ok):
    result = cr.store_in_crystal(cr.Crystal(capacity=15), RAYON_STORED, spell_success=spell_ok,
                                fermeture_success=fermeture_ok)  # L1077, L1115
    assert result.outcome == "failed" and result.crystal.stored is None


def test_over_capacity_explodes_1d4_per_pm_within_6m():
    # L1093; TV-16: an 11-PM Rayon Magique into a 9-PM crystal -> 11d4 within 6 m.
    result = cr.store_in_crystal(cr.Crystal(capacity=9), RAYON_STORED, spell_success=True, fermeture_success=True)
    assert result.outcome == "exploded" and result.crystal.destroyed
    assert (result.explosion.radius_m, result.explosion.expr) == (6, "11d4")
    blast = cr.roll_explosion(Dice.entered([1, 2, 3, 4] * 2 + [1, 2, 3]), result.explosion)
    assert blast.roll.total == 26 and len(blast.roll.faces) == 11


def test_a_spell_at_exact_capacity_fits():
    # L923: the spell's PM may not exceed the crystal's maximum; equal is fine.
    result = cr.store_in_crystal(cr.Crystal(capacity=11), RAYON_STORED, spell_success=True, fermeture_success=True)
    assert result.outcome == "stored"


# --------------------------------------------------------------------------- TV-17 artefacts (D36)

@pytest.mark.parametrize(("mag", "cost"), [(1, 6), (2, 10), (5, 22)], ids=["mag1", "mag2-L1167", "mag5"])
def test_analyse_magique_cost(mag, cost):
    assert cr.analyse_cost(mag) == cost  # L1167: 2 base + 4 per MAG


@pytest.mark.parametrize(
    ("mag", "magie_pm", "cnc_ok", "understood", "spent"),
    [(2, 8, True, True, 10), (2, 4, True, False, 6), (2, 8, False, False, 10), (1, 8, True, True, 10)],
    ids=["mag2-enough", "underfunded", "cnc-failed", "overfunded"],
)
def test_analyse_magique(mag, magie_pm, cnc_ok, understood, spent):
    result = cr.analyse_magique(mag, magie_pm, concentration_success=cnc_ok)
    assert (result.understood, result.pm_spent) == (understood, spent)


def test_analyse_magique_takes_pm_by_fours():
    with pytest.raises(RuleError, match="multiples of 4"):
        cr.analyse_magique(2, 6)


@pytest.mark.parametrize(("mag", "detected"), [(0, None), (2, 2), (3, 3)], ids=["mundane", "mag2", "mag3"])
def test_detection_magique(mag, detected):
    assert cr.detect_magic(mag) == detected  # L1137, L1157


# --------------------------------------------------------------------------- TV-18 potions

@pytest.mark.parametrize("trigger", ["ingestion", "contact", "ouverture"])
def test_potion_triggers(trigger):
    potion = cr.make_potion(cr.StoredSpell(name="Rayon", pm=15), trigger)  # L1173-L1175; 15 PM is the max (L1184)
    other = next(t for t in ("ingestion", "contact", "ouverture") if t != trigger)
    assert cr.trigger_potion(potion, other, "Taz") is None
    release = cr.trigger_potion(potion, trigger, "Taz")
    assert release.target == "Taz" and release.spell.pm == 15 and release.potion.used  # L1177
    with pytest.raises(RuleError, match="already used"):  # L1181: single use
        cr.trigger_potion(release.potion, trigger, "Taz")


def test_potion_holds_at_most_15_pm():
    with pytest.raises(RuleError, match="A potion holds at most 15 PM; Rayon has 16."):  # L1184
        cr.make_potion(cr.StoredSpell(name="Rayon", pm=16), "contact")
    with pytest.raises(RuleError, match="not 'jet'"):
        cr.make_potion(cr.StoredSpell(name="Rayon", pm=3), "jet")


# --------------------------------------------------------------------------- what magic can never do

@pytest.mark.parametrize(
    ("kind", "line"),
    [("guérison", "L1190"), ("healing", "L1190"), ("résurrection", "L1191"), ("temps", "L1192"),
     ("âme", "L1193"), ("alignement", "L1423")],
    ids=["guerison", "healing", "resurrection", "time", "soul", "alignment"],
)
def test_magic_limits_refuse(kind, line):
    with pytest.raises(RuleError, match=line):
        m.check_magic_can(["dommage", kind])


def test_ordinary_effects_are_allowed():
    assert m.check_magic_can(["dommage", "distance", "mort-vivant"]) is None  # L1191: undead are reachable
