"""The edges of the Feuille de Personnage (issue 16 items 3, 6, 9, 10, 12, 13, 14, 15), with the book's numbers.

Seed 000 lines are cited beside each number; every scenario runs on the rules harness (tests/harness.py).
"""

from __future__ import annotations

import pytest
from harness import Table, given

from cristal_events.events import SessionStarted
from cristal_events.ruleset import Emit
from cristal_events.rulesets.cristal import characters as C
from cristal_events.rulesets.cristal import fixed

REASON = "L1478: 600 XP at creation"


def sheet(table, cid):
    rules = table.state().rules
    return C.sheet(rules.characters[cid], C.content_of(rules), table.header.rounding)


def pv_pm(table, cid):
    s = sheet(table, cid)
    return s["variable"]["PV"], s["stable"]["PVmax"], s["variable"]["PM"], s["stable"]["PMmax"]


@pytest.fixture(params=["round", "truncate"])
def table(request):
    return Table("cristal", rounding=request.param, seed=3)


# ------------------------------------------------------------------ item 9: creation (L1448-L1458, L1478, L1482)
def test_a_humain_given_600_xp_and_two_guerrier_levels_at_creation_starts_at_19_19(table):
    # L1478: the GM gives 600 XP; two Guerrier levels (100 + 200 XP, L537) raise PVmax to 12 + 60 % = 19.2 -> 19
    # (L328-L340, both modes); L1482: "ses PV et ses PM actuels sont égaux à ses PVmax et PMmax"
    table.execute(C.CreateCharacter(id="h", race="Humain"))
    table.execute(C.AwardXp(characters=("h",), amount=600, reason=REASON))
    table.execute(C.BuyLevel(character="h", class_name="Guerrier", stat="FRC"))
    recs = table.execute(C.BuyLevel(character="h", class_name="Guerrier", stat="DEX"))
    assert pv_pm(table, "h") == (19, 19, 6, 6)
    gain = 3 if table.header.rounding == "round" else 4  # 15.6 -> 19.2: 16 -> 19 (round), 15 -> 19 (truncate)
    assert (recs[0].event.pv_gain, recs[0].event.pm_gain) == (gain, 0)
    assert sheet(table, "h")["creating"] is True


def test_the_creation_phase_closes_explicitly_and_then_levels_leave_the_current_pv():
    scenario = given(C.CreateCharacter(id="h", race="Humain"),
                     C.AwardXp(characters=("h",), amount=600, reason=REASON),
                     C.BuyLevel(character="h", class_name="Guerrier", stat="FRC"))
    # Guerrier 1: 12 + 30 % = 15.6 -> 16 (round); ready: nothing to move, the phase closes
    scenario.when(C.MarkReady(character="h")).then(
        Emit("character:h", C.CharacterReady(character="h", pv_delta=0, pm_delta=0, pv_max=16, pm_max=6)))
    table = scenario.table
    table.execute(C.BuyLevel(character="h", class_name="Guerrier", stat="DEX"))
    assert pv_pm(table, "h") == (16, 19, 6, 6)  # after creation a level raises PVmax, not PV (L1482 is the start)
    given(table=table).when(C.MarkReady(character="h")).refused(
        "h is no longer being created: the creation phase closed (with 'character ready' or the first session).")


def test_the_first_session_closes_every_creation_phase():
    table = Table("cristal", rounding="round", seed=3)
    table.execute(C.CreateCharacter(id="h", race="Humain"))
    assert table.state().rules.characters["h"].creating
    table.apply(SessionStarted(number=1, title="Arrivée"))
    assert not table.state().rules.characters["h"].creating
    table.execute(C.AwardXp(characters=("h",), amount=100, reason=REASON))
    table.execute(C.BuyLevel(character="h", class_name="Guerrier", stat="FRC"))
    assert pv_pm(table, "h") == (12, 16, 6, 6)


# ------------------------------------------------------------------ item 3: PV / PM capped (L328, L342)
def test_a_state_lowering_con_caps_the_current_pv_and_its_end_gives_no_pv_back(table):
    # L328: PVmax = PV race + CON; a Humain (PV 12, L517) poisoned CON -4 has PVmax 8: PV 12 -> 8, never 12/8
    table.execute(C.CreateCharacter(id="h", race="Humain"))
    table.execute(C.MarkReady(character="h"))
    recs = table.execute(C.AlterState(character="h", stat="CON", delta=-4, reason="poison"))
    assert recs[1].event == C.PointsSet(character="h", pv_delta=-4, pm_delta=0, pv_max=8, pm_max=6, reason="cap")
    assert pv_pm(table, "h") == (8, 8, 6, 6)
    table.execute(C.EndAlteration(character="h", since=recs[0].position))
    assert pv_pm(table, "h") == (8, 12, 6, 6)  # rulings.md: the lost PV come back by rest or healing
    table.execute(C.Rest(characters=("h",), days=1))  # Humain regenerates 15 % of 12 a day (L491)
    assert pv_pm(table, "h")[0] == (10 if table.header.rounding == "round" else 9)


