"""Combat of Les Lois du Cristal (seed 000, L1195-L1367, L369-L373): the book's numbers in, its results out."""

from __future__ import annotations

import pytest

from cristal_events.dice import Dice
from cristal_events.errors import DiceError, RuleError, UnknownEntity
from cristal_events.rulesets.cristal import combat as c

# --------------------------------------------------------------------------- action table (L1230-L1257)

@pytest.mark.parametrize(
    ("key", "duration", "line"),
    [("marcher_5m", 5, 1231), ("courir_5m", 1, 1232), ("degainer_epee", 3, 1231), ("chercher_ceinture", "[1d4]", 1233),
     ("chercher_sac", "[1d4]+4", 1234), ("boire_potion", 8, 1241), ("ouvrir_porte", 2, 1242),
     ("forcer_coffre", 10, 1249), ("defaire_noeud_complexe", "[6d10]", 1251), ("detacher_cheval", "[1d10]+5", 1257),
     ("couper_arbre", "[8d10]", 1256), ("allumer_torche", "[1d12]", 1257)],
    ids=lambda v: str(v),
)
def test_action_table_rows(key, duration, line):
    row = c.action(key)
    assert (row.duration, row.line) == (duration, line)


def test_action_table_has_every_row_of_the_book():
    groups = {}
    for row in c.actions().values():
        groups[row.group] = groups.get(row.group, 0) + 1
    # L1230-L1257: 10 moves, 14 equipment, 8 doors, 6 ropes, 7 riding, 5 complex actions.
    assert groups == {"deplacement": 10, "equipements": 14, "portes": 8, "cordes": 6, "equestre": 7, "complexes": 5}


@pytest.mark.parametrize(
    ("key", "faces", "times", "seconds"),
    [("chercher_ceinture", [3], 1, 3),  # L1301: York's whip from his belt, +3
     ("chercher_sac", [2], 1, 6),  # L1308: Thor's backpack, [1d4]+4 = 6
     ("courir_5m", [], 2, 2),  # L1311: running 10 m = +2
     ("noeud_complexe", [1, 2, 3, 4], 1, 10)],
    ids=["belt-d4-3", "backpack-d4-2", "run-10m", "complex-knot-4d6"],
)
def test_action_duration(key, faces, times, seconds):
    dice = Dice.entered(faces)
    result = c.action_duration(key, dice, times=times)
    dice.finish()
    assert result.seconds == seconds
    assert [r.faces for r in result.rolls] == ([tuple(faces)] if faces else [])


def test_unknown_action_is_left_to_the_gm():
    with pytest.raises(UnknownEntity, match="the GM sets the duration"):  # L1259
        c.action("fermer_porte")


def test_dice_duration_needs_dice():
    with pytest.raises(RuleError, match=r"Chercher un item dans sa ceinture is \[1d4\]"):
        c.action_duration("chercher_ceinture")


# --------------------------------------------------------------------------- TV-19 attack durations

@pytest.mark.parametrize(
    ("weapon_it", "propulsor_it", "seconds"),
    [(12, None, 12),  # L1216: the axe of 12 s
     (None, None, 6),  # L1263: bare hands / no IT -> 6 s
     (2, 4, 6),  # L1261: projectile IT + propulsor IT
     (6, None, 6), (4, None, 4)],  # L1300, L1302: long sword +6, whip +4
    ids=["axe-12", "default-6", "projectile-plus-propulsor", "long-sword", "whip"],
)
def test_attack_duration(weapon_it, propulsor_it, seconds):
    assert c.attack_duration(weapon_it, propulsor_it) == seconds


def test_action_resolves_at_once_then_it_grows():
    # L1216: the axe attack on the mouse resolves now; the attacker waits 12 s.
    fighters = (c.Combatant(name="Guerrier", it=0), c.Combatant(name="Souris", it=3))
    after = c.take_action(fighters, "Guerrier", c.attack_duration(12))
    assert [f.it for f in after] == [12, 3] and c.next_actor(after) == "Souris"


