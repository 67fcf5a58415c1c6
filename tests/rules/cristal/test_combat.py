"""Combat on the Indice de Temps timeline through the commands (issue 5): the book's examples, seed 000.

Combatants described with --stat numbers are "extras" (L1325: the GM gives PV and DP to what is attacked);
the last tests use characters of the campaign, whose numbers come from their sheet.
"""

from __future__ import annotations

import pytest
from harness import Table
from helpers import refused

from cristal_events import init_campaign
from cristal_events.errors import CristalError, RuleError
from cristal_events.events import DiceRecorded
from cristal_events.rulesets.cristal import characters as C
from cristal_events.rulesets.cristal import fights as F

THOR = {"ATT": 5, "DP": 12, "PV": 20, "race": "Humain"}
YORK = {"ATT": 3, "DP": 10, "PV": 15, "PM": 20, "CNC": 10, "race": "Humain"}


@pytest.fixture(params=["round", "truncate"])
def camp(request):
    return Table(name="Duel", ruleset="cristal", rounding=request.param, seed=11)


def combat(camp, name="duel"):
    return camp.state().rules.combats[name]


def its(camp, name="duel"):
    cb = combat(camp, name)
    return cb.it["thor"], cb.it["york"]


def start_duel(camp):
    # L1296: York starts at IT 2, the GM gives Thor the first attack (initiative method 1)
    camp.execute(F.StartCombat(combat="duel", fighters=["thor", "york"], its={"york": 2},
                               stats={"thor": THOR, "york": YORK}))


# (line, IT before (Thor, York), who acts, command, faces, duration, IT after) -- L1298-L1311
BOOK = [
    (1300, (0, 2), "thor", F.Attack(combat="duel", actor="thor", target="york", weapon="Épée longue"), [2], 6, (6, 2)),
    (1301, (6, 2), "york", F.TakeAction(combat="duel", actor="york", what="détache son fouet",
                                        action="chercher_ceinture"), [3], 3, (6, 5)),
    (1302, (6, 5), "york", F.Attack(combat="duel", actor="york", target="thor", weapon="Fouet"), [1], 4, (6, 9)),
    (1303, (6, 9), "thor", F.TakeAction(combat="duel", actor="thor", action="marcher_5m"), None, 5, (11, 9)),
    (1304, (11, 9), "york", F.TakeAction(combat="duel", actor="york", what="torche", action="ramasser_item"), None, 3,
     (11, 12)),
    (1305, (11, 12), "thor", F.TakeAction(combat="duel", actor="thor", action="ouvrir_porte"), None, 2, (13, 12)),
    (1306, (13, 12), "york", F.CastSpell(combat="duel", actor="york", spell="Boule de Feu", effects={"Dommage": 4},
                                         targets=["thor"]), [9], 10, (13, 22)),
    (1307, (13, 22), "thor", F.TakeAction(combat="duel", actor="thor", what="referme la porte", seconds=2), None, 2,
     (15, 22)),
    (1308, (15, 22), "thor", F.TakeAction(combat="duel", actor="thor", action="chercher_sac"), [2], 6, (21, 22)),
    (1309, (21, 22), "thor", F.TakeAction(combat="duel", actor="thor", action="ouvrir_porte"), None, 2, (23, 22)),
    (1310, (23, 22), "york", F.ReleaseSpell(combat="duel", actor="york"), [3, 4], 8, (23, 30)),
    (1311, (23, 30), "thor", F.TakeAction(combat="duel", actor="thor", action="courir_5m", times=2), None, 2, (25, 30)),
]


def test_thor_vs_york_every_row_through_the_commands(camp):
    start_duel(camp)
    for line, before, actor, cmd, faces, duration, after in BOOK:
        assert its(camp) == before, line
        assert F.whose_turn(camp.state().rules, "duel", camp.header.rounding) == actor, line
        camp.execute(cmd, faces=faces)
        assert its(camp) == after, line
        assert sum(after) - sum(before) == duration, line


