"""Issue 21 items 1-3 as a table uses them: the game master's secret roll, seen only in his own output
and sealed in every other one until revealed (by position or at the session's end), a forged reveal
caught by ``verify --rolls``, a fudge under each ``fudge_policy``, and re-roll chains in replay."""

from __future__ import annotations

import json
import os
import sqlite3
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner

from cristal_events import open_campaign
from cristal_events.cli import cli


def cristal(db: str | Path, *args: str):
    return CliRunner().invoke(cli, ["--db", str(db), *args], catch_exceptions=False)


def table(db: str | Path, *init: str) -> None:
    """A session open, Thor at the table."""
    assert cristal(db, "init", "--name", "Brume", "--seed", "3", *init).exit_code == 0
    assert cristal(db, "session", "start", "--title", "La forêt").exit_code == 0
    assert cristal(db, "character", "create", "thor", "--race", "Humain", "--name", "Thor").exit_code == 0


def secret_check(db: str | Path) -> tuple[int, str, int]:
    """The GM's hidden Forestier check: (sealed position, the outcome's line he sees, the face)."""
    r = cristal(db, "check", "technique", "thor", "Forestier", "--difficulty", "8", "--secret", "--json")
    assert r.exit_code == 0, r.output
    body = json.loads(r.stdout)
    assert [e["type"] for e in body["events"]] == ["roll.sealed"]
    sealed = body["sealed"]["events"]
    assert [e["type"] for e in sealed] == ["technique.checked", "dice.rolled"]
    return body["sealed"]["position"], sealed[0]["summary"], sealed[0]["event"]["face"]


def raw_log(db: str) -> bytes:
    """Every byte the campaign's log holds: the SQLite file (and its WAL), or every row's type and payload
    on PostgreSQL."""
    if not db.startswith("postgresql://"):
        wal = Path(db + "-wal")
        return Path(db).read_bytes() + (wal.read_bytes() if wal.exists() else b"")
    camp = open_campaign(db, readonly=True)
    try:
        return b"".join(f"{rec.type}{rec.payload}".encode() for rec in camp.store.read_all(decode=False))
    finally:
        camp.close()


def sealed_file_of(db: str) -> Path:
    """Where the campaign keeps its sealed rolls: beside an SQLite file, beside the session secret of a
    PostgreSQL campaign."""
    camp = open_campaign(db, readonly=True)
    try:
        return camp.sealed_file()
    finally:
        camp.close()


READS = [["log"], ["log", "--json"], ["replay"], ["sheet", "thor"], ["sheet", "thor", "--json"], ["characters"],
         ["characters", "--json"], ["audit", "dice"], ["audit", "dice", "--json"], ["audit", "xp"],
         ["export", "timeline", "--format", "md"], ["export", "timeline", "--format", "html"],
         ["export", "timeline", "--format", "csv"], ["export", "timeline", "--format", "jsonl"],
         ["verify", "--rolls", "--json"]]