# --------------------------------------------------------------------------- TV-21 initiative

@pytest.mark.parametrize(
    ("base", "ref", "die", "it"),
    [(0, 0, 4, -4), (8, 4, 6, -6), (0, -3, 1, 5), (8, 0, 1, 7)],
    ids=["ref0", "surprised-ref4", "nain-ref-3", "surprised-eating"],
)
def test_initiative(base, ref, die, it):
    # L1319: IT = base - ([1d6] + REF * 2); L1317: surprised while eating, base 8.
    assert c.initiative(base, ref, die).it == it
    rolled = c.roll_initiative(Dice.entered([die]), ref, base)
    assert (rolled.it, rolled.roll.faces) == (it, (die,))


# --------------------------------------------------------------------------- turn order, ties, pass, newcomer

def test_ties_go_to_higher_ref_then_dice():
    # L1202
    a, b = c.Combatant(name="A", it=5, ref=1), c.Combatant(name="B", it=5, ref=3)
    assert c.next_actor((a, b)) == "B"
    level = (c.Combatant(name="A", it=5, ref=2), c.Combatant(name="B", it=5, ref=2))
    assert c.tied_for_dice(level) == ("A", "B")
    with pytest.raises(RuleError, match="tied on IT and REF; roll a die"):
        c.next_actor(level)
    rounds = c.roll_tie_break(Dice.entered([4, 4, 2, 5]), ["A", "B"])
    # every round's faces are kept (the 4-4 round was overwritten before)
    assert [{n: r.total for n, r in rnd.items()} for rnd in rounds] == [{"A": 4, "B": 4}, {"A": 2, "B": 5}]
    assert c.tie_winner(rounds) == "B"
    assert c.next_actor(level, c.tie_scores(rounds)) == "B"


def test_an_eliminated_contenders_old_face_never_wins_the_tie():
    # A and B tie at 5 over C's 3; the reroll gives A 1, B 2: B wins, though C's 3 beats both rerolls
    level = tuple(c.Combatant(name=n, it=5, ref=2) for n in "ABC")
    rounds = c.roll_tie_break(Dice.entered([5, 5, 3, 1, 2]), ["A", "B", "C"])
    assert c.tie_winner(rounds) == "B"
    assert c.next_actor(level, c.tie_scores(rounds)) == "B"
    # the old reading of the last face of each: C would have acted
    last = {n: r.total for rnd in rounds for n, r in rnd.items()}
    assert max(last, key=last.get) == "C"


def test_entered_faces_that_run_out_on_a_level_reroll_say_how_many_more():
    with pytest.raises(DiceError, match=r"^The tie-break dice are level between A and B: enter 2 more d6 faces "
                                        r"\(4 entered so far; one d6 each for A and B, in that order\)\.$"):
        c.roll_tie_break(Dice.entered([4, 4, 6, 6]), ["A", "B"])


def test_engine_tie_breaks_always_end_with_a_winner():
    for n in range(300):  # every stream rolls until one is highest, however many rounds it takes
        rounds = c.roll_tie_break(Dice.keyed(b"k", str(n)), ["A", "B", "C"])
        assert c.tie_winner(rounds) in "ABC"
        assert all(len(rnd) > 1 for rnd in rounds)


def test_inactive_combatants_are_skipped():
    fighters = (c.Combatant(name="A", it=1, active=False), c.Combatant(name="B", it=9))
    assert c.next_actor(fighters) == "B"


@pytest.mark.parametrize(
    ("passer_ref", "other_ref", "it_after"),
    [(0, 1, 9), (1, 1, 10), (2, 1, 10)],
    ids=["other-faster-stop-at-tie", "equal-ref-one-more", "passer-faster-one-more"],
)
def test_pass_turn(passer_ref, other_ref, it_after):
    # L1292: +1 while the passer still holds the smallest IT (D25).
    fighters = (c.Combatant(name="Thor", it=6, ref=passer_ref), c.Combatant(name="York", it=9, ref=other_ref))
    after = c.pass_turn(fighters, "Thor")
    assert after[0].it == it_after and c.next_actor(after, {"Thor": 1, "York": 2}) == "York"


