"""Terminal views that fit (issue 18 item 6): ``characters``, ``combat show`` and ``combat log`` stay
within 80 columns on the sample campaigns and with long names, and name every fighter in full."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from cristal_events.cli import cli
from cristal_events.cli.script import load
from cristal_events.cli.script import run as run_script
from cristal_events.cli.views import Fighter, cols, party_lines, timeline_lines, wrap

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = sorted((ROOT / "sample_campaigns").glob("*.toml"))
LONG = "Thorgrim Barbe-de-Fer, fils de Thrain, seigneur des Monts Gris"
OGRE = "ogre-des-collines-du-nord-qui-garde-le-pont"


def cristal(db: Path | str, *args: str) -> str:
    done = CliRunner().invoke(cli, ["--db", str(db), *args], catch_exceptions=False)
    assert done.exit_code == 0, done.output
    return done.stdout


def assert_fits(text: str) -> list[str]:
    lines = text.splitlines()
    assert lines
    wide = [(cols(ln), ln) for ln in lines if cols(ln) > 80]
    assert wide == []
    return lines


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: p.stem)
def test_the_party_of_every_sample_fits_80_columns_with_full_names(sample, tmp_path):
    db = tmp_path / "c.db"
    run_script(load(sample), db)
    lines = assert_fits(cristal(db, "characters"))
    for c in json.loads(cristal(db, "characters", "--json")):
        assert any(ln.startswith(c["name"] + " ") or ln == c["name"] for ln in lines), c["name"]


@pytest.fixture
def fight(backend):
    """A fight with long names, on each backend."""
    db = backend
    cristal(db, "init", "--name", "Pont", "--seed", "5")
    cristal(db, "character", "create", "thor", "--race", "Humain", "--name", LONG)
    cristal(db, "combat", "start", "pont", "--with", f"thor,york,{OGRE}", "--it", "york=2", "--it", f"{OGRE}=1",
            "--stat", f"{OGRE}:PV=30", "--stat", f"{OGRE}:ATT=4", "--stat", f"{OGRE}:DP=8", "--stat", "york:CNC=10", "--stat", "york:PM=20", "--stat", "york:PV=15", "--stat", "york:race=Humain")
    cristal(db, "combat", "attack", "pont", "thor", OGRE, "--dice", "15")
    cristal(db, "combat", "act", "pont", OGRE, "frappe le parapet de sa massue et hurle des menaces en géant",
            "--duration", "4")
    cristal(db, "combat", "cast", "pont", "york", "Boule de Feu", "--effect", "Dommage=4", "--target", OGRE,
            "--dice", "9")
    return db


@pytest.mark.french  # reads the French texts of the output
def test_combat_show_draws_the_it_timeline_in_80_columns(fight):
    lines = assert_fits(cristal(fight, "combat", "show", "pont"))
    assert lines[0] == "Combat « pont »"
    rows = [ln for ln in lines if " IT " in ln and ("█" in ln or "·" in ln)]
    assert len(rows) == 3
    # the acting order: the lowest IT first; ▶ marks who acts next, in full
    assert any(ln.startswith(f"▶ {OGRE}") for ln in lines) or f"▶ {OGRE}" in lines
    assert any(ln.startswith("  " + LONG[:60]) for ln in lines) and "seigneur des Monts Gris" in "\n".join(lines)
    york = next(ln for ln in lines if ln.startswith("  york"))
    assert "IT   12" in york and "PV 15" in york and "PM 16" in york  # 20 PM less the 4 of the spell
    assert lines[-1] == f"Au tour de : {OGRE} (IT 5)."


@pytest.mark.french  # reads the French texts of the output
def test_combat_log_lists_every_action_in_80_columns_with_full_names(fight):
    lines = assert_fits(cristal(fight, "combat", "log", "pont"))
    heads = [ln for ln in lines if ln.startswith("#")]
    assert len(heads) == 3  # the attack, the ogre's action, the cast
    text = "\n".join(lines)
    assert f"{OGRE} : +4 s" in text and "york : +10 s" in text
    assert "d20 15" in text  # the attack's d20 face


def test_a_long_name_wraps_instead_of_being_cut():
    out = party_lines([[("Nom", "A" * 100), ("Id", "a"), ("PV", "3/3")]])
    assert "".join(ln.strip() for ln in out[:2]) == "A" * 100 and all(cols(ln) <= 80 for ln in out)
    assert wrap("日本語の名前" * 5, 20) == ["日本語の名前日本語の", "名前日本語の名前日本", "語の名前日本語の名前"]
    assert wrap("a    b", 80) == ["a    b"]  # runs of spaces a user typed are kept
    shown = timeline_lines("Combat", [Fighter("B" * 90, 3, "5", next=True), Fighter("C", 0, "1")])
    assert all(cols(ln) <= 80 for ln in shown) and "".join(shown[3:5]).replace(" ", "").startswith("▶" + "B" * 70)
