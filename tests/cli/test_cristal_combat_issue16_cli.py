"""Issue 16, combat bookkeeping through the CLI (seed 000): an ended fight's log, healing, corrections."""

from __future__ import annotations

import json

import pytest
from test_cristal_combat_cli import BOOK, COMMANDS, STATS


@pytest.fixture
def duel(run):
    assert run("init", "--name", "Duel", "--seed", "5").exit_code == 0
    assert run("combat", "start", "duel", "--with", "thor,york", "--it", "york=2", *STATS).exit_code == 0
    return run


def test_the_log_of_an_ended_fight_is_still_the_book_table(duel):
    """Item 21: 'combat log NAME' works once the fight has ended (the Thor vs York table, L1298-L1311)."""
    for args in COMMANDS:
        assert duel("combat", *args).exit_code == 0
    assert duel("combat", "end", "duel").exit_code == 0
    result = duel("combat", "log", "duel", "--json")
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)
    got = [((r["it_before"]["thor"], r["it_before"]["york"]), r["actor"], r["duration"],
            (r["it_after"]["thor"], r["it_after"]["york"])) for r in rows]
    assert got == BOOK
    assert "Boule de Feu" in duel("combat", "log", "duel").output
    missing = duel("combat", "log", "nowhere")
    assert missing.exit_code != 0 and "no combat named 'nowhere'" in missing.output


def test_a_fighter_healed_above_0_pv_acts_again_through_the_cli(run):
    """Item 22: thor, knocked below 0 PV, healed to 2 PV, is conscious in the fight again (L369, D8)."""
    assert run("init", "--name", "Heal", "--seed", "5").exit_code == 0
    assert run("character", "create", "thor", "--race", "Humain").exit_code == 0
    pv = json.loads(run("sheet", "thor", "--json").output)["variable"]["PV"]
    assert run("combat", "start", "t", "--with", "thor,gob", "--it", "gob=10", "--stat", "gob:PV=5",
               "--stat", "gob:DP=10", "--stat", "gob:ATT=3").exit_code == 0
    assert run("damage", "thor", str(pv + 2), "--reason", "chute").exit_code == 0
    assert "thor is unconscious and cannot act" in run("combat", "act", "t", "thor", "x", "--duration", "2").output
    assert run("heal", "thor", "4", "--source", "care", "--reason", "bandage").exit_code == 0
    shown = json.loads(run("combat", "show", "t", "--json").output)
    thor = next(p for p in shown["participants"] if p["id"] == "thor")
    assert (thor["condition"], thor["pv"], shown["next"]) == ("conscious", 2, "thor")
    assert run("combat", "act", "t", "thor", "x", "--duration", "2").exit_code == 0


def test_the_weapon_carried_by_its_own_name_and_three_chained_attacks(run):
    """Items 5 and 11: 'Excalibur' (L837) found on the character; chain_attacks=3: three d20, each / 3 (L1363)."""
    assert run("init", "--name", "Chain", "--seed", "5", "--set", "chain_attacks=3").exit_code == 0
    assert run("character", "create", "gustave", "--race", "Humain").exit_code == 0
    assert run("item", "add", "gustave", "Excalibur", "--dmg", "1d6", "--att", "8", "--it", "6").exit_code == 0
    assert run("item", "equip", "gustave", "Excalibur").exit_code == 0
    assert run("combat", "start", "taverne", "--with", "gustave,rodrigue", "--it", "rodrigue=10",
               "--stat", "rodrigue:DP=8", "--stat", "rodrigue:PV=30").exit_code == 0
    result = run("combat", "attack", "taverne", "gustave", "rodrigue", "--weapon", "excalibur", "--chain",
                 "--dice", "19,20,1,4,2", "--json")
    assert result.exit_code == 0, result.output
    attack = json.loads(result.output)["events"][0]["event"]
    assert [(s["total"], s["hit"], s["damage"]) for s in attack["swings"]] == [(9, True, 4), (9, True, 2),
                                                                               (3, False, 0)]
    assert "Chained attacks" in run("combat", "attack", "--help").output
    refused = run("init", "--name", "X", "--set", "chain_attacks=9")
    assert refused.exit_code != 0 and "chain_attacks" in refused.output


def test_a_thrown_dagger_is_used_up_through_the_cli(run):
    """Item 2 (L1352): each throw takes a Dague de jet off the sheet; the last one empties the line."""
    assert run("init", "--name", "Jet", "--seed", "5").exit_code == 0
    assert run("character", "create", "lia", "--race", "Humain").exit_code == 0
    assert run("item", "add", "lia", "Dague de jet", "--qty", "2").exit_code == 0
    assert run("combat", "start", "d", "--with", "lia,gob", "--it", "gob=100", "--stat", "gob:DP=5",
               "--stat", "gob:PV=20").exit_code == 0
    assert run("combat", "attack", "d", "lia", "gob", "--weapon", "dague de jet", "--dice", "10,3").exit_code == 0
    items = json.loads(run("sheet", "lia", "--json").output)["items"]
    assert [(i["name"], i["qty"]) for i in items] == [("Dague de jet", 1)]
    assert run("combat", "attack", "d", "lia", "gob", "--weapon", "Dague de jet", "--dice", "1").exit_code == 0
    assert json.loads(run("sheet", "lia", "--json").output)["items"] == []
    again = run("combat", "attack", "d", "lia", "gob", "--weapon", "Dague de jet", "--dice", "10")
    assert again.exit_code != 0 and "lia has 0 Dague de jet left" in again.output