def test_a_secret_roll_is_the_gms_alone_until_revealed_and_every_output_counts_it(backend: str, tmp_path: Path) -> None:
    db = backend
    table(db)
    position, outcome, face = secret_check(db)
    text = cristal(db, "check", "technique", "thor", "Natation", "--secret")
    assert text.exit_code == 0
    assert "Secret roll sealed at position" in text.stdout and "sealed  thor: Natation roll" in text.stdout
    for argv in READS:  # what a player can read: nothing of the outcome, and the count of what is sealed
        r = cristal(db, *argv)
        assert r.exit_code in (0, 1), (argv, r.output)
        assert "technique.checked" not in r.stdout and "Forestier roll" not in r.stdout, argv
        assert f'"face":{face}' not in r.stdout.replace(" ", "") or argv[0] != "log", argv
        assert "2 secret rolls are still sealed" in r.stderr, argv
    audit = json.loads(cristal(db, "audit", "dice", "--json").stdout)
    assert audit["counts"]["sealed"] == 2 and audit["sealed"][0] == position
    assert "Jets secrets encore scellés : 2" in cristal(db, "--lang", "fr", "export", "timeline", "--format", "md").stdout
    assert json.loads(cristal(db, "verify", "--rolls", "--json").stdout)["rolls"]["sealed"] == 2
    site = tmp_path / "site"  # the HTML site: every page keeps the rolls sealed
    assert cristal(db, "export", "timeline", "--format", "html", "-o", str(site)).exit_code == 0
    pages = "".join(p.read_text(encoding="utf-8") for p in site.glob("*.html"))
    assert "Forestier roll" not in pages and "technique.checked" not in pages and "Secret rolls still sealed" in pages
    # the campaign file holds the commitment only; the faces wait beside it, readable by their owner only
    assert b"technique.checked" not in raw_log(db)
    sealed_file = sealed_file_of(db)
    if db.startswith("postgresql://"):  # beside the session secret, outside the database and the working folder
        assert sealed_file.parent == Path(os.environ["CRISTAL_SECRETS_DIR"])
    assert stat.S_IMODE(os.stat(sealed_file).st_mode) == 0o600
    # revealed by position: its events take effect, the count goes down
    shown = cristal(db, "reveal", str(position))
    assert shown.exit_code == 0 and outcome in shown.stdout
    assert "1 secret roll is still sealed" in shown.stderr
    assert outcome in cristal(db, "log").stdout
    again = cristal(db, "reveal", str(position))
    assert again.exit_code == 1 and f"There is no sealed roll at position {position}" in again.output
    # the other one at the session's end, with the seed; both check out against their commitments
    ended = cristal(db, "session", "end", "--json")
    assert ended.exit_code == 0 and len(json.loads(ended.stdout)["revealed"]) == 1
    assert "still sealed" not in ended.stderr and not sealed_file.exists()
    assert "Natation roll" in cristal(db, "log").stdout
    report = json.loads(cristal(db, "verify", "--rolls", "--json").stdout)
    assert report["ok"] and report["rolls"]["revealed"] == 2 and report["rolls"]["sealed"] == 0


def _forge(db: Path, sql: str, *args: object) -> None:
    conn = sqlite3.connect(db, isolation_level=None)
    try:
        conn.execute("DROP TRIGGER IF EXISTS events_no_update")
        conn.execute(sql, args)
    finally:
        conn.close()


def test_a_forged_reveal_is_caught_by_verify_rolls(tmp_path: Path) -> None:
    db = tmp_path / "brume.db"
    table(db)
    position, _, face = secret_check(db)
    assert cristal(db, "session", "end").exit_code == 0
    assert cristal(db, "verify", "--rolls").exit_code == 0
    camp = open_campaign(db, readonly=True)
    reveal = next(camp.store.read_all(type="roll.revealed"))
    checked = next(camp.store.read_all(type="technique.checked"))
    camp.close()
    better = face % 6 + 1
    # the GM rewrites the revealed face, in the reveal's text and in the event it appended
    payload = json.loads(reveal.payload)
    blob = [[stream, text.replace(f'"face":{face}', f'"face":{better}')] for stream, text in json.loads(payload["events"])]
    payload["events"] = json.dumps(blob, separators=(",", ":"))
    _forge(db, "UPDATE events SET payload = ? WHERE position = ?", json.dumps(payload), reveal.position)
    _forge(db, "UPDATE events SET payload = ? WHERE position = ?",
           checked.payload.replace(f'"face":{face}', f'"face":{better}'), checked.position)
    r = cristal(db, "verify", "--rolls", "--json")
    assert r.exit_code == 1
    problems = json.loads(r.stdout)["problems"]
    assert any(f"the reveal of the secret roll at position {position} does not match its commitment" in p
               for p in problems), problems


def test_a_reveal_whose_appended_events_differ_from_the_sealed_ones_is_caught(tmp_path: Path) -> None:
    db = tmp_path / "brume.db"
    table(db)
    position, _, _ = secret_check(db)
    assert cristal(db, "reveal", str(position)).exit_code == 0
    camp = open_campaign(db, readonly=True)
    checked = next(camp.store.read_all(type="technique.checked"))
    camp.close()
    _forge(db, "UPDATE events SET payload = ? WHERE position = ?",
           checked.payload.replace('"success":false', '"success":true'), checked.position)
    assert cristal(db, "session", "end").exit_code == 0
    problems = json.loads(cristal(db, "verify", "--rolls", "--json").stdout)["problems"]
    assert any(f"the events the reveal of position {position} appended are not the ones sealed there" in p
               for p in problems), problems


