"""The HTTP API of ``cristal serve``: the same commands as the terminal, every refusal (no token, a
wrong or revoked token, another player's character, an oversized body, a form without its CSRF token)
appending nothing, and nothing secret ever served."""

from __future__ import annotations

import json
import re
import sqlite3

import pytest
from click.testing import CliRunner
from conftest import cristal, event_count

from cristal_events.cli import cli


def post(client, table, who, argv, **kw):
    return client.post("/api/command", json={"argv": argv}, headers=table.headers(who) if who else {}, **kw)


def test_a_command_answers_what_json_prints_and_records_the_holder_as_actor(client, table):
    r = post(client, table, "mj", ["note", "La pluie tombe", "--topic", "météo"])
    assert r.status_code == 200
    body = r.json()
    assert body["type"] == "note.recorded"
    rec = json.loads(cristal(table.db, "log", "--after", str(body["position"] - 1), "--json"))
    assert rec["actor"] == "mj" and rec["payload"]["text"] == "La pluie tombe"


def test_the_reads_return_what_the_json_reads_return(client, table):
    for path, argv in (("/api/characters", ["characters"]), ("/api/sheet/thor", ["sheet", "thor"]),
                       ("/api/combat/pendu", ["combat", "show", "pendu"])):
        r = client.get(path, headers=table.headers("mj"))
        assert r.status_code == 200
        assert r.json() == json.loads(cristal(table.db, *argv, "--json")), path
    r = client.get("/api/log?after=3", headers=table.headers("mj"))
    lines = cristal(table.db, "log", "--after", "3", "--json").splitlines()
    assert r.json() == [json.loads(line) for line in lines] and r.json()[0]["position"] == 4


def test_a_refused_command_is_the_terminal_sentence_as_4xx_and_appends_nothing(client, table):
    before = event_count(table.db)
    r = post(client, table, "mj", ["xp", "buy", "thor", "level", "Guerrier", "--cost", "99999"])
    terminal = CliRunner().invoke(cli, ["--db", str(table.db), "xp", "buy", "thor", "level", "Guerrier",
                                        "--cost", "99999"])
    assert terminal.exit_code == 1
    assert r.status_code == 400
    assert r.json() == {"error": terminal.stderr.strip().removeprefix("Error: ")}
    r = post(client, table, "mj", ["xp", "award", "thor", "abc", "--reason", "x"])
    assert r.status_code == 400 and r.json()["error"] == "XP amount 'abc' is not a whole number."
    assert event_count(table.db) == before


@pytest.mark.parametrize("headers", [{}, {"Authorization": "Bearer nope"}, {"Authorization": "Basic xyz"},
                                     {"Authorization": "Bearer " + "0" * 48}])
def test_no_token_or_a_wrong_token_is_refused(client, table, headers):
    before = event_count(table.db)
    for r in (client.post("/api/command", json={"argv": ["note", "x"]}, headers=headers),
              client.get("/api/characters", headers=headers), client.get("/api/log", headers=headers),
              client.get("/api/sheet/thor", headers=headers), client.get("/api/combat/pendu", headers=headers)):
        assert r.status_code == 401
        assert "token" in r.json()["error"]
    assert event_count(table.db) == before


def test_a_revoked_token_is_refused_at_once(client, table):
    assert client.get("/api/sheet/thor", headers=table.headers("alice")).status_code == 200
    cristal(table.db, "access", "revoke", "alice")
    before = event_count(table.db)
    r = post(client, table, "alice", ["combat", "pass", "pendu", "thor"])
    assert r.status_code == 401 and "revoked" in r.json()["error"]
    assert client.get("/api/sheet/thor", headers=table.headers("alice")).status_code == 401
    assert event_count(table.db) == before