def test_a_tie_broken_by_the_first_faces_and_the_warnings_of_item_24(run):
    """Item 24: tied on IT and REF (L1202), the action's --dice start with the tie-break d6; a session
    ended with a fight going on and an unconscious character joining a fight are warned about."""
    assert run("init", "--name", "Tie", "--seed", "5").exit_code == 0
    assert run("session", "start").exit_code == 0
    assert run("character", "create", "thor", "--race", "Humain").exit_code == 0
    assert run("combat", "start", "t", "--with", "a,b", "--stat", "a:PV=5", "--stat", "b:PV=5").exit_code == 0
    blocked = run("combat", "act", "t", "b", "attend", "--duration", "2")
    assert blocked.exit_code != 0 and "give its d6 first in the command's --dice" in blocked.output
    acted = run("combat", "act", "t", "b", "attend", "--duration", "2", "--dice", "2,5", "--json")
    assert acted.exit_code == 0, acted.output
    assert [e["type"] for e in json.loads(acted.output)["events"]][:2] == ["combat.tie_broken", "combat.action_taken"]
    assert run("damage", "thor", "13", "--reason", "chute").exit_code == 0
    joined = run("combat", "join", "t", "thor")
    assert joined.exit_code == 0 and "thor is unconscious (-1 PV) and joins the fight 't'" in joined.output
    ended = run("session", "end")
    assert ended.exit_code == 0 and "Session 1 ended with the fight 't' still in progress" in ended.output


def test_chance_redoes_a_released_spell_damage_through_the_cli(run):
    """Item 4 (L56, L1306-L1313): York's Boule de Feu of 4 PM of Dommage, 3 + 4 damage, redone 1 + 2."""
    assert run("init", "--name", "Luck", "--seed", "5").exit_code == 0
    assert run("combat", "start", "duel", "--with", "york,thor", "--it", "thor=50", "--stat", "york:CNC=10",
               "--stat", "york:PM=20", "--stat", "york:CHANCE=1", "--stat", "thor:PV=20").exit_code == 0
    assert run("combat", "cast", "duel", "york", "Boule de Feu", "--effect", "Dommage=4", "--target", "thor",
               "--dice", "9").exit_code == 0
    assert run("combat", "release", "duel", "york", "--dice", "3,4").exit_code == 0
    redone = run("combat", "reroll", "duel", "york", "--dice", "1,2")
    assert redone.exit_code == 0, redone.output
    thor = next(p for p in json.loads(run("combat", "show", "duel", "--json").output)["participants"]
                if p["id"] == "thor")
    assert thor["pv"] == 17


def test_the_sheet_shows_no_reroll_when_chance_is_off(tmp_path):
    from click.testing import CliRunner

    from cristal_events.cli import cli

    db = str(tmp_path / "c.db")
    runner = CliRunner()
    assert runner.invoke(cli, ["--db", db, "init", "--name", "X", "--set", "chance_enabled=false"]).exit_code == 0
    assert runner.invoke(cli, ["--db", db, "character", "create", "thor", "--race", "Humain",
                               "--luck", "4"]).exit_code == 0
    chance = json.loads(runner.invoke(cli, ["--db", db, "sheet", "thor", "--json"]).output)["chance"]
    assert chance == {"rerolls": 0, "gm_rerolls": 0, "left": 0}


def test_help_faces_did_you_mean_and_the_remembered_time_through_the_cli(run):
    """Item 25: cast's help says 6 PM of Dommage take 3d6 (L1024-L1036); a typo gets "did you mean";
    Rayon Magique's --time (the book prints no Temps) is remembered for the next cast."""
    help_text = " ".join(run("combat", "cast", "--help").output.split())
    assert "6 PM of Dommage on a DM 0 target take 3 faces (3d6)" in help_text
    assert "tie-break d6 come first" in " ".join(run("combat", "attack", "--help").output.split())
    assert run("init", "--name", "Help", "--seed", "5").exit_code == 0
    typo = run("character", "create", "x", "--race", "Humian")
    assert typo.exit_code != 0 and "Did you mean 'Humain'?" in typo.output
    assert run("combat", "start", "rue", "--with", "xar,taz", "--it", "taz=50", "--stat", "xar:CNC=4",
               "--stat", "xar:PM=40", "--stat", "taz:DM=3", "--stat", "taz:PV=30").exit_code == 0
    args = ["combat", "cast", "rue", "xar", "Rayon Magique", "--effect", "Distance=3", "--effect", "Dommage=8",
            "--target", "taz"]
    assert "not printed; give it with --time" in run(*args, "--dice", "8,4").output
    assert run(*args, "--time", "INSTANTANÉ", "--dice", "8,4").exit_code == 0
    again = run(*args, "--dice", "8,4")
    assert again.exit_code == 0, again.output