def test_only_the_smallest_it_may_act():
    fighters = (c.Combatant(name="Thor", it=6), c.Combatant(name="York", it=2))
    with pytest.raises(RuleError, match="It is York's turn \\(smallest IT\\), not Thor's."):
        c.take_action(fighters, "Thor", 3)


@pytest.mark.parametrize(
    ("its", "mode", "expected"),
    [([6, 9], "round", 8), ([6, 9], "truncate", 7), ([13, 22, 4], "round", 13), ([2, 3], "truncate", 2)],
    ids=["7.5-round", "7.5-truncate", "exact", "2.5-truncate"],
)
def test_newcomer_gets_the_average_it(its, mode, expected):
    assert c.newcomer_it(its, mode) == expected  # L1220, D24


# --------------------------------------------------------------------------- TV-22 attack, TV-23 range

@pytest.mark.parametrize(
    ("die", "total", "hit"),
    [(13, 21, True), (10, 18, False), (11, 19, True)],
    ids=["L1360-hit", "equal-is-a-miss", "one-above"],
)
def test_gustave_attacks_rodrigue(die, total, hit):
    # L1360: ATT total 8 (sword included) + d20 vs DP 18, strictly greater hits.
    check = c.roll_attack(Dice.entered([die]), 8, 18)
    assert (check.total, check.hit, check.roll.faces) == (total, hit, (die,))


def test_gustave_damage_2d6_plus_2_is_8():
    # L1361: [2d6+2] rolled 8 -> Rodrigue loses 8 PV.
    dmg = c.roll_damage(Dice.entered([3, 3]), "[2d6+2]", "round")
    assert (dmg.rolled, dmg.amount) == (8, 8)
    assert c.apply_damage(c.Vitals(pv=20), dmg.amount, race_pv=12, con=0).pv == 12


@pytest.mark.parametrize(
    ("rolled", "backstab", "amount"),
    [(8, True, 16), (-1, False, 0), (-1, True, 0), (5, False, 5)],
    ids=["backstab-doubles", "floored-at-0", "floored-then-doubled", "plain"],
)
def test_damage_amount(rolled, backstab, amount):
    assert c.damage_amount(rolled, backstab=backstab) == amount  # L735 Attaque de dos; D2 floor


def test_attack_modifiers_enter_the_total():
    # weapon bonus (L1336), range penalty (L1348), alignment penalty subtracted (L1415)
    check = c.attack_check(5, 10, 14, weapon_att=2, range_penalty=-5, alignment_penalty=-2)
    assert (check.att, check.total, check.hit) == (0, 10, False)


@pytest.mark.parametrize(
    ("distance", "kwargs", "penalty"),
    [(8, {"frc": 4}, 0),  # L1344: FRC 4 throws 8 m without penalty
     (12, {"frc": 4}, -2),
     (30, {"propulsor_range_m": 20}, -5),  # L1348: bow 20 m, target 30 m -> -5
     (25, {"propulsor_range_m": 20}, -2),  # full slices of 2 m (D15)
     (20, {"propulsor_range_m": 20}, 0),
     (4, {"frc": -3}, -2)],  # FRC <= 0: range clamped at 0 (D15)
    ids=["thrown-8m", "thrown-12m", "bow-30m", "bow-25m", "bow-20m", "weak-thrower"],
)
def test_range_penalty(distance, kwargs, penalty):
    assert c.range_penalty(distance, **kwargs) == penalty


def test_thrown_range():
    assert (c.thrown_range(4), c.thrown_range(-3)) == (8, 0)  # L1344, D15


