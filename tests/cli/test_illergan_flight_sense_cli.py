"""Issue 17 items 12 and 17 through the CLI: `--set sense_range_capped_by_cast_range` decides a cast on a
heard target (I-L12, I-L161); a flyer must use all his movement (I-L564), a held flyer lands (I-L565)."""

from __future__ import annotations

import json

import pytest
from test_illergan_magic_cli import LYSA, invoke, length


def _campaign(path, capped: str):
    assert invoke(path, "init", "--name", "X", "--ruleset", "illergan", "--seed", "4",
                  "--set", f"sense_range_capped_by_cast_range={capped}").exit_code == 0
    assert invoke(path, "content", "load", "--example").exit_code == 0
    r = invoke(path, "character", "create", "lysa", "--name", "Lysa", "--race", "Elfe", "--class", "Mage",
               "--heritage", "Apprenti d'académie", "--magic", "Yarlysy", *LYSA, "--pv", "30", "--pm", "60",
               "--gift", "5", "--starls", "2'O", "--spell", "Embrasement")
    assert r.exit_code == 0, r.output
    r = invoke(path, "character", "creature", "aigle", "--stat", "Fo=1", "--stat", "Dex=40", "--stat", "Vol=10",
               "--stat", "Vit=10", "--stat", "Adresse=45", "--stat", "Dep=10", "--pv", "5", "--body", "wings_left=1",
               "--body", "wings_right=1")
    assert r.exit_code == 0, r.output


@pytest.mark.parametrize("capped, exit_code", [("true", 1), ("false", 0)])
def test_a_heard_target_at_17_5_m_through_the_cli(tmp_path, capped, exit_code):
    db = tmp_path / "x.db"
    _campaign(db, capped)
    before = length(db)
    # E 12: [5 + E] = 17 m (I-L161); the elf hears at 50%: [5 + 0,25 × 50] = 17.5 m (I-L12)
    r = invoke(db, "cast", "lysa", "Embrasement", "--level", "1", "--target", "aigle", "--sense", "hearing",
               "--distance", "17.5", "--dice", "50", "--json")
    assert r.exit_code == exit_code, r.output
    if capped == "true":
        assert r.output.strip() == ("Error: A target located by hearing can be reached at 17 m at most "
                                    "(I-L10-15, I-L161), not at 17.5 m.")
        assert length(db) == before
    else:
        assert json.loads(r.output)[0]["event"]["reach"] == 17.5


def test_flight_must_use_its_movement_and_a_held_flyer_lands_through_the_cli(tmp_path):
    db = tmp_path / "x.db"
    _campaign(db, "true")
    assert invoke(db, "combat", "start", "ciel", "lysa", "aigle").exit_code == 0
    r = invoke(db, "--lang", "fr", "combat", "fly", "ciel", "aigle", "--dice", "30")
    assert r.exit_code == 0 and "en vol, 20 m de déplacement" in r.output, r.output  # 10 left, doubled (I-L558)
    assert invoke(db, "combat", "move", "ciel", "aigle", "--metres", "12").exit_code == 0
    before = length(db)
    r = invoke(db, "combat", "initiative", "ciel", "--dice", "50,50")
    assert (r.exit_code, r.output.strip()) == (1, "Error: aigle flies and must use all his movement this turn "
                                                  "(I-L564): 8 m left; move them (combat move) or land first.")
    assert length(db) == before
    r = invoke(db, "--lang", "fr", "combat", "fly", "ciel", "aigle", "--held-by", "lysa")
    assert r.exit_code == 0 and "retenu depuis le sol par lysa" in r.output, r.output
    r = invoke(db, "--lang", "fr", "combat", "initiative", "ciel", "--dice", "50,50")
    assert r.exit_code == 0 and "aigle est obligé d'atterrir" in r.output, r.output  # I-L565
    assert "en vol" not in json.loads(invoke(db, "sheet", "aigle", "--json").output)["conditions"]
