"""Issue 21 item 1 at the web table: the game master rolls in secret from the API and alone sees the
faces; a player reading every endpoint with her token finds the roll sealed (and counted) until it is
revealed, and cannot roll in secret herself."""

from __future__ import annotations

import json

import pytest
from conftest import cristal, event_count


def post(client, table, who, argv):
    return client.post("/api/command", json={"argv": argv}, headers=table.headers(who))


@pytest.mark.french  # reads the Lois du Cristal's French summaries
@pytest.mark.french  # reads the Lois du Cristal's French summaries and warnings
def test_a_player_cannot_read_a_sealed_roll_through_the_api(client, table):
    cristal(table.db, "combat", "end", "pendu")
    r = post(client, table, "mj", ["check", "technique", "thor", "Forestier", "--difficulty", "8", "--secret"])
    assert r.status_code == 200, r.text
    body = r.json()
    position = body["sealed"]["position"]
    seen = body["sealed"]["events"][0]["summary"]  # the GM's own answer carries the outcome
    assert "jet de Forestier" in seen
    warned = json.loads(r.headers["X-Cristal-Warnings"])
    assert any("1 jet secret est encore scellé" in w for w in warned), warned
    for path in ("/api/log", "/api/sheet/thor", "/api/characters", "/api/log?after=0"):
        got = client.get(path, headers=table.headers("alice"))
        assert got.status_code == 200, path
        assert "technique.checked" not in got.text and "jet de Forestier" not in got.text, path
        assert any("1 jet secret est encore scellé" in w for w in json.loads(got.headers["X-Cristal-Warnings"])), path
    log = client.get("/api/log", headers=table.headers("alice")).json()
    assert [e["type"] for e in log if e["position"] == position] == ["roll.sealed"]
    # a player's own roll is never secret
    before = event_count(table.db)
    refused = post(client, table, "alice", ["check", "technique", "thor", "Forestier", "--secret"])
    assert refused.status_code == 403 and refused.json()["error"].startswith("--secret is the game master's")
    assert event_count(table.db) == before
    # revealed by the GM: now the whole table reads it
    assert post(client, table, "mj", ["reveal", str(position)]).status_code == 200
    got = client.get("/api/log", headers=table.headers("alice"))
    assert "jet de Forestier" in got.text and "X-Cristal-Warnings" not in got.headers
