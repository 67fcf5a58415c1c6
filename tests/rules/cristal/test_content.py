"""Content packs: the book's data loads, look-ups, pack errors, merge (seed 000)."""

import json

import pytest

from cristal_events.errors import ContentError, UnknownEntity
from cristal_events.rulesets.cristal.content import (
    load_core,
    load_pack,
    merge,
    parse_sex_adjustment,
    race_for_sex,
    scaled_amount,
)

ORQUE = {
    "name": "Orque", "pv_initial": 14, "regen_pct": 15, "pm_initial": 0, "dp_initial": 11,
    "dm_initial": 0, "fixed": {s: 0 for s in ("FRC", "DEX", "INT", "MAG", "CON", "REF", "OBS", "MEM", "CHAR")},
    "senses": {}, "level_cost": 150, "level_limit": 12,
}


def test_core_has_the_books_entries():
    c = load_core()
    assert sorted(c.races) == ["Elfe", "Humain", "Nain"]  # L507-L509
    assert sorted(c.classes) == ["Guerrier", "Mage", "Voleur"]  # L674-L676
    assert sorted(c.techniques) == ["Forestier", "Lecture et écriture de la magie", "Natation"]  # L780-L799
    assert {"Libération Cristalline", "Fermeture Cristalline", "Vision Cristalline", "Verrou Cristallin",
            "Détection Magique", "Analyse Magique", "Rayon Magique", "Boule de Feu"} == set(c.spells)
    assert load_core() is c  # cached


@pytest.mark.parametrize("kind,name,expected", [
    ("race", "elfe", "Elfe"), ("race", "NAIN", "Nain"), ("class_def", "voleur", "Voleur"),
    ("technique", "natation", "Natation"), ("spell", "analyse magique", "Analyse Magique"),
    ("item", "arc", "Arc"),
], ids=["elfe", "nain", "voleur", "natation", "analyse", "arc"])
def test_lookup_is_case_insensitive(kind, name, expected):
    assert getattr(load_core(), kind)(name).name == expected


@pytest.mark.parametrize("kind,name,message", [
    ("race", "Orc", "Unknown race 'Orc'; known races: Elfe, Humain, Nain."),
    ("class_def", "Paladin", "Unknown class 'Paladin'; known classes: Guerrier, Mage, Voleur."),
], ids=["race", "class"])
def test_unknown_entity_is_one_sentence(kind, name, message):
    with pytest.raises(UnknownEntity) as exc:
        getattr(load_core(), kind)(name)
    assert str(exc.value) == message


@pytest.mark.parametrize("name,cost,cnc,base,time", [
    ("Libération Cristalline", 30, 5, 2, "INSTANTANÉ"),  # L1099-L1102
    ("Fermeture Cristalline", 200, 12, 3, "SIMULTANÉ"),  # L1109-L1112
    ("Vision Cristalline", 100, 8, 1, 20),  # L1119-L1122
    ("Verrou Cristallin", 500, 16, 5, 60),  # L1129-L1132
    ("Détection Magique", 25, 4, 1, 4),  # L1151-L1154
    ("Analyse Magique", 100, 8, 2, 12),  # L1161-L1164
    ("Rayon Magique", None, 7, 0, None),  # L1061, L1065
    ("Boule de Feu", None, 16, 0, 10),  # L1306, L1313
], ids=lambda v: str(v))
def test_spell_fields(name, cost, cnc, base, time):
    s = load_core().spell(name)
    assert (s.learning_cost, s.cnc, s.pm_base, s.time) == (cost, cnc, base, time)


def test_spell_effects_and_inferred_marks():
    c = load_core()
    rayon = c.spell("Rayon Magique")
    assert [(e.name, e.scale, e.reduction) for e in rayon.effects] == [("Distance", "5", 0), ("Dommage", "1d6/2", 2)]
    assert "learning_cost" in rayon.inferred and rayon.notes
    assert [(e.name, e.scale, e.unit) for e in c.spell("Fermeture Cristalline").effects] == [("Puissance", "6", "PM")]  # L1114
    assert [(e.name, e.scale, e.unit) for e in c.spell("Analyse Magique").effects] == [("Magie", "1/4", "MAG")]  # L1166
    assert "pm_base" in c.spell("Boule de Feu").inferred


@pytest.mark.parametrize("scale,pm,expected", [
    ("5", 3, "15"),  # L1006: 3 PM x 5 m = 15 m
    ("1d6", 1, "1d6"), ("1d6", 3, "3d6"),  # L1006
    ("1/4", 4, "1"),  # L1006
    ("(1d6)/3", 3, "1d6"), ("(1d6)/3", 6, "2d6"), ("(1d6)/3", 9, "3d6"), ("(1d6)/3", 12, "4d6"),  # L1006
    ("1d6/4", 4, "1d6"),  # L991
    ("1d6/2", 8, "4d6"), ("1d6/2", 2, "1d6"),  # Xar, L1059, L1067
    ("1/4", 8, "2"),  # Analyse Magique MAG 2, L1167
], ids=lambda v: str(v))
def test_tv14_variable_effect_scales(scale, pm, expected):
    assert scaled_amount(scale, pm) == expected