@pytest.mark.parametrize("argv", [
    ["combat", "attack", "pendu", "york", "ogre", "--dice", "15,3"],   # Bob's character
    ["combat", "cast", "pendu", "ogre", "Boule de feu"],
    ["xp", "buy", "york", "level", "Guerrier"],
    ["xp", "buy", "thor", "spell", "Boule de feu", "--cost", "1"],     # the GM's price
    ["rest", "thor", "york"],
    ["rest", "--all"],
    ["sheet", "york"],
    ["xp", "award", "thor", "1000", "--reason", "moi"],                # the game master's
    ["note", "x"],
    ["combat", "next", "pendu"],
    ["heal", "york", "1", "--source", "care", "--reason", "x"],          # a request, but only for her own
])
def test_a_player_acts_only_for_their_own_characters(client, table, argv):
    before = event_count(table.db)
    r = post(client, table, "alice", argv)
    assert r.status_code == 403, r.text
    assert r.json()["error"].endswith(".")
    assert event_count(table.db) == before


def test_a_player_acts_for_their_character(client, table):
    # the table lets players spend their XP without asking (default 'gm': a request, test_web_requests.py)
    cristal(table.db, "settings", "--set", "approval_xp_purchase=free", "--reason", "la table fait confiance")
    r = post(client, table, "alice", ["xp", "buy", "thor", "level", "Guerrier", "--stat", "FRC"])
    assert r.status_code == 200, r.text
    sheet = client.get("/api/sheet/thor", headers=table.headers("alice")).json()
    assert sheet["classes"] == {"Guerrier": 1} and sheet["variable"]["XP"] == 300
    assert client.get("/api/sheet/york", headers=table.headers("alice")).status_code == 403
    log = client.get("/api/log?after=0", headers=table.headers("alice")).json()
    assert log[-1]["actor"] == "alice"


@pytest.mark.parametrize("argv", [["access", "grant", "eve", "--gm"], ["access", "list"], ["init", "x.db", "--name", "x"],
                                  ["export", "timeline", "-o", "out.html"], ["export", "timeline", "--output=x"],
                                  ["verify", "--file", "/etc/passwd"], ["import", "a.jsonl", "b.db"],
                                  ["script", "x.toml"], ["serve"], ["--db", "other.db", "log"],
                                  ["--actor", "alice", "note", "x"]])
def test_files_tokens_and_cristal_options_stay_in_the_terminal_even_for_the_game_master(client, table, argv):
    before = event_count(table.db)
    r = post(client, table, "mj", argv)
    assert r.status_code == 403, r.text
    assert event_count(table.db) == before


def test_an_oversized_or_malformed_body_is_refused(client, table):
    before = event_count(table.db)
    r = client.post("/api/command", content=json.dumps({"argv": ["note", "x" * 20000]}),
                    headers={**table.headers("mj"), "Content-Type": "application/json"})
    assert r.status_code == 413 and "bytes" in r.json()["error"]

    def chunks():
        for _ in range(40):
            yield b"x" * 1024

    r = client.post("/api/command", content=chunks(), headers=table.headers("mj"))  # no Content-Length
    assert r.status_code == 413
    for body in (b"not json", b"[1]", b'{"argv": "note x"}', b'{"argv": []}', b'{"argv": [1]}'):
        r = client.post("/api/command", content=body, headers=table.headers("mj"))
        assert r.status_code == 400 and "argv" in r.json()["error"]
    assert event_count(table.db) == before


def _page(client, table, who):
    r = client.get(f"/?token={table.tokens[who]}")
    assert r.status_code == 200
    return r.text, re.search(r'name="csrf" value="([0-9a-f]+)"', r.text).group(1)