def test_secret_is_refused_where_it_cannot_stay_honest(backend: str) -> None:
    db = backend
    assert cristal(db, "init", "--name", "Brume").exit_code == 0
    assert cristal(db, "character", "create", "thor", "--race", "Humain").exit_code == 0
    out = cristal(db, "check", "technique", "thor", "Forestier", "--secret")
    assert out.exit_code == 1 and "needs an open session" in out.output
    assert cristal(db, "session", "start").exit_code == 0
    assert cristal(db, "combat", "start", "f", "--with", "thor,ogre", "--it", "thor=1", "--it", "ogre=2",
                   "--stat", "ogre:PV=9", "--stat", "ogre:DP=10").exit_code == 0
    before = open_campaign(db, readonly=True).store.last_position()
    fight = cristal(db, "combat", "attack", "f", "thor", "ogre", "--secret")
    assert fight.exit_code == 1 and "cannot touch a fight: its turn order follows every roll" in fight.output
    assert open_campaign(db, readonly=True).store.last_position() == before


def _fight(db: str | Path, policy: str) -> int:
    """York hits the ogre for 0 (no weapon): the position of the attack."""
    assert cristal(db, "init", "--name", "Pendu", "--fudge-policy", policy).exit_code == 0
    assert cristal(db, "session", "start").exit_code == 0
    assert cristal(db, "combat", "start", "pendu", "--with", "york,ogre", "--it", "york=1", "--it", "ogre=2",
                   "--stat", "york:PV=10", "--stat", "york:ATT=0", "--stat", "ogre:PV=12", "--stat", "ogre:DP=10").exit_code == 0
    hit = cristal(db, "combat", "attack", "pendu", "york", "ogre", "--dice", "15", "--json")
    assert hit.exit_code == 0, hit.output
    return json.loads(hit.stdout)["events"][0]["position"]


def _ogre_pv(db: str | Path) -> int:
    show = json.loads(cristal(db, "combat", "show", "pendu", "--json").stdout)
    return next(p["pv"] for p in show["participants"] if p["id"] == "ogre")


def test_a_fudge_is_refused_when_the_policy_forbids_it(backend: str) -> None:
    db = backend
    attack = _fight(db, "forbidden")
    before = open_campaign(db, readonly=True).store.last_position()
    r = cristal(db, "override", str(attack), "--set", "damage=4", "--reason", "pitié")
    assert r.exit_code == 1
    assert r.output.startswith("Error: This campaign's fudge policy is 'forbidden': a result stands as rolled")
    assert open_campaign(db, readonly=True).store.last_position() == before
    # the table changes its mind only in the open: a visible setting event
    changed = cristal(db, "settings", "--set", "fudge_policy=disclosed", "--reason", "vote de la table")
    assert changed.exit_code == 0 and "Setting fudge_policy = 'disclosed': vote de la table" in changed.stdout
    assert cristal(db, "override", str(attack), "--set", "damage=4", "--reason", "pitié").exit_code == 0
    assert _ogre_pv(db) == 8


@pytest.mark.french  # reads the French texts of the output
def test_a_disclosed_fudge_is_shown_to_everyone_at_once_and_applied_where_the_result_is_used(backend: str) -> None:
    db = backend
    attack = _fight(db, "disclosed")
    r = cristal(db, "override", str(attack), "--set", "damage=4", "--reason", "l'ogre trébuche")
    assert r.exit_code == 0
    assert f"Dérogation du MJ (disclosed) au résultat de la position {attack} : damage = 4" in r.stdout
    assert _ogre_pv(db) == 8  # the damage moved the PV
    assert "result.overridden" in cristal(db, "log").stdout
    audit = json.loads(cristal(db, "audit", "dice", "--json").stdout)
    assert audit["counts"]["overrides"] == 1
    assert audit["overrides"][0] | {"position": 0} == {"position": 0, "overridden": attack, "changes": {"damage": 4},
                                                       "reason": "l'ogre trébuche", "policy": "disclosed",
                                                       "actor": "GM"}
    md = cristal(db, "export", "timeline", "--format", "md").stdout
    assert "Dérogations du MJ : 1" in md and "damage = 4 — l'ogre trébuche" in md
    assert "Dérogations du MJ : 1" in cristal(db, "export", "timeline", "--format", "html").stdout


