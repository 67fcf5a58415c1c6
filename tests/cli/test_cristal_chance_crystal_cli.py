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
