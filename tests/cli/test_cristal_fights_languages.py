"""The Lois du Cristal's fights in both languages (issue 18 item 4): ``combat show``, ``combat log`` and the
replay's narration of an attack, a Chance reroll, a cast and the crystal spells read in English (the default)
and in French (``--lang fr``); the combat read model holds no language, so one campaign read in French then
in English gives each reader their own; an old read model (version 2, which stored the lines) is rebuilt."""

from __future__ import annotations

import json

import pytest
from cristal_events.projections.cristal_combats import CristalCombats

from cristal_events.service import Campaign

STATS = ["--stat", "thor:ATT=5", "--stat", "thor:DP=12", "--stat", "thor:PV=20", "--stat", "thor:DMG=1d8",
         "--stat", "thor:CHANCE=1", "--stat", "york:ATT=3", "--stat", "york:DP=10", "--stat", "york:PV=15",
         "--stat", "york:PM=20", "--stat", "york:CNC=10", "--stat", "york:race=Humain", "--stat", "thor:race=Humain"]


@pytest.fixture
def duel(run):
    """Thor misses York, rerolls with his Chance and hits; York unclips his whip and casts a Boule de Feu."""
    assert run("init", "--name", "Duel", "--seed", "5").exit_code == 0
    for args in (["start", "duel", "--with", "thor,york", "--it", "york=2", *STATS],
                 ["attack", "duel", "thor", "york", "--weapon", "Épée longue", "--dice", "2"],
                 ["reroll", "duel", "thor", "--dice", "17,6"],
                 ["act", "duel", "york", "détache son fouet", "--action", "chercher_ceinture", "--dice", "3"],
                 ["cast", "duel", "york", "Boule de Feu", "--effect", "Dommage=4", "--target", "thor", "--dice", "9"]):
        result = run("combat", *args)
        assert result.exit_code == 0, result.output
    return run


@pytest.fixture
def crystal(run):
    """Xar stores his Rayon Magique in the crystal bleu, then looks into it with Vision Cristalline."""
    assert run("init", "--name", "Cristal", "--seed", "3").exit_code == 0
    for args in (["start", "c", "--with", "xar,taz", "--it", "taz=500", "--stat", "xar:CNC=10", "--stat", "xar:PM=40",
                  "--stat", "xar:CHANCE=1", "--stat", "taz:PV=10"],
                 ["store", "c", "xar", "bleu", "Rayon Magique", "--effect", "Distance=3", "--effect", "Dommage=8",
                  "--capacity", "19", "--time", "4", "--dice", "8,12"],
                 ["inspect", "c", "xar", "bleu", "--dice", "5"],
                 ["reroll", "c", "xar", "--dice", "6"]):
        result = run("combat", *args)
        assert result.exit_code == 0, result.output
    return run


def log_lines(run, *lang: str, name: str = "duel") -> list[str]:
    result = run(*lang, "combat", "log", name)
    assert result.exit_code == 0, result.output
    return result.output.splitlines()


def joined(lines: list[str]) -> str:
    """The log's lines with each action's wrapped text joined again (the view wraps at 80 columns)."""
    return " ".join(line.strip() for line in lines)


def test_combat_show_in_english_and_in_french(duel):
    en = duel("combat", "show", "duel").output.splitlines()
    fr = duel("--lang", "fr", "combat", "show", "duel").output.splitlines()
    assert en[0] == "Fight « duel »" and fr[0] == "Combat « duel »"
    assert "conscious, incanting Boule de Feu until IT 15" in [line.strip() for line in en]
    assert "conscient, incante Boule de Feu jusqu'à IT 15" in [line.strip() for line in fr]
    assert en[-1] == "Next to act: thor (IT 6)." and fr[-1] == "Au tour de : thor (IT 6)."
    assert duel("combat", "end", "duel").exit_code == 0
    assert duel("combat", "show", "duel").exit_code == 1  # an ended fight is no longer shown


def test_combat_log_in_english(duel):
    text = joined(log_lines(duel))
    assert "#3     thor: +6 s; IT thor 0 → 6, york 2" in text
    assert "thor attacks york (Épée longue): ATT 5 against DP 10: d20 2 → 7 (missed); IT +6" in text
    assert "york: détache son fouet; IT +3" in text
    assert "york casts Boule de Feu (4 PM): CNC 10 + d20 9 = 19 against 16, success; IT +10" in text
    assert "#10    york: +10 s; IT thor 6, york 5 → 15" in text
    assert "attaque" not in text and "contre" not in text