def _xp(db: str | Path) -> int:
    return json.loads(cristal(db, "characters", "--json").stdout)[0]["variable"]["XP"]


def test_a_sealed_fudge_waits_for_the_sessions_end(backend: str) -> None:
    db = backend
    assert cristal(db, "init", "--name", "Xp", "--fudge-policy", "sealed").exit_code == 0
    assert cristal(db, "session", "start").exit_code == 0
    assert cristal(db, "character", "create", "thor", "--race", "Humain").exit_code == 0
    award = json.loads(cristal(db, "xp", "award", "thor", "600", "--reason", "le gué", "--json").stdout)[0]["position"]
    r = cristal(db, "override", str(award), "--set", "amount=60", "--reason", "trop généreux")
    assert r.exit_code == 0 and "The override is sealed at position" in r.stdout
    assert "1 secret roll is still sealed" in r.stderr
    assert "trop généreux" not in cristal(db, "log").stdout  # its reason and effect wait with the seal
    assert _xp(db) == 600
    assert cristal(db, "session", "end").exit_code == 0
    assert "trop généreux" in cristal(db, "log").stdout
    assert _xp(db) == 60
    audit = json.loads(cristal(db, "audit", "dice", "--json").stdout)
    assert audit["counts"] == {"overrides": 1, "rerolls": 0, "sealed": 0}
    assert audit["overrides"][0]["policy"] == "sealed"
    assert cristal(db, "verify", "--rolls").exit_code == 0
    # a fight's result cannot wait sealed: its turn order moves on
    assert cristal(db, "session", "start").exit_code == 0
    assert cristal(db, "combat", "start", "p", "--with", "york,ogre", "--it", "york=1", "--it", "ogre=2",
                   "--stat", "york:PV=10", "--stat", "york:ATT=0", "--stat", "ogre:PV=12", "--stat", "ogre:DP=10").exit_code == 0
    hit = json.loads(cristal(db, "combat", "attack", "p", "york", "ogre", "--dice", "15", "--json").stdout)
    refused = cristal(db, "override", str(hit["events"][0]["position"]), "--set", "damage=3", "--reason", "x")
    assert refused.exit_code == 1 and "cannot touch a fight" in refused.output


def test_init_defaults_to_a_disclosed_fudge_policy(backend: str) -> None:
    db = backend
    assert cristal(db, "init", "--name", "D").exit_code == 0
    rows = json.loads(cristal(db, "settings", "--json").stdout)["settings"]
    assert {"key": "fudge_policy", "value": "disclosed", "default": "disclosed"}.items() <= next(
        r for r in rows if r["key"] == "fudge_policy").items()
    bad = cristal(db, "settings", "--set", "fudge_policy=sometimes", "--reason", "x")
    assert bad.exit_code == 1 and "The setting fudge_policy is one of forbidden, disclosed, sealed" in bad.output


