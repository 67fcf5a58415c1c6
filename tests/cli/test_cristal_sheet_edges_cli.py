"""Issue 16's sheet edges through the CLI: creation closing, caps, senses, GM override, tables, checks, settings."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from cristal_events.cli import cli
from cristal_events.service import Campaign


def run(path, *args, ok=True):
    result = CliRunner().invoke(cli, ["--db", str(path), *args])
    if ok:
        assert result.exit_code == 0, result.output
    return result


def log_length(path):
    with Campaign.open(path, readonly=True) as c:
        return c.store.last_position()


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "cli.db"
    run(path, "init", str(path), "--name", "Taverne", "--ruleset", "cristal", "--set", "chain_attacks=3")
    run(path, "character", "create", "thor", "--race", "Humain", "--name", "Thor", "--set", "FRC=+2")
    run(path, "xp", "award", "thor", "600", "--reason", "Starting XP (L1478)")
    return path


def sheet(db, cid="thor"):
    return json.loads(run(db, "sheet", cid, "--json").output)


def test_creation_levels_start_at_pvmax_and_ready_closes_the_phase(db):
    # L1478, L1482: two Guerrier levels at creation, Humain PV 12 + 60 % = 19 (L328)
    run(db, "xp", "buy", "thor", "level", "Guerrier", "--stat", "DEX")
    run(db, "xp", "buy", "thor", "level", "Guerrier", "--stat", "OBS")
    s = sheet(db)
    assert (s["variable"]["PV"], s["stable"]["PVmax"], s["creating"]) == (19, 19, True)
    assert "En création" in run(db, "--lang", "fr", "sheet", "thor").output
    out = json.loads(run(db, "character", "ready", "thor", "--json").output)
    assert out[0]["type"] == "character.ready" and out[0]["event"]["pv_max"] == 19
    assert sheet(db)["creating"] is False
    before = log_length(db)
    bad = run(db, "character", "ready", "thor", ok=False)
    assert bad.exit_code == 1 and "no longer being created" in bad.output and log_length(db) == before


@pytest.mark.french  # reads the Lois du Cristal's French summaries
def test_session_start_closes_creation_and_a_con_state_caps_pv(db):
    run(db, "session", "start", "--title", "Arrivée")
    assert sheet(db)["creating"] is False
    out = run(db, "state", "thor", "CON", "-4", "--reason", "poison").output
    assert "plafonnés à PVmax 8" in out  # L328: 12 + CON -4 = 8
    s = sheet(db)
    assert (s["variable"]["PV"], s["stable"]["PVmax"]) == (8, 8)


def test_an_item_bonus_on_vue_moves_the_scale_and_six_senses_show(db):
    run(db, "item", "add", "thor", "Longue-vue", "--category", "Autres", "--mod", "Vue=+2")
    run(db, "item", "equip", "thor", "Longue-vue")
    s = sheet(db)
    assert len(s["senses"]) == 6 and s["senses"]["Extrasensoriel"] == 0  # L204
    assert s["senses"]["Vue"] == 2
    assert next(r for r in s["sense_ranges"] if r["example"].startswith("Distinguer"))["distance"] == 35  # L209: 25 m + 5 m a point
    assert "Extrasensoriel +0" in run(db, "sheet", "thor").output


@pytest.mark.french  # reads the sheet's French labels (the Feuille de Personnage)
def test_the_gm_allows_a_disabling_handicap_with_a_penalty(db):
    run(db, "item", "add", "thor", "Épée à deux mains")
    before = log_length(db)
    # FRC +2 - 6 = -4 (L871): refused in one sentence, nothing written, pointing at the GM override
    bad = run(db, "item", "equip", "thor", "Épée à deux mains", ok=False)
    assert bad.exit_code == 1 and "--gm-allow" in bad.output and log_length(db) == before
    run(db, "item", "equip", "thor", "Épée à deux mains", "--gm-allow", "il insiste", "--penalty", "ATT=-2")
    s = sheet(db)
    item = next(i for i in s["items"] if i["name"] == "Épée à deux mains")
    assert item["equipped"] and item["penalties"] == {"ATT": -2}
    assert "permis par le MJ" in run(db, "sheet", "thor").output


def test_the_sheet_shows_the_fixed_state_tables(db):
    text = run(db, "sheet", "thor").output
    assert "FRC Max. / Encom. (kg) 195 / 65" in text  # FRC +2 (L92)
    assert "INT Q.I. 100" in text and "CHAR Public 4" in text  # L118, L185
    rows = {r["state"]: r for r in sheet(db)["fixed_tables"]}
    assert rows["REF"]["value"] == "1" and rows["REF"]["lines"] == "L145-L153"


def test_technique_and_sur_effort_checks_record_their_dice(db):
    out = json.loads(run(db, "check", "technique", "thor", "Natation", "--difficulty", "5", "--dice", "4",
                         "--json").output)
    ev = out[0]["event"]
    assert (ev["level"], ev["adjustment"], ev["total"], ev["success"]) == (0, 0, 4, False)  # L774: untrained
    assert ev["roll"]["faces"] == [4] and ev["roll"]["source"] == "entered"
    out = json.loads(run(db, "check", "sur-effort", "thor", "FRC", "--reason", "la herse", "--dice", "2",
                         "--json").output)
    ev = out[0]["event"]
    assert (ev["die"], ev["score"], ev["value"], ev["table_after"]) == ("1d6", 2, 4, "240 / 80")  # L235, L240
    before = log_length(db)
    bad = run(db, "check", "sur-effort", "thor", "FRC", "--dice", "2", ok=False)
    assert bad.exit_code == 1 and log_length(db) == before
    assert "Example:" in run(db, "check", "technique", "--help").output


def test_settings_command_and_init_help_list_every_setting(db):
    rows = {r["key"]: r for r in json.loads(run(db, "settings", "--json").output)["settings"]}
    assert rows["chain_attacks"]["value"] == 3 and rows["chain_attacks"]["default"] == 2
    assert rows["chain_attacks"]["line"].startswith("L1363")
    assert rows["chance_enabled"]["line"] == "L56"
    text = run(db, "settings").output
    assert "chain_attacks" in text and "(changed)" in text
    helptext = CliRunner().invoke(cli, ["init", "--help"]).output
    for key in rows:
        assert key in helptext
    assert "pm_overdraw=true" in helptext and "L379" in helptext


@pytest.mark.french  # reads the Lois du Cristal's French summaries
def test_points_return_when_state_ends_through_the_cli(tmp_path):
    path = tmp_path / "r.db"
    run(path, "init", str(path), "--name", "R", "--set", "points_return_when_state_ends=true")
    run(path, "character", "create", "h", "--race", "Humain")
    run(path, "character", "ready", "h")
    out = json.loads(run(path, "state", "h", "CON", "-4", "--reason", "poison", "--json").output)
    assert sheet(path, "h")["variable"]["PV"] == 8  # L328: 12 + CON -4
    text = run(path, "state", "h", "--end", str(out[0]["position"])).output
    assert "rendus à la fin de l'altération" in text and sheet(path, "h")["variable"]["PV"] == 12