def test_combat_log_in_french_is_the_text_it_always_was(duel):
    text = joined(log_lines(duel, "--lang", "fr"))
    assert "#3     thor : +6 s ; IT thor 0 → 6, york 2" in text
    assert "thor attaque york (Épée longue) : ATT 5 contre DP 10 : d20 2 → 7 (manqué) ; IT +6" in text
    assert "york : détache son fouet ; IT +3" in text
    assert "york lance Boule de Feu (4 PM) : CNC 10 + d20 9 = 19 contre 16, réussi ; IT +10" in text


def test_the_json_log_keeps_its_shape_and_its_line_follows_the_language(duel):
    en = json.loads(duel("combat", "log", "duel", "--json").output)
    fr = json.loads(duel("--lang", "fr", "combat", "log", "duel", "--json").output)
    assert [(r["position"], r["actor"], r["duration"], r["it_before"], r["it_after"]) for r in en] == [
        (3, "thor", 6, {"thor": 0, "york": 2}, {"thor": 6, "york": 2}),
        (8, "york", 3, {"thor": 6, "york": 2}, {"thor": 6, "york": 5}),
        (10, "york", 10, {"thor": 6, "york": 5}, {"thor": 6, "york": 15})]
    assert [{k: v for k, v in r.items() if k != "action"} for r in fr] == [
        {k: v for k, v in r.items() if k != "action"} for r in en]
    assert en[1]["action"] == "york: détache son fouet; IT +3"
    assert fr[1]["action"] == "york : détache son fouet ; IT +3"


def test_one_campaign_read_in_french_then_in_english_gives_each_its_language(duel):
    """Nothing is frozen in the store: the French reader first (the read model written by the commands,
    read back), then the English one, then French again."""
    fr = joined(log_lines(duel, "--lang", "fr"))
    en = joined(log_lines(duel))
    again = joined(log_lines(duel, "--lang", "fr"))
    assert "thor attaque york" in fr and "thor attacks york" not in fr
    assert "thor attacks york" in en and "thor attaque york" not in en
    assert again == fr
    with Campaign.open(duel.path, readonly=True) as camp:  # what the read model holds: facts, no words
        for table in CristalCombats.append_tables:
            columns = list(CristalCombats.append_tables[table].columns)
            for row in camp.store.table_rows(table, columns, list(CristalCombats.append_tables[table].pk)):
                assert all(not isinstance(v, str) or v in ("duel", "thor", "york") for v in row), row


def test_the_replay_tells_the_fight_in_each_language(duel):
    en = duel("replay", "--from", "3", "--until", "12").output
    fr = duel("--lang", "fr", "replay", "--from", "3", "--until", "12").output
    assert "Thor attacks York with « Épée longue »: ATT 5 + d20 2 = 7 ≤ DP 10, missed; IT 0 → 6" in en
    assert "Thor attaque York à l'épée longue : ATT 5 + d20 2 = 7 ≤ DP 10, manqué ; IT 0 → 6" in fr
    assert ("Thor uses their Chance against York (0 left): ATT 5 + d20 17 = 22 > DP 10, hit; 6 damage, "
            "PV 15 → 9") in en
    assert ("Thor utilise sa Chance contre York (0 restantes) : ATT 5 + d20 17 = 22 > DP 10, touché ; 6 dégâts, "
            "PV 15 → 9") in fr
    assert "York: PV 15 → 9 (attack by thor (Chance))" in en
    assert "York : PV 15 → 9 (attaque de thor (Chance))" in fr
    assert "York casts Boule de Feu on Thor (4 PM, PM 20 → 16): CNC 10 + d20 9 = 19 ≥ the spell's CNC 16" in en
    assert "York lance Boule de Feu sur Thor (4 PM, PM 20 → 16) : CNC 10 + d20 9 = 19 ≥ CNC du sort 16" in fr
    assert "incantation 10 s, effects on the next turn" in en and "incantation 10 s, effets au prochain tour" in fr


