"""Races (L511-L626), level costs TV-07 (L536-L626), regeneration and death TV-26 (L373, L491)."""

import pytest

from cristal_events.errors import RuleError
from cristal_events.rulesets.cristal.content import load_core
from cristal_events.rulesets.cristal.progression import check_level_up, cumulative_level_cost, level_cost
from cristal_events.rulesets.cristal.stable import death_threshold, regeneration_per_day, stable_states

STATES = ("FRC", "DEX", "INT", "MAG", "CON", "REF", "OBS", "MEM", "CHAR")


@pytest.mark.parametrize("name,pv,regen,pm,dp,dm,fixed,senses,cost,limit", [
    ("Humain", 12, 15, 6, 10, 0, (0, 0, 0, 0, 0, 0, 0, 0, 0), (0, 0, 0, 0, 0), 100, None),  # L518-L545
    ("Elfe", 6, 10, 10, 10, 2, (-3, 3, 3, 2, 0, 0, 3, -2, 3), (6, 6, 2, 2, 2), 175, 20),  # L557-L586
    ("Nain", 12, 20, 2, 12, 0, (3, -2, -3, 0, 4, -3, -3, 2, -2), (-4, 2, 0, 0, 4), 125, 16),  # L597-L626
], ids=["humain", "elfe", "nain"])
def test_race_numbers(name, pv, regen, pm, dp, dm, fixed, senses, cost, limit):
    r = load_core().race(name)
    assert (r.pv_initial, r.regen_pct, r.pm_initial, r.dp_initial, r.dm_initial) == (pv, regen, pm, dp, dm)
    assert tuple(r.fixed[s] for s in STATES) == fixed
    assert tuple(r.senses[s] for s in ("Vue", "Ouïe", "Goûter", "Odorat", "Toucher")) == senses
    assert (r.level_cost, r.level_limit) == (cost, limit)


@pytest.mark.parametrize("name,movement,longevity,specials", [
    ("Humain", [("Bipède", 3, 30, 4), ("Nage", 1, 5, 50)], (60, 90), []),  # L520, L522
    ("Elfe", [("Bipède", 3, 20, 4), ("Nage", 2, 8, 75)], (400, 500), ["Infra vision"]),  # L559, L561, L569
    ("Nain", [("Bipède", 2, 10, 1)], (150, 250), ["Infra vision 50%"]),  # L599, L601, L609
], ids=["humain", "elfe", "nain"])
def test_race_descriptions(name, movement, longevity, specials):
    r = load_core().race(name)
    assert [(m.mode, m.cruise_kmh, m.top_kmh, m.variable) for m in r.movement] == movement
    assert r.longevity_years == longevity and r.specials == specials


def test_race_sizes_and_weapons():
    c = load_core()
    assert c.race("Humain").height_m == {"Mâle": 1.80, "Femelle": 1.70}  # L518
    assert c.race("Elfe").weight_kg == {"Mâle": 50, "Femelle": 40}  # L558
    assert c.race("Nain").weight_kg == {"Tous": 65}  # L598
    assert [w.dmg for w in c.race("Nain").weapons] == ["FRC/3", "1d12", None]  # L604-L606


# TV-07: the printed rows are the price of each level, paid when it is bought (L537: 100 * 2^(n-1)).
@pytest.mark.parametrize("race,costs", [
    ("Humain", [100, 200, 400, 800, 1600, 3200, 6400, 12800]),  # L538-L545
    ("Elfe", [175, 350, 700, 1400, 2800, 5600, 11200, 22400]),  # L577-L584
    ("Nain", [125, 250, 500, 1000, 2000, 4000, 8000, 16000]),  # L617-L624
], ids=["humain", "elfe", "nain"])
def test_tv07_level_costs(race, costs):
    r = load_core().race(race)
    assert [level_cost(r, n) for n in range(1, 9)] == costs


def test_tv07_limit_rows_are_per_level_prices():
    c = load_core()
    # L586 "20 (LIMITE) 91 750 400" = 175 x 2^19, the price of level 20 alone, not a cumulative total.
    assert level_cost(c.race("Elfe"), 20) == 91_750_400
    assert cumulative_level_cost(c.race("Elfe"), 20) == 183_500_625
    # L626 "16 (LIMITE) 4 096 000" = 125 x 2^15.
    assert level_cost(c.race("Nain"), 16) == 4_096_000
    assert cumulative_level_cost(c.race("Nain"), 16) == 8_191_875
    assert level_cost(c.race("Humain"), 16) == 3_276_800 and level_cost(c.race("Humain"), 20) == 52_428_800
    assert level_cost(c.race("Elfe"), 16) == 5_734_400


@pytest.mark.parametrize("race,level,total", [
    ("Humain", 3, 700), ("Elfe", 3, 1225), ("Nain", 3, 875), ("Humain", 2, 300), ("Nain", 2, 375), ("Elfe", 2, 525),
], ids=lambda v: str(v))
def test_cumulative_costs(race, level, total):
    assert cumulative_level_cost(load_core().race(race), level) == total


@pytest.mark.parametrize("race,limit", [("Elfe", 20), ("Nain", 16)], ids=["elfe", "nain"])
def test_level_limit(race, limit):
    r = load_core().race(race)
    assert check_level_up(r, limit - 1) == r.level_cost * 2 ** (limit - 1)  # the limit level itself can be bought
    with pytest.raises(RuleError) as exc:
        check_level_up(r, limit)
    assert str(exc.value) == f"A {race} cannot go beyond global level {limit} (race limit, L501)."


def test_humain_has_no_limit():
    assert check_level_up(load_core().race("Humain"), 40) == 100 * 2**40


@pytest.mark.parametrize("race,pvmax,regen_round,regen_trunc,threshold", [
    ("Humain", 12, 2, 1, -12), ("Elfe", 6, 1, 0, -6), ("Nain", 16, 3, 3, -20),
], ids=["humain", "elfe", "nain"])
def test_tv26_regeneration_and_death(race, pvmax, regen_round, regen_trunc, threshold):
    r = load_core().race(race)
    assert stable_states(r, {}, r.fixed).PVmax == pvmax
    assert regeneration_per_day(r, pvmax, "round") == regen_round  # L491
    assert regeneration_per_day(r, pvmax, "truncate") == regen_trunc
    assert death_threshold(r, r.fixed["CON"]) == threshold  # L373
