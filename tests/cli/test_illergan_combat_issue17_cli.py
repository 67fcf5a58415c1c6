"""Issue 17 combat through the CLI: a rolled defence at −40 after a critical (I-L504), the Hémorragie at
each initiative (I-L507), a block through the shield (I-L273, I-L547), a ranged weapon needs its distance
and a thrown melee weapon −40 (I-L95-99)."""

from __future__ import annotations

import json

import pytest
from test_illergan_cli import THOR, invoke, length


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "c.db"
    assert invoke(path, "init", "--name", "Gué", "--ruleset", "illergan", "--seed", "4").exit_code == 0
    assert invoke(path, "content", "load", "--example").exit_code == 0
    r = invoke(path, "character", "create", "thor", "--name", "Thor", "--race", "Humain", "--class", "Guerrier",
               "--heritage", "Enfant des rues", *THOR, "--pv", "40", "--rn", "10", "--gift", "3",
               "--starls", "1'O 10'A", "--skill", "Blocage")
    assert r.exit_code == 0, r.output
    r = invoke(path, "character", "creature", "gob", "--stat", "Fo=2", "--stat", "Dex=20", "--stat", "Vol=10",
               "--stat", "Vit=20", "--stat", "Adresse=45", "--pv", "200")
    assert r.exit_code == 0, r.output
    assert invoke(path, "combat", "start", "gue", "thor", "gob").exit_code == 0
    return path


def attack(db, *args):
    return invoke(db, "combat", "attack", "gue", *args)


@pytest.mark.french
def test_rolled_defence_and_hemorragie_through_the_cli(db):
    r = attack(db, "gob", "thor", "--unarmed", "--defence", "esquive", "--defence-pct", "60", "--dice", "1,50,30",
               "--json")
    ev = json.loads(r.output)[0]["event"]
    assert (ev["defence_threshold"], ev["defended"], ev["pv_after"]) == (20, False, 30)  # 60 − 40 (I-L504)
    assert invoke(db, "carry", "thor", "Stylet", "1").exit_code == 0  # equip takes what is carried (I-L47-48)
    assert invoke(db, "equip", "thor", "weapon", "Stylet").exit_code == 0
    r = attack(db, "thor", "gob", "--dice", "1,50,3", "--json")
    assert json.loads(r.output)[0]["event"]["rider"]["pv_per_turn"] == 4  # I-L507: −Fo(attaquant)
    r = invoke(db, "combat", "initiative", "gue", "--dice", "50,50")
    assert r.exit_code == 0 and "Hémorragie, −4 PV (1 tour) → 153" in r.output, r.output


def test_block_and_ranges_through_the_cli(db):
    before = length(db)
    r = attack(db, "gob", "thor", "--unarmed", "--defence", "blocage", "--defended", "--dice", "30")
    assert (r.exit_code, r.output.strip()) == (1, "Error: Thor cannot block: a block needs a shield (I-L547).")
    assert length(db) == before
    assert invoke(db, "carry", "thor", "Écu d'écorce clouée", "1").exit_code == 0  # equip takes what is carried (I-L47-48)
    assert invoke(db, "equip", "thor", "shield", "Écu d'écorce clouée").exit_code == 0
    r = invoke(db, "--lang", "fr", "combat", "attack", "gue", "gob", "thor", "--unarmed", "--defence", "blocage",
               "--defended", "--dice", "30")
    assert r.exit_code == 0 and "bloqué par Écu d'écorce clouée (SR 8, −3 PS → 22)" in r.output, r.output
    assert json.loads(invoke(db, "sheet", "thor", "--json").output)["shield_ps"] == 22  # kept (I-L407)
    assert "Bouclier : 22 PS" in invoke(db, "--lang", "fr", "sheet", "thor").output
    assert invoke(db, "equip", "thor", "shield", "none").exit_code == 0  # the bow takes both hands (I-L32)
    assert invoke(db, "carry", "thor", "Arc court", "1").exit_code == 0  # equip takes what is carried (I-L47-48)
    assert invoke(db, "equip", "thor", "weapon", "Arc court").exit_code == 0
    r = attack(db, "thor", "gob", "--hands", "2", "--dice", "50")
    assert (r.exit_code, r.output.strip()) == (
        1, "Error: Thor: Arc court shoots: give the distance to the target (--distance, I-L95-97).")
    assert invoke(db, "carry", "thor", "Stylet", "1").exit_code == 0  # equip takes what is carried (I-L47-48)
    assert invoke(db, "equip", "thor", "weapon", "Stylet").exit_code == 0
    r = attack(db, "thor", "gob", "--thrown", "--distance", "4", "--dice", "90", "--json")
    assert json.loads(r.output)[0]["event"]["dex_maluses"] == [-40]  # I-L99