def test_the_crystal_spells_and_a_chance_reroll_in_each_language(crystal):
    en = joined(log_lines(crystal, name="c"))
    fr = joined(log_lines(crystal, "--lang", "fr", name="c"))
    assert "xar locks Rayon Magique (11 PM) in the crystal bleu: stored; IT +" in en
    assert "xar enferme Rayon Magique (11 PM) dans le cristal bleu : emmagasiné ; IT +" in fr
    assert "xar: Vision Cristalline on the crystal bleu: Rayon Magique (11 PM: Distance 3 PM, Dommage 8 PM); IT +24" in en
    assert ("xar : Vision Cristalline sur le cristal bleu : Rayon Magique (11 PM : Distance 3 PM, Dommage 8 PM) ; "
            "IT +24") in fr
    replay_en = crystal("replay", "--json").output.splitlines()
    replay_fr = crystal("--lang", "fr", "replay", "--json").output.splitlines()
    redone_en = next(json.loads(line) for line in replay_en if json.loads(line)["type"] == "combat.roll_redone")
    redone_fr = next(json.loads(line) for line in replay_fr if json.loads(line)["type"] == "combat.roll_redone")
    assert redone_en["summary"] == ("xar uses their Chance (5 → 6), Vision Cristalline on the crystal bleu: success, "
                                    "Rayon Magique (11 PM: Distance 3 PM, Dommage 8 PM): IT 32 → 32; 0 reroll(s) left")
    assert redone_fr["summary"] == ("xar : utilise sa Chance (5 → 6), Vision Cristalline sur le cristal bleu : réussi, "
                                    "Rayon Magique (11 PM : Distance 3 PM, Dommage 8 PM) : IT 32 → 32 ; "
                                    "0 relance(s) restante(s)")


def test_an_old_combat_read_model_is_rebuilt(duel):
    """A campaign whose combat read model is version 2 (the lines and IT maps stored as text) gets the
    new tables from the log at the next command, and reads as a new one does."""
    expected = duel("combat", "log", "duel").output
    with Campaign.open(duel.path) as camp:
        store = camp.store
        conn = store.conn
        conn.execute("DROP TABLE cristal_combat_log")
        conn.execute("DROP TABLE cristal_combat_its")
        conn.execute('CREATE TABLE cristal_combat_log ("position" INTEGER, "combat" TEXT, "actor" TEXT, '
                     '"action" TEXT, "duration" INTEGER, "it_before" TEXT, "it_after" TEXT, PRIMARY KEY ("position"))')
        conn.execute("INSERT INTO cristal_combat_log VALUES (3, 'duel', 'thor', 'thor attaque york', 6, "
                     "'{\"thor\":0,\"york\":2}', '{\"thor\":6,\"york\":2}')")
        conn.execute("UPDATE projection_checkpoints SET version = 2 WHERE name = 'cristal_combats'")
        conn.commit()
    with Campaign.open(duel.path, readonly=True) as camp:
        assert not camp.store.read_model_current("cristal_combats", CristalCombats.version)
    assert duel("note", "La fumée se dissipe.").exit_code == 0  # a write command catches the read models up
    with Campaign.open(duel.path, readonly=True) as camp:
        assert camp.store.read_model_current("cristal_combats", CristalCombats.version)
        columns = [row[1] for row in camp.store.conn.execute("PRAGMA table_info(cristal_combat_log)")]
        assert columns == ["position", "combat", "actor", "duration"]
        assert camp.store.read_model_rows("cristal_combat_log", order_by=("position",)) == [
            {"position": 3, "combat": "duel", "actor": "thor", "duration": 6},
            {"position": 8, "combat": "duel", "actor": "york", "duration": 3},
            {"position": 10, "combat": "duel", "actor": "york", "duration": 10}]
    result = duel("combat", "log", "duel")
    assert result.output == expected and "Warning" not in result.output
    assert duel("verify").exit_code == 0


def test_what_the_rules_recorded_in_french_is_told_in_the_readers_language(duel):
    """A move's description and a PV change's cause are recorded in the log's words (French), whatever
    the language of the command; each reader sees them in their own."""
    assert duel("combat", "act", "duel", "thor", "--move", "10").exit_code == 0
    with Campaign.open(duel.path, readonly=True) as camp:
        recorded = [rec.event for rec in camp.store.read_all() if rec.type in ("combat.action_taken",
                                                                               "combat.pv_changed")]
    assert [getattr(e, "what", "") or e.cause for e in recorded] == [
        "attaque de thor (Chance)", "détache son fouet", "Bipède 10 m (vitesse de croisière, 3 km/h)"]
    assert "thor: Bipède 10 m (cruise speed, 3 km/h); IT +12" in joined(log_lines(duel))
    assert "thor : Bipède 10 m (vitesse de croisière, 3 km/h) ; IT +12" in joined(log_lines(duel, "--lang", "fr"))
    en = [json.loads(line)["summary"] for line in duel("replay", "--json").output.splitlines()]
    fr = [json.loads(line)["summary"] for line in duel("--lang", "fr", "replay", "--json").output.splitlines()]
    assert "york: -6 PV → 9 (attack by thor (Chance))" in en
    assert "york : -6 PV → 9 (attaque de thor (Chance))" in fr