def test_tv06_sex_adjustment_notation():
    assert parse_sex_adjustment("[PV Initiaux : 10 (Femelle = 8)]") == ("pv_initial", 10, {"Femelle": 8})  # L413
    lion = merge(load_core(), load_pack_from({"races": [dict(ORQUE, name="Lion", pv_initial=10,
                                                             sex_adjustments={"Femelle": {"pv_initial": 8}})]}))
    assert race_for_sex(lion.race("Lion"), "Mâle").pv_initial == 10
    assert race_for_sex(lion.race("Lion"), "femelle").pv_initial == 8


_tmp = {}


def load_pack_from(data, suffix=".json"):
    path = _tmp["dir"] / f"pack{len(list(_tmp['dir'].iterdir()))}{suffix}"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return load_pack(path)


@pytest.fixture(autouse=True)
def _tmpdir(tmp_path):
    _tmp["dir"] = tmp_path


def test_pack_adds_and_overrides():
    pack = load_pack_from({"races": [ORQUE, dict(ORQUE, name="elfe", level_cost=200, level_limit=25)]})
    merged = merge(load_core(), pack)
    assert merged.race("orque").level_cost == 150
    assert merged.race("Elfe").level_cost == 200 and sorted(merged.races) == ["Humain", "Nain", "Orque", "elfe"]
    assert load_core().race("Elfe").level_cost == 175  # the core is untouched


def test_toml_pack(tmp_path):
    path = tmp_path / "pack.toml"
    path.write_text('[[techniques]]\nname = "Couture"\nfactor = 15\nadjustment = "DEX / 2"\n', encoding="utf-8")
    assert merge(load_core(), load_pack(path)).technique("couture").factor == 15


def test_folder_pack(tmp_path):
    (tmp_path / "races.json").write_text(json.dumps([ORQUE]), encoding="utf-8")
    assert load_pack(tmp_path).race("Orque").level_limit == 12


@pytest.mark.parametrize("section,entry,message", [
    ("races", dict(ORQUE, level_cost="x"), "race 'Orque': field 'level_cost' must be an integer."),
    ("races", dict(ORQUE, colour="vert"), "race 'Orque': unknown field 'colour'."),
    ("races", {k: v for k, v in ORQUE.items() if k != "pv_initial"}, "race 'Orque': field 'pv_initial' is missing."),
    ("races", dict(ORQUE, fixed={"FRC": 1}), "race 'Orque': field 'fixed' must give exactly FRC, DEX, INT, MAG, CON, REF, OBS, MEM, CHAR."),
    ("races", dict(ORQUE, movement=[{"mode": "Bipède", "cruise_kmh": "vite", "top_kmh": 9}]),
     "race 'Orque': field 'movement[0].cruise_kmh' must be a number."),
    ("techniques", {"name": "Couture", "factor": 15, "adjustment": "DEX // 2"},
     "technique 'Couture': field 'adjustment' is not a formula on fixed states: 'DEX // 2'."),
    ("spells", {"name": "Éclair", "cnc": 5, "pm_base": 1, "effects": [{"name": "Dommage", "scale": "1x6", "unit": "DMG"}]},
     "spell 'Éclair': field 'scale' is not an Échelle like 5, 1d6, 1/4 or (1d6)/3: '1x6'."),
    ("items", {"name": "Fronde", "kind": "propulsor"}, "item 'Fronde': field 'range_m' is required for a propulsor."),
    ("classes", {"name": "Barde", "columns": [{"name": "CHAR", "state": "CHAR", "kind": "flat"}], "table": {"CHAR": [1]}, "patterns": {}},
     "class 'Barde': field 'patterns' lacks the column 'CHAR'."),
], ids=["type", "unknown-field", "missing", "fixed", "nested", "adjustment", "scale", "propulsor", "class-pattern"])
def test_malformed_pack_names_file_entry_and_field(tmp_path, section, entry, message):
    path = tmp_path / "races.json"
    path.write_text(json.dumps({section: [entry]}, ensure_ascii=False), encoding="utf-8")
    with pytest.raises(ContentError) as exc:
        load_pack(path)
    assert str(exc.value) == f"races.json: {message}"


def test_pack_cross_reference_errors(tmp_path):
    bad = {"classes": [{"name": "Paladin", "columns": [], "table": {}, "patterns": {}, "prerequisites": {"Prêtre": 5}}]}
    with pytest.raises(ContentError, match=r"class 'Paladin': prerequisite class 'Prêtre' is unknown\."):
        merge(load_core(), load_pack_from(bad))


def test_pack_file_errors(tmp_path):
    (tmp_path / "broken.json").write_text("{", encoding="utf-8")
    with pytest.raises(ContentError, match=r"^broken\.json: not valid JSON"):
        load_pack(tmp_path / "broken.json")
    (tmp_path / "x.json").write_text('{"monsters": []}', encoding="utf-8")
    with pytest.raises(ContentError, match=r"^x\.json: unknown section 'monsters'"):
        load_pack(tmp_path / "x.json")
    with pytest.raises(ContentError, match="defined twice"):
        load_pack_from({"races": [ORQUE, dict(ORQUE, name="ORQUE")]})
