"""Content packs may not silently redefine a core race, class, technique, item or spell: an entry that replaces
one says "override": true, the content event records it and ``content show`` marks it; a redefinition without
it is refused in one sentence naming the entry, and nothing is appended. Both rulesets.

Pack files a person wrote are also checked before any rule sees them: too deep (100,000 levels), not UTF-8,
not JSON, NaN, too large: one sentence each, nothing appended."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest
from click.testing import CliRunner
from helpers import one_error

from cristal_events.cli import cli
from cristal_events.packs import MAX_DEPTH, MAX_PACK_BYTES
from cristal_events.rulesets.cristal.content import load_core

ORQUE = {"name": "Orque", "pv_initial": 14, "regen_pct": 25, "pm_initial": 0, "dp_initial": 11, "dm_initial": 0,
         "fixed": {"FRC": 4, "DEX": 0, "INT": -4, "MAG": -2, "CON": 3, "REF": 0, "OBS": 0, "MEM": -2, "CHAR": -4},
         "senses": {"Odorat": 4}, "level_cost": 150, "level_limit": 12}


def _cli(db: Path, *args: str):
    return CliRunner().invoke(cli, ["--db", str(db), *args], catch_exceptions=False)


def _positions(db: Path) -> int:
    return len(_cli(db, "log", "--json").output.strip().splitlines())


@pytest.fixture
def cristal_db(tmp_path) -> Path:
    db = tmp_path / "c.db"
    assert _cli(db, "init", "--name", "C", "--seed", "2").exit_code == 0
    return db


@pytest.fixture
def illergan_db(tmp_path) -> Path:
    db = tmp_path / "i.db"
    assert _cli(db, "init", "--name", "I", "--ruleset", "illergan", "--seed", "2").exit_code == 0
    return db


def _pack(tmp_path: Path, name: str, data: object) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def _core(section: str, name: str) -> dict:
    return msgspec.to_builtins(getattr(load_core(), section)[name])


# ------------------------------------------------------------------------------ Lois du Cristal
CORE_ENTRIES = [
    ("races", "race", "Elfe", lambda e: dict(e, level_cost=200)),
    ("classes", "class", "Guerrier", lambda e: dict(e, description="Refait")),
    ("techniques", "technique", "Natation", lambda e: dict(e, factor=99)),
    ("items", "item", "Fouet", lambda e: dict(e, att=9)),
    ("spells", "spell", "Vision Cristalline", lambda e: dict(e, pm_base=9)),
]


@pytest.mark.parametrize("section, noun, name, change", CORE_ENTRIES, ids=[c[0] for c in CORE_ENTRIES])
def test_a_silent_redefinition_of_a_core_entry_is_refused(cristal_db, tmp_path, section, noun, name, change):
    pack = _pack(tmp_path, "maison.json", {section: [change(_core(section, name))]})
    before = _positions(cristal_db)
    assert one_error(_cli(cristal_db, "content", "load", str(pack))) == (
        f"Error: Content pack maison.json redefines the {noun} '{name}' of the core rules; to replace it, "
        f"mark its entry \"override\": true (nothing was loaded).")
    assert _positions(cristal_db) == before


@pytest.mark.parametrize("section, noun, name, change", CORE_ENTRIES, ids=[c[0] for c in CORE_ENTRIES])
def test_an_explicit_override_is_recorded_and_shown(cristal_db, tmp_path, section, noun, name, change):
    pack = _pack(tmp_path, "maison.json", {section: [dict(change(_core(section, name)), override=True)]})
    assert _cli(cristal_db, "content", "load", str(pack)).exit_code == 0
    event = json.loads(_cli(cristal_db, "log", "--json", "--type", "content.pack_loaded").output)
    assert event["payload"]["overrides"] == {section: [name]}
    shown = json.loads(_cli(cristal_db, "content", "show", "--json").output)
    assert {"name": name, "source": "maison.json", "overrides": "core"} in shown[section]
    text = _cli(cristal_db, "content", "show").output
    assert any(line.split()[:1] == name.split()[:1] and line.endswith("maison.json  OVERRIDES the core rules")
               for line in text.splitlines()), text


def test_the_override_takes_effect_and_survives_a_reopen(cristal_db, tmp_path):
    pack = _pack(tmp_path, "maison.json", {"races": [dict(_core("races", "Elfe"), level_cost=200, override=True)]})
    assert _cli(cristal_db, "content", "load", str(pack)).exit_code == 0
    pack.unlink()
    shown = _cli(cristal_db, "content", "show").output
    assert "Elfe" in shown and "OVERRIDES the core rules" in shown
    assert _cli(cristal_db, "character", "create", "lia", "--race", "Elfe").exit_code == 0
    assert _cli(cristal_db, "rebuild").exit_code == 0


def test_a_case_changed_name_is_still_a_redefinition(cristal_db, tmp_path):
    pack = _pack(tmp_path, "maison.json", {"races": [dict(_core("races", "Elfe"), name="ELFE", level_cost=1)]})
    assert "redefines the race 'Elfe' of the core rules" in one_error(_cli(cristal_db, "content", "load", str(pack)))


def test_a_pack_redefining_an_earlier_pack_says_which(cristal_db, tmp_path):
    assert _cli(cristal_db, "content", "load", str(_pack(tmp_path, "orques.json", {"races": [ORQUE]}))).exit_code == 0
    second = _pack(tmp_path, "orques2.json", {"races": [dict(ORQUE, level_cost=10)]})
    assert one_error(_cli(cristal_db, "content", "load", str(second))) == (
        "Error: Content pack orques2.json redefines the race 'Orque' of the pack 'orques.json'; to replace it, "
        "mark its entry \"override\": true (nothing was loaded).")
    third = _pack(tmp_path, "orques3.json", {"races": [dict(ORQUE, level_cost=10, override=True)]})
    assert _cli(cristal_db, "content", "load", str(third)).exit_code == 0
    shown = json.loads(_cli(cristal_db, "content", "show", "--json").output)
    assert shown["packs"] == ["orques.json", "orques3.json"]
    assert {"name": "Orque", "source": "orques3.json", "overrides": "orques.json"} in shown["races"]


def test_an_override_mark_with_nothing_to_replace_or_not_a_boolean_is_refused(cristal_db, tmp_path):
    before = _positions(cristal_db)
    bogus = _pack(tmp_path, "b.json", {"races": [dict(ORQUE, override=True)]})
    assert one_error(_cli(cristal_db, "content", "load", str(bogus))) == (
        "Error: Content pack b.json marks the race 'Orque' \"override\": true, but the campaign has no race "
        "'Orque' to override (nothing was loaded).")
    odd = _pack(tmp_path, "o.json", {"races": [dict(_core("races", "Elfe"), override="yes")]})
    assert one_error(_cli(cristal_db, "content", "load", str(odd))) == (
        "Error: o.json: race 'Elfe': field 'override' must be true or false.")
    assert _positions(cristal_db) == before


def test_content_show_without_packs_lists_the_core(cristal_db):
    text = _cli(cristal_db, "content", "show").output
    assert text.startswith("Packs: none (the core rules only)\nRaces (3):\n")
    assert "OVERRIDES" not in text


# ------------------------------------------------------------------------------ Illergan
def test_illergan_a_contradiction_of_the_text_names_the_entry_and_the_way_out(illergan_db, tmp_path):
    pack = _pack(tmp_path, "mj.json", {"name": "mj", "spells": [{"name": "Embrasement", "magic": "Yarlysy",
                                                                  "min_level": 3}]})
    before = _positions(illergan_db)
    assert one_error(_cli(illergan_db, "content", "load", str(pack))) == (
        "Error: Content pack mj.json contradicts the rules text at spells 'Embrasement', field 'min_level'; to "
        "replace it, mark its entry \"override\": true (nothing was loaded).")
    assert _positions(illergan_db) == before


def test_illergan_an_explicit_override_is_recorded_shown_and_used(illergan_db, tmp_path):
    # a spell's minimum level cannot be changed, not even by an override (I-L217, issue 17 item 10)
    bad = _pack(tmp_path, "mj3.json", {"name": "mj", "spells": [{"name": "Embrasement", "magic": "Yarlysy",
                                                                 "min_level": 3, "override": True}]})
    assert one_error(_cli(illergan_db, "content", "load", str(bad))) == (
        "Error: Content pack mj3.json changes the minimum level of the spell 'Embrasement' from 1 to 3; a spell's "
        "minimum level cannot be changed (I-L217), not even by an override (nothing was loaded).")
    pack = _pack(tmp_path, "mj.json", {"name": "mj", "spells": [{"name": "Embrasement", "magic": "Yarlysy",
                                                                  "min_level": 1, "spell_class": "Projection",
                                                                  "override": True}]})
    assert _cli(illergan_db, "content", "load", str(pack)).exit_code == 0
    event = json.loads(_cli(illergan_db, "log", "--json", "--type", "content.pack_loaded").output)
    assert event["payload"]["overrides"] == {"spells": ["Embrasement"]}
    shown = json.loads(_cli(illergan_db, "content", "show", "--json").output)
    assert {"name": "Embrasement", "source": "mj.json", "overrides": "core"} in shown["spells"]
    assert {"name": "Jet de lave", "source": "core", "overrides": ""} in shown["spells"]
    assert "  Embrasement                  mj.json  OVERRIDES core" in _cli(illergan_db, "content", "show").output
    from cristal_events import open_campaign
    from cristal_events.rulesets.illergan.state import content_of

    camp = open_campaign(illergan_db, readonly=True)
    try:
        spell = content_of(camp.state().rules).entry("spells", "Embrasement")
        assert (spell.min_level, spell.spell_class) == (1, "Projection")
    finally:
        camp.close()


def test_illergan_filling_the_texts_gaps_is_not_an_override(illergan_db):
    assert _cli(illergan_db, "content", "load", "--example").exit_code == 0
    event = json.loads(_cli(illergan_db, "log", "--json", "--type", "content.pack_loaded").output)
    assert event["payload"]["overrides"] == {}
    shown = json.loads(_cli(illergan_db, "content", "show", "--json").output)
    assert {"name": "Prêtre", "source": "core + example", "overrides": ""} in shown["classes"]


def test_illergan_an_override_mark_with_nothing_to_replace_is_refused(illergan_db, tmp_path):
    pack = _pack(tmp_path, "mj.json", {"name": "mj", "spells": [{"name": "Nova", "magic": "Yarlysy", "min_level": 3,
                                                                  "override": True}]})
    assert one_error(_cli(illergan_db, "content", "load", str(pack))) == (
        "Error: Content pack mj.json marks spells entry 'Nova' \"override\": true, but the campaign has no such "
        "entry to override (nothing was loaded).")


# ------------------------------------------------------------------------------ hostile pack files
DEPTH = 100_000


def _hostile(tmp_path: Path) -> list[tuple[str, bytes, str]]:
    """(file name, bytes, the expected sentence after 'Error: ')."""
    nested = f"the content pack is nested too deeply (more than {MAX_DEPTH} levels of lists and tables)."
    return [
        ("liste.json", b"[" * DEPTH + b"]" * DEPTH, f"liste.json: {nested}"),
        ("objets.json", b'{"races": ' + b'{"a": ' * DEPTH + b"1" + b"}" * DEPTH + b"}", f"objets.json: {nested}"),
        ("moyen.json", b'{"races": [' + b"[" * 40 + b"]" * 40 + b"]}", f"moyen.json: {nested}"),
        ("profond.toml", b"races = " + b"[" * DEPTH + b"]" * DEPTH + b"\n", f"profond.toml: {nested}"),
        ("latin.json", '{"races": [{"name": "Élfe"}]}'.encode("latin-1"),
         "latin.json: the content pack is not UTF-8 text (byte 21 is not UTF-8)."),
        ("texte.json", b"ceci n'est pas du JSON",
         "texte.json: not valid JSON (Expecting value: line 1 column 1 (char 0))."),
        ("nan.json", b'{"races": [{"name": "x", "level_cost": NaN}]}',
         "nan.json: not valid JSON (NaN is not a number a content pack may hold)."),
    ]


@pytest.mark.parametrize("ruleset", ["cristal", "illergan"])
def test_a_hostile_pack_file_is_one_sentence_and_appends_nothing(tmp_path, ruleset):
    db = tmp_path / "c.db"
    assert _cli(db, "init", "--name", "C", "--ruleset", ruleset).exit_code == 0
    before = _positions(db)
    for name, raw, sentence in _hostile(tmp_path):
        (tmp_path / name).write_bytes(raw)
        assert one_error(_cli(db, "content", "load", str(tmp_path / name))) == f"Error: {sentence}", name
    huge = tmp_path / "enorme.json"
    huge.write_bytes(b'{"races": []}' + b" " * MAX_PACK_BYTES)
    assert one_error(_cli(db, "content", "load", str(huge))) == (
        f"Error: enorme.json: the content pack is {MAX_PACK_BYTES + 13} bytes; a pack is at most 8 MB.")
    assert _positions(db) == before


def test_illergan_a_pack_accepted_before_the_check_still_replays(illergan_db):
    """A campaign whose pack changed a required field before such a change counted as a contradiction
    (appended here straight to the log, as an older engine accepted it) still folds and rebuilds."""
    from cristal_events import open_campaign
    from cristal_events.rulesets.illergan.heroes import PackLoaded
    from cristal_events.rulesets.illergan.state import content_of

    camp = open_campaign(illergan_db)
    try:
        data = {"name": "vieux", "spells": [{"name": "Embrasement", "magic": "Yarlysy", "min_level": 3}]}
        camp.store.append("content", [PackLoaded(name="vieux", data=data)], expected_version=None)
    finally:
        camp.close()
    assert _cli(illergan_db, "rebuild").exit_code == 0
    camp = open_campaign(illergan_db, readonly=True)
    try:
        assert content_of(camp.state().rules).entry("spells", "Embrasement").min_level == 3
    finally:
        camp.close()
    assert "Embrasement" in _cli(illergan_db, "content", "show").output


@pytest.mark.french  # the packs' log lines as the timeline stores them, in French
def test_the_log_line_of_a_pack_names_what_it_overrides(cristal_db, illergan_db, tmp_path):
    pack = _pack(tmp_path, "maison.json", {"races": [dict(_core("races", "Elfe"), level_cost=200, override=True)]})
    assert _cli(cristal_db, "content", "load", str(pack)).output.strip().endswith(
        "Pack de contenu « maison.json » chargé ; remplace : races Elfe")
    assert "Pack de contenu « maison.json » chargé ; remplace : races Elfe" in _cli(cristal_db, "log").output
    mj = _pack(tmp_path, "mj.json", {"name": "mj", "spells": [{"name": "Embrasement", "magic": "Yarlysy",
                                                                "min_level": 1, "override": True}]})
    assert "chargé ; remplace : spells Embrasement" in _cli(illergan_db, "content", "load", str(mj)).output