def test_boule_de_feu_incantation_10_then_combustion_8(camp):
    # L1306: "temps d'incantation de 10"; L1313: CNC 16 -> combustion 16 / 2 = 8, after the effects
    start_duel(camp)
    recs = []
    for _, _, _, cmd, faces, _, _ in BOOK:
        recs += camp.execute(cmd, faces=faces)
    cast = next(r.event for r in recs if isinstance(r.event, F.SpellCast))
    released = next(r.event for r in recs if isinstance(r.event, F.SpellReleased))
    assert (cast.incantation, cast.combustion, cast.total, cast.success) == (10, 8, 19, True)
    assert released.combustion == 8 and released.results[0].damage == 7  # [2d6] of 4 PM: 3 + 4
    assert camp.state().rules.combats["duel"].fighters["york"].incantation is None


def test_york_can_do_nothing_else_while_incanting(camp):
    start_duel(camp)
    for _, _, _, cmd, faces, _, _ in BOOK[:7]:
        camp.execute(cmd, faces=faces)
    assert combat(camp).fighters["york"].incantation.until == 22
    for _, _, _, cmd, faces, _, _ in BOOK[7:10]:
        camp.execute(cmd, faces=faces)
    with pytest.raises(RuleError, match="york is incanting Boule de Feu; release it"):
        camp.execute(F.TakeAction(combat="duel", actor="york", seconds=3))


@pytest.fixture
def round_camp():
    return Table(name="R", ruleset="cristal", rounding="round", seed=3)


@pytest.fixture
def stored(tmp_path):
    c = init_campaign(tmp_path / "r.db", name="R", ruleset="cristal", rounding="round", seed=3)
    yield c
    c.close()


def test_gustave_hits_rodrigue(round_camp):
    # L1356-L1361: ATT 8 + 13 = 21 > DP 18; [2d6+2] = 8 -> Rodrigue loses 8 PV
    c = round_camp
    c.execute(F.StartCombat(combat="taverne", fighters=["gustave", "rodrigue"], its={"rodrigue": 1},
                            stats={"gustave": {"ATT": 8, "DMG": "2d6+2", "PV": 20},
                                   "rodrigue": {"DP": 18, "PV": 20, "race": "Humain"}}))
    recs = c.execute(F.Attack(combat="taverne", actor="gustave", target="rodrigue"), faces=[13, 3, 3])
    ev = recs[0].event
    assert (ev.swings[0].total, ev.swings[0].hit, ev.swings[0].damage, ev.seconds) == (21, True, 8, 6)
    assert F.numbers(c.state().rules, combat(c, "taverne"), "rodrigue", "round").PV == 12


def test_gustave_misses_on_18_against_18(round_camp):
    # strict comparison (L1336): 8 + 10 = 18 is not > 18; no damage dice are rolled
    c = round_camp
    c.execute(F.StartCombat(combat="t", fighters=["gustave", "rodrigue"], its={"rodrigue": 1},
                            stats={"gustave": {"ATT": 8, "DMG": "2d6+2"}, "rodrigue": {"DP": 18, "PV": 20}}))
    recs = c.execute(F.Attack(combat="t", actor="gustave", target="rodrigue"), faces=[10])
    assert [type(r.event) for r in recs] == [F.AttackResolved, DiceRecorded] and not recs[0].event.swings[0].hit
    assert [[d.face for d in r.dice] for r in recs[1].event.rolls] == [[10]]  # the d20 only: no damage dice


def xar_vs_taz(c, **xar):
    c.execute(F.StartCombat(combat="rue", fighters=["xar", "taz"], its={"taz": 3},
                            stats={"xar": {"PM": 15, "CNC": 4, "PV": 10, **xar},
                                   "taz": {"DM": 3, "PV": 10, "DP": 10, "race": "Humain"}}))


