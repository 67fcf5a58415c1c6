"""Issue 16 items 1, 7, 8, 16, 17, 18 through the command line (seed 000, lines cited)."""

from __future__ import annotations

import json

import pytest

from cristal_events.service import Campaign


def log_length(run):
    with Campaign.open(run.path, readonly=True) as camp:
        return camp.store.last_position()


@pytest.fixture
def lia(run):
    assert run("init", "--name", "Cristal", "--seed", "3").exit_code == 0
    assert run("character", "create", "lia", "--race", "Elfe", "--name", "Lia").exit_code == 0
    assert run("xp", "award", "lia", "1000", "--reason", "départ").exit_code == 0
    return run


def test_cast_refuses_a_spell_the_character_never_learned_and_accepts_it_once_bought(lia):
    # L954: a mage must learn every spell; Détection Magique costs 25 XP (L1151)
    assert lia("combat", "start", "c", "--with", "lia").exit_code == 0
    before = log_length(lia)
    r = lia("combat", "cast", "c", "lia", "Détection Magique", "--dice", "10")
    assert r.exit_code == 1
    assert r.output.strip() == ("Error: Lia does not know Détection Magique (L954): learn it first with "
                                "'cristal xp buy spell lia \"Détection Magique\"'.")
    assert log_length(lia) == before
    assert lia("xp", "buy", "lia", "spell", "Détection Magique").exit_code == 0
    out = json.loads(lia("combat", "cast", "c", "lia", "Détection Magique", "--dice", "10", "--json").output)
    cast = out["events"][0]["event"]
    assert (cast["success"], cast["pm_cost"]) == (True, 1)


def test_heal_refuses_a_potion_and_any_source_outside_the_list(lia):
    # L1190: magic never heals; the source is one of natural, care, alignment, divine
    assert lia("damage", "lia", "3", "--reason", "chute").exit_code == 0
    before = log_length(lia)
    r = lia("heal", "lia", "3", "--source", "potion de soin", "--reason", "gorgée")
    assert (r.exit_code, r.output.strip()) == (
        1, "Error: Magic can never heal a living being (L1190); record who or what healed instead.")
    r = lia("heal", "lia", "3", "--source", "herbes", "--reason", "r")
    assert r.exit_code == 1 and "natural, care, alignment or divine" in r.output
    assert log_length(lia) == before
    ev = json.loads(lia("heal", "lia", "3", "--source", "natural", "--reason", "repos", "--json").output)
    assert [e["event"]["source"] for e in ev] == ["natural"]


def test_item_add_refuses_dm_on_a_non_magic_item(lia):
    # L861: only magic items (MAG > 0, L1137) raise DM; Elfe DM 2 (L562) + a MAG 1 cape's DM 1 = 3
    before = log_length(lia)
    r = lia("item", "add", "lia", "Cape", "--dm", "1")
    assert (r.exit_code, r.output.strip()) == (
        1, "Error: Cape raises DM by 1 but has MAG 0: only a magic item (MAG > 0) can raise DM (L861, L1137).")
    assert log_length(lia) == before
    assert lia("item", "add", "lia", "Cape", "--dm", "1", "--mag", "1").exit_code == 0
    assert lia("item", "equip", "lia", "Cape").exit_code == 0
    sheet = json.loads(lia("sheet", "lia", "--json").output)
    assert sheet["stable"]["DM"] == 3


@pytest.mark.french  # reads the sheet's French labels (the Feuille de Personnage)
def test_a_carried_crystal_shows_on_the_sheet_and_its_explosion_hits_those_within(lia):
    # L919-L923 the crystal section; L1086: 20 to 29 PM cost 6 000 PO, 15 cm3
    assert lia("item", "add", "lia", "rouge", "--crystal-pm", "25").exit_code == 0
    text = lia("sheet", "lia").output
    assert "cristal rouge : PM max. 25  sort : vide  (6000 PO, 15 cm3)" in text
    # L1093: the blast of an 11-PM spell in a 9-PM crystal hits the caster and Taz (named within 6 m)
    assert lia("combat", "start", "c", "--with", "xar,taz", "--it", "taz=50", "--stat", "xar:CNC=10",
               "--stat", "xar:PM=40", "--stat", "xar:PV=30", "--stat", "taz:PV=20").exit_code == 0
    r = lia("combat", "store", "c", "xar", "bleu", "Rayon Magique", "--effect", "Distance=3", "--effect", "Dommage=8",
            "--capacity", "9", "--time", "4", "--within", "taz", "--dice", ",".join(["8", "12"] + ["2"] * 11), "--json")
    assert r.exit_code == 0, r.output
    hits = {e["event"]["character"]: e["event"]["delta"] for e in json.loads(r.output)["events"]
            if e["event"].get("cause", "").startswith("explosion")}
    assert hits == {"xar": -22, "taz": -22}