def test_re_rolls_name_the_roll_they_replace_and_replay_shows_the_chain(backend: str) -> None:
    db = backend
    assert cristal(db, "init", "--name", "Chance").exit_code == 0
    assert cristal(db, "session", "start").exit_code == 0
    assert cristal(db, "combat", "start", "duel", "--with", "york,thor", "--it", "york=1", "--it", "thor=5",
                   "--stat", "york:CHANCE=2", "--stat", "york:PV=10", "--stat", "york:ATT=0", "--stat", "thor:PV=10",
                   "--stat", "thor:DP=10").exit_code == 0
    missed = json.loads(cristal(db, "combat", "attack", "duel", "york", "thor", "--dice", "2", "--json").stdout)
    first = missed["events"][-1]["position"]  # the attack's dice record
    redone = json.loads(cristal(db, "combat", "reroll", "duel", "york", "--dice", "4", "--json").stdout)
    second = redone["events"][-1]["position"]
    assert redone["events"][-1]["event"]["rolls"][0] | {"dice": []} == {
        "expr": "1d20", "total": 4, "dice": [], "purpose": "chance reroll", "replaces": 0, "replaces_position": first}
    # the GM's own "roll again", which names the Chance reroll it replaces
    again = cristal(db, "reroll", str(second), "--reason", "le dé a roulé sous la table", "--dice", "17")
    assert again.exit_code == 0, again.output
    replay = cristal(db, "--lang", "fr", "replay").stdout  # the French texts, as the golden exports hold them
    assert f"↺ remplace le jet 0 (position {first})" in replay
    assert f"↺ remplace le jet 0 (position {second})" in replay
    assert f"Le MJ relance le jet 0 de la position {second} : le dé a roulé sous la table" in replay
    audit = json.loads(cristal(db, "audit", "dice", "--json").stdout)
    assert [(r["replaces_position"], r["total"]) for r in audit["rerolls"]] == [(first, 4), (second, 17)]
    assert "remplace le jet 0 de la position" in cristal(db, "--lang", "fr", "export", "timeline", "--format", "md").stdout
    assert "replaces roll 0 of position" in cristal(db, "export", "timeline", "--format", "md").stdout
    refused = cristal(db, "reroll", str(second), "--reason", "")
    assert refused.exit_code == 1 and "A re-roll needs a reason" in refused.output


@pytest.mark.french  # reads the French texts of the output
def test_a_tie_break_round_names_the_roll_it_replaces(backend: str) -> None:
    db = backend
    assert cristal(db, "init", "--name", "Égalité").exit_code == 0
    assert cristal(db, "session", "start").exit_code == 0
    assert cristal(db, "combat", "start", "t", "--with", "a,b", "--stat", "a:PV=5", "--stat", "b:PV=5").exit_code == 0
    r = cristal(db, "combat", "next", "t", "--dice", "5,5,1,2", "--json")
    assert r.exit_code == 0, r.output
    camp = open_campaign(db, readonly=True)
    record = next(camp.store.read_all(type="dice.rolled")).event
    camp.close()
    assert [(x.total, x.replaces, x.replaces_position) for x in record.rolls] == [(5, -1, 0), (5, -1, 0), (1, 0, 0),
                                                                                  (2, 1, 0)]
    assert "↺ remplace le jet 0 (même commande)" in cristal(db, "replay").stdout


def test_a_lost_sealed_file_leaves_the_roll_sealed_for_good_and_verify_names_it(backend: str) -> None:
    db = backend
    table(db)
    position, _, _ = secret_check(db)
    sealed_file_of(db).unlink()
    lost = cristal(db, "reveal", str(position))
    assert lost.exit_code == 1 and "cannot be revealed" in lost.output
    ended = cristal(db, "session", "end")
    assert ended.exit_code == 0  # the session still ends, with its seed
    assert f"The secret roll at position {position} could not be revealed" in ended.stderr
    problems = json.loads(cristal(db, "verify", "--rolls", "--json").stdout)["problems"]
    assert f"dice: position {position}: the secret roll was never revealed, although its session 1 has ended" \
        in problems


@pytest.mark.french  # reads the French texts of the output
def test_the_fairness_report_and_the_players_recap_leave_a_sealed_roll_out_and_count_it(backend: str) -> None:
    db = backend
    table(db)
    position, outcome, face = secret_check(db)
    report = json.loads(cristal(db, "dice", "report", "--json").stdout)
    assert report["sealed"] == 1 and report["dice"] == 0  # the sealed check's d6 is not in the log yet
    session = json.loads(cristal(db, "log", "--json").stdout.splitlines()[-1])["session"]
    players = cristal(db, "recap", "--session", str(session), "--view", "players")
    assert players.exit_code == 0, players.output
    assert "jet de Forestier" not in players.stdout and "1 jet(s) secret(s)" in players.stdout
    cristal(db, "reveal", str(position))
    report = json.loads(cristal(db, "dice", "report", "--json").stdout)
    assert report["sealed"] == 0 and report["dice"] == 1
    assert outcome in cristal(db, "recap", "--session", str(session), "--view", "players").stdout
