"""Chance on a crystal's explosion through the CLI (seed 000, L56, L1093; issue 16 item 4)."""

from __future__ import annotations

import json


def test_combat_reroll_redoes_the_explosion_for_everyone_it_hit(run):
    # L1093: 11 PM into a 9-PM crystal: 11d4, all 1s (11) to Xar and Taz; Xar's Chance: 22, both lose 11 more
    assert run("init", "--name", "Blast", "--seed", "5").exit_code == 0
    assert run("combat", "start", "c", "--with", "xar,taz,york", "--it", "taz=50", "--it", "york=50",
               "--stat", "xar:CNC=10", "--stat", "xar:PM=40", "--stat", "xar:PV=30", "--stat", "xar:CHANCE=1",
               "--stat", "taz:PV=20", "--stat", "york:PV=20").exit_code == 0
    stored = run("combat", "store", "c", "xar", "bleu", "Rayon Magique", "--effect", "Distance=3", "--effect",
                 "Dommage=8", "--capacity", "9", "--time", "4", "--within", "taz", "--dice", ",".join(["8", "12"] + ["1"] * 11))
    assert stored.exit_code == 0, stored.output
    assert "1d4 per PM of an explosion" in run("combat", "reroll", "--help").output
    out = run("combat", "reroll", "c", "xar", "--dice", ",".join(["2"] * 11), "--json")
    assert out.exit_code == 0, out.output
    events = [e["event"] for e in json.loads(out.output)["events"]]
    redone = events[0]
    assert (redone["type"], redone["kind"], redone["damage_before"], redone["damage"], redone["targets"]) == (
        "combat.roll_redone", "explosion", 11, 22, ["xar", "taz"])
    pv = {e["character"]: e["pv_after"] for e in events if e["type"] == "combat.pv_changed"}
    assert pv == {"xar": 8, "taz": -2}
    again = run("combat", "reroll", "c", "xar", "--dice", ",".join(["1"] * 11))
    assert again.exit_code != 0 and "no Chance reroll left today" in again.output


def test_combat_reroll_redoes_a_liberation_and_gives_the_pv_back(run):
    # L1099-L1105: Libération CNC 5; Xar CNC -5 + 10 = 5 releases Rayon Magique on York (Dommage 8 PM: 4d6,
    # 3 each: 12, York 20 -> 8); Chance d20 9: 4 < 5 fails, the spell stays in the crystal, York back to 20
    assert run("init", "--name", "Lib", "--seed", "5").exit_code == 0
    assert run("combat", "start", "c", "--with", "xar,york", "--it", "york=50", "--stat", "xar:CNC=-5",
               "--stat", "xar:PM=40", "--stat", "xar:PV=30", "--stat", "xar:CHANCE=1",
               "--stat", "york:PV=20").exit_code == 0
    stored = run("combat", "store", "c", "xar", "bleu", "Rayon Magique", "--effect", "Distance=3", "--effect",
                 "Dommage=8", "--capacity", "19", "--time", "4", "--dice", "20,20")
    assert stored.exit_code == 0, stored.output
    assert "Fermeture or Libération Cristalline d20" in " ".join(run("combat", "reroll", "--help").output.split())
    released = run("combat", "unleash", "c", "xar", "bleu", "--target", "york", "--dice", "10,3,3,3,3")
    assert released.exit_code == 0, released.output
    out = run("combat", "reroll", "c", "xar", "--dice", "9", "--json")
    assert out.exit_code == 0, out.output
    events = [e["event"] for e in json.loads(out.output)["events"]]
    assert (events[0]["type"], events[0]["kind"], events[0]["spell"], events[0]["success"]) == (
        "combat.roll_redone", "crystal", "Libération Cristalline", False)
    assert [(e["character"], e["pv_after"]) for e in events if e["type"] == "combat.pv_changed"] == [("york", 20)]
    # the spell is back in the crystal: xar releases it again (10 -> 5 succeeds; 4d6 of 1s: 4, York 16)
    again = run("combat", "unleash", "c", "xar", "bleu", "--target", "york", "--dice", "10,1,1,1,1", "--json")
    assert again.exit_code == 0, again.output
    assert [e["event"]["pv_after"] for e in json.loads(again.output)["events"]
            if e["event"]["type"] == "combat.pv_changed"] == [16]