def test_detect_analyse_and_activate_a_manual_artefact(lia):
    # L1157: Détection reveals MAG 2; L1167: Analyse with 8 PM (2*4) + 2 = 10 PM; L1145: then it can be set off
    assert lia("character", "create", "thor", "--race", "Humain", "--name", "Thor").exit_code == 0
    assert lia("item", "add", "thor", "Bâton de feu", "--mag", "2", "--manual").exit_code == 0
    for spell in ("Détection Magique", "Analyse Magique"):
        assert lia("xp", "buy", "lia", "spell", spell).exit_code == 0
    r = lia("magic", "activate", "thor", "Bâton de feu")
    assert r.exit_code == 1 and "must first be understood with Analyse Magique" in r.output
    ev = json.loads(lia("magic", "detect", "lia", "Bâton de feu", "--owner", "thor", "--dice", "1", "--json").output)
    assert [(e["event"]["magic"], e["event"]["mag"]) for e in ev if "magic" in e["event"]] == [(True, 2)]
    ev = json.loads(lia("magic", "analyse", "lia", "Bâton de feu", "--owner", "thor", "--pm", "8", "--dice", "5",
                        "--json").output)
    assert [(e["event"]["understood"], e["event"]["pm_cost"]) for e in ev if "understood" in e["event"]] == [(True, 10)]
    assert lia("item", "add", "lia", "Bâton de feu", "--mag", "2", "--manual").exit_code == 0
    assert lia("magic", "activate", "lia", "Bâton de feu", "--what", "flamme").exit_code == 0
    assert "objet magique Bâton de feu : MAG 2  DM propre 2  (manuel, compris)" in lia("--lang", "fr", "sheet", "lia").output
    assert "Example:" in lia("magic", "analyse", "--help").output


def test_a_carried_potion_through_the_cli_used_once_then_gone(lia):
    # L1181 single use; L1182 fading (potion_fade_days 60); Boule de Feu 4 PM = [2d6] (L1006)
    assert lia("item", "add", "lia", "Fiole de feu", "--potion", "Boule de Feu", "--potion-effect", "Dommage=4",
               "--trigger", "contact", "--brewed", "10").exit_code == 0
    assert lia("combat", "start", "c", "--with", "lia,york", "--it", "york=50", "--stat", "york:PV=20",
               "--stat", "york:DM=0").exit_code == 0
    r = lia("combat", "potion", "c", "lia", "Fiole de feu", "--carried", "--day", "100", "--target", "york",
            "--dice", "2,5")
    assert r.exit_code == 1 and "has faded by day 100 (60 days, L1182)" in r.output
    r = lia("combat", "potion", "c", "lia", "Fiole de feu", "--carried", "--day", "30", "--target", "york",
            "--dice", "2,5", "--json")
    assert r.exit_code == 0, r.output
    assert "Fiole de feu" not in [i["name"] for i in json.loads(lia("sheet", "lia", "--json").output)["items"]]


def test_a_spell_against_an_item_meets_its_dm_equal_to_its_mag(lia):
    # L851: MAG 3 -> DM 3; Boule de Feu 8 PM of 1d6/2, Réduction 2: 8 - 6 = 2 PM = [1d6] (L1026-L1034)
    assert lia("xp", "buy", "lia", "spell", "Boule de Feu", "--cost", "50").exit_code == 0
    assert lia("item", "add", "lia", "Bouclier runique", "--mag", "3").exit_code == 0
    r = lia("magic", "target", "lia", "Bouclier runique", "Boule de Feu", "--effect", "Dommage=8", "--dice", "13,4",
            "--json")
    assert r.exit_code == 0, r.output
    [ev] = [e["event"] for e in json.loads(r.output) if "item_dm" in e["event"]]
    assert (ev["item_dm"], [(x["pm_after"], x["amount"]) for x in ev["effects"]]) == (3, [(2, "1d6")])
