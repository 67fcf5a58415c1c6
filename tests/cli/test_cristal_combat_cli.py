"""``cristal combat ...`` through the CLI: the Thor vs York table (L1298-L1311) and the refusals."""

from __future__ import annotations

import json

import pytest

STATS = ["--stat", "thor:ATT=5", "--stat", "thor:DP=12", "--stat", "thor:PV=20", "--stat", "york:ATT=3",
         "--stat", "york:DP=10", "--stat", "york:PV=15", "--stat", "york:PM=20", "--stat", "york:CNC=10",
         "--stat", "york:race=Humain", "--stat", "thor:race=Humain"]

# the book's table: IT before (Thor, York), who acts, duration, IT after
BOOK = [((0, 2), "thor", 6, (6, 2)), ((6, 2), "york", 3, (6, 5)), ((6, 5), "york", 4, (6, 9)),
        ((6, 9), "thor", 5, (11, 9)), ((11, 9), "york", 3, (11, 12)), ((11, 12), "thor", 2, (13, 12)),
        ((13, 12), "york", 10, (13, 22)), ((13, 22), "thor", 2, (15, 22)), ((15, 22), "thor", 6, (21, 22)),
        ((21, 22), "thor", 2, (23, 22)), ((23, 22), "york", 8, (23, 30)), ((23, 30), "thor", 2, (25, 30))]

COMMANDS = [
    ["attack", "duel", "thor", "york", "--weapon", "Épée longue", "--dice", "2"],
    ["act", "duel", "york", "détache son fouet", "--action", "chercher_ceinture", "--dice", "3"],
    ["attack", "duel", "york", "thor", "--weapon", "Fouet", "--dice", "1"],
    ["act", "duel", "thor", "recule vers la porte", "--action", "marcher_5m"],
    ["act", "duel", "york", "prend une torche", "--action", "ramasser_item"],
    ["act", "duel", "thor", "ouvre la porte", "--action", "ouvrir_porte"],
    ["cast", "duel", "york", "Boule de Feu", "--effect", "Dommage=4", "--target", "thor", "--dice", "9"],
    ["act", "duel", "thor", "referme la porte", "--duration", "2"],
    ["act", "duel", "thor", "cherche sa potion de courage", "--action", "chercher_sac", "--dice", "2"],
    ["act", "duel", "thor", "rouvre la porte", "--action", "ouvrir_porte"],
    ["release", "duel", "york", "--dice", "3,4"],
    ["act", "duel", "thor", "se sauve", "--action", "courir_5m", "--times", "2"],
]


@pytest.fixture
def duel(run):
    assert run("init", "--name", "Duel", "--seed", "5").exit_code == 0
    assert run("combat", "start", "duel", "--with", "thor,york", "--it", "york=2", *STATS).exit_code == 0
    return run


def log_length(run):
    return len(run("log", "--json").output.strip().splitlines())


def test_thor_vs_york_through_the_cli_reproduces_the_table(duel):
    for args in COMMANDS:
        result = duel("combat", *args)
        assert result.exit_code == 0, result.output
    rows = json.loads(duel("combat", "log", "duel", "--json").output)
    got = [((r["it_before"]["thor"], r["it_before"]["york"]), r["actor"], r["duration"],
            (r["it_after"]["thor"], r["it_after"]["york"])) for r in rows]
    assert got == BOOK
    text = duel("combat", "log", "duel").output
    assert "Boule de Feu" in text and "+10" in text and "+8" in text


def test_show_names_the_incantation_and_who_acts(duel):
    for args in COMMANDS[:7]:
        duel("combat", *args)
    shown = json.loads(duel("combat", "show", "duel", "--json").output)
    york = next(p for p in shown["participants"] if p["id"] == "york")
    assert (shown["next"], york["incanting"], york["until"], york["it"]) == ("thor", "Boule de Feu", 22, 22)
    assert "conscious, incanting Boule de Feu until IT 22" in duel("combat", "show", "duel").output
    assert "conscient, incante Boule de Feu jusqu'à IT 22" in duel("--lang", "fr", "combat", "show", "duel").output


def test_next_prints_who_acts(duel):
    out = json.loads(duel("combat", "next", "duel", "--json").output)
    assert out["events"] == [] and out["combat"]["next"] == "thor"


