"""``sheet`` and ``characters`` are one core command over ``Ruleset.sheet`` / ``render_sheet`` and
``party`` / ``party_line`` (issue 15 item 6): ``sheet --session`` for both rulesets."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from cristal_events import Campaign
from cristal_events.cli import cli

THOR = ["--stat", "Fo=4", "--stat", "Dex=50", "--stat", "Vit=60", "--stat", "Vol=40", "--stat", "Mana=10",
        "--stat", "E=8", "--stat", "Cha=30", "--stat", "Sav=30", "--stat", "Dep=5", "--stat", "Agilité=40",
        "--stat", "Adresse=60"]


def invoke(db: Path, *args: str):
    result = CliRunner().invoke(cli, ["--db", str(db), *args])
    assert result.exit_code == 0, (args, result.output)
    return result


def _two_sessions(db: Path, ruleset: str, create: list[str], award: list[str]) -> int:
    invoke(db, "init", "--name", "Deux soirs", "--ruleset", ruleset, "--seed", "3")
    if ruleset == "illergan":
        invoke(db, "content", "load", "--example")
    invoke(db, "session", "start")
    invoke(db, *create)
    invoke(db, *award, "--reason", "premier soir")
    invoke(db, "session", "end")
    with Campaign.open(db, readonly=True) as camp:
        end_of_first = camp.store.last_position()
    invoke(db, "session", "start")
    invoke(db, *award, "--reason", "second soir")
    return end_of_first


def _check(db: Path, end_of_first: int, xp: str) -> None:
    by_session = json.loads(invoke(db, "sheet", "thor", "--session", "1", "--json").stdout)
    assert by_session == json.loads(invoke(db, "sheet", "thor", "--at", str(end_of_first), "--json").stdout)
    now = json.loads(invoke(db, "sheet", "thor", "--json").stdout)
    assert now != by_session
    text = invoke(db, "sheet", "thor", "--session", "1").stdout
    assert text == invoke(db, "sheet", "thor", "--at", str(end_of_first)).stdout and xp in text
    party = invoke(db, "characters").stdout.splitlines()
    assert len(party) == 2 and party[0].startswith("Nom ") and " thor " in party[1]  # a header, one row


@pytest.mark.french  # reads the sheet's French labels (the Feuille de Personnage)
def test_a_cristal_sheet_at_the_end_of_a_session(tmp_path: Path) -> None:
    db = tmp_path / "c.db"
    end = _two_sessions(db, "cristal", ["character", "create", "thor", "--race", "Humain"], ["xp", "award", "thor", "30"])
    _check(db, end, "XP 30")
    assert json.loads(invoke(db, "characters", "--json").stdout)[0]["variable"]["XP"] == 60


@pytest.mark.french
def test_an_illergan_sheet_at_the_end_of_a_session(tmp_path: Path) -> None:
    db = tmp_path / "i.db"
    create = ["character", "create", "thor", "--name", "Thor", "--race", "Humain", "--class", "Guerrier",
              "--heritage", "Enfant des rues", *THOR, "--pv", "40", "--rn", "10", "--gift", "3"]
    end = _two_sessions(db, "illergan", create, ["xp", "award", "thor", "150"])
    _check(db, end, "xp 150")
    assert json.loads(invoke(db, "characters", "--json").stdout)[0]["xp"] == 300
