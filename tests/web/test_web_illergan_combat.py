"""Issue 19 (a gap): an Illergan fight through ``combat show`` / ``combat log`` at the terminal and
``/api/combat/NAME``, like a Cristal one (the fight at the bridge: Lysa 145, Thor 110, the chief 85)."""

from __future__ import annotations

import json

from click.testing import CliRunner
from conftest import cristal
from test_web_illergan import iclient, ill, post  # noqa: F401 - the fixtures

from cristal_events.cli import cli


def test_combat_show_at_the_terminal_draws_the_order_and_who_acts_next(ill):  # noqa: F811
    shown = json.loads(cristal(ill.db, "combat", "show", "pont", "--json"))
    assert (shown["name"], shown["ruleset"], shown["turn"], shown["active"], shown["next"]) == ("pont", "illergan", 1, True, "lysa")
    assert [(f["id"], f["score"]) for f in shown["participants"]] == [("lysa", 145), ("thor", 110), ("chef", 85)]
    text = cristal(ill.db, "combat", "show", "pont").splitlines()
    assert text[0] == "Fight pont, turn 1"
    assert text[2].startswith("▶ Lysa") and "PV 30/30" in text[2] and "initiative 145" in text[3]
    assert all(len(line) <= 80 for line in text)
    cristal(ill.db, "combat", "end", "pont")
    ended = json.loads(cristal(ill.db, "combat", "show", "pont", "--json"))
    assert ended["active"] is False and ended["next"] is None and ended["turn"] == 1
    assert cristal(ill.db, "combat", "show", "pont").splitlines()[0] == "Fight pont (ended after turn 1)"
    r = CliRunner().invoke(cli, ["--db", str(ill.db), "combat", "show", "nulle-part"])
    assert r.exit_code == 1 and "There is no fight named 'nulle-part'" in r.stderr


def test_combat_log_lists_the_fights_events(ill):  # noqa: F811
    lines = [json.loads(line) for line in cristal(ill.db, "combat", "log", "pont", "--json").splitlines()]
    assert [e["type"] for e in lines] == ["fight.started", "fight.initiative_rolled"]
    assert all(e["stream"] == "fight:pont" for e in lines)
    text = cristal(ill.db, "combat", "log", "pont").splitlines()
    assert text[0] == f"#{lines[0]['position']:<5} {lines[0]['summary']}"


def test_the_api_serves_an_illergan_fight_as_the_terminal_shows_it(iclient, ill):  # noqa: F811
    for who in ("mj", "alice"):
        r = iclient.get("/api/combat/pont", headers=ill.headers(who))
        assert r.status_code == 200, r.text
        assert r.json() == json.loads(cristal(ill.db, "combat", "show", "pont", "--json"))
    r = post(iclient, ill, "alice", ["combat", "log", "pont"])
    assert r.status_code == 200 and [e["type"] for e in r.json()] == ["fight.started", "fight.initiative_rolled"]
    r = iclient.get("/api/combat/nulle-part", headers=ill.headers("alice"))
    assert r.status_code == 400 and r.json()["error"].startswith("There is no fight named 'nulle-part'")