def test_xar_rayon_magique_on_taz_with_dm_3(camp):
    # L1052-L1069: 3 PM Distance (15 m) + 8 PM Dommage = 11 PM; 15 -> 4 PM; CNC 4 + 8 = 12 >= 7;
    # Taz's DM 3 x Réduction 2 absorbs 6 PM: 2 PM left -> [1d6]
    xar_vs_taz(camp)
    recs = camp.execute(F.CastSpell(combat="rue", actor="xar", spell="Rayon Magique",
                                    effects={"Distance": 3, "Dommage": 8}, targets=["taz"], time="INSTANTANÉ"),
                        faces=[8, 5])
    cast = recs[0].event
    assert (cast.pm_cost, cast.pm_after, cast.total, cast.success) == (11, 4, 12, True)
    released = recs[1].event
    dist, dmg = released.results[0].effects
    assert (dist.amount, dist.value) == ("15", 15)
    assert (dmg.pm_after, dmg.amount, dmg.value) == (2, "1d6", 5)
    assert released.results[0].damage == 5
    state = camp.state().rules
    assert F.numbers(state, state.combats["rue"], "taz", camp.header.rounding).PV == 5
    # INSTANTANÉ: no incantation, combustion 7 / 2 = 3.5 -> 4 (round) or 3 (truncate) (L1271, D1)
    assert combat(camp, "rue").it["xar"] == {"round": 4, "truncate": 3}[camp.header.rounding]


def test_taz_may_lower_its_dm_for_a_welcome_spell(round_camp):
    xar_vs_taz(round_camp)
    recs = round_camp.execute(F.CastSpell(combat="rue", actor="xar", spell="Rayon Magique",
                                          effects={"Distance": 3, "Dommage": 8}, targets=["taz"],
                                          lowered_dm={"taz": 0}, time="INSTANTANÉ"), faces=[8, 1, 2, 3, 4])
    assert recs[1].event.results[0].effects[1].amount == "4d6"  # L1036: DM 0 opposed, all 8 PM stay


@pytest.mark.parametrize(("mode", "totals", "hits"), [("round", (12, 10), (True, False)),
                                                     ("truncate", (11, 9), (True, False))], ids=["round", "truncate"])
def test_chained_attack(mode, totals, hits):
    # L1363, TV-24: ATT 8, DP 10; d20 15 -> (8+15)/2; d20 11 -> (8+11)/2; damage only for the hit
    c = Table(name="X", ruleset="cristal", rounding=mode)
    c.execute(F.StartCombat(combat="k", fighters=["a", "b"], its={"b": 1},
                            stats={"a": {"ATT": 8, "DMG": "1d6"}, "b": {"DP": 10, "PV": 20}}))
    recs = c.execute(F.Attack(combat="k", actor="a", target="b", chain=True), faces=[15, 11, 4])
    ev = recs[0].event
    assert tuple(s.total for s in ev.swings) == totals and tuple(s.hit for s in ev.swings) == hits
    assert ev.seconds == 6 and ev.swings[0].damage == 4


def test_range_penalty_bow_at_30_m(round_camp):
    # L1346-L1350: a 20 m bow, target at 30 m: 10 m beyond -> -5 ATT; IT = the bow's 6 s
    c = round_camp
    c.execute(F.StartCombat(combat="r", fighters=["archer", "cible"], its={"cible": 1},
                            stats={"archer": {"ATT": 6}, "cible": {"DP": 10, "PV": 10}}))
    recs = c.execute(F.Attack(combat="r", actor="archer", target="cible", weapon="Arc", projectile="Flèche",
                              distance=30), faces=[9])
    ev = recs[0].event
    assert (ev.range_penalty, ev.att, ev.swings[0].total, ev.swings[0].hit, ev.seconds) == (-5, 1, 10, False, 6)


