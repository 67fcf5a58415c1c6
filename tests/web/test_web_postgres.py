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
