"""The jobs on the sample campaigns, with exact expected content (sample_campaigns/*.toml)."""

from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from cristal_events.cli import cli
from cristal_events.cli.script import load
from cristal_events.cli.script import run as run_script
from cristal_events.exchange import verify_jsonl
from cristal_events.jobs import walk
from cristal_events.jobs.exports import combats
from cristal_events.service import Campaign

SAMPLES = Path(__file__).resolve().parents[2] / "sample_campaigns"
COMPAGNIE = SAMPLES / "compagnie_du_cristal.toml"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    db = tmp_path_factory.mktemp("compagnie") / "compagnie.db"
    run_script(load(COMPAGNIE), db)
    return db


@pytest.fixture
def copy(built, tmp_path):
    """A private copy of the built sample, for tests that append to it."""
    target = tmp_path / "copy.db"
    shutil.copy(built, target)
    return target


def cristal(db, *args, input=None):
    return CliRunner().invoke(cli, ["--db", str(db), *args], input=input, catch_exceptions=False)


@pytest.mark.parametrize("path", sorted(SAMPLES.glob("*.toml")), ids=lambda p: p.stem)
def test_every_sample_builds_and_verifies(path, tmp_path):
    ran = run_script(load(path), tmp_path / "c.db")
    assert ran and all(r.positions[0] <= r.positions[1] for r in ran)
    result = cristal(tmp_path / "c.db", "verify")
    assert result.exit_code == 0, result.output


def test_the_party_has_three_sessions_and_its_three_characters(built):
    camp = Campaign.open(built, readonly=True)
    world = camp.state()
    assert world.core.sessions == 3
    chars = camp.ruleset.characters(world.rules)
    assert {cid: (c.race, dict(c.classes), c.player) for cid, c in chars.items()} == {
        "thor": ("Humain", {"Guerrier": 2}, "Alice"),
        "xar": ("Elfe", {"Mage": 1}, "Bruno"),
        "gustave": ("Nain", {"Voleur": 1}, "Chloé"),
    }
    assert (chars["xar"].spells, chars["thor"].techniques) == (["Rayon Magique"], {"Natation": 1})


# The book's table (seed 000, L1300-L1311): IT before (Thor, York), who acts, duration, IT after.
BOOK_THOR_YORK = [
    ((0, 2), "thor", 6, (6, 2)), ((6, 2), "york", 3, (6, 5)), ((6, 5), "york", 4, (6, 9)),
    ((6, 9), "thor", 5, (11, 9)), ((11, 9), "york", 3, (11, 12)), ((11, 12), "thor", 2, (13, 12)),
    ((13, 12), "york", 10, (13, 22)), ((13, 22), "thor", 2, (15, 22)), ((15, 22), "thor", 6, (21, 22)),
    ((21, 22), "thor", 2, (23, 22)), ((23, 22), "york", 8, (23, 30)), ((23, 30), "thor", 2, (25, 30)),
]


def test_the_exported_combat_table_is_the_books_thor_vs_york_table(built):
    camp = Campaign.open(built, readonly=True)
    pendu = next(v for v in combats(walk(camp)) if v.name == "pendu")
    assert pendu.participants == ["thor", "york"]
    got = [((r.it_before["thor"], r.it_before["york"]), r.actor, r.duration, (r.it_after["thor"], r.it_after["york"]))
           for r in pendu.rows]
    assert got == BOOK_THOR_YORK  # L1300-L1311, incantation 10 and combustion 8 (16/2) included


