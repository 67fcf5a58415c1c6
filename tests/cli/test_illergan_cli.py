"""The illergan commands through the CLI: creation, refusals (one sentence, exit 1, nothing appended),
the sheet, the XP ledger and audit, the evening read model, and the sample campaign's replay."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from cristal_events.cli import cli, script

SAMPLE = Path(__file__).resolve().parents[2] / "sample_campaigns" / "illergan_gue_des_loups.toml"
THOR = ["--stat", "Fo=4", "--stat", "Dex=50", "--stat", "Vit=60", "--stat", "Vol=40", "--stat", "Mana=10",
        "--stat", "E=8", "--stat", "Cha=30", "--stat", "Sav=30", "--stat", "Dep=5", "--stat", "Agilité=40",
        "--stat", "Adresse=60"]


def invoke(db, *args):
    return CliRunner().invoke(cli, ["--db", str(db), *args])


def length(db) -> int:
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT MAX(position) FROM events").fetchone()[0]


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "c.db"
    assert invoke(path, "init", "--name", "Gué", "--ruleset", "illergan", "--seed", "4").exit_code == 0
    return path


def create_thor(db, *extra):
    return invoke(db, "character", "create", "thor", "--name", "Thor", "--race", "Humain", "--class", "Guerrier",
                  "--heritage", "Enfant des rues", *THOR, "--pv", "40", "--rn", "10", "--gift", "3",
                  "--starls", "1'O 10'A", *extra)


def test_init_does_not_imply_the_example_pack(db):
    r = create_thor(db)
    assert r.exit_code == 1
    assert r.output.strip() == "Error: The race 'Humain' is not in this campaign's content pack."
    assert length(db) == 1


@pytest.mark.french
def test_pack_create_sheet(db):
    assert invoke(db, "content", "load", "--example").exit_code == 0
    r = create_thor(db, "--player", "Alice")
    assert r.exit_code == 0, r.output
    r = invoke(db, "sheet", "thor", "--json")
    data = json.loads(r.output)
    assert (data["destiny_points"], data["heritage_xp"], data["max_charges"]) == (2, 400, 14)  # I-L330, I-L352, I-L43
    assert data["starls"] == "1'O 10'A"
    assert data["alcohol"]["thresholds"]["gaiete"] == 2.4  # Vit 60 / 25 (I-L126)
    text = invoke(db, "sheet", "thor").output
    assert "Points de destin 2" in text and "dé de puissance d6" in text
    with sqlite3.connect(db) as conn:
        row = conn.execute("SELECT name, pv, heritage_xp FROM illergan_sheets WHERE id = 'thor'").fetchone()
    assert row == ("Thor", 40, 400)


@pytest.mark.parametrize(("args", "message"), [
    (["xp", "skill", "thor", "Esquive", "50"], "Error: Esquive costs 150 xp but only 0 xp are available."),
    (["xp", "award", "thor", "50", "--reason", " "],
     "Error: An xp award needs a reason (I-L590: the game master notes the actions rewarded)."),
    (["drink", "thor", "Chouchen"],
     "Error: The Alc of a Chouchen is not set in this campaign's content pack (Part D: G8 Alc per beverage)."),
    (["combat", "attack", "nulle", "thor", "thor"], "Error: No fight named 'nulle' is under way."),
    (["check", "skill", "thor", "Esquive", "--dice", "50"], "Error: Thor has no skill or characteristic 'Esquive'."),
    (["drink", "thor", "Bière", "--dice", "4"], "Error: 1 face was entered but the command used 0."),
], ids=["xp-overdraft", "no-reason", "missing-gm-value", "no-fight", "unknown-skill", "extra-dice"])
def test_refusals_append_nothing(db, args, message):
    invoke(db, "content", "load", "--example")
    create_thor(db)
    before = length(db)
    r = invoke(db, *args)
    assert r.exit_code == 1
    assert r.output.strip() == message
    assert length(db) == before


def test_a_malformed_amount_of_starls_is_refused_by_its_click_type_and_appends_nothing(db):
    # issue 15 item 7: the amount is parsed by the STARLS click type, a usage error (exit 2, was 1), same sentence
    invoke(db, "content", "load", "--example")
    create_thor(db)
    before = length(db)
    r = invoke(db, "money", "change", "thor", "3 pièces", "--reason", "x")
    assert r.exit_code == 2
    assert r.output.strip().splitlines()[-1] == (
        "Error: '3 pièces' is not an amount of Starls; write it like 2'O 15'A 10'C or -75'C.")
    assert length(db) == before


def test_ledger_audit_and_evening(db):
    invoke(db, "content", "load", "--example")
    invoke(db, "session", "start", "--title", "Soirée")
    create_thor(db)
    assert invoke(db, "xp", "award", "thor", "150", "--reason", "le gué").exit_code == 0
    assert invoke(db, "xp", "skill", "thor", "Esquive", "25").exit_code == 0
    assert invoke(db, "xp", "skill", "thor", "Nage", "20", "--heritage", "--charge", "10").exit_code == 0
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT kind, amount, cost_charged, cost_required, balance_after, flags FROM xp_ledger"
                            " ORDER BY position").fetchall()
    assert rows == [("award", 400, None, None, 400, "[]"), ("award", 150, None, None, 550, "[]"),
                    ("spend", -125, 125, 125, 425, "[]"), ("spend", -10, 10, 20, 415, '["cost_mismatch"]')]
    audit = invoke(db, "audit", "xp")
    assert audit.exit_code == 1 and "charged 10 XP where the rules required 20" in audit.output
    assert invoke(db, "drink", "thor", "Bière").exit_code == 0
    assert invoke(db, "drink", "thor", "Eau-de-vie", "--dice", "3").exit_code == 0
    assert invoke(db, "wait", "90").exit_code == 0
    rows = json.loads(invoke(db, "evening", "thor", "--json").output)
    assert [(r["what"], r["alc"], r["band"]) for r in rows] == [
        ("drink", 1, "sobre"), ("drink", 5, "gaiete"), ("event_die", 2.4, "gaiete"), ("band_up", 5, "gaiete"),
        ("wait", 3, "gaiete")]  # 5 − 2 after 90 minutes (I-L123)


def test_fight_with_destiny_point_through_the_cli(db):
    invoke(db, "content", "load", "--example")
    create_thor(db)
    invoke(db, "character", "creature", "chef", "--stat", "Fo=3", "--stat", "Dex=45", "--stat", "Vol=10",
           "--stat", "Vit=25", "--stat", "Adresse=55", "--pv", "30", "--weapon", "Stylet")
    assert invoke(db, "combat", "start", "gue", "thor", "chef").exit_code == 0
    r = invoke(db, "combat", "attack", "gue", "chef", "thor", "--dice", "2,85,6,6,5", "--json")
    ev = json.loads(r.output)[0]["event"]
    assert (ev["zone"], ev["pv_lost"], ev["dead"]) == ("tête", 43, True)  # 47 − 10% RN, rounded up (I-L281)
    assert invoke(db, "combat", "destiny", "thor").exit_code == 0
    data = json.loads(invoke(db, "sheet", "thor", "--json").output)
    assert (data["dead"], data["pv"], data["destiny_points"]) == (False, 40, 1)


@pytest.mark.french
def test_the_sample_campaign_replays_and_audits(tmp_path):
    target = tmp_path / "sample.db"
    ran = script.run(script.load(SAMPLE), target)
    assert ran[-1].positions[1] == length(target)
    replay = invoke(target, "replay")
    assert replay.exit_code == 0
    assert "critique, 120% rendus (+12 PM)" in replay.output  # the critical Embrasement (I-L525)
    assert "dépense un point de destin" in replay.output
    assert "perd jambe gauche" in replay.output  # the chief's leg (I-L318)
    assert invoke(target, "audit", "xp").exit_code == 0
    assert invoke(target, "verify").exit_code == 0
    sheet = json.loads(invoke(target, "sheet", "thor", "--json").output)
    assert (sheet["pv"], sheet["destiny_points"], sheet["alcohol"]["alc"]) == (40, 1, 7)
    out = tmp_path / "x.jsonl"
    assert invoke(target, "export", "timeline", "--format", "jsonl", "-o", str(out)).exit_code == 0
    lines = out.read_text(encoding="utf-8").splitlines()
    assert len(lines) == length(target) + 1 and json.loads(lines[-1]) == {"receipt": f"{length(target)}:"
                                                                          + json.loads(lines[-2])["hash"]} and "magic.spell_cast" in out.read_text(encoding="utf-8")


def test_turn_economy_through_the_cli(db):
    invoke(db, "content", "load", "--example")
    create_thor(db)
    invoke(db, "character", "creature", "gob", "--stat", "Fo=2", "--stat", "Dex=20", "--stat", "Vol=10",
           "--stat", "Vit=20", "--stat", "Adresse=45", "--pv", "200")
    invoke(db, "combat", "start", "gue", "thor", "gob")
    assert invoke(db, "combat", "act", "gue", "thor", "forgo_major").exit_code == 0  # I-L243: 3 minors
    for _ in range(3):
        assert invoke(db, "combat", "act", "gue", "thor", "minor", "--what", "se relever").exit_code == 0
    before = length(db)
    r = invoke(db, "combat", "attack", "gue", "thor", "gob", "--unarmed", "--dice", "10")
    assert (r.exit_code, r.output.strip()) == (1, "Error: Thor: No major action is left this turn (I-L241).")
    r = invoke(db, "combat", "attack", "gue", "gob", "thor", "--unarmed", "--defence", "parade", "--defended",
               "--dice", "10")
    assert r.exit_code == 0, r.output
    r = invoke(db, "combat", "defend", "gue", "thor", "esquive")
    assert (r.exit_code, r.output.strip()) == (1, "Error: Thor: The esquive defence is already used this turn (I-L543).")
    assert length(db) == before + 2  # the one attack allowed and its dice record
    assert invoke(db, "combat", "initiative", "gue", "--dice", "50,50").exit_code == 0
    assert invoke(db, "combat", "attack", "gue", "thor", "gob", "--unarmed", "--dice", "90").exit_code == 0


def test_faith_through_the_cli(db):
    invoke(db, "content", "load", "--example")
    r = invoke(db, "character", "create", "anselme", "--race", "Humain", "--class", "Prêtre", "--heritage",
               "Enfant des rues", *THOR, "--pv", "30", "--cult", "Vikasar", "--magic", "Yarlysy", "--gift", "1")
    assert r.exit_code == 0, r.output
    assert invoke(db, "faith", "invoke", "anselme", "Main apaisante", "--level", "1").exit_code == 0
    before = length(db)
    r = invoke(db, "faith", "harmonise", "anselme", "--at", "20:10")
    assert (r.exit_code, r.output.strip()) == (1, "Error: The Vikasar Harmonisation starts at 19:00; a prayer at 20:10 "
                                                  "is outside its hour and brings no PF back (I-L531).")  # HAR-2
    assert length(db) == before
    assert invoke(db, "faith", "harmonise", "anselme", "--at", "19:40").exit_code == 0  # HAR-1
    assert invoke(db, "faith", "adjust", "anselme", "--pfb", "2", "--reason", "aumône").exit_code == 0
    text = invoke(db, "--lang", "fr", "sheet", "anselme").output  # the sheet as it always read, in French
    assert "PF 8/8 par jour, PFb 2 ; pouvoirs divins : Main apaisante, Regard du juste" in text  # 5 + 3 × 1


def test_charges_through_the_cli(db):
    invoke(db, "content", "load", "--example")
    create_thor(db)  # Fo 4: [10 + Fo] = 14 charges (I-L43)
    assert invoke(db, "carry", "thor", "Corde de 10 mètres", "7", "--reason", "le moulin").exit_code == 0
    before = length(db)
    r = invoke(db, "carry", "thor", "Torche", "1")
    assert (r.exit_code, r.output.strip()) == (
        1, "Error: Thor would carry 15 charges in the bag and satchel, more than [10 + Fo] = 14 (I-L43).")
    assert length(db) == before
    assert invoke(db, "carry", "thor", "Corde de 10 mètres", "-1").exit_code == 0
    assert "Starls 1'O 10'A  charges 12/14" in invoke(db, "sheet", "thor").output


def test_fall_throw_and_blindness_through_the_cli(db):
    invoke(db, "content", "load", "--example")
    create_thor(db)
    r = invoke(db, "fall", "thor", "5", "--json")
    assert json.loads(r.output)[0]["event"]["pv_lost"] == 20  # Agilité 40: 5 × (5 − 3)² (I-L428)
    r = invoke(db, "throw", "thor", "une pierre", "--distance", "8", "--range", "15", "--dice", "1", "--json")
    assert json.loads(r.output)[0]["event"]["offset_m"] == 4.9  # THR-1 (I-L404)
    before = length(db)
    r = invoke(db, "throw", "thor", "une pierre", "--distance", "20", "--range", "15", "--dice", "1")
    assert (r.exit_code, r.output.strip()) == (1, "Error: A throw reaches 1 to 15 m (I-L402-403), not 20 m.")
    assert length(db) == before
    assert invoke(db, "condition", "thor", "aveuglé").exit_code == 0
    assert "État : aveuglé" in invoke(db, "--lang", "fr", "sheet", "thor").output
    r = invoke(db, "check", "skill", "thor", "Dex", "--dice", "13", "--json")
    assert json.loads(r.output)[0]["event"]["threshold"] == 12  # 50 / 4 (I-L413)
