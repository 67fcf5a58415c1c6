"""Issue 21 item 1 at the web table: the game master rolls in secret from the API and alone sees the
faces; a player reading every endpoint with her token finds the roll sealed (and counted) until it is
revealed, and cannot roll in secret herself. The answer's summaries and its ``X-Cristal-Warnings`` are in
the request's language, in English and in French (issue 18: the warning once came out French in an
English run; a warning is what the request's own command printed, nothing another thread did)."""

from __future__ import annotations

import json
import sys
import threading

import pytest
from conftest import cristal, event_count

from cristal_events import i18n
from cristal_events.i18n import _

#: what each language reads: the outcome's summary, the sealed-roll warning (without its "Warning: ")
TEXTS = {"en": ("Forestier roll", "1 secret roll is still sealed"),
         "fr": ("jet de Forestier", "1 jet secret est encore scellé")}


def post(client, table, who, argv):
    return client.post("/api/command", json={"argv": argv}, headers=table.headers(who))


def a_player_cannot_read_a_sealed_roll(client, table, lang: str) -> None:
    outcome, warning = TEXTS[lang]
    cristal(table.db, "combat", "end", "pendu")
    r = post(client, table, "mj", ["check", "technique", "thor", "Forestier", "--difficulty", "8", "--secret"])
    assert r.status_code == 200, r.text
    body = r.json()
    position = body["sealed"]["position"]
    seen = body["sealed"]["events"][0]["summary"]  # the GM's own answer carries the outcome
    assert outcome in seen
    warned = json.loads(r.headers["X-Cristal-Warnings"])
    assert len(warned) == 1 and warned[0].startswith(warning), warned
    for path in ("/api/log", "/api/sheet/thor", "/api/characters", "/api/log?after=0"):
        got = client.get(path, headers=table.headers("alice"))
        assert got.status_code == 200, path
        assert "technique.checked" not in got.text and outcome not in got.text, path
        assert [w for w in json.loads(got.headers["X-Cristal-Warnings"]) if w.startswith(warning)], path
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
    assert outcome in got.text and "X-Cristal-Warnings" not in got.headers


def test_a_player_cannot_read_a_sealed_roll_through_the_api(client, table):
    a_player_cannot_read_a_sealed_roll(client, table, "en")


@pytest.mark.french  # the same table read in French: the Lois du Cristal's summaries and the warnings
def test_a_player_cannot_read_a_sealed_roll_through_the_api_in_french(client, table):
    a_player_cannot_read_a_sealed_roll(client, table, "fr")


def test_a_warning_follows_the_language_of_its_request(client, table):
    """Requests in each language in turn (the language of the request's context, as a server started by
    ``cristal --lang fr serve`` passes it on) get the warning and the summary in that language."""
    cristal(table.db, "combat", "end", "pendu")
    assert post(client, table, "mj", ["check", "technique", "thor", "Forestier", "--difficulty", "8",
                                      "--secret"]).status_code == 200
    for lang in ("fr", "en", "fr", "en"):
        warning = TEXTS[lang][1]
        with i18n.use(lang):
            r = post(client, table, "mj", ["note", f"en {lang}"])
            got = client.get(f"/api/log?after={r.json()['position'] - 1}", headers=table.headers("mj"))
        assert r.status_code == 200 and got.status_code == 200, r.text
        assert [e["summary"] for e in got.json()] == [{"en": "GM's note: en en", "fr": "Note du MJ : en fr"}[lang]]
        for answer in (r, got):
            warned = json.loads(answer.headers["X-Cristal-Warnings"])
            assert len(warned) == 1 and warned[0].startswith(warning), (lang, warned)


def test_a_warning_is_what_the_requests_own_command_printed(client, table, monkeypatch):
    """While an English request's command runs in its worker thread, another thread of the process (the
    table console in French, a terminal command run in-process, a warning) prints to stderr: the request
    answers its own English warning only, and the other thread's line goes where it went (it reached the
    answer when the commands' output was taken by swapping the process's sys.stderr)."""
    from cristal_events.cli import inprocess

    cristal(table.db, "combat", "end", "pendu")
    assert post(client, table, "mj", ["check", "technique", "thor", "Forestier", "--difficulty", "8",
                                      "--secret"]).status_code == 200
    running, printed = threading.Event(), threading.Event()
    counted = inprocess.Kept.sealed

    def sealed(self):  # the request's command, between its own output and its warning
        running.set()
        assert printed.wait(10)
        return counted(self)

    def console_in_french():
        assert running.wait(10)
        with i18n.use("fr"):
            print(_("Warning: 1 secret roll is still sealed (position {position}); 'session end' or "
                    "'cristal reveal POSITION' reveals it.").format(position=99), file=sys.stderr)
        printed.set()

    monkeypatch.setattr(inprocess.Kept, "sealed", sealed)
    other = threading.Thread(target=console_in_french)
    other.start()
    r = post(client, table, "mj", ["note", "pendant ce temps"])
    other.join(10)
    assert r.status_code == 200, r.text
    warned = json.loads(r.headers["X-Cristal-Warnings"])
    assert len(warned) == 1 and warned[0].startswith("1 secret roll is still sealed"), warned