def test_with_the_setting_the_points_a_state_capped_come_back_at_its_end():
    # points_return_when_state_ends (L328, L342): Humain 12/12, CON -4 -> 8/8, the poison ends -> 12/12
    table = Table("cristal", rounding="round", seed=3, settings={"points_return_when_state_ends": True})
    table.execute(C.CreateCharacter(id="h", race="Humain"))
    table.execute(C.MarkReady(character="h"))
    pos = table.execute(C.AlterState(character="h", stat="CON", delta=-4, reason="poison"))[0].position
    table.execute(C.Damage(character="h", amount=1, reason="chute"))
    recs = table.execute(C.EndAlteration(character="h", since=pos))
    assert recs[1].event == C.PointsSet(character="h", pv_delta=4, pm_delta=0, pv_max=12, pm_max=6, reason="restore")
    assert pv_pm(table, "h") == (11, 12, 6, 6)  # the 4 capped come back, the fall's wound stays


def test_a_state_lowering_mag_caps_the_current_pm():
    # L342: PMmax = PM race + MAG; an Elfe (PM 10, MAG +2, L556) with MAG -5 has PMmax 7
    table = Table("cristal", rounding="round", seed=3)
    table.execute(C.CreateCharacter(id="e", race="Elfe"))
    table.execute(C.MarkReady(character="e"))
    assert pv_pm(table, "e")[2:] == (12, 12)
    table.execute(C.AlterState(character="e", stat="MAG", delta=-5, reason="malédiction"))
    assert pv_pm(table, "e")[2:] == (7, 7)


# ------------------------------------------------------------------ items 6, 10: six senses (L191-L231, L865)
def test_six_senses_and_an_item_bonus_on_vue_moves_its_scale():
    table = Table("cristal", rounding="round", seed=3)
    table.execute(C.CreateCharacter(id="e", race="Elfe"))
    s = sheet(table, "e")
    # L198-L204: Vue, Ouïe, Goûter, Odorat, Toucher, Extrasensoriel; Elfe Vue +6 (L569), Extrasensoriel unprinted: 0
    assert s["senses"] == {"Vue": 6, "Ouïe": 6, "Goûter": 2, "Odorat": 2, "Toucher": 2, "Extrasensoriel": 0}
    table.execute(C.AddItem(character="e", item="Lunette elfique", properties={"category": "Autres",
                                                                            "modifiers": {"Vue": 2}}))
    table.execute(C.EquipItem(character="e", item="Lunette elfique"))
    s = sheet(table, "e")
    assert s["senses"]["Vue"] == 8 and s["senses_base"]["Vue"] == 6
    face = next(r for r in s["sense_ranges"] if r["example"].startswith("Distinguer le visage"))
    assert face["distance"] == 25 + 5 * 8  # L209: 25 m at 0, +5 m a point


# ------------------------------------------------------------------ item 12: a handicap never forbids (L801, L871)
def test_the_gm_lets_a_character_use_a_two_handed_sword_with_a_penalty():
    # L871: FRC +2 with the two-handed sword FRC -6 gives FRC -4; the GM may add penalties if the player persists
    table = Table("cristal", rounding="round", seed=3)
    table.execute(C.CreateCharacter(id="x", race="Humain", adjustments={"FRC": 2}))
    table.execute(C.AddItem(character="x", item="Épée à deux mains"))
    att_bare = sheet(table, "x")["stable"]["ATT"]
    given(table=table).when(C.EquipItem(character="x", item="Épée à deux mains", gm_allowed="il insiste",
                                        penalties={"ATT": 2})).refused(
        "A GM penalty must be negative (L871), e.g. --penalty ATT=-2.")
    table.execute(C.EquipItem(character="x", item="Épée à deux mains", gm_allowed="il insiste", penalties={"att": -2}))
    s = sheet(table, "x")
    sword = table.state().rules.characters["x"].items[0]
    assert sword.equipped and sword.gm_allowed == "il insiste" and sword.penalties == {"ATT": -2}
    assert s["fixed_effective"]["FRC"] == -4
    assert s["stable"]["ATT"] == att_bare + sword.template.att - 2
    table.execute(C.UnequipItem(character="x", item="Épée à deux mains"))
    assert sheet(table, "x")["stable"]["ATT"] == att_bare