def test_thrown_dagger_range_is_frc_times_2(round_camp):
    # L1344: FRC 4 -> 8 m without penalty; at 13 m, 5 m beyond -> -2 (full 2 m slices, D15)
    c = round_camp
    c.execute(F.StartCombat(combat="r", fighters=["a", "b"], its={"b": 1},
                            stats={"a": {"ATT": 6, "FRC": 4}, "b": {"DP": 30, "PV": 10}}))
    ev = c.execute(F.Attack(combat="r", actor="a", target="b", weapon="Dague de jet", distance=13), faces=[1])[0].event
    assert ev.range_penalty == -2


def test_ties_go_to_the_higher_ref(round_camp):
    c = round_camp
    c.execute(F.StartCombat(combat="t", fighters=["a", "b"], stats={"a": {"REF": 1, "PV": 5}, "b": {"REF": 3, "PV": 5}}))
    assert F.whose_turn(c.state().rules, "t") == "b"
    assert c.execute(F.NextTurn(combat="t")) == []  # no die needed: nothing recorded


def test_ties_on_it_and_ref_go_to_a_recorded_die(round_camp):
    c = round_camp
    c.execute(F.StartCombat(combat="t", fighters=["a", "b"], stats={"a": {"PV": 5}, "b": {"PV": 5}}))
    with pytest.raises(RuleError, match="a and b are tied on IT and REF; run 'combat next t'"):
        c.execute(F.TakeAction(combat="t", actor="a", seconds=2))
    recs = c.execute(F.NextTurn(combat="t"), faces=[3, 3, 2, 5])  # 3-3 level: both reroll, b wins
    ev = recs[0].event
    # every round is kept (the first 3-3 was lost before TieBroken v2)
    assert ev.winner == "b" and [[r.total for r in rnd.values()] for rnd in ev.rounds] == [[3, 3], [2, 5]]
    assert [d.face for r in recs[1].event.rolls for d in r.dice] == [3, 3, 2, 5]
    with pytest.raises(RuleError, match="It is b's turn"):
        c.execute(F.TakeAction(combat="t", actor="a", seconds=2))
    c.execute(F.TakeAction(combat="t", actor="b", seconds=2))
    assert F.whose_turn(c.state().rules, "t") == "a"


@pytest.mark.parametrize(("mode", "expected"), [("round", 8), ("truncate", 7)], ids=["round", "truncate"])
def test_newcomer_gets_the_average_it(mode, expected):
    # L1220, D24: ITs 6 and 9 -> 7.5
    c = Table(name="N", ruleset="cristal", rounding=mode)
    c.execute(F.StartCombat(combat="n", fighters=["a", "b"], its={"a": 6, "b": 9}, stats={"a": {"PV": 1}, "b": {"PV": 1}}))
    ev = c.execute(F.JoinCombat(combat="n", fighter="c", stats={"PV": 4}))[0].event
    assert (ev.fighter.it, ev.averaged) == (expected, True)
    c.execute(F.JoinCombat(combat="n", fighter="d", it=5, stats={"PV": 4}))
    assert combat(c, "n").it["d"] == 5


def test_initiative_roll(round_camp):
    # L1319, TV-21: REF +4, base 8, d6 6 -> 8 - 14 = -6; REF 0, base 0, d6 4 -> -4
    c = round_camp
    c.execute(F.StartCombat(combat="i", fighters=["a", "b"], its={"a": 8}, stats={"a": {"REF": 4}, "b": {"REF": 0}}))
    c.execute(F.RollInitiative(combat="i"), faces=[6, 4])
    assert combat(c, "i").it == {"a": -6, "b": -4}
    with pytest.raises(RuleError, match="a has already rolled initiative"):
        c.execute(F.RollInitiative(combat="i", fighters=["a"]), faces=[1])


