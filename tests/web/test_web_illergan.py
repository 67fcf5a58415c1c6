"""An Illergan campaign at the web table: the fight panel (the turn, the initiative order, who acts
next, each fighter's PV, PM, destiny points and actions left), the forms of its common actions, and
what a player may run for their own hero; every refusal appends nothing."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import cristal, event_count

#: this checkout's sample (not whichever installed copy 'demo --ruleset illergan' would find)
SAMPLE = Path(__file__).resolve().parents[2] / "sample_campaigns" / "illergan_gue_des_loups.toml"


class IllerganTable:
    """The Illergan sample (Thor for Alice, Lysa for Bruno), a third session and a fight at the bridge
    against the goblin chief, its first turn's initiative rolled: Lysa 145, Thor 110, the chief 85."""

    def __init__(self, tmp_path):
        cristal(tmp_path / "unused.db", "demo", str(tmp_path / "demo"), "--sample", str(SAMPLE))
        self.db = tmp_path / "demo" / "illergan_gue_des_loups.db"
        cristal(self.db, "session", "start", "--title", "Le pont")
        cristal(self.db, "combat", "start", "pont", "thor", "lysa", "chef")
        cristal(self.db, "combat", "initiative", "pont", "--dice", "40,45,30")
        self.tokens = {}
        for name, extra in (("mj", ["--gm"]), ("alice", ["--character", "thor"]), ("bruno", ["--character", "lysa"])):
            self.tokens[name] = json.loads(cristal(self.db, "access", "grant", name, *extra, "--json"))["token"]

    def headers(self, who: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[who]}"}


@pytest.fixture
def ill(tmp_path):
    return IllerganTable(tmp_path)


@pytest.fixture
def iclient(ill):
    from starlette.testclient import TestClient

    from cristal_events.web.app import create_app

    with TestClient(create_app(ill.db)) as c:
        yield c


def post(client, ill, who, argv):
    return client.post("/api/command", json={"argv": argv}, headers=ill.headers(who))