# --------------------------------------------------------------------------- TV-24 chained attack (D14)

@pytest.mark.parametrize(
    ("mode", "totals", "hits"),
    [("round", (12, 10), (True, False)), ("truncate", (11, 9), (True, False))],
    ids=["round", "truncate"],
)
def test_chained_attack(mode, totals, hits):
    # L1363: two attacks in one weapon IT, each (ATT + d20) / 2, d20 rerolled. ATT 8, DP 10, d20 15 then 11.
    first, second = c.roll_chained_attack(Dice.entered([15, 11]), 8, 10, mode)
    assert (first.total, second.total) == totals and (first.hit, second.hit) == hits
    assert (first.roll.faces, second.roll.faces) == ((15,), (11,))


def test_chained_attack_is_at_least_two_attacks_and_n_attacks_divide_by_n():
    # L1363 "enchaîner plusieurs attaques": the book's 2 halve; a campaign's chain_attacks=3 divides by 3 (D14)
    with pytest.raises(RuleError, match="at least 2 attacks, not 1"):
        c.chained_attack(8, [1], 10, "round")
    assert [k.total for k in c.chained_attack(8, [15, 11, 4], 10, "round")] == [8, 6, 4]


# --------------------------------------------------------------------------- TV-26 vitals (D8)

@pytest.mark.parametrize(
    ("race_pv", "con", "threshold"),
    [(12, 0, -12), (6, 0, -6), (12, 4, -20), (6, -4, 0)],  # PV initiaux: Humain 12 (L518), Elfe 6 (L557), Nain 12 (L597)
    ids=["humain", "elfe", "nain-con4", "clamped"],
)
def test_death_threshold(race_pv, con, threshold):
    assert c.death_threshold(race_pv, con) == threshold  # L373; D33 clamp


@pytest.mark.parametrize(
    ("race_pv", "con", "pv", "state"),
    [(12, 0, 0, "conscious"), (12, 0, -1, "unconscious"), (12, 0, -12, "unconscious"), (12, 0, -13, "dead"),
     (6, 0, -6, "unconscious"), (6, 0, -7, "dead"), (12, 4, -20, "unconscious"), (12, 4, -21, "dead")],
    ids=["humain-0", "humain-m1", "humain-m12", "humain-m13", "elfe-m6", "elfe-m7", "con4-m20", "con4-m21"],
)
def test_vital_state(race_pv, con, pv, state):
    assert c.vital_state(pv, race_pv=race_pv, con=con) == state  # L369, L373


def test_waking_needs_pv_above_zero():
    # L369: unconscious "aussi longtemps que ses PV ne sont pas revenus au-dessus de 0" (D8).
    out = c.Vitals(pv=-2, state="unconscious")
    assert c.change_pv(out, 2, race_pv=12, con=0).state == "unconscious"
    assert c.change_pv(out, 3, race_pv=12, con=0).state == "conscious"


def test_humain_bleeds_to_death_in_12_minutes():
    # L371, L373 (TV-26): a Humain at -1 PV loses 1 PV per minute and dies at -13, 12 minutes later.
    v = c.apply_damage(c.Vitals(pv=3), 4, race_pv=12, con=0)
    assert (v.pv, v.state) == (-1, "unconscious")
    v = c.bleed(v, 30, race_pv=12, con=0)
    assert (v.pv, v.bleed_seconds) == (-1, 30)
    v = c.bleed(v, 30 + 10 * 60, race_pv=12, con=0)
    assert (v.pv, v.state) == (-12, "unconscious")
    v = c.bleed(v, 60, race_pv=12, con=0)
    assert (v.pv, v.state) == (-13, "dead")
    with pytest.raises(RuleError, match="dead"):
        c.change_pv(v, 5, race_pv=12, con=0)


def test_conscious_characters_do_not_bleed():
    assert c.bleed(c.Vitals(pv=0), 600, race_pv=12, con=0) == c.Vitals(pv=0)