@pytest.mark.parametrize(("args", "message"), [
    (["act", "duel", "york", "x", "--duration", "3"], "Error: It is thor's turn (smallest IT), not york's."),
    (["cast", "duel", "thor", "Soin", "--dice", "4"],
     "Error: Unknown spell 'Soin'; known spells: Analyse Magique, Boule de Feu, Détection Magique, Fermeture "
     "Cristalline, Libération Cristalline, Rayon Magique, Verrou Cristallin, Vision Cristalline."),
    (["attack", "duel", "thor", "york", "--dice", "2,3"], "Error: 2 faces were entered but the command used 1."),
    (["attack", "duel", "thor", "york", "--dice", "21"], "Error: Face 21 is out of range for a d20."),
    (["attack", "duel", "thor", "york", "--weapon", "Épée longue", "--dice", "19"],
     "Error: 1 face was entered but the command needs more (a d8 is next)."),
    (["act", "duel", "thor", "x", "--action", "chercher_sac", "--dice", "5"], "Error: Face 5 is out of range for a d4."),
    (["attack", "duel", "thor", "ghost"], "Error: ghost is not in the combat 'duel'."),
], ids=["out-of-turn", "unknown-spell", "too-many-faces", "face-out-of-range", "too-few-faces", "d4-face", "no-target"])
def test_refusals_append_nothing(duel, args, message):
    before = log_length(duel)
    result = duel("combat", *args)
    assert result.exit_code != 0
    assert result.output.strip().splitlines()[-1] == message
    assert log_length(duel) == before


def test_attacking_a_dead_target_is_refused(run):
    run("init", "--name", "B")
    run("combat", "start", "b", "--with", "a,h", "--it", "h=1", "--stat", "a:ATT=20", "--stat", "a:DMG=1d20",
        "--stat", "h:DP=0", "--stat", "h:PV=1", "--stat", "h:race=Elfe")
    assert run("combat", "attack", "b", "a", "h", "--dice", "5,20").exit_code == 0  # 1 - 20 < -6: dead (Elfe)
    before = log_length(run)
    result = run("combat", "attack", "b", "a", "h", "--dice", "5,1")
    assert result.exit_code == 1 and result.output.strip() == "Error: h is dead and can no longer be attacked."
    assert log_length(run) == before


def test_too_little_pm_with_overdraw_off(run):
    run("init", "--name", "O", "--set", "pm_overdraw=false")
    run("combat", "start", "rue", "--with", "xar,taz", "--it", "taz=3", "--stat", "xar:PM=3", "--stat", "xar:CNC=4",
        "--stat", "taz:DM=3", "--stat", "taz:PV=10")
    before = log_length(run)
    result = run("combat", "cast", "rue", "xar", "Rayon Magique", "--effect", "Distance=3", "--effect", "Dommage=8",
                 "--target", "taz", "--time", "INSTANTANÉ", "--dice", "8,2")
    assert result.exit_code == 1
    assert result.output.strip() == "Error: The spell costs 11 PM and the caster has only 3."
    assert log_length(run) == before


def test_every_combat_command_has_help_with_an_example(run):
    from cristal_events.cli.cristal.combat import combat_group

    for name, cmd in combat_group.commands.items():
        assert "Example: cristal combat " + name in (cmd.help or ""), name


def test_reroll_through_the_cli_player_and_gm(run):
    # L56-L58: a positive Chance is the player's; a negative one the GM's (--gm)
    run("init", "--name", "C")
    run("combat", "start", "c", "--with", "thor,taz", "--it", "taz=1", "--stat", "thor:ATT=5", "--stat", "thor:DMG=1d6",
        "--stat", "thor:CHANCE=-1", "--stat", "taz:DP=0", "--stat", "taz:PV=20")
    assert run("combat", "attack", "c", "thor", "taz", "--dice", "20,6").exit_code == 0
    before = log_length(run)
    result = run("combat", "reroll", "c", "thor", "--dice", "1")
    assert result.exit_code == 1 and log_length(run) == before
    assert result.output.strip() == "Error: thor has Chance -1; only the GM decides when its dice are rerolled (L58)."
    data = json.loads(run("combat", "reroll", "c", "thor", "--gm", "--dice", "2", "--json").output)
    assert data["events"][0]["event"]["kind"] == "damage" and data["events"][0]["event"]["by"] == "gm"
    assert "the GM has the roll redone (6 → 2), damage 6 → 2 against taz" in data["events"][0]["summary"]
    assert next(p["pv"] for p in data["combat"]["participants"] if p["id"] == "taz") == 18