def rows(html: str) -> list[tuple[str, str]]:
    """(fighter, the row's text: ▶ marks who acts next) of the fight panel, in the order shown."""
    found = re.findall(r'<tr class="(next)?" data-fighter="([^"]+)">(.*?)</tr>', html, re.S)
    return [(f, re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", body)).strip()) for _, f, body in found]


def login(client, ill, who) -> str:
    r = client.get(f"/?token={ill.tokens[who]}")
    assert r.status_code == 200
    return re.search(r'name="csrf" value="([0-9a-f]+)"', r.text).group(1)


@pytest.mark.french
def test_the_fight_panel_shows_the_turn_the_order_who_acts_next_and_each_fighter(iclient, ill):
    login(iclient, ill, "mj")
    html = iclient.get("/ui/part/fight").text
    assert "Combat « pont »" in html and "tour 1" in html
    assert rows(html) == [
        ("lysa", "▶ Lysa (lysa) 145 30/30 30 52 2 1 majeure, 1 mineure, 1 compétence"),  # the sample leaves her 52 PM
        ("thor", "Thor (thor) 110 40/40 40 0 1 1 majeure, 1 mineure, 1 compétence"),
        ("chef", "Chef gobelin (chef) 85 10/30 10 0 0 1 majeure, 1 mineure, 1 compétence")]  # as the sample leaves him
    assert 'Prochain : <strong>lysa</strong>' in html
    # Lysa's Embrasement on the chief (Dé100 50: cast) takes her major action: Thor is next
    r = post(iclient, ill, "bruno", ["cast", "lysa", "Embrasement", "--level", "1", "--fight", "pont",
                                     "--target", "chef", "--damage", "30", "--dice", "50"])
    assert r.status_code == 200, r.text
    html = iclient.get("/ui/part/fight").text
    assert rows(html)[0] == ("lysa", "Lysa (lysa) 145 30/30 30 42 2 1 mineure, 1 compétence")  # Embrasement level 1: 10 PM
    assert rows(html)[1][1].startswith("▶ Thor") and 'Prochain : <strong>thor</strong>' in html
    assert rows(html)[2][1].startswith("Chef gobelin (chef) 85 -") and "mort" in rows(html)[2][1]
    r = post(iclient, ill, "alice", ["combat", "act", "pont", "thor", "major", "--what", "se relever"])
    assert r.status_code == 200, r.text
    html = iclient.get("/ui/part/fight").text
    assert "Tour 1 fini : « combat initiative » ouvre le suivant." in html and "▶" not in html
    cristal(ill.db, "combat", "initiative", "pont", "--dice", "40,45")
    html = iclient.get("/ui/part/fight").text
    assert "tour 2" in html and 'Prochain : <strong>lysa</strong>' in html
    cristal(ill.db, "combat", "end", "pont")
    assert "Pas de combat en cours." in iclient.get("/ui/part/fight").text


@pytest.mark.french
def test_the_player_sees_the_fight_and_their_heros_sheet(iclient, ill):
    login(iclient, ill, "bruno")
    page = iclient.get("/").text
    assert [f for f, _ in rows(page)] == ["lysa", "thor", "chef"]
    sheet = re.search(r'<div class="sheet" data-character="lysa">(.*?)</div>', page, re.S).group(1)
    assert "30/30" in sheet and "52/60" in sheet and "Yarlysy niveau 1" in sheet
    assert "Embrasement, Bouclier de braise" in sheet
    # the forms act for Lysa only; the turn's initiative is the game master's
    assert re.findall(r'<select name="fighter">(.*?)</select>', page) == ['<option value="lysa">lysa</option>'] * 2
    assert 'id="form-icast"' in page and 'id="form-check"' in page and 'id="form-ibuy"' in page
    assert 'id="form-initiative"' not in page and 'id="form-award"' not in page and 'name="malus"' not in page


GM_FORMS = [
    ({"form": "attack", "combat": "pont", "fighter": "thor", "target": "chef", "dice": "30"}, "fight.attack_resolved"),
    ({"form": "icast", "fight": "pont", "fighter": "lysa", "spell": "Embrasement", "level": "1", "target": "chef",
      "damage": "30", "dice": "50"}, "magic.spell_cast"),
    ({"form": "icast", "fighter": "lysa", "spell": "Bouclier de braise", "level": "1", "dice": "50"}, "magic.spell_cast"),
    ({"form": "check", "character": "thor", "what": "Esquive", "malus": "10", "dice": "12"}, "check.rolled"),
    ({"form": "initiative", "combat": "pont", "dice": "40,45,30"}, "fight.initiative_rolled"),
    ({"form": "award", "character": "thor", "amount": "60", "reason": "Le pont"}, "xp.awarded"),
    ({"form": "ibuy", "character": "lysa", "kind": "pp", "name": "Yarlysy", "amount": "1"}, "xp.spent"),
    ({"form": "ibuy", "character": "lysa", "kind": "skill", "name": "Enseignement magique", "amount": "25"}, "xp.spent"),
    ({"form": "ibuy", "character": "lysa", "kind": "characteristic", "name": "Fo", "amount": ""}, "xp.spent"),
    ({"form": "note", "text": "Le pont craque", "topic": "décor"}, "note.recorded"),
]


@pytest.mark.parametrize("fields,kind", GM_FORMS, ids=[f"{f['form']}-{i}" for i, (f, _) in enumerate(GM_FORMS)])
def test_each_illergan_form_of_the_game_master_records_its_command(iclient, ill, fields, kind):
    csrf = login(iclient, ill, "mj")
    before = event_count(ill.db)
    r = iclient.post("/ui/command", data={**fields, "csrf": csrf})
    assert r.status_code == 200 and 'class="result ok"' in r.text, r.text
    rec = json.loads(cristal(ill.db, "log", "--after", str(before), "--json").splitlines()[0])
    assert (rec["type"], rec["actor"]) == (kind, "mj")


def test_a_players_forms_act_for_their_hero(iclient, ill):
    csrf = login(iclient, ill, "alice")
    for fields, kind in (({"form": "check", "character": "thor", "what": "Esquive", "dice": "12"}, "check.rolled"),
                         ({"form": "ibuy", "character": "thor", "kind": "skill", "name": "Escalade", "amount": "5"},
                          "request.made"),  # approval_xp_purchase=gm by default: the game master approves it
                         ({"form": "attack", "combat": "pont", "fighter": "thor", "target": "chef", "dice": "30"},
                          "fight.attack_resolved")):
        before = event_count(ill.db)
        r = iclient.post("/ui/command", data={**fields, "csrf": csrf})
        assert r.status_code == 200 and 'class="result ok' in r.text, r.text
        rec = json.loads(cristal(ill.db, "log", "--after", str(before), "--json").splitlines()[0])
        assert (rec["type"], rec["actor"]) == (kind, "alice")


REFUSED = [
    # another player's hero
    (["cast", "lysa", "Embrasement", "--level", "1"], "alice may not act for 'lysa'; only for thor."),
    (["check", "skill", "lysa", "Esquive"], "alice may not act for 'lysa'; only for thor."),
    (["xp", "skill", "lysa", "Esquive", "30"], "alice may not act for 'lysa'; only for thor."),
    (["xp", "pp", "lysa", "Yarlysy", "1"], "alice may not act for 'lysa'; only for thor."),
    (["xp", "magic", "lysa", "Yarlysy", "--teacher-level", "6"], "alice may not act for 'lysa'; only for thor."),
    (["xp", "characteristic", "lysa", "Fo"], "alice may not act for 'lysa'; only for thor."),
    (["xp", "faith", "lysa"], "alice may not act for 'lysa'; only for thor."),
    (["combat", "attack", "pont", "lysa", "chef"], "alice may not act for 'lysa'; only for thor."),
    (["combat", "attack", "pont", "chef", "thor"], "alice may not act for 'chef'; only for thor."),
    (["combat", "act", "pont", "lysa", "minor"], "alice may not act for 'lysa'; only for thor."),
    (["combat", "defend", "pont", "lysa", "parade"], "alice may not act for 'lysa'; only for thor."),
    (["combat", "destiny", "lysa"], "alice may not act for 'lysa'; only for thor."),
    # the game master's options on the player's own commands
    (["check", "skill", "thor", "Esquive", "--malus", "10"], "--malus of 'check skill' is the game master's to give."),
    (["xp", "skill", "thor", "Esquive", "30", "--charge", "1"], "--charge of 'xp skill' is the game master's to give."),
    (["xp", "pp", "thor", "Yarlysy", "1", "--charge", "0"], "--charge of 'xp pp' is the game master's to give."),
    (["combat", "attack", "pont", "thor", "chef", "--defended"],
     "--defended of 'combat attack' is the game master's to give."),
    (["combat", "attack", "pont", "thor", "chef", "--defence", "parade"],
     "--defence of 'combat attack' is the game master's to give."),
    (["combat", "attack", "pont", "thor", "chef", "--defender", "lysa"],
     "--defender of 'combat attack' is the game master's to give."),
    # the game master's commands
    (["combat", "initiative", "pont"], "A player may not run 'combat initiative'; ask the game master."),
    (["combat", "start", "duel", "thor", "chef"], "A player may not run 'combat start'; ask the game master."),
    (["combat", "end", "pont"], "A player may not run 'combat end'; ask the game master."),
    (["xp", "award", "thor", "100", "--reason", "moi"], "A player may not run 'xp award'; ask the game master."),
    (["note", "Thor est le meilleur"], "A player may not run 'note'; ask the game master."),
    (["check", "search", "thor"], "A player may not run 'check search'; ask the game master."),
    (["check", "lockpick", "thor", "--lock", "10"], "A player may not run 'check lockpick'; ask the game master."),
]


@pytest.mark.parametrize("argv,sentence", REFUSED, ids=[" ".join(a[:3]) + f"-{i}" for i, (a, _) in enumerate(REFUSED)])
def test_a_player_is_refused_what_is_not_theirs_to_run_and_nothing_is_appended(iclient, ill, argv, sentence):
    before = event_count(ill.db)
    r = post(iclient, ill, "alice", argv)
    assert r.status_code == 403 and r.json() == {"error": sentence}
    assert event_count(ill.db) == before


def test_a_bad_purchase_form_is_one_sentence_and_writes_nothing(iclient, ill):
    csrf = login(iclient, ill, "mj")
    before = event_count(ill.db)
    r = iclient.post("/ui/command", data={"form": "ibuy", "csrf": csrf, "character": "thor", "kind": "level",
                                          "name": "Guerrier", "amount": "1"})
    assert r.status_code == 400
    assert "Unknown purchase &#39;level&#39;; choose one of skill, pp, characteristic, magic." in r.text
    r = iclient.post("/ui/command", data={"form": "ibuy", "csrf": csrf, "character": "lysa", "kind": "magic",
                                          "name": "Sycte"})
    assert r.status_code == 400 and "The form needs its field &#39;teacher&#39;." in r.text
    assert event_count(ill.db) == before


def test_the_party_shows_the_illergan_numbers(iclient, ill):
    login(iclient, ill, "mj")
    html = iclient.get("/ui/part/party").text
    row = re.search(r'<tr data-character="lysa">(.*?)</tr>', html, re.S).group(1)
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", row)).strip()
    assert text == "Lysa (lysa) 30/30 30 52 150 Mage"


def test_the_game_masters_check_form_rolls_in_secret_and_only_his_answer_shows_it(iclient, ill):
    """Issue 21 item 1 in the web view: the GM ticks 'Secret' on a check; the log holds the seal, his
    answer the outcome; a player's log shows the seal until the GM's reveal form opens it."""
    csrf = login(iclient, ill, "mj")
    before = event_count(ill.db)
    r = iclient.post("/ui/command", data={"form": "check", "character": "thor", "what": "Esquive", "dice": "12",
                                          "secret": "on", "csrf": csrf})
    assert r.status_code == 200 and 'class="result sealed"' in r.text, r.text
    assert "1 secret roll is still sealed" in r.text
    rec = json.loads(cristal(ill.db, "log", "--after", str(before), "--json").splitlines()[0])
    assert rec["type"] == "roll.sealed" and event_count(ill.db) == before + 1
    player = iclient.get(f"/api/log?after={before}", headers=ill.headers("alice"))
    assert "check.rolled" not in player.text and "roll.sealed" in player.text
    csrf = login(iclient, ill, "mj")
    shown = iclient.post("/ui/command", data={"form": "reveal", "position": str(rec["position"]), "csrf": csrf})
    assert shown.status_code == 200 and 'class="result ok"' in shown.text, shown.text
    assert "check.rolled" in iclient.get(f"/api/log?after={before}", headers=ill.headers("alice")).text