def test_magic_block_and_knock_down_through_the_cli(db):
    r = invoke(db, "character", "create", "lysa", "--name", "Lysa", "--race", "Elfe", "--class", "Mage", "--heritage",
               "Apprenti d'académie", "--magic", "Yarlysy", "--stat", "Fo=2", "--stat", "Dex=45", "--stat", "Vit=40",
               "--stat", "Vol=55", "--stat", "Mana=60", "--stat", "E=12", "--stat", "Cha=35", "--stat", "Sav=50",
               "--stat", "Dep=5", "--stat", "Agilité=50", "--stat", "Adresse=40", "--pv", "30", "--pm", "60",
               "--gift", "5", "--starls", "1'O", "--spell", "Embrasement")  # learned spells only (I-L17)
    assert r.exit_code == 0, r.output
    assert invoke(db, "carry", "thor", "Écu d'écorce clouée", "1").exit_code == 0  # equip takes what is carried (I-L47-48)
    assert invoke(db, "equip", "thor", "shield", "Écu d'écorce clouée").exit_code == 0
    r = invoke(db, "cast", "lysa", "Embrasement", "--level", "1", "--target", "thor", "--damage", "20", "--blocked",
               "--dice", "50", "--json")
    assert r.exit_code == 0, r.output
    ev = json.loads(r.output)[0]["event"]
    assert (ev["shield_ps_lost"], ev["shield_ps_after"], ev["pv_lost"]) == (10, 15, 0)  # 20 − SRM 10 (I-L439)
    r = invoke(db, "character", "creature", "rat", "--stat", "Fo=1", "--stat", "Dex=20", "--stat", "Vol=10",
               "--stat", "Vit=10", "--stat", "Adresse=45", "--pv", "5")
    assert invoke(db, "combat", "start", "cave", "thor", "rat").exit_code == 0
    before = length(db)
    r = invoke(db, "combat", "act", "cave", "thor", "knocked_down", "--by", "rat")
    assert (r.exit_code, r.output.strip()) == (1, "Error: A biped with 60 Vit cannot be knocked down by a physical "
                                                  "action of 10 Vit: more than 4 × 10 (I-L416).")
    assert length(db) == before
    r = invoke(db, "--lang", "fr", "combat", "act", "cave", "rat", "knocked_down", "--by", "thor")
    assert r.exit_code == 0 and "renversé" in r.output, r.output


@pytest.mark.french
def test_movement_and_flight_through_the_cli(db):
    r = invoke(db, "combat", "move", "gue", "thor", "--metres", "3", "--vertical", "4")
    assert r.exit_code == 0 and "reste 0 m, 2 m sur le tour suivant" in r.output, r.output  # Dep 5 (I-L428)
    r = invoke(db, "character", "creature", "aigle", "--stat", "Fo=1", "--stat", "Dex=40", "--stat", "Vol=10",
               "--stat", "Vit=10", "--stat", "Adresse=45", "--stat", "Dep=10", "--pv", "5", "--body", "wings_left=1",
               "--body", "wings_right=1")
    assert r.exit_code == 0, r.output
    assert invoke(db, "combat", "start", "ciel", "thor", "aigle").exit_code == 0
    r = invoke(db, "combat", "fly", "ciel", "aigle", "--dice", "30")
    assert r.exit_code == 0 and "en vol, 20 m de déplacement" in r.output, r.output  # 10 left, doubled (I-L558)
    r = invoke(db, "combat", "initiative", "gue", "--unspotted", "thor=gob", "--dice", "1,90", "--json")
    rolled = [e["event"] for e in json.loads(r.output) if e["event"].get("order")][0]
    assert rolled["order"] == ["thor", "gob"]  # 91 < 120, but the goblin has not spotted Thor (I-L8)


