"""`cristal serve --all` hosts every campaign of a PostgreSQL database (issue 20, item 4): a request
goes to the campaign of its token or of its /c/NAME/ path, and a token never opens another campaign."""

from __future__ import annotations

import json

from click.testing import CliRunner
from pgcluster import with_campaign
from starlette.testclient import TestClient

from cristal_events.cli import cli
from cristal_events.web.hosting import create_host_app


def cristal(db: str, *args: str) -> str:
    result = CliRunner().invoke(cli, ["--db", db, *args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout


def _campaign(url: str, name: str, hero: str) -> str:
    cristal(url, "init", url, "--name", name, "--seed", "7")
    cristal(url, "character", "create", hero, "--race", "Humain", "--name", hero.title())
    return json.loads(cristal(url, "access", "grant", "mj", "--gm", "--json"))["token"]


def test_every_campaign_of_the_database_is_served_by_its_token_or_its_path(pg_url):
    taverne, club = with_campaign(pg_url, "taverne"), with_campaign(pg_url, "club")
    tokens = {"taverne": _campaign(taverne, "La Taverne", "thor"), "club": _campaign(club, "Le Club", "lya")}
    with TestClient(create_host_app(pg_url)) as client:
        for name, hero in (("taverne", "thor"), ("club", "lya")):
            bearer = {"Authorization": f"Bearer {tokens[name]}"}
            got = client.get("/api/characters", headers=bearer)
            assert got.status_code == 200 and [c["id"] for c in got.json()] == [hero]
            assert client.get(f"/c/{name}/api/characters", headers=bearer).json() == got.json()
            r = client.post("/api/command", headers=bearer, json={"argv": ["note", f"dans {name}"]})
            assert r.status_code == 200 and r.json()["type"] == "note.recorded"
        assert "dans taverne" in cristal(taverne, "log") and "dans club" not in cristal(taverne, "log")
        # a token opens its own campaign only, even through another's path
        wrong = client.get("/c/club/api/characters", headers={"Authorization": f"Bearer {tokens['taverne']}"})
        assert wrong.status_code == 401
        assert client.get("/api/characters", headers={"Authorization": "Bearer nope"}).status_code == 401
        assert client.get("/c/absent/").status_code == 404
        # the page link of a path: the cookie is then the site's, and the page's own links reach the campaign
        r = client.get(f"/c/club/?token={tokens['club']}", follow_redirects=False)
        assert r.status_code == 303
        page = client.get("/")
        assert page.status_code == 200 and "Lya" in page.text and "Thor" not in page.text


def test_serve_all_needs_a_postgresql_database(tmp_path):
    db = str(tmp_path / "t.db")
    cristal(db, "init", db, "--name", "T")
    out = CliRunner().invoke(cli, ["--db", db, "serve", "--all"])
    assert out.exit_code == 1 and "serves the campaigns of a PostgreSQL database" in out.output


def test_serve_all_hosts_a_campaign_with_secret_rolls_and_serves_nothing_sealed(pg_url):
    taverne, club = with_campaign(pg_url, "taverne"), with_campaign(pg_url, "club")
    gm = {"club": _campaign(club, "Le Club", "lya"), "taverne": _campaign(taverne, "La Taverne", "thor")}
    cristal(taverne, "session", "start", "--title", "La forêt")
    alice = json.loads(cristal(taverne, "access", "grant", "alice", "--character", "thor", "--json"))["token"]
    hidden = json.loads(cristal(taverne, "check", "technique", "thor", "Natation", "--secret", "--json"))
    cli_sealed = hidden["sealed"]["position"]
    player, mj = {"Authorization": f"Bearer {alice}"}, {"Authorization": f"Bearer {gm['taverne']}"}
    with TestClient(create_host_app(pg_url)) as client:
        r = client.post("/c/taverne/api/command", headers=mj,
                        json={"argv": ["check", "technique", "thor", "Forestier", "--difficulty", "8", "--secret"]})
        assert r.status_code == 200, r.text
        api_sealed = r.json()["sealed"]["position"]
        assert "Forestier roll" in r.json()["sealed"]["events"][0]["summary"]  # the GM's own answer
        for path in ("/api/log", "/api/sheet/thor", "/api/characters", "/api/log?after=0", "/c/taverne/api/log"):
            got = client.get(path, headers=player)
            assert got.status_code == 200, path
            assert "technique.checked" not in got.text and "jet de " not in got.text, path
            warned = json.loads(got.headers["X-Cristal-Warnings"])
            assert any("2 secret rolls are still sealed" in w for w in warned), (path, warned)
        log = client.get("/api/log", headers=player).json()
        assert [e["type"] for e in log if e["position"] in (cli_sealed, api_sealed)] == ["roll.sealed"] * 2
        # the other campaign of the database is served as before, with nothing of the first one's rolls
        other = client.get("/api/log", headers={"Authorization": f"Bearer {gm['club']}"})
        assert other.status_code == 200 and "roll.sealed" not in other.text
        assert "X-Cristal-Warnings" not in other.headers
        refused = client.post("/api/command", headers=player, json={"argv": ["check", "technique", "thor",
                                                                              "Forestier", "--secret"]})
        assert refused.status_code == 403
        assert client.post("/api/command", headers=mj, json={"argv": ["reveal", str(api_sealed)]}).status_code == 200
        got = client.get("/api/log", headers=player)
        assert "Forestier roll" in got.text and "Natation roll" not in got.text
    assert "Natation roll" in cristal(taverne, "session", "end")
