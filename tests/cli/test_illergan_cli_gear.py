"""Gear, care, faith and the command listing of an Illergan campaign through the CLI (issue 17 items
7, 8, 9, 18, 19, 21): one sentence and nothing written on a refusal."""

from __future__ import annotations

import json
import re

from test_illergan_cli import create_thor, db, invoke, length  # noqa: F401  (the db fixture)

LYSA = ["--stat", "Fo=2", "--stat", "Dex=45", "--stat", "Vit=40", "--stat", "Vol=55", "--stat", "Mana=60",
        "--stat", "E=12", "--stat", "Cha=35", "--stat", "Sav=50", "--stat", "Dep=5", "--stat", "Agilité=50",
        "--stat", "Adresse=40"]


def test_help_of_an_illergan_campaign_lists_only_its_commands(db):
    text = invoke(db, "--help").output
    listed = set(re.findall(r"^  (\w[\w-]*)\s", text.split("Commands:")[1], flags=re.M))
    assert {"heal", "rest", "state", "item", "gold", "alignment", "damage"}.isdisjoint(listed)
    assert {"equip", "carry", "use", "recover", "faith", "wait", "drink", "money", "sheet", "log"} <= listed
    r = invoke(db, "heal", "thor", "3")
    assert r.exit_code == 2 and "No such command 'heal'" in r.output
    r = invoke(db, "character", "--help")
    assert "Lois du Cristal" not in r.output


def test_equip_only_what_is_carried_and_a_piece_resold(db):
    invoke(db, "content", "load", "--example")
    create_thor(db, "--starls", "20'O")
    before = length(db)
    r = invoke(db, "equip", "thor", "weapon", "Épée longue")
    assert (r.exit_code, r.output.strip()) == (
        1, "Error: Thor does not carry Épée longue; buy or pick it up first (I-L47-48).")
    assert length(db) == before
    r = invoke(db, "money", "buy", "thor", "Cotte de mailles", "--piece", "casque", "--json")
    assert json.loads(r.output)[0]["event"]["amount_c"] == -1800  # 20% of 9000'C (I-L79)
    assert invoke(db, "equip", "thor", "armour", "Cotte de mailles", "--piece", "casque").exit_code == 0
    r = invoke(db, "money", "sell", "thor", "Cotte de mailles", "--piece", "casque", "--json")
    assert json.loads(r.output)[0]["event"]["amount_c"] == 450  # 25% (I-L26) of 1800'C
    sheet = json.loads(invoke(db, "sheet", "thor", "--json").output)
    assert sheet.get("pieces", {}) == {}


def test_potions_and_recovery(db):
    invoke(db, "content", "load", "--example")
    r = invoke(db, "character", "create", "lysa", "--name", "Lysa", "--race", "Elfe", "--class", "Mage",
               "--heritage", "Apprenti d'académie", "--magic", "Yarlysy", *LYSA, "--pv", "30", "--pm", "60",
               "--gift", "5", "--kit", "mage")
    assert r.exit_code == 0, r.output
    before = length(db)
    r = invoke(db, "recover", "lysa", "--pv", "5", "--source", "repos", "--reason", "une nuit")
    assert (r.exit_code, r.output.strip()) == (1, "Error: Lysa already has all 30 PV and 60 PM.")
    assert length(db) == before
    r = invoke(db, "use", "lysa", "Potion de mana", "--json")
    ev = json.loads(r.output)[0]["event"]
    assert (ev["item"], ev["pm_gained"], ev["pm_after"]) == ("Potion de mana (40PM)", 0, 60)  # capped (I-L191)
    r = invoke(db, "use", "lysa", "Antidote")
    assert (r.exit_code, r.output.strip()) == (1, "Error: Lysa carries no Antidote.")


