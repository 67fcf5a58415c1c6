"""Issue 19 at the web table: a player's session log and ``/api/log`` never show a private GM note's
text (``note --private``) nor anything of a sealed roll beyond its count; the game master reads both,
and the GM's note form has its Private box."""

from __future__ import annotations

import re

from conftest import cristal


def post(client, table, who, argv):
    return client.post("/api/command", json={"argv": argv}, headers=table.headers(who))


def login(client, table, who):
    client.get(f"/?token={table.tokens[who]}")
    return re.search(r'name="csrf" value="([0-9a-f]+)"', client.get("/").text).group(1)


def test_a_private_note_and_a_sealed_roll_keep_their_secret_from_a_player(client, table):
    cristal(table.db, "combat", "end", "pendu")
    note = post(client, table, "mj", ["note", "Le traître est York", "--topic", "intrigue", "--private"]).json()
    public = post(client, table, "mj", ["note", "Il pleut"]).json()
    sealed = post(client, table, "mj", ["check", "technique", "thor", "Forestier", "--difficulty", "8",
                                        "--secret"]).json()["sealed"]["position"]
    for path in ("/api/log", "/api/log?after=0"):
        got = client.get(path, headers=table.headers("alice"))
        assert got.status_code == 200
        assert "traître" not in got.text and "intrigue" not in got.text
        by = {e["position"]: e for e in got.json()}
        assert "CheckTechnique" not in got.text and by[sealed]["summary"] == "A secret roll of the game master, still sealed"
        assert by[note["position"]]["payload"] == {"type": "note.recorded", "private": True}
        assert by[note["position"]]["summary"] == "A private note of the game master (not shown to players)"
        assert by[public["position"]]["payload"]["text"] == "Il pleut"
        assert by[sealed]["payload"] == {"type": "roll.sealed"}  # its count: one event, nothing more
    client.cookies.set("cristal_token", table.tokens["alice"])  # the client's cookie, as a browser keeps it
    page = client.get("/ui/part/log").text
    client.cookies.clear()
    assert "traître" not in page and "CheckTechnique" not in page and "Il pleut" in page
    assert "A private note of the game master" in page
    gm = client.get("/api/log", headers=table.headers("mj")).text
    assert "Le traître est York" in gm and "CheckTechnique" in gm


def test_the_gm_note_form_records_a_private_note(client, table):
    csrf = login(client, table, "mj")
    assert 'name="private"' in client.get("/").text
    r = client.post("/ui/command", data={"form": "note", "csrf": csrf, "text": "Le coffre est vide", "private": "on"})
    assert r.status_code == 200 and 'class="result ok"' in r.text
    log = client.get("/api/log", headers=table.headers("mj")).json()
    assert log[-1]["payload"]["private"] is True and log[-1]["payload"]["text"] == "Le coffre est vide"
    assert "Le coffre est vide" not in client.get("/api/log", headers=table.headers("bob")).text