@pytest.mark.french
def test_markdown_recap_of_session_one(built):
    out = cristal(built, "export", "timeline", "--format", "md", "--session", "1").output.splitlines()
    assert out[:10] == [
        "# La Compagnie du Cristal",
        "",
        "*Les Lois du Cristal — 41 événements — arrondi : round*",
        "",
        "## Session 1 : L'auberge du Pendu — 1er Floréal",
        "",
        "**Présents :** Thor, Xar, Gustave",
        "",
        "**XP gagnés / dépensés :** Thor +400 / −100 ; Xar +400 / −175 ; Gustave +400 / −125",
        "",
    ]
    table = out[out.index("### Combat : pendu"):]
    assert table[2:5] == [
        "| IT avant Thor | IT avant york | Au tour de | Action | Durée | IT après Thor | IT après york |",
        "|---|---|---|---|---|---|---|",
        "| 0 | 2 | Thor | Thor attaque York à l'épée longue : ATT 1 + d20 13 = 14 &gt; DP 10, touché ; 6 dégâts, "
        "PV 15 → 9 ; IT 0 → 6 | +6 | 6 | 2 |",
    ]  # the narration: names, the d20 face, what each number is (issue 18 item 5)
    assert table[14] == ("| 23 | 22 | york | Boule de Feu de York se libère : Thor (DM 0) : Dommage 4d6 = 10 DMG, "
                         "10 dégâts, PV 16 → 6 ; combustion 8 s ; IT 22 → 30 | +8 | 23 | 30 |")


def test_an_instant_cast_has_its_row_in_the_combat_table(built):
    """Xar's Rayon Magique is instantaneous (IT +0): its cast is a row of the table, before its release."""
    out = cristal(built, "--lang", "fr", "export", "timeline", "--format", "md", "--session", "3").output.splitlines()
    table = out[out.index("### Combat : maison") + 4:]
    assert table[:2] == [
        "| 0 | 2 | Xar | Xar lance Rayon Magique sur Taz (11 PM, PM 15 → 4) : CNC 4 + d20 8 = 12 ≥ CNC du sort 7, "
        "réussi ; effets immédiats | 0 | 0 | 2 |",
        "| 0 | 2 | Xar | Rayon Magique de Xar se libère : Taz (DM 3) : Distance 15 Mètres, Dommage 1d6 = 4 DMG, "
        "4 dégâts, PV 12 → 8 ; combustion 4 s ; IT 0 → 4 | +4 | 4 | 2 |"]


@pytest.mark.french
def test_replay_of_xar_against_taz(built):
    """TV-15 (L1052-L1069): 11 PM, CNC 4 + 8 = 12 >= 7, Taz's DM 3 leaves [1d6] of 4d6."""
    out = cristal(built, "replay", "--session", "3", "--character", "xar").output.splitlines()
    start = out.index("#64    GM       Combat « maison » : Xar IT 0, Taz IT 2")
    told = [line for line in out[start:] if line.startswith("#")][:4]
    assert told == [
        "#64    GM       Combat « maison » : Xar IT 0, Taz IT 2",
        "#65    GM       Xar lance Rayon Magique sur Taz (11 PM, PM 15 → 4) : CNC 4 + d20 8 = 12 ≥ CNC du sort 7, "
        "réussi ; effets immédiats",
        "#66    GM       Rayon Magique de Xar se libère : Taz (DM 3) : Distance 15 Mètres, Dommage 1d6 = 4 DMG, "
        "4 dégâts, PV 12 → 8 ; combustion 4 s ; IT 0 → 4",
        "#67    GM       Xar dépense 11 PM : PM 15 → 4",
    ]
    changes = out[start:out.index(told[-1]) + 2]
    assert "        combats.maison.it.xar : 0 → 4" in changes
    assert "        combats.maison.fighters.xar.pm : — → 4" in changes


