"""Completion from the campaign's state: the one table (cli/completion.py) behind the console's Tab
and the one-shot CLI's shell completion (click's ``shell_complete``), on the real sample campaigns."""

from __future__ import annotations

import subprocess

import click
from console_helpers import CRISTAL, ENV, play

from cristal_events.cli import completion, core_commands, ruleset_commands
from cristal_events.console.completer import candidates
from cristal_events.console.session import Console
from cristal_events.service import Campaign


def test_the_sources_read_the_cristal_campaign(brigands):
    assert play(brigands, "combat start col --with lia,brok,loup --stat loup:PV=10\n").returncode == 0
    camp = Campaign.open(brigands, readonly=True)
    try:
        assert completion.names(camp, "character") == ["brok", "lia", "loup"]  # the fight's extra too
        assert completion.names(camp, "fight") == ["col"]
        assert completion.names(camp, "weapon", "H") == ["Hache de combat"]
        assert {"Arc", "Flèche", "Épée longue"} <= set(completion.names(camp, "weapon"))
        assert "Robe élégante" not in completion.names(camp, "weapon")  # an item, not a weapon
        assert completion.names(camp, "spell", "bou") == ["Boule de Feu"]  # any case
        assert completion.names(camp, "technique") == ["Forestier", "Lecture et écriture de la magie", "Natation"]
        assert completion.names(camp, "character", "lia,b") == ["lia,brok"]  # --with lia,brok: the last item
    finally:
        camp.close()


def test_the_sources_read_the_illergan_campaign(gue_des_loups):
    camp = Campaign.open(gue_des_loups, readonly=True)
    try:
        assert completion.names(camp, "character") == ["chef", "loup", "lysa", "rat", "thor"]
        assert "Épée longue" in completion.names(camp, "weapon") and "Crocs" in completion.names(camp, "weapon")
        assert completion.names(camp, "spell", "Fl") == ["Flamme vive"]
        assert "Furtivité" in completion.names(camp, "skill")
    finally:
        camp.close()


def test_the_table_names_every_fight_and_character_parameter_of_both_rulesets():
    """Every argument of a fight command is known to the table, in both rulesets' spellings."""
    unknown = []

    def walk(cmd: click.Command, path: tuple[str, ...]) -> None:
        if isinstance(cmd, click.Group):
            for name, sub in cmd.commands.items():
                walk(sub, (*path, name))
            return
        for p in cmd.params:
            if isinstance(p, click.Argument) and path[0] == "combat" and completion.kind_of(path, p) is None \
                    and p.name not in ("what", "crystal", "ability", "amount", "power", "stat", "delta", "item",
                                   "defence", "action", "poison"):  # not names of the state
                unknown.append((path, p.name))

    for rs in ("cristal", "illergan"):
        for name, cmd in ruleset_commands(rs).items():
            walk(cmd, (name,))
    for name, cmd in core_commands().items():
        walk(cmd, (name,))
    assert unknown == []


def test_the_console_completes_commands_options_and_names(brigands):
    assert play(brigands, "combat start col --with lia,brok,loup --stat loup:PV=10\n").returncode == 0
    console = Console(str(brigands))
    try:
        assert candidates(console, [], "fi") == ["fight"]
        assert candidates(console, [], "ch") == ["ch", "character", "characters", "check"]
        assert candidates(console, ["combat"], "at") == ["attack"]
        assert candidates(console, ["fight"], "") == ["col"]
        assert candidates(console, ["combat", "attack"], "") == ["col"]  # no current fight: the fight first
        assert candidates(console, ["attack", "lia", "loup"], "--we") == ["--weapon"]
        assert candidates(console, ["attack", "col", "lia", "loup", "--weapon"], "H") == ["Hache de combat"]
        assert candidates(console, ["combat", "cast", "col", "lia"], "Bou") == ["Boule de Feu"]
        console.run_line("fight col")
        assert candidates(console, ["a"], "l") == ["lia", "loup"]  # the current fight is put first
        assert candidates(console, ["a", "lia"], "") == ["brok", "lia", "loup"]
        assert candidates(console, ["sheet"], "b") == ["brok"]
    finally:
        console.close()


def shell(db, comp_words: str, cword: int | str, shell: str = "bash") -> list[str]:
    """What the shell's Tab offers: cristal run by the completion script (``_CRISTAL_COMPLETE``); bash and
    zsh give the index of the word typed (COMP_CWORD), fish the word itself."""
    env = {**ENV, "_CRISTAL_COMPLETE": f"{shell}_complete", "COMP_WORDS": comp_words, "COMP_CWORD": str(cword)}
    res = subprocess.run([*CRISTAL], capture_output=True, text=True, env=env, timeout=60)
    assert res.returncode == 0, res.stderr
    return [line for line in res.stdout.splitlines() if line]


def test_the_shell_completes_ids_fights_weapons_and_spells(brigands):
    assert play(brigands, "combat start col --with lia,brok,loup --stat loup:PV=10\n").returncode == 0
    db = str(brigands)
    assert shell(db, f"cristal --db {db} sheet ", 4) == ["plain,brok", "plain,lia", "plain,loup"]
    assert shell(db, f"cristal --db {db} combat next ", 5) == ["plain,col"]
    assert shell(db, f"cristal --db {db} combat attack col lia l", 7) == ["plain,lia", "plain,loup"]
    assert shell(db, f"cristal --db {db} combat attack col lia loup --weapon H", 9) == ["plain,Hache de combat"]
    assert shell(db, f"cristal --db {db} combat cast col lia Bo", 7) == ["plain,Boule de Feu"]
    # zsh and fish scripts ask the same question in their own format
    assert shell(db, f"cristal --db {db} sheet l", 4, "zsh") == ["plain", "lia", "_", "plain", "loup", "_"]
    assert shell(db, f"cristal --db {db} sheet", "l", "fish") == ["plain,lia", "plain,loup"]


def test_the_shell_completes_nothing_from_a_file_that_is_not_a_campaign(tmp_path):
    junk = tmp_path / "notes.db"
    junk.write_text("not a campaign", encoding="utf-8")
    assert shell(str(junk), f"cristal --db {junk} sheet ", 4) == []
    assert junk.read_text(encoding="utf-8") == "not a campaign"


def test_the_shell_prints_its_setup_script():
    env = {**ENV, "_CRISTAL_COMPLETE": "bash_source"}
    res = subprocess.run([*CRISTAL], capture_output=True, text=True, env=env, timeout=60)
    assert res.returncode == 0 and "_cristal_completion()" in res.stdout