def test_pass_moves_the_turn_on(round_camp):
    # L1292, D25: +1 at a time while still holding the turn; at an equal IT and REF the passer goes one more
    c = round_camp
    c.execute(F.StartCombat(combat="p", fighters=["a", "b"], its={"b": 2}, stats={"a": {"PV": 1}, "b": {"PV": 1}}))
    ev = c.execute(F.PassTurn(combat="p", actor="a"))[0].event
    assert ev.seconds == 3 and F.whose_turn(c.state().rules, "p") == "b"


def test_deconcentration_when_damage_exceeds_the_margin(round_camp):
    # L969-L972, D5: York CNC 10 + d20 9 = 19 vs 16: margin 3; a hit of 4 during the incantation breaks it
    c = round_camp
    c.execute(F.StartCombat(combat="d", fighters=["thor", "york"], its={"thor": 13, "york": 12},
                            stats={"thor": {**THOR, "DMG": "1d6"}, "york": YORK}))
    c.execute(F.CastSpell(combat="d", actor="york", spell="Boule de Feu", effects={"Dommage": 4},
                          targets=["thor"]), faces=[9])
    recs = c.execute(F.Attack(combat="d", actor="thor", target="york"), faces=[10, 4])
    dec = [r.event for r in recs if isinstance(r.event, F.Deconcentrated)]
    assert dec and (dec[0].damage, dec[0].margin) == (4, 3)
    cb = combat(c, "d")
    assert cb.fighters["york"].incantation is None and cb.it["york"] == 22  # the incantation stays paid


def test_no_deconcentration_at_the_margin(round_camp):
    c = round_camp
    c.execute(F.StartCombat(combat="d", fighters=["thor", "york"], its={"thor": 13, "york": 12},
                            stats={"thor": {**THOR, "DMG": "1d6"}, "york": YORK}))
    c.execute(F.CastSpell(combat="d", actor="york", spell="Boule de Feu", effects={"Dommage": 4},
                          targets=["thor"]), faces=[9])
    recs = c.execute(F.Attack(combat="d", actor="thor", target="york"), faces=[10, 3])
    assert not any(isinstance(r.event, F.Deconcentrated) for r in recs)
    assert combat(c, "d").fighters["york"].incantation is not None


def test_pm_overdraw_costs_2_pv_per_pm(round_camp):
    # L379, TV-27: 3 PM, an 11-PM spell -> PM 0, PV - 16
    xar_vs_taz(round_camp, PM=3, PV=20)
    recs = round_camp.execute(F.CastSpell(combat="rue", actor="xar", spell="Rayon Magique",
                                          effects={"Distance": 3, "Dommage": 8}, targets=["taz"],
                                          time="INSTANTANÉ"), faces=[8, 2])
    assert (recs[0].event.pm_after, recs[0].event.overdraw_pv) == (0, 16)
    nums = F.numbers(round_camp.state().rules, combat(round_camp, "rue"), "xar", "round")
    assert (nums.PM, nums.PV) == (0, 4)


def test_overdraw_refused_when_the_setting_is_off():
    c = Table(name="O", ruleset="cristal", settings={"pm_overdraw": False})
    xar_vs_taz(c, PM=3)
    refused(c, F.CastSpell(combat="rue", actor="xar", spell="Rayon Magique", effects={"Distance": 3, "Dommage": 8},
                           targets=["taz"], time="INSTANTANÉ"),
            "The spell costs 11 PM and the caster has only 3.", faces=[8, 2])


def brawl(c, pv=2):
    c.execute(F.StartCombat(combat="b", fighters=["a", "h"], its={"h": 1},
                            stats={"a": {"ATT": 20, "DMG": "1d20", "PV": 30, "REF": 2},
                                   "h": {"DP": 0, "PV": pv, "CON": 0, "race": "Humain"}}))