def test_a_form_post_needs_its_csrf_token(client, table):
    page, csrf = _page(client, table, "mj")
    before = event_count(table.db)
    for fields in ({"form": "note", "text": "sans jeton"}, {"form": "note", "text": "faux", "csrf": "0" * 64}):
        r = client.post("/ui/command", data=fields)
        assert r.status_code == 403 and "CSRF" in r.text
    r = client.post("/ui/command", data={"form": "note", "text": "ailleurs", "csrf": csrf},
                    headers={"Origin": "http://evil.example"})
    assert r.status_code == 403 and "another site" in r.text
    assert event_count(table.db) == before
    r = client.post("/ui/command", data={"form": "note", "text": "depuis la page", "csrf": csrf})
    assert r.status_code == 200 and "Recorded:" in r.text
    assert event_count(table.db) == before + 1
    # another holder's CSRF token does not fit this one's cookie
    _, alice_csrf = _page(client, table, "alice")
    client.cookies.set("cristal_token", table.tokens["mj"])
    r = client.post("/ui/command", data={"form": "note", "text": "x", "csrf": alice_csrf})
    assert r.status_code == 403


@pytest.mark.french
def test_the_pages_need_a_valid_token_and_keep_it_out_of_the_url(client, table):
    assert client.get("/").status_code == 401
    assert client.get("/?token=nope").status_code == 401
    r = client.get(f"/?token={table.tokens['alice']}", follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/"
    cookie = r.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=strict" in cookie
    page = client.get("/").text
    assert "Thor" in page and "Mes actions" in page and table.tokens["alice"] not in page
    assert 'value="york"' in page  # a target
    assert '<option value="york">' not in page.split('name="fighter"')[1].split("</select>")[0]


def test_the_player_form_for_someone_elses_character_is_refused(client, table):
    page, csrf = _page(client, table, "alice")
    before = event_count(table.db)
    r = client.post("/ui/command", data={"form": "attack", "csrf": csrf, "combat": "pendu", "fighter": "york",
                                         "target": "ogre", "dice": "15,3"})
    assert r.status_code == 403 and "alice may not act for" in r.text
    assert event_count(table.db) == before


def test_nothing_secret_is_ever_served(client, table):
    conn = sqlite3.connect(table.db)
    hashes = [h for (h,) in conn.execute("SELECT token_hash FROM access_tokens")]
    conn.close()
    kept = json.loads((table.db.parent / (table.db.name + ".secrets")).read_text())["sessions"]
    secrets = [*hashes, *kept.values()]  # the open session's dice secret and every token's hash
    texts = []
    for who in ("mj", "alice"):
        client.cookies.clear()
        page, _ = _page(client, table, who)
        texts += [page, client.get("/ui/part/log").text, client.get("/ui/part/fight").text]
        texts += [client.get(p, headers=table.headers(who)).text for p in
                  ("/api/log?after=0", "/api/characters", "/api/combat/pendu", "/api/sheet/thor")]
    texts.append(post(client, table, "mj", ["log"]).text)
    assert len(secrets) == 4 and all(len(s) == 64 for s in secrets)
    for text in texts:
        for s in secrets:
            assert s not in text
        assert "snapshot" not in text.lower() or "snapshots" in text  # verify's count, never a snapshot's state
    log = json.loads(cristal(table.db, "log", "--type", "access.granted", "--json").splitlines()[0])
    assert log["payload"] == {"type": "access.granted", "name": "mj", "characters": [], "gm": True}


def test_a_hostile_name_is_escaped_and_shown_visibly(client, table):
    cristal(table.db, "note", "<script>alert(1)</script>\x1b[2J")
    page, _ = _page(client, table, "mj")
    assert "<script>alert(1)" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;\\x1b[2J" in page


def test_the_exports_are_the_game_masters(client, table):
    _page(client, table, "mj")
    r = client.get("/ui/export/md")
    assert r.status_code == 200 and "La Taverne" in r.text and "attachment" in r.headers["content-disposition"]
    _page(client, table, "alice")
    assert client.get("/ui/export/md").status_code == 403


def test_the_live_stream_says_each_new_position(table):
    import asyncio

    from cristal_events.web.app import create_app

    app = create_app(table.db)
    got: list[bytes] = []

    async def drive():
        sent = {"n": 0}

        async def receive():
            if sent["n"] == 0:
                sent["n"] += 1
                return {"type": "http.request", "body": b"", "more_body": False}
            await asyncio.sleep(3)
            return {"type": "http.disconnect"}

        async def send(message):
            if message["type"] == "http.response.body" and message.get("body"):
                got.append(message["body"])
                if len(got) == 1:
                    await asyncio.to_thread(cristal, table.db, "note", "en direct")

        scope = {"type": "http", "method": "GET", "path": "/events", "raw_path": b"/events", "query_string": b"",
                 "headers": [(b"authorization", f"Bearer {table.tokens['bob']}".encode())], "scheme": "http",
                 "server": ("127.0.0.1", 80), "client": ("127.0.0.1", 1), "root_path": "", "http_version": "1.1"}
        await asyncio.wait_for(app(scope, receive, send), 10)

    last = event_count(table.db)
    asyncio.run(drive())
    assert got[0] == f"event: append\ndata: {last}\n\n".encode()
    assert got[1] == f"event: append\ndata: {last + 1}\n\n".encode()


def test_access_grant_list_revoke_on_the_command_line(table):
    runner = CliRunner()
    out = cristal(table.db, "access", "grant", "carla", "--character", "ogre")
    assert re.search(r"http://127\.0\.0\.1:8019/\?token=[0-9a-f]{48}", out)
    rows = json.loads(cristal(table.db, "access", "list", "--json"))
    assert [r["name"] for r in rows] == ["alice", "bob", "carla", "mj"]
    assert all("token" not in json.dumps(r) for r in rows)
    for args, sentence in ((["grant", "carla", "--character", "ogre"], "'carla' already holds access"),
                           (["grant", "dan", "--character", "nobody"], "Unknown character 'nobody'"),
                           (["grant", "dan"], "needs at least one --character"),
                           (["grant", "da\x1bn", "--gm"], "plain visible text"),
                           (["revoke", "zed"], "'zed' holds no access")):
        before = event_count(table.db)
        r = runner.invoke(cli, ["--db", str(table.db), "access", *args])
        assert r.exit_code == 1 and sentence in r.stderr, r.stderr
        assert event_count(table.db) == before
    cristal(table.db, "access", "revoke", "carla")
    rows = {r["name"]: r for r in json.loads(cristal(table.db, "access", "list", "--json"))}
    assert rows["carla"]["revoked_at"] is not None
    log = cristal(table.db, "log", "--type", "access.revoked")
    assert "Access to the table withdrawn from carla" in log
    cristal(table.db, "access", "grant", "carla", "--character", "ogre")  # a new token after a revoke
    assert cristal(table.db, "verify").startswith("OK")


def test_serve_warns_when_it_opens_the_table_to_the_network(table, monkeypatch):
    import uvicorn

    from cristal_events.web.cli import is_loopback

    seen = {}
    monkeypatch.setattr(uvicorn, "run", lambda app, host, port, log_level: seen.update(host=host, port=port))
    r = CliRunner().invoke(cli, ["--db", str(table.db), "serve", "--host", "0.0.0.0", "--port", "8123"])
    assert r.exit_code == 0 and "opens the table to the network" in r.stderr
    assert seen == {"host": "0.0.0.0", "port": 8123}
    r = CliRunner().invoke(cli, ["--db", str(table.db), "serve"])
    assert r.exit_code == 0 and "Warning" not in r.stderr and seen["host"] == "127.0.0.1"
    assert is_loopback("::1") and is_loopback("localhost") and not is_loopback("192.168.1.4")
    r = CliRunner().invoke(cli, ["--db", str(table.db.parent / "none.db"), "serve"])
    assert r.exit_code == 1


@pytest.mark.french
def test_an_illergan_campaign_is_served_too(tmp_path):
    from starlette.testclient import TestClient

    from cristal_events.web.app import create_app

    db = tmp_path / "illergan.db"
    cristal(db, "init", str(db), "--name", "Illergan", "--ruleset", "illergan")
    token = json.loads(cristal(db, "access", "grant", "mj", "--gm", "--json"))["token"]
    with TestClient(create_app(db)) as client:
        page = client.get(f"/?token={token}")
        assert page.status_code == 200 and "Pas de combat en cours" in page.text
        r = client.post("/api/command", json={"argv": ["note", "Le gué"]}, headers={"Authorization": f"Bearer {token}"})
        assert r.status_code == 200 and r.json()["type"] == "note.recorded"
        assert "Le gué" in client.get("/ui/part/log").text


def test_an_export_carries_the_grants_but_never_a_token_and_an_import_gives_no_access(table, tmp_path):
    out = tmp_path / "t.jsonl"
    cristal(table.db, "session", "end")
    cristal(table.db, "export", "timeline", "--format", "jsonl", "-o", str(out))
    text = out.read_text()
    rows = [json.loads(line) for line in text.splitlines()]
    assert [r["payload"]["name"] for r in rows if r.get("type") == "access.granted"] == ["mj", "alice", "bob"]
    conn = sqlite3.connect(table.db)
    hashes = [h for (h,) in conn.execute("SELECT token_hash FROM access_tokens")]
    conn.close()
    assert not any(h in text or t in text for h, t in zip(hashes, table.tokens.values()))
    copy = tmp_path / "copy.db"
    cristal(table.db, "import", str(out), str(copy))
    assert json.loads(cristal(copy, "access", "list", "--json")) == []
    assert cristal(copy, "verify").startswith("OK")


def _positions(html: str) -> list[int]:
    return [int(p) for p in re.findall(r'<li data-position="(\d+)">', html)]


@pytest.mark.french
def test_a_players_log_is_the_open_sessions_then_between_sessions_the_last_ones(client, table):
    session1 = [json.loads(line)["position"] for line in cristal(table.db, "log", "--session", "1", "--json").splitlines()]
    _page(client, table, "alice")
    html = client.get("/ui/part/log").text
    assert "Le journal de la session 1" in html and _positions(html) == session1[::-1]
    cristal(table.db, "session", "end")
    cristal(table.db, "note", "Entre deux sessions")
    cristal(table.db, "session", "start", "--title", "La route")
    cristal(table.db, "note", "<b>Sur la route</b>\x1b[2J")
    session2 = [json.loads(line) for line in cristal(table.db, "log", "--session", "2", "--json").splitlines()]
    html = client.get("/ui/part/log").text
    assert "Le journal de la session 2" in html
    assert _positions(html) == [e["position"] for e in session2][::-1] and len(session2) == 2
    assert "&lt;b&gt;Sur la route&lt;/b&gt;\\x1b[2J" in html and "<b>Sur la route" not in html
    assert "Départ" not in html and "Entre deux sessions" not in html  # session 1's award, the note between
    cristal(table.db, "session", "end")
    cristal(table.db, "note", "Après la route")
    html = client.get("/ui/part/log").text  # between sessions: the last session's, its end included
    assert "Le journal de la session 2" in html and "Après la route" not in html
    assert _positions(html)[0] == session2[-1]["position"] + 1 and len(_positions(html)) == 3
    # the whole page shows the same; the game master's log is the last 25 events, whatever the session
    assert _positions(_page(client, table, "bob")[0]) == _positions(html)
    _page(client, table, "mj")
    assert _positions(client.get("/ui/part/log").text)[0] == event_count(table.db)


@pytest.mark.french
def test_a_players_log_before_any_session_says_so(tmp_path):
    from starlette.testclient import TestClient

    from cristal_events.web.app import create_app

    db = tmp_path / "neuve.db"
    cristal(db, "init", str(db), "--name", "Neuve", "--ruleset", "cristal")
    cristal(db, "character", "create", "thor", "--race", "Humain", "--name", "Thor")
    token = json.loads(cristal(db, "access", "grant", "alice", "--character", "thor", "--json"))["token"]
    with TestClient(create_app(db)) as c:
        page = c.get(f"/?token={token}").text
        assert "Pas encore de session." in page and _positions(page) == []