def test_audit_of_thor_shows_the_correction_beside_the_award(built):
    result = cristal(built, "audit", "xp", "thor")
    assert result.exit_code == 0
    assert result.output.splitlines() == [
        "XP of Thor (thor)",
        "  pos    sess  amount  balance  what [by]",
        "  #6     s1      +400      400  award: Expérience de départ accordée par le MJ  [GM]",
        "  #9     s1      -100      300  spend: global level 1 (Guerrier 1, +1 FRC) (charged 100, rule 100)  [GM]",
        "  #44    s2      +600      900  award: Victoire contre York  [GM]",
        "    ↳ #46    s2      -540      360  correction of #44: 600 XP saisis au lieu de 60  [GM]",
        "  #49    s2       -20      340  spend: technique Natation level 1 (charged 20, rule 20)  [GM]",
        "  #71    s3      +150      490  award: Le coffre de Taz rapporté au temple  [GM]",
        "  #74    s3      -200      290  spend: global level 2 (Guerrier 2, +1 CON) (charged 200, rule 200)  [GM]",
        "  Total session 1: earned 400, spent 100",
        "  Total session 2: earned 600, spent 20, corrected -540",
        "  Total session 3: earned 150, spent 200",
        "  Overall: earned 1150, spent 320, corrected -540; balance 290 XP",
        "",
        "No anomaly: every charge matches the rules.",
    ]
    data = json.loads(cristal(built, "audit", "xp", "--json").output)
    assert data["ok"] is True
    assert {c["id"]: c["balance"] for c in data["characters"]} == {"gustave": 465, "thor": 290, "xar": 285}


def test_audit_equals_the_stored_read_model(built):
    conn = Campaign.open(built, readonly=True).store.conn
    stored = {r[0]: r[1] for r in conn.execute("SELECT position, balance_after FROM xp_ledger")}
    data = json.loads(cristal(built, "audit", "xp", "--json").output)
    computed = {e["position"]: e["balance_after"] for c in data["characters"] for e in c["entries"]}
    computed.update({k["position"]: k["balance_after"] for c in data["characters"] for e in c["entries"]
                     for k in e["corrections"]})
    assert computed == stored


def test_audit_flags_an_award_without_reason_and_exits_1(copy):
    from cristal_events.rulesets.cristal.characters import XpAwarded

    camp = Campaign.open(copy)
    camp.store.append("character:thor", [XpAwarded(character="thor", amount=50, reason="", balance_after=340)],
                      session=3)  # as an older engine that did not require a reason would have written it
    camp.close()
    result = cristal(copy, "audit", "xp", "thor")
    assert result.exit_code == 1
    assert result.output.splitlines()[-2:] == ["1 anomaly:", "  #80 thor: an award with no reason (no_reason)"]


@pytest.mark.french
def test_audit_and_replay_work_on_an_older_log(copy):
    """A session.started stored at schema version 1 (name/date) is upcast on read."""
    camp = Campaign.open(copy)
    last = camp.store.get(camp.store.last_position())
    camp.store.append_rows([{
        "event_id": "00000000-0000-0000-0000-000000000001", "stream": "campaign",
        "version": camp.store.stream_version("campaign") + 1, "type": "session.started", "schema_version": 1,
        "payload": '{"type":"session.started","number":4,"name":"Vieille session","date":"1er Prairial"}',
        "recorded_at": last.recorded_at, "session": 4, "actor": "GM", "causation_id": None, "correlation_id": None,
    }])
    camp.close()
    assert cristal(copy, "replay", "--session", "4").output.splitlines() == [
        "── Session 4 : Vieille session (1er Prairial) ──",
        "#80    GM       Session 4 commence : Vieille session — 1er Prairial",
    ]
    assert cristal(copy, "audit", "xp", "thor").exit_code == 0