def test_an_attack_on_two_targets_through_the_cli(db):
    r = invoke(db, "character", "creature", "gob2", "--stat", "Fo=2", "--stat", "Dex=20", "--stat", "Vol=10",
               "--stat", "Vit=20", "--stat", "Adresse=45", "--pv", "200")
    assert invoke(db, "combat", "start", "pont", "thor", "gob", "gob2").exit_code == 0
    r = invoke(db, "combat", "attack", "pont", "thor", "gob", "--unarmed", "--also", "gob2:esquive:ok", "--dice", "45",
               "--json")
    assert r.exit_code == 0, r.output
    hits = [e["event"] for e in json.loads(r.output) if "same_attack_as" in e["event"]]
    assert [(h["target"], h["pv_lost"], h["defended"]) for h in hits] == [("gob", 21, False), ("gob2", 0, True)]
    r = invoke(db, "combat", "attack", "pont", "gob", "thor", "--unarmed", "--also", "gob2:fuite")
    # issue 15 item 7: --also is parsed by its click type, a usage error (exit 2, was 1) in the same sentence
    assert r.exit_code == 2 and r.output.strip().splitlines()[-1].startswith("Error: --also takes ID[:DEFENCE[:ok|PCT]]"), r.output


@pytest.mark.french
def test_strike_poison_and_disarm_through_the_cli(db):
    r = invoke(db, "strike", "thor", "porte", "--ps", "30", "--sr", "10", "--unarmed", "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)[0]["event"]["ps_after"] == 19  # 21 − 10 (I-L407)
    r = invoke(db, "combat", "poison", "gue", "thor", "Venin", "--pv", "5", "--turns", "2")
    assert r.exit_code == 0, r.output
    r = invoke(db, "combat", "initiative", "gue", "--dice", "50,50")
    assert "Venin, −5 PV (1 tour) → 35" in r.output, r.output  # RN 10 ignored (I-L415)
    assert invoke(db, "carry", "thor", "Stylet", "1").exit_code == 0  # equip takes what is carried (I-L47-48)
    assert invoke(db, "equip", "thor", "weapon", "Stylet").exit_code == 0
    assert invoke(db, "combat", "act", "gue", "thor", "disarmed").exit_code == 0
    r = invoke(db, "combat", "act", "gue", "thor", "pick_up")
    assert r.exit_code == 0 and "ramasse son arme" in r.output, r.output


@pytest.mark.french
def test_the_sample_campaign_uses_the_new_fight_commands(tmp_path):
    from test_illergan_cli import SAMPLE

    from cristal_events.cli import script
    target = tmp_path / "sample.db"
    script.run(script.load(SAMPLE), target)
    out = invoke(target, "replay").output
    # drunk (Troublitude), Thor's Dep is 5 × 0.75 = 3 (I-L132): the step down takes the last metre (I-L428)
    assert "thor se déplace (dep) : 2 m + 1 m à la verticale, reste 0 m" in out, out
    # 71 against the rat's 120, but the rat has not spotted him: he goes first (I-L8)
    assert "Tour 1 de « cave » : Thor Dex 30 + Vol 40 + Dé100 1 = 71, Rat des caves" in out


def test_skill_bonus_and_lost_arm_through_the_cli(db):
    r = invoke(db, "check", "skill", "thor", "Parade", "--bonus", "20", "--dice", "15", "--json")
    assert r.exit_code == 0, r.output
    ev = json.loads(r.output)[0]["event"]
    assert (ev["threshold"], ev["unlocked"], ev["success"]) == (20, True, True)  # 0% + 20 (I-L490)
    invoke(db, "character", "creature", "troll", "--stat", "Fo=40", "--stat", "Dex=20", "--stat", "Vol=10",
           "--stat", "Vit=20", "--stat", "Adresse=45", "--pv", "500")
    assert invoke(db, "combat", "start", "pont", "thor", "troll").exit_code == 0
    r = invoke(db, "--lang", "fr", "combat", "attack", "pont", "troll", "thor", "--unarmed", "--dice", "5")
    assert r.exit_code == 0 and "perd bras gauche" in r.output, r.output  # 201 on the left arm (I-L318)
    assert invoke(db, "carry", "thor", "Hache à deux mains", "1").exit_code == 0  # equip takes what is carried (I-L47-48)
    assert invoke(db, "equip", "thor", "weapon", "Hache à deux mains").exit_code == 0
    r = invoke(db, "combat", "attack", "pont", "thor", "troll", "--hands", "2", "--dice", "50")
    assert (r.exit_code, r.output.strip()) == (
        1, "Error: Thor: Only 1 arm is left: the weapon cannot be held in 2 hands (I-L318).")
