"""Verrou and Vision Cristalline through ``cristal combat`` (L1119-L1135), moved from the combat gaps of
issue 5 (tests/rules/cristal/test_combat_more.py): a crystal stored, inspected, locked and released."""

from __future__ import annotations

import json

import pytest

from cristal_events.service import Campaign


def log_length(run):
    with Campaign.open(run.path, readonly=True) as camp:
        return camp.store.last_position()


# --------------------------------------------------------------------------- Verrou and Vision Cristalline

def cli(run, *args):
    return run("combat", *args)


@pytest.fixture
def crystal(run):
    # L1077, L1115: Xar stores his Rayon Magique (11 PM: Distance 3, Dommage 8) in "bleu" (capacity 19 PM,
    # L1085); Fermeture 3 + 2 = 5 PM; with CNC 10 both d20 succeed (10 + 8 >= 7, 10 + 12 >= 12).
    assert run("init", "--name", "Cristal", "--seed", "3").exit_code == 0
    assert cli(run, "start", "c", "--with", "xar,taz", "--it", "taz=500", "--stat", "xar:CNC=10",
               "--stat", "xar:PM=40", "--stat", "taz:CNC=10", "--stat", "taz:PM=10", "--stat", "taz:PV=10").exit_code == 0
    r = cli(run, "store", "c", "xar", "bleu", "Rayon Magique", "--effect", "Distance=3", "--effect", "Dommage=8",
            "--capacity", "19", "--time", "4", "--dice", "8,12")
    assert r.exit_code == 0, r.output
    return run


def combat_it(run, who):
    with Campaign.open(run.path, readonly=True) as c:
        return c.state().rules.combats["c"].it[who]


def test_vision_cristalline_shows_the_spell_and_its_pm_per_effect(crystal):
    # L1125: "identifier le sort emmagasiné ... ainsi que la force (distribution des PM par effets variables)"
    it = combat_it(crystal, "xar")
    data = json.loads(cli(crystal, "inspect", "c", "xar", "bleu", "--dice", "5", "--json").output)
    ev = data["events"][0]["event"]
    assert (ev["success"], ev["spell"], ev["pm"], ev["spends"]) == (True, "Rayon Magique", 11,
                                                                     {"Distance": 3, "Dommage": 8})
    assert ev["pm_cost"] == 1 and ev["seconds"] == 24  # 20 s + combustion 8 / 2 (L1119, L1271)
    assert combat_it(crystal, "xar") == it + 24
    assert data["events"][0]["summary"].endswith("Rayon Magique (11 PM: Distance 3 PM, Dommage 8 PM); IT +24")


def test_verrou_cristallin_locks_out_others_and_hides_the_spell(crystal):
    # L1129-L1135: 5 PM, CNC 16, 60 s; only the locker releases; Vision cannot see through it
    ev = json.loads(cli(crystal, "lock", "c", "xar", "bleu", "--dice", "6", "--json").output)["events"][0]["event"]
    assert (ev["success"], ev["pm_cost"], ev["seconds"]) == (True, 5, 68)  # 10 + 6 >= 16; 60 + 16 / 2
    before = log_length(crystal)
    r = cli(crystal, "lock", "c", "xar", "bleu", "--dice", "6")
    assert r.exit_code == 1 and r.output.strip() == "Error: The crystal is already locked by xar."
    r = cli(crystal, "unlock", "c", "taz", "bleu")
    assert r.exit_code == 1 and r.output.strip() == "Error: It is xar's turn (smallest IT), not taz's."
    assert log_length(crystal) == before
    with Campaign.open(crystal.path, readonly=True) as c:
        assert c.state().rules.crystals["bleu"].locked_by == "xar"
    cli(crystal, "act", "c", "xar", "attend", "--duration", "500")
    data = json.loads(cli(crystal, "inspect", "c", "taz", "bleu", "--dice", "9", "--json").output)
    ev = data["events"][0]["event"]
    assert (ev["success"], ev["locked"], ev["spell"]) == (True, True, "")
    assert "a Verrou Cristallin hides the spell" in data["events"][0]["summary"]
    before = log_length(crystal)
    r = cli(crystal, "unleash", "c", "taz", "bleu", "--dice", "15")
    assert r.exit_code == 1 and r.output.strip() == "Error: The crystal is locked by xar; only they can release it."
    assert log_length(crystal) == before


def test_the_locker_lifts_its_lock_and_a_failed_verrou_loses_its_pm(crystal):
    ev = json.loads(cli(crystal, "lock", "c", "xar", "bleu", "--dice", "5", "--json").output)["events"][0]["event"]
    assert (ev["success"], ev["pm_cost"], ev["seconds"]) == (False, 5, 60)  # 10 + 5 < 16: the Temps only (L1284)
    r = cli(crystal, "unlock", "c", "xar", "bleu")
    assert r.exit_code == 1 and r.output.strip() == "Error: This crystal is not locked."
    cli(crystal, "lock", "c", "xar", "bleu", "--dice", "20")
    ev = json.loads(cli(crystal, "unlock", "c", "xar", "bleu", "--duration", "2", "--json").output)["events"][0]
    assert ev["type"] == "combat.crystal_unlocked" and ev["event"]["seconds"] == 2
    rows = json.loads(cli(crystal, "log", "c", "--json").output)
    assert [r["duration"] for r in rows if "Verrou" in r["action"]] == [60, 68, 2]


def test_an_unknown_crystal_is_refused_and_an_empty_one_seen_empty(crystal):
    before = log_length(crystal)
    r = cli(crystal, "inspect", "c", "xar", "rouge", "--dice", "9")
    assert r.exit_code == 1 and r.output.strip() == "Error: There is no crystal named 'rouge'."
    r = cli(crystal, "lock", "c", "xar", "rouge", "--dice", "9")
    assert r.exit_code == 1 and r.output.strip() == "Error: There is no crystal named 'rouge'."
    assert log_length(crystal) == before
    assert cli(crystal, "unleash", "c", "xar", "bleu", "--target", "taz", "--dice", "15,1,1,1,1").exit_code == 0
    r = cli(crystal, "lock", "c", "xar", "bleu", "--dice", "9")
    assert r.exit_code == 1 and r.output.strip() == "Error: Verrou Cristallin needs a crystal that holds a spell."
    data = json.loads(cli(crystal, "inspect", "c", "xar", "bleu", "--dice", "9", "--json").output)
    assert data["events"][0]["event"]["spell"] == "" and "the crystal is empty" in data["events"][0]["summary"]