@pytest.mark.french  # reads the French texts of the output
def test_jsonl_csv_and_html_of_the_sample(built, tmp_path):
    jsonl = tmp_path / "t.jsonl"
    assert cristal(built, "export", "timeline", "--format", "jsonl", "-o", str(jsonl)).exit_code == 0
    report = verify_jsonl(jsonl)
    assert (report.ok, report.events) == (True, 79)
    line = json.loads(jsonl.read_text().splitlines()[43])
    assert (line["position"], line["session"], line["in_game_date"], line["type"], line["summary"]) == (
        44, 2, "3 Floréal", "xp.awarded", "thor reçoit 600 XP (Victoire contre York) → 900 XP")
    result = cristal(tmp_path / "imported.db", "import", str(jsonl))
    assert result.exit_code == 0
    assert cristal(tmp_path / "imported.db", "audit", "xp").output == cristal(built, "audit", "xp").output

    rows = list(csv.reader(io.StringIO(cristal(built, "export", "timeline", "--format", "csv",
                                               "--character", "gustave").output)))
    assert rows[0][:8] == ["position", "recorded_at", "session", "in_game_date", "actor", "stream", "type", "summary"]
    # 43: session 2 starts and closes Gustave's creation phase (L1482)
    assert [r[0] for r in rows[1:6]] == ["5", "8", "11", "16", "43"]
    assert rows[1][7] == "Gustave (Nain) créé : PV 16, PM 2"

    site = tmp_path / "site"
    cristal(built, "export", "timeline", "--format", "html", "-o", str(site))
    sessions = "".join(p.read_text() for p in sorted(site.glob("session-*.html")))
    assert sessions.count('<section class="combat">') == 3
    charts = "".join(p.read_text() for p in sorted(site.glob("personnage-*.html")))
    assert charts.count('<svg class="chart"') == 5  # XP and PV of Thor and Gustave, XP of Xar
    assert '<p class="nochart">Xar — PV : 6 (à #4, sans changement à tracer).</p>' in charts  # one value: no chart
    assert "<title>Thor — XP</title>" in charts and "<title>Gustave — PV</title>" in charts
    thor = next(p.read_text() for p in site.glob("personnage-*.html") if "<h1>Thor</h1>" in p.read_text())
    # real axes: round value ticks, the positions along the bottom, a dashed mark where each session begins
    assert '<text x="39" y="' in thor and ">800</text>" in thor and ">#6</text>" in thor and ">#74</text>" in thor
    assert [f">S{n}</text>" in thor for n in (1, 2, 3)] == [True] * 3 and thor.count('class="mark"') >= 4
    assert "<script" not in sessions + charts + (site / "index.html").read_text()


def test_replay_never_writes(built):
    before = built.read_bytes()
    cristal(built, "replay", "--json")
    cristal(built, "audit", "xp")
    assert built.read_bytes() == before


def test_demo_builds_prints_the_party_and_writes_the_page(tmp_path):
    result = cristal(tmp_path / "unused.db", "demo", str(tmp_path / "demo"), "--sample", str(COMPAGNIE))
    assert result.exit_code == 0, result.output
    out = result.output.splitlines()
    assert out[0] == (f"Built « La Compagnie du Cristal » from {COMPAGNIE}: 54 commands, 79 events, 3 sessions, "
                      f"in {tmp_path / 'demo' / 'compagnie_du_cristal.db'}.")
    assert out[2].startswith("Thor (thor) — Humain")
    assert "No anomaly: every charge matches the rules." in out
    assert out[-2:] == [f"HTML timeline written to {tmp_path / 'demo' / 'compagnie_du_cristal.html'} (open it in a browser).",
                        f"Next: cristal --db {tmp_path / 'demo' / 'compagnie_du_cristal.db'} replay --session 1"]
    assert (tmp_path / "demo" / "compagnie_du_cristal.html").read_text().startswith("<!DOCTYPE html>")
    again = cristal(tmp_path / "unused.db", "demo", str(tmp_path / "demo"), "--sample", str(COMPAGNIE))
    assert again.exit_code == 0  # a second demo replaces the first one's files


def test_demo_for_illergan_uses_its_sample_or_says_there_is_none(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    illergan = [p for p in SAMPLES.glob("*.toml") if load(p).ruleset == "illergan"]
    result = cristal(tmp_path / "unused.db", "demo", str(tmp_path / "demo"), "--ruleset", "illergan")
    if illergan:
        assert result.exit_code == 0, result.output
    else:
        assert (result.exit_code, result.output) == (
            1, "Error: No illergan sample campaign exists in sample_campaigns/ yet; give one with --sample FILE.\n")


def test_a_sample_script_checks_clean(built):
    result = cristal(built, "script", "check", str(COMPAGNIE))
    assert result.output == (f"{COMPAGNIE}: 54 steps for the cristal rules, all known commands and options a script "
                             "may use (none reads or writes another file).\n")