@pytest.mark.french  # reads the Lois du Cristal's French summaries
def test_corrections_of_a_fight_and_a_retirement_through_the_cli(run):
    """Item 23 (L1359-L1361): Gustave's [2d6+2] typed 6,6 instead of 3,3: 'correct POS --set damage=8'."""
    assert run("init", "--name", "Fix", "--seed", "5").exit_code == 0
    assert run("combat", "start", "t", "--with", "gustave,rodrigue", "--it", "rodrigue=10", "--stat", "gustave:ATT=8",
               "--stat", "gustave:DMG=2d6+2", "--stat", "rodrigue:DP=18", "--stat", "rodrigue:PV=20").exit_code == 0
    out = json.loads(run("combat", "attack", "t", "gustave", "rodrigue", "--dice", "13,6,6", "--json").output)
    position = out["events"][0]["position"]
    fixed = run("correct", str(position), "--reason", "dés 3,3 et non 6,6", "--set", "damage=8", "--json")
    assert fixed.exit_code == 0, fixed.output
    rows = json.loads(fixed.output)
    assert [r["type"] for r in rows] == ["correction.recorded", "combat.pv_changed"]
    assert "dommages 14 → 8" in rows[1]["summary"]
    rodrigue = next(p for p in json.loads(run("combat", "show", "t", "--json").output)["participants"]
                    if p["id"] == "rodrigue")
    assert rodrigue["pv"] == 12
    created = json.loads(run("character", "create", "thorr", "--race", "Humain", "--json").output)
    pos = created[0]["position"]
    retired = run("correct", str(pos), "--reason", "créé par erreur")
    assert retired.exit_code == 0 and "thorr est retiré de la campagne" in retired.output
    assert run("sheet", "thorr").exit_code != 0


@pytest.mark.french  # reads the Lois du Cristal's French summaries
def test_a_voleur_ability_and_bleeding_outside_a_fight_through_the_cli(run):
    """Items 19 (L664, L666-L668) and 20 (L371)."""
    assert run("init", "--name", "Vol", "--seed", "5").exit_code == 0
    assert run("character", "create", "taz", "--race", "Humain").exit_code == 0
    assert run("xp", "award", "taz", "1000", "--reason", "r").exit_code == 0
    assert run("xp", "buy", "taz", "level", "Voleur", "--stat", "DEX").exit_code == 0
    used = run("ability", "taz", "Déplacement silencieux", "--reason", "la ruelle")
    assert used.exit_code == 0, used.output
    assert "Déplacement silencieux (1 Vol*) → 2 restant(s)" in used.output
    assert json.loads(run("sheet", "taz", "--json").output)["vol"]["left"] == 2
    pv = json.loads(run("sheet", "taz", "--json").output)["variable"]["PV"]
    assert run("damage", "taz", str(pv + 1), "--reason", "chute").exit_code == 0  # -1 PV: unconscious
    bled = run("bleed", "taz", "3", "--json")
    assert bled.exit_code == 0, bled.output
    assert json.loads(run("sheet", "taz", "--json").output)["variable"]["PV"] == -4


def test_a_natural_weapon_and_its_recovery_through_the_cli(run, tmp_path):
    """Item 20 (L469, L1263): a serpent's Venin, IT 3, recovers for 3 hours."""
    from rules.cristal.test_combat_issue16 import SERPENT

    pack = tmp_path / "serpents.json"
    pack.write_text(json.dumps(SERPENT), encoding="utf-8")
    assert run("init", "--name", "Nat", "--seed", "5").exit_code == 0
    loaded = run("content", "load", str(pack))
    assert loaded.exit_code == 0, loaded.output
    assert run("combat", "start", "c", "--with", "naja,rat", "--it", "rat=100000", "--stat", "naja:ATT=5",
               "--stat", "naja:race=Serpent", "--stat", "rat:DP=4", "--stat", "rat:PV=40").exit_code == 0
    bite = run("combat", "attack", "c", "naja", "rat", "--natural", "Venin", "--dice", "10,3,4")
    assert bite.exit_code == 0, bite.output
    assert "(Venin)" in bite.output
    again = run("combat", "attack", "c", "naja", "rat", "--natural", "Venin", "--dice", "10,3,4")
    assert again.exit_code != 0 and "recovering until IT 10800" in again.output