def test_cult_change_learning_and_one_harmonisation_a_day(db):
    invoke(db, "content", "load", "--example")
    r = invoke(db, "character", "create", "anselme", "--name", "Anselme", "--race", "Humain", "--class", "Prêtre",
               "--heritage", "Enfant des rues", "--stat", "Fo=3", "--stat", "Dex=40", "--stat", "Vit=40",
               "--stat", "Vol=50", "--stat", "Mana=30", "--stat", "E=10", "--stat", "Cha=40", "--stat", "Sav=40",
               "--stat", "Dep=5", "--stat", "Agilité=30", "--stat", "Adresse=40", "--pv", "30", "--cult", "Vikasar",
               "--magic", "Yarlysy", "--gift", "1")
    assert r.exit_code == 0, r.output
    assert invoke(db, "faith", "invoke", "anselme", "Main apaisante", "--level", "1").exit_code == 0
    assert invoke(db, "faith", "harmonise", "anselme", "--at", "19:10").exit_code == 0
    assert invoke(db, "faith", "invoke", "anselme", "Main apaisante", "--level", "1").exit_code == 0
    before = length(db)
    r = invoke(db, "faith", "harmonise", "anselme", "--at", "19:40")
    assert (r.exit_code, r.output.strip()) == (1, "Error: Anselme already renewed the PF 0 minutes ago on the "
                                                  "log's clock; one Harmonisation a day (I-L531): the next one is "
                                                  "1380 minutes away (wait).")
    assert length(db) == before
    assert invoke(db, "wait", "1380").exit_code == 0
    assert invoke(db, "faith", "harmonise", "anselme", "--at", "19:00").exit_code == 0
    r = invoke(db, "faith", "change", "anselme", "Ancêtres", "--reason", "le deuil", "--json")
    assert json.loads(r.output)[0]["event"]["faith_level"] == 1  # level 1 never passed 2: the fallback (A38)
    r = invoke(db, "faith", "learn", "anselme", "Main apaisante", "--teacher-level", "6", "--json")
    assert json.loads(r.output)[0]["event"]["power"] == "Main apaisante"  # I-L611


def test_lockpicking_through_the_cli(db):
    invoke(db, "content", "load", "--example")
    create_thor(db)
    before = length(db)
    r = invoke(db, "check", "lockpick", "thor", "--lock", "complexes", "--dice", "10")
    assert (r.exit_code, r.output.strip()) == (1, "Error: Thor has no crochet; a lock is picked with one (I-L106).")
    assert length(db) == before
    assert invoke(db, "carry", "thor", "Crochet", "1").exit_code == 0
    r = invoke(db, "check", "lockpick", "thor", "--lock", "complexes", "--name", "coffre", "--dice", "25", "--json")
    ev = json.loads(r.output)[0]["event"]
    assert (ev["threshold"], ev["success"], ev["minutes"], ev["pick_broken"]) == (20, False, 5, True)  # I-L106-108
    r = invoke(db, "check", "lockpick", "thor", "--lock", "complexes", "--name", "coffre", "--dice", "5")
    assert (r.exit_code, r.output.strip()) == (1, "Error: Thor has no crochet; a lock is picked with one (I-L106).")


def test_weapon_mastery_unlock_through_the_cli(db):
    invoke(db, "content", "load", "--example")
    create_thor(db)
    assert invoke(db, "xp", "award", "thor", "5000", "--reason", "la guerre").exit_code == 0
    assert invoke(db, "xp", "skill", "thor", "Maîtrise des épées", "99").exit_code == 0
    before = length(db)
    r = invoke(db, "xp", "skill", "thor", "Maîtrise des épées", "100")
    assert (r.exit_code, r.output.strip()) == (1, "Error: Maîtrise des épées reaches 100%: choose the weapon mastery "
                                                  "it unlocks at 50% (Maîtrise des arcs) (I-L491).")
    assert length(db) == before
    r = invoke(db, "xp", "skill", "thor", "Maîtrise des épées", "100", "--unlock", "Maîtrise des arcs")
    assert r.exit_code == 0, r.output
    assert json.loads(invoke(db, "sheet", "thor", "--json").output)["skills"]["Maîtrise des arcs"]["pct"] == 50
