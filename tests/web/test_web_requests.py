"""Requests the game master approves (issue 21, item 6): a player's XP purchase, heal outside a fight
or correction becomes ``request.made`` under the setting ``gm``; the game master approves (its
command runs as the player, ``request.approved`` names the events) or refuses (``request.refused``,
no rule event); under ``free`` the command runs at once."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from conftest import cristal, event_count

from cristal_events.cli import cli


def post(client, table, who, argv):
    return client.post("/api/command", json={"argv": argv}, headers=table.headers(who))


def log_after(db, position):
    return [json.loads(line) for line in cristal(db, "log", "--after", str(position), "--json").splitlines()]


def buy_level(client, table):
    r = post(client, table, "alice", ["xp", "buy", "thor", "level", "Guerrier", "--stat", "FRC"])
    assert r.status_code == 202, r.text
    return r.json()


def test_a_players_level_purchase_is_a_request_that_decides_and_applies_nothing(client, table):
    before = event_count(table.db)
    asked = buy_level(client, table)
    assert asked["status"] == "pending" and asked["kind"] == "xp_purchase" and asked["character"] == "thor"
    assert event_count(table.db) == before + 1
    (rec,) = log_after(table.db, before)
    assert rec["type"] == "request.made" and rec["actor"] == "alice"
    assert rec["payload"] == {"type": "request.made", "holder": "alice", "words": ["xp", "buy", "thor", "level", "Guerrier", "--stat", "FRC"],
                              "kind": "xp_purchase", "character": "thor"}
    sheet = client.get("/api/sheet/thor", headers=table.headers("alice")).json()
    assert sheet["classes"] == {} and sheet["variable"]["XP"] == 400  # nothing applied yet
    queue = client.get("/api/requests", headers=table.headers("mj")).json()
    assert [(q["position"], q["holder"], q["kind"]) for q in queue] == [(asked["request"], "alice", "xp_purchase")]
    assert client.get("/api/requests", headers=table.headers("alice")).status_code == 403


def test_the_game_master_approves_from_the_api_and_the_events_name_the_request(client, table):
    asked = buy_level(client, table)
    r = client.post(f"/api/requests/{asked['request']}/approve", headers=table.headers("mj"))
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["approved"] is True and body["request"] == asked["request"]
    events = log_after(table.db, asked["request"])
    applied = [e for e in events if e["type"] not in ("request.approved",)]
    assert applied and all(e["actor"] == "alice" for e in applied)  # the command ran as the holder
    assert any(e["type"] == "xp.level_bought" for e in applied)
    decision = events[-1]
    assert decision["type"] == "request.approved" and decision["actor"] == "mj"
    assert decision["payload"] == {"type": "request.approved", "request": asked["request"], "positions": [e["position"] for e in applied]}
    assert body["positions"] == decision["payload"]["positions"] and body["decision"] == decision["position"]
    sheet = client.get("/api/sheet/thor", headers=table.headers("alice")).json()
    assert sheet["classes"] == {"Guerrier": 1} and sheet["variable"]["XP"] == 300
    assert client.get("/api/requests", headers=table.headers("mj")).json() == []
    again = client.post(f"/api/requests/{asked['request']}/approve", headers=table.headers("mj"))
    assert again.status_code == 400 and "no pending request" in again.json()["error"]


def test_a_refusal_records_the_reason_and_no_rule_event(client, table):
    asked = buy_level(client, table)
    before = event_count(table.db)
    r = client.post(f"/api/requests/{asked['request']}/refuse", json={"reason": "pas avant la fin du chapitre"},
                    headers=table.headers("mj"))
    assert r.status_code == 200 and r.json()["approved"] is False
    (rec,) = log_after(table.db, before)
    assert rec["type"] == "request.refused"
    assert rec["payload"] == {"type": "request.refused", "request": asked["request"], "reason": "pas avant la fin du chapitre"}
    assert json.loads(cristal(table.db, "sheet", "thor", "--json"))["variable"]["XP"] == 400


def test_a_player_cannot_approve_or_refuse(client, table):
    asked = buy_level(client, table)
    before = event_count(table.db)
    for decision in ("approve", "refuse"):
        r = client.post(f"/api/requests/{asked['request']}/{decision}", headers=table.headers("alice"))
        assert r.status_code == 403 and r.json()["error"] == f"A player may not run 'requests {decision}'; ask the game master."
    r = post(client, table, "alice", ["requests", "approve", str(asked["request"])])
    assert r.status_code == 403
    assert event_count(table.db) == before


def test_a_request_the_state_no_longer_allows_is_refused_with_the_rules_sentence(client, table):
    asked = buy_level(client, table)
    for _ in range(2):  # meanwhile the game master buys Thor two levels: 100 XP left, level 3 costs 400
        cristal(table.db, "xp", "buy", "thor", "level", "Guerrier", "--stat", "FRC")
    before = event_count(table.db)
    r = client.post(f"/api/requests/{asked['request']}/approve", headers=table.headers("mj"))
    assert r.status_code == 200 and r.json()["approved"] is False
    (rec,) = log_after(table.db, before)
    assert rec["type"] == "request.refused" and rec["payload"]["request"] == asked["request"]
    assert rec["payload"]["reason"] == "Thor has 100 XP; global level 3 costs 400 XP."
    terminal = CliRunner().invoke(cli, ["--db", str(table.db), "xp", "buy", "thor", "level", "Guerrier", "--stat", "FRC"])
    assert terminal.exit_code == 1 and terminal.stderr.strip() == "Error: " + rec["payload"]["reason"]


@pytest.mark.parametrize("setting,argv,applied", [
    ("approval_xp_purchase", ["xp", "buy", "thor", "level", "Guerrier", "--stat", "FRC"], "xp.level_bought"),
    ("approval_heal", ["heal", "thor", "2", "--source", "care", "--reason", "des bandages"], "character.healed"),
])
def test_each_setting_gm_asks_and_free_runs(client, table, setting, argv, applied):
    cristal(table.db, "damage", "thor", "5", "--reason", "une chute")
    before = event_count(table.db)
    r = post(client, table, "alice", argv)
    assert r.status_code == 202, r.text
    assert [e["type"] for e in log_after(table.db, before)] == ["request.made"]
    cristal(table.db, "settings", "--set", f"{setting}=free", "--reason", "la table fait confiance")
    changed = log_after(table.db, before + 1)
    assert changed[0]["type"] == "campaign.setting_changed" and changed[0]["payload"]["key"] == setting
    before = event_count(table.db)
    r = post(client, table, "alice", argv)
    assert r.status_code == 200, r.text
    assert applied in [e["type"] for e in log_after(table.db, before)]
    assert "request.made" not in [e["type"] for e in log_after(table.db, before)]


def test_a_correction_is_a_request_and_free_lets_a_player_correct_only_their_own_entry(client, table):
    r = post(client, table, "alice", ["combat", "pass", "pendu", "thor"])
    assert r.status_code == 200, r.text
    mine = json.loads(r.text)
    mine = (mine["events"] if isinstance(mine, dict) else mine)[0]["position"]
    before = event_count(table.db)
    r = post(client, table, "alice", ["correct", "5", "--reason", "une erreur"])
    assert r.status_code == 202 and r.json()["kind"] == "correction"
    cristal(table.db, "settings", "--set", "approval_correction=free", "--reason", "confiance")
    before = event_count(table.db)
    r = post(client, table, "alice", ["correct", "5", "--reason", "une erreur"])
    assert r.status_code == 403 and "recorded themselves" in r.json()["error"]
    assert event_count(table.db) == before
    # her own entry passes the access check and meets the rules' own answer, the terminal's sentence
    r = post(client, table, "alice", ["correct", str(mine), "--reason", "je me suis trompée"])
    terminal = CliRunner().invoke(cli, ["--db", str(table.db), "correct", str(mine), "--reason", "je me suis trompée"])
    assert r.status_code == 400 and "Error: " + r.json()["error"] == terminal.stderr.strip()
    assert event_count(table.db) == before


def test_the_setting_takes_only_gm_or_free(table):
    r = CliRunner().invoke(cli, ["--db", str(table.db), "settings", "--set", "approval_heal=maybe", "--reason", "x"])
    assert r.exit_code == 1 and "approval_heal is one of gm, free" in r.stderr
    r = CliRunner().invoke(cli, ["--db", str(table.db), "settings", "--set", "approval_heal=free", "--reason", "x"])
    assert r.exit_code == 0
    assert json.loads(cristal(table.db, "log", "--type", "campaign.setting_changed", "--json"))["payload"]["value"] == "free"


def test_the_game_master_at_the_terminal_lists_approves_and_refuses(client, table):
    first = buy_level(client, table)
    second = post(client, table, "bob", ["xp", "buy", "york", "level", "Guerrier", "--stat", "FRC"]).json()
    listed = json.loads(cristal(table.db, "requests", "--json"))
    assert [(q["position"], q["holder"], q["character"]) for q in listed] == [
        (first["request"], "alice", "thor"), (second["request"], "bob", "york")]
    text = cristal(table.db, "requests")
    assert f"{first['request']:>6}  Request xp_purchase from alice (thor)" in text
    out = cristal(table.db, "requests", "approve", str(first["request"]))
    assert f"Request at position {first['request']} approved: positions" in out
    out = json.loads(cristal(table.db, "requests", "refuse", str(second["request"]), "--reason", "non", "--json"))
    assert out["approved"] is False and out["reason"] == "non"
    assert cristal(table.db, "requests").strip() == "No request waits for the game master."
    assert json.loads(cristal(table.db, "sheet", "thor", "--json"))["classes"] == {"Guerrier": 1}
    assert json.loads(cristal(table.db, "sheet", "york", "--json"))["classes"] == {}


def test_the_pages_approve_form_is_csrf_protected_and_a_players_page_has_no_queue(client, table):
    asked = buy_level(client, table)
    client.get(f"/?token={table.tokens['mj']}")
    page = client.get("/").text
    assert f'data-request="{asked["request"]}"' in page
    before = event_count(table.db)
    r = client.post("/ui/command", data={"form": "approve", "request": str(asked["request"]), "csrf": "0" * 64})
    assert r.status_code == 403 and "CSRF" in r.text
    assert event_count(table.db) == before
    csrf = page.split('name="csrf" value="', 1)[1].split('"', 1)[0]
    r = client.post("/ui/command", data={"form": "approve", "request": str(asked["request"]), "csrf": csrf})
    assert r.status_code == 200 and 'class="result ok"' in r.text
    assert [e["type"] for e in log_after(table.db, before)] == ["xp.level_bought", "request.approved"]
    client.get(f"/?token={table.tokens['alice']}")
    assert 'id="requests"' not in client.get("/").text
    assert client.get("/ui/part/requests").text.count("data-request=") == 0


def test_the_approval_settings_are_chosen_at_init_and_listed(tmp_path):
    db = tmp_path / "libre.db"
    cristal(db, "init", str(db), "--name", "Libre", "--ruleset", "cristal", "--set", "approval_xp_purchase=free")
    rows = {r["key"]: r for r in json.loads(cristal(db, "settings", "--json"))["settings"]}
    assert rows["approval_xp_purchase"]["value"] == "free"
    assert (rows["approval_heal"]["value"], rows["approval_correction"]["value"]) == ("gm", "gm")
    assert all(rows[k]["default"] == "gm" for k in ("approval_xp_purchase", "approval_heal", "approval_correction"))