# ------------------------------------------------------------------ item 15: fixed-state tables (L84-L189)
def test_the_sheet_shows_the_fixed_state_tables_of_an_elfe():
    table = Table("cristal", rounding="round", seed=3)
    table.execute(C.CreateCharacter(id="e", race="Elfe"))
    rows = {r["state"]: r["value"] for r in sheet(table, "e")["fixed_tables"]}
    # Elfe FRC -3, DEX +3, INT +3, CON 0, REF 0, OBS +3, MEM -2, CHAR +3 (L569-L573); MAG has no table (L127)
    assert rows == {"FRC": "82,5 / 27,5", "DEX": "5", "INT": "117,5", "CON": "16", "REF": "1", "OBS": "17",
                    "MEM": "4", "CHAR": "11"}
    assert fixed.table_row("FRC", 4)["value"] == "240 / 80"  # L235: FRC 4 lifts 240 kg (L92)
    assert fixed.table_row("REF", 2)["value"] == "0,75"  # L150


# ------------------------------------------------------------------ item 13: the Technique roll (L763-L776)
def test_a_trained_forestier_roll_adds_level_and_adjustment():
    scenario = given(C.CreateCharacter(id="e", race="Elfe"), C.AwardXp(characters=("e",), amount=10, reason="r"),
                     C.BuyTechnique(character="e", technique="Forestier"))  # Elfe factor 10 (L790)
    # L766: level 1 + OBS 3 / 3 = 1 + 1d6 (4) = 6 >= 5, the standard difficulty (L770)
    ev = scenario.when(C.CheckTechnique(character="e", technique="Forestier"), faces=[4]).events()[0]
    assert (ev.level, ev.adjustment, ev.face, ev.total, ev.difficulty, ev.success) == (1, 1, 4, 6, 5, True)
    assert (ev.roll.expr, ev.roll.faces, ev.roll.source) == ("1d6", (4,), "entered")
    ev = scenario.when(C.CheckTechnique(character="e", technique="Forestier", difficulty=10), faces=[6]).events()[0]
    assert (ev.total, ev.success) == (8, False)  # L772: 10 for a raging river


def test_an_untrained_roll_uses_level_0_and_no_adjustment():
    # L774: untrained, level 0, and the adjustment only from the first level: OBS 3 gives nothing here
    ev = given(C.CreateCharacter(id="e", race="Elfe")).when(
        C.CheckTechnique(character="e", technique="Forestier"), faces=[5]).events()[0]
    assert (ev.level, ev.adjustment, ev.total, ev.success) == (0, 0, 5, True)


# ------------------------------------------------------------------ item 14: Sur-Effort (L233-L242)
def test_a_sur_effort_on_frc_4_adds_1d6_for_the_action_only():
    # L235: FRC 4 lifts 240 kg; L239-L242: a score between 0 and 10 adds [1d6]; a 3 gives FRC 7: 307,5 kg
    scenario = given(C.CreateCharacter(id="h", race="Humain", adjustments={"FRC": 4}))
    ev = scenario.when(C.SurEffort(character="h", stat="FRC", reason="la herse tombe"), faces=[3]).events()[0]
    assert (ev.stat, ev.score, ev.die, ev.bonus, ev.value) == ("FRC", 4, "1d6", 3, 7)
    assert (ev.table_before, ev.table_after) == ("240 / 80", "307,5 / 102,5")
    assert scenario.table.state().rules.characters["h"].fixed["FRC"] == 4  # gone when the action ends (L236)


@pytest.mark.parametrize("score,die", [(-6, "1d2"), (-5, "1d4"), (-1, "1d4"), (0, "1d6"), (10, "1d6"),
                                       (11, "1d8"), (21, "1d10"), (31, "1d12")])
def test_the_sur_effort_band_follows_the_book(score, die):
    # L239-L242: -6 and less 1d2, -5..-1 1d4, 0..10 1d6, 11..20 1d8, 21..30 1d10, 31 and more 1d12
    ev = given(C.CreateCharacter(id="h", race="Humain", adjustments={"CON": score})).when(
        C.SurEffort(character="h", stat="CON", reason="r"), faces=[1]).events()[0]
    assert ev.die == die


def test_a_sur_effort_needs_the_gms_reason():
    given(C.CreateCharacter(id="h", race="Humain")).when(C.SurEffort(character="h", stat="FRC", reason=" ")).refused(
        "A Sur-Effort (the GM's reason, L237) needs a reason (--reason).")


def test_a_penalty_without_a_disabling_handicap_is_refused():
    given(C.CreateCharacter(id="h", race="Humain"), C.AddItem(character="h", item="Épée longue")).when(
        C.EquipItem(character="h", item="Épée longue", gm_allowed="x")).refused(
        "Épée longue's handicap leaves no fixed state below 0 (L871): there is nothing for the GM to allow or penalise.")
