"""The Illergan magic commands through the CLI (issue 17 items 1, 10, 13, 14, 15): cast with its
conditions, secondaries and duration, `spell learn/break/cancel`, creature spells, a pack's magic rules."""

from __future__ import annotations

import json
import sqlite3

import pytest
from click.testing import CliRunner

from cristal_events.cli import cli

LYSA = ["--stat", "Fo=2", "--stat", "Dex=45", "--stat", "Vit=40", "--stat", "Vol=55", "--stat", "Mana=60",
        "--stat", "E=12", "--stat", "Cha=35", "--stat", "Sav=50", "--stat", "Dep=5", "--stat", "Agilité=50",
        "--stat", "Adresse=40"]


def invoke(db, *args):
    return CliRunner().invoke(cli, ["--db", str(db), *args])


def length(db) -> int:
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT MAX(position) FROM events").fetchone()[0]


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "m.db"
    assert invoke(path, "init", "--name", "Sorts", "--ruleset", "illergan", "--seed", "4").exit_code == 0
    assert invoke(path, "content", "load", "--example").exit_code == 0
    r = invoke(path, "character", "create", "lysa", "--name", "Lysa", "--race", "Elfe", "--class", "Mage",
               "--heritage", "Apprenti d'académie", "--magic", "Yarlysy", *LYSA, "--pv", "30", "--pm", "60",
               "--gift", "5", "--starls", "2'O", "--spell", "Embrasement", "--spell", "Ardeur")
    assert r.exit_code == 0, r.output
    return path


def test_unlearned_spell_refused_then_learned_and_cast(db):
    before = length(db)
    r = invoke(db, "cast", "lysa", "Flamme vive", "--level", "1", "--dice", "50")
    assert (r.exit_code, r.output.strip()) == (1, "Error: Lysa has not learned the spell Flamme vive (I-L17, I-L443): "
                                                  "learn it from a teacher first.")
    assert length(db) == before
    r = invoke(db, "spell", "learn", "lysa", "Flamme vive", "--teacher", "Maître Orvan", "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)[0]["event"]["price_c"] == 900  # [min level 1]'O (I-L443, TX-20)
    # Embrasement + Flamme vive: one launch, 10 + 4 PM (I-L224)
    r = invoke(db, "cast", "lysa", "Embrasement", "--level", "1", "--secondary", "Flamme vive=1", "--json",
               "--dice", "50")
    assert r.exit_code == 0, r.output
    payload = json.loads(r.output)[0]["event"]
    assert (payload["cost"], payload["pm_after"]) == (14, 46)


def test_cast_conditions_through_the_cli(db):
    r = invoke(db, "cast", "lysa", "Embrasement", "--level", "1", "--distance", "18", "--dice", "50")
    assert r.output.strip() == ("Error: A target located by sight can be reached at 17 m at most (I-L10-15, "
                                "I-L161), not at 18 m.")
    r = invoke(db, "cast", "lysa", "Embrasement", "--level", "1", "--gagged", "--dice", "50")
    assert r.output.strip() == ("Error: The spell cannot be cast: a gag or paralysis makes an oral incantation "
                                "impossible (I-L113).")
    assert invoke(db, "cast", "lysa", "Ardeur", "--level", "1", "--duration", "3", "--concentrate",
                  "--dice", "50").exit_code == 0
    r = invoke(db, "spell", "break", "lysa", "Ardeur", "--remaining", "2.5", "--json")
    assert json.loads(r.output)[0]["event"]["turns_left"] == 2  # I-L494
    assert invoke(db, "spell", "cancel", "lysa", "Ardeur").exit_code == 0  # I-L515
    assert "Example:" in invoke(db, "spell", "learn", "--help").output


def test_creature_spells_through_the_cli(db):
    r = invoke(db, "character", "creature", "sal", "--name", "Salamandre", "--stat", "Fo=3", "--stat", "Dex=40",
               "--stat", "Vol=20", "--stat", "Vit=30", "--stat", "Adresse=50", "--pv", "40", "--pm", "50",
               "--spell", "Embrasement=2")
    assert r.exit_code == 0, r.output
    r = invoke(db, "cast", "sal", "Embrasement", "--level", "2", "--json", "--dice", "50")
    assert json.loads(r.output)[0]["event"]["magic"] == "Magie de Salamandre"  # I-L621


def test_a_pack_cannot_make_a_guerrier_magic_less(db, tmp_path):
    pack = tmp_path / "mj.json"
    pack.write_text(json.dumps({"name": "mj", "classes": [{"name": "Roublard", "has_magic": False}]}), encoding="utf-8")
    before = length(db)
    r = invoke(db, "content", "load", str(pack))
    assert r.output.strip() == ("Error: Content pack mj.json makes the Roublard class magic-less; only the Inquisiteur "
                                "has no magic, no other class is barred from one (I-L336) (nothing was loaded).")
    assert length(db) == before


def test_casting_another_spell_breaks_the_concentration_through_the_cli(db):
    # Ardeur of 4 turns kept by concentration: 4 minutes; `wait 1` leaves 3 minutes, converted into 3 turns
    # when Lysa casts Embrasement (I-L494); the conversion is recorded with the cast, before it
    assert invoke(db, "cast", "lysa", "Ardeur", "--level", "1", "--duration", "4", "--concentrate",
                  "--dice", "50").exit_code == 0
    assert invoke(db, "wait", "1").exit_code == 0
    r = invoke(db, "cast", "lysa", "Embrasement", "--level", "1", "--json", "--dice", "50")
    assert r.exit_code == 0, r.output
    first, second, *_ = (e["event"] for e in json.loads(r.output))
    assert (first["spell"], first["remaining_minutes"], first["turns_left"]) == ("Ardeur", 3.0, 3)
    assert second["spell"] == "Embrasement"
    r = invoke(db, "cast", "lysa", "Embrasement", "--level", "1", "--dice", "50")
    assert "cesse de se concentrer" not in r.output  # no longer concentrating