def test_unconscious_below_0_skipped_and_bleeding(round_camp):
    # L369-L371: below 0 PV unconscious, skipped by next; 1 PV per 60 s of the fight's time
    c = round_camp
    brawl(c)
    recs = c.execute(F.Attack(combat="b", actor="a", target="h"), faces=[5, 3])  # 2 - 3 = -1
    cond = [r.event for r in recs if isinstance(r.event, F.ConditionChanged)]
    assert cond[0].condition == "unconscious" and cond[0].pv == -1
    assert F.whose_turn(c.state().rules, "b") == "a"  # h (IT 1) is skipped
    recs = c.execute(F.TakeAction(combat="b", actor="a", seconds=60))
    bled = [r.event for r in recs if isinstance(r.event, F.Bled)]
    assert bled and (bled[0].seconds, bled[0].pv_lost, bled[0].pv_after) == (60, 1, -2)


def test_death_below_minus_race_pv_plus_2_con(round_camp):
    # L373, TV-26: Humain (PV initiaux 12), CON 0: -12 is alive (unconscious), -13 is dead
    c = round_camp
    brawl(c, pv=2)
    c.execute(F.Attack(combat="b", actor="a", target="h"), faces=[5, 14])  # 2 - 14 = -12
    assert combat(c, "b").fighters["h"].condition == "unconscious"
    recs = c.execute(F.Attack(combat="b", actor="a", target="h"), faces=[5, 1])  # -13
    assert [r.event.condition for r in recs if isinstance(r.event, F.ConditionChanged)] == ["dead"]
    with pytest.raises(RuleError, match="^h is dead and can no longer be attacked.$"):
        c.execute(F.Attack(combat="b", actor="a", target="h"), faces=[5, 1])


def test_aided_character_stops_bleeding(round_camp):
    c = round_camp
    brawl(c)
    c.execute(F.Attack(combat="b", actor="a", target="h"), faces=[5, 3])
    c.execute(F.TakeAction(combat="b", actor="a", action="fouiller_victime", aid="h"))
    recs = c.execute(F.TakeAction(combat="b", actor="a", seconds=120))
    assert not any(isinstance(r.event, F.Bled) for r in recs)


def test_crystal_over_capacity_explodes(round_camp):
    # L1091-L1093, TV-16: Xar's 11-PM Rayon Magique into a 9-PM crystal -> [11d4] to everyone within 6 m
    xar_vs_taz(round_camp, PM=30, CNC=10, PV=40)
    faces = [8, 10] + [1] * 11
    recs = round_camp.execute(F.StoreInCrystal(combat="rue", actor="xar", crystal="bleu", spell="Rayon Magique",
                                               effects={"Distance": 3, "Dommage": 8}, capacity=9, time="4"),
                              faces=faces)
    ev = recs[0].event
    assert (ev.outcome, ev.explosion, ev.explosion_roll.total, ev.fermeture_pm) == ("exploded", "11d4", 11, 5)
    assert round_camp.state().rules.crystals["bleu"].destroyed


def test_crystal_store_then_release(round_camp):
    xar_vs_taz(round_camp, PM=30, CNC=10, PV=40)
    recs = round_camp.execute(F.StoreInCrystal(combat="rue", actor="xar", crystal="bleu", spell="Rayon Magique",
                                               effects={"Distance": 3, "Dommage": 8}, capacity=19, time="4"),
                              faces=[8, 10])
    assert recs[0].event.outcome == "stored" and recs[0].event.pm_after == 30 - 11 - 5
    assert round_camp.state().rules.crystals["bleu"].stored.pm == 11
    round_camp.execute(F.TakeAction(combat="rue", actor="taz", seconds=20))
    recs = round_camp.execute(F.ReleaseCrystal(combat="rue", actor="xar", crystal="bleu", targets=["taz"]),
                              faces=[3, 6])
    assert recs[0].event.success and recs[1].event.results[0].effects[1].amount == "1d6"
    assert round_camp.state().rules.crystals["bleu"].stored is None


def test_unknown_spell_and_out_of_turn_refused(round_camp):
    xar_vs_taz(round_camp)
    before = round_camp.last_position()
    with pytest.raises(CristalError, match="^Unknown spell 'Soin'"):
        round_camp.execute(F.CastSpell(combat="rue", actor="xar", spell="Soin"), faces=[8])
    with pytest.raises(RuleError, match="^It is xar's turn \\(smallest IT\\), not taz's.$"):
        round_camp.execute(F.TakeAction(combat="rue", actor="taz", seconds=3))
    assert round_camp.last_position() == before


def test_end_resets_every_it(round_camp):
    start_duel(round_camp)
    round_camp.execute(F.TakeAction(combat="duel", actor="thor", seconds=4))
    before = combat(round_camp)
    assert before.it == {"thor": 4, "york": 2}
    end = round_camp.execute(F.EndCombat(combat="duel"))[0]
    assert end.type == "combat.ended"
    # L1222: every IT back to 0 — the fight leaves the state; only its log remains
    assert "duel" not in round_camp.state().rules.combats
    with pytest.raises(CristalError, match="There is no combat named 'duel' in progress"):
        round_camp.execute(F.TakeAction(combat="duel", actor="thor", seconds=1))


def test_characters_fight_with_their_sheet(round_camp):
    # a Humain with an equipped long sword (IT 6): ATT and DMG from its sheet; damage lowers the character's PV
    c = round_camp
    for cid in ("thor", "york"):
        c.execute(C.CreateCharacter(id=cid, race="Humain"))
    c.execute(C.AddItem(character="thor", item="Épée longue"))
    c.execute(C.EquipItem(character="thor", item="Épée longue"))
    c.execute(F.StartCombat(combat="duel", fighters=["thor", "york"], its={"york": 2}))
    pv = c.state().rules.characters["york"].pv
    dp = C.sheet(c.state().rules.characters["york"], C.content_of(c.state().rules), "round")["stable"]["DP"]
    recs = c.execute(F.Attack(combat="duel", actor="thor", target="york", weapon="Épée longue"), faces=[20, 5])
    ev = recs[0].event
    assert ev.dp == dp and ev.seconds == 6 and ev.swings[0].hit
    assert c.state().rules.characters["york"].pv == pv - ev.swings[0].damage


def test_attaque_de_dos_doubles_damage_and_costs_5_vol(round_camp):
    # L735: Voleur level 5, 5 Vol*; damage x 2
    c = round_camp
    c.execute(F.StartCombat(combat="v", fighters=["taz", "york"], its={"york": 1},
                            stats={"taz": {"ATT": 5, "DMG": "1d6", "VOLEUR": 5}, "york": {"DP": 5, "PV": 30}}))
    ev = c.execute(F.Attack(combat="v", actor="taz", target="york", back=True), faces=[10, 4])[0].event
    assert (ev.swings[0].damage, ev.vol_spent) == (8, 5)
    assert combat(c, "v").fighters["taz"].vol_spent == 5


def test_attaque_de_dos_needs_voleur_level_5(round_camp):
    c = round_camp
    c.execute(F.StartCombat(combat="v", fighters=["taz", "york"], its={"york": 1},
                            stats={"taz": {"ATT": 5, "DMG": "1d6", "VOLEUR": 4}, "york": {"DP": 5, "PV": 30}}))
    with pytest.raises(RuleError, match="^Attaque de dos needs Voleur level 5 \\(has 4\\).$"):
        c.execute(F.Attack(combat="v", actor="taz", target="york", back=True), faces=[10, 4])


def test_voleur_ability_pays_vol_points(round_camp):
    # L730-L741: Pickpocket on a busy person: 2 Vol*, Voleur level 2; 3 points left today (GM number)
    c = round_camp
    c.execute(F.StartCombat(combat="v", fighters=["taz", "york"], its={"york": 1},
                            stats={"taz": {"VOLEUR": 2, "VOL": 3, "PV": 5}, "york": {"PV": 5}}))
    ev = c.execute(F.UseAbility(combat="v", actor="taz", ability="Pickpocket (personne occupée)", seconds=15,
                                target="york"))[0].event
    assert (ev.cost, combat(c, "v").it["taz"]) == (2, 15)
    c.execute(F.TakeAction(combat="v", actor="york", seconds=20))
    with pytest.raises(RuleError, match="^Pickpocket \\(personne occupée\\) costs 2 Vol points; only 1 left today.$"):
        c.execute(F.UseAbility(combat="v", actor="taz", ability="Pickpocket (personne occupée)", seconds=15))


def test_alignment_heal_wakes_and_adds_it(round_camp):
    # L1419, TV-25: healing 6 PV -> IT + 6; above 0 PV the character wakes (D8)
    c = round_camp
    c.execute(F.StartCombat(combat="a", fighters=["ange", "h"], its={"h": 1},
                            stats={"ange": {"ALIGN": 4, "ATT": 20, "DMG": "1d6"},
                                   "h": {"DP": 0, "PV": 2, "PVmax": 12, "race": "Humain"}}))
    c.execute(F.Attack(combat="a", actor="ange", target="h"), faces=[1, 5])  # 2 - 5 = -3
    recs = c.execute(F.UseAlignment(combat="a", actor="ange", target="h", kind="heal", points=6))
    assert recs[0].event.seconds == 6 and recs[0].event.remaining == 14
    assert [r.event.condition for r in recs if isinstance(r.event, F.ConditionChanged)] == ["conscious"]
    assert combat(c, "a").it["ange"] == 12


def test_chance_redoes_a_missed_attack(round_camp):
    c = round_camp
    c.execute(F.StartCombat(combat="c", fighters=["thor", "york"], its={"york": 9},
                            stats={"thor": {"ATT": 5, "DMG": "1d6", "CHANCE": 1}, "york": {"DP": 12, "PV": 10}}))
    c.execute(F.Attack(combat="c", actor="thor", target="york"), faces=[2])
    recs = c.execute(F.Reroll(combat="c", actor="thor"), faces=[15, 4])
    assert recs[0].event.swing.hit and recs[0].event.left == 0
    assert F.numbers(c.state().rules, combat(c, "c"), "york", "round").PV == 6
    with pytest.raises(RuleError, match="^thor has no Chance reroll left today \\(L56\\).$"):  # Chance 1: one a day
        c.execute(F.Reroll(combat="c", actor="thor"), faces=[1])


def test_potion_drunk_takes_8_seconds(round_camp):
    # L1169-L1177, L1245: drinking a potion = 8 s; a potion holds at most 15 PM (L1184)
    c = round_camp
    c.execute(F.StartCombat(combat="p", fighters=["thor", "york"], its={"york": 9},
                            stats={"thor": {"PV": 10}, "york": {"PV": 10, "DM": 0}}))
    recs = c.execute(F.UsePotion(combat="p", actor="thor", spell="Boule de Feu", effects={"Dommage": 2},
                                 trigger="contact", target="york"), faces=[3])
    assert recs[0].event.seconds == 3 and recs[1].event.results[0].damage == 3
    with pytest.raises(RuleError, match="A potion holds at most 15 PM"):
        c.execute(F.UsePotion(combat="p", actor="thor", spell="Boule de Feu", effects={"Dommage": 16}), faces=[1] * 8)


def test_read_models_match_a_rebuild(stored):
    from cristal_events.projections import runner

    from cristal_events import projections

    projections.attach(stored)
    start_duel(stored)
    for _, _, _, cmd, faces, _, _ in BOOK:
        stored.execute(cmd, faces=faces)
    assert runner.verify(stored) == []
    rows = stored.store.conn.execute("SELECT actor, duration FROM cristal_combat_log ORDER BY position").fetchall()
    assert [r[1] for r in rows] == [row[5] for row in BOOK]
