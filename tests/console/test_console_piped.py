"""``cristal play`` with piped standard input: the lines run one by one, no prompt, as at the table."""

from __future__ import annotations

import pytest
from console_helpers import build, last_position, play

FIGHT = """\
session start --title "Le retour"
combat start col --with lia,brok,loup --it loup=4 --stat loup:DP=9 --stat loup:PV=10 --stat loup:ATT=2 --stat loup:DMG=1d6
fight col
a lia loup --weapon Arc --projectile Flèche --distance 10 15,4
"""


def test_a_scripted_fight_uses_the_current_fight_and_the_aliases(brigands_on):
    res = play(brigands_on, FIGHT + 'attack brok loup --weapon "Hache de combat" 11,5\nshow\n')
    assert res.returncode == 0, res.stderr
    assert res.stderr == ""
    out = res.stdout.splitlines()
    assert "Current fight: col." in out
    # 'a lia loup ... 15,4' is 'combat attack col lia loup ... --dice 15,4': the d20 and the d6 entered
    assert any("lia attacks loup (Arc)" in line and "hit, 4 damage" in line for line in out), res.stdout
    assert any("1d20 = 15 [15] (attack) ; 1d6 = 4 [4] (damage)" in line for line in out), res.stdout
    assert any("brok attacks loup (Hache de combat)" in line and "6 damage" in line for line in out), res.stdout
    # 'show' is 'combat show col': the loup at 0 PV, acting next on the smallest IT
    # combat show's IT timeline (cli/views.py): the loup acts next, at IT 4, PV 0
    assert any(line.startswith("▶ loup IT    4 ") and "PV 0 " in line for line in out), res.stdout


def test_a_refused_line_prints_its_sentence_writes_nothing_and_the_console_goes_on(brigands_on):
    assert play(brigands_on, FIGHT).returncode == 0
    before = last_position(brigands_on)
    res = play(brigands_on, "fight col\nattack lia brok 3,3\nnote 'La brume monte.'\n")
    assert res.returncode == 1  # a line was refused: a script sees it in the exit status
    assert res.stderr == "Error: It is brok's turn (smallest IT), not lia's.\n"
    assert res.stdout.splitlines() == ["Current fight: col.", f"Note recorded at position {before + 1}."]
    assert last_position(brigands_on) == before + 1  # the note alone


def test_the_console_refuses_its_own_mistakes_in_one_sentence_each(brigands):
    before = last_position(brigands)
    res = play(brigands, "fight nope\n--db other.db log\nplay\nnote \"unclosed\nattack lia brok\nsheet lia --bogus\n")
    assert res.stderr.splitlines() == [
        "Error: No fight is named 'nope'; fights: none yet ('combat start NAME --with ...' starts one).",
        "Error: The console sets cristal's own options (--db, --actor) itself; start with a command.",
        "Error: You are in the console already; 'exit' leaves it.",
        "Error: The line has an unclosed quote; nothing was run.",
        "Error: Missing argument 'TARGET'.",  # no current fight: 'attack lia brok' names the fight 'lia'
        "Error: No such option '--bogus'.",
    ]
    assert last_position(brigands) == before


def test_exit_leaves_and_the_lines_after_it_do_not_run(brigands):
    before = last_position(brigands)
    res = play(brigands, "note 'avant'\nexit\nnote 'après'\n")
    assert res.returncode == 0, res.stderr
    assert last_position(brigands) == before + 1
    assert "après" not in res.stdout


def test_help_lists_the_console_words_the_aliases_and_the_commands(brigands):
    res = play(brigands, "help\nhelp attack\n")
    assert res.returncode == 0, res.stderr
    out = res.stdout
    assert "  fight NAME " in out and "  a                    combat attack" in out
    assert "  ch                   characters" in out
    assert "  sheet " in out and "  play " not in out
    assert "Usage: cristal combat attack [OPTIONS] NAME FIGHTER TARGET" in out  # help attack: the alias's --help


def test_the_campaign_stays_open_yet_each_line_sees_what_another_writer_appended(brigands_on, capsys):
    """One console (its Campaign kept open between lines); the one-shot CLI attacks between two lines."""
    from click.testing import CliRunner

    from cristal_events.cli import cli
    from cristal_events.console.session import Console

    console = Console(str(brigands_on))
    try:
        for line in FIGHT.splitlines():
            assert console.run_line(line) is True
        kept = console.kept.campaign
        res = CliRunner().invoke(cli, ["--db", str(brigands_on), "combat", "attack", "col", "brok", "loup", "--dice", "2"])
        assert res.exit_code == 0, res.output
        capsys.readouterr()
        assert console.run_line("attack lia loup 3,3") is False  # brok's IT moved on: the loup's turn now
        assert capsys.readouterr().err == "Error: It is loup's turn (smallest IT), not lia's.\n"
        assert console.kept.campaign is kept  # not reopened
        assert "col: next loup" in console.refresh_bar()
    finally:
        console.close()


@pytest.mark.french
def test_an_illergan_fight_takes_the_current_fight_and_the_bar_shows_its_initiative(gue_des_loups, capsys):
    from cristal_events.console.session import Console

    console = Console(str(gue_des_loups))
    try:
        assert console.run_line("combat start bois thor lysa rat") is True
        assert console.fight == "bois"
        assert console.run_line("ini 40,12,77") is True  # combat initiative bois --dice 40,12,77
        out = capsys.readouterr().out
        assert "Tour 1 de « bois » : lysa 112, thor 110, rat 107" in out, out
        assert console.refresh_bar() == ("Aucune session ouverte | bois : au tour de lysa · lysa ini 112 PV 30 · "
                                         "thor ini 110 PV 40 · rat ini 107 PV 0")  # the rat at 0/5 PV in the sample
        assert console.run_line("combat end") is True and console.fight is None
    finally:
        console.close()


def test_with_json_every_line_prints_its_json(brigands):
    import json
    import subprocess

    from console_helpers import CRISTAL, ENV

    res = subprocess.run([*CRISTAL, "--db", str(brigands), "play", "--json"], input=FIGHT.replace("fight col\n", "")
                         + "fight col\nnote 'la brume'\n", capture_output=True, text=True, env=ENV, timeout=120)
    assert res.returncode == 0, res.stderr
    lines = [json.loads(line) for line in res.stdout.splitlines()]
    assert lines[-2] == {"fight": "col"}
    assert lines[-1]["type"] == "note.recorded" and isinstance(lines[-1]["position"], int)


def test_a_postgresql_campaigns_console_keeps_its_history_beside_its_secret_and_writes_nothing_here(
        tmp_path, pg_url, monkeypatch):
    """A URL is no file name: the history goes beside the session secret (CRISTAL_SECRETS_DIR), the prompt
    names the campaign, and a console run from an empty folder leaves it empty."""
    from pgcluster import with_campaign

    from cristal_events.console.session import Console, history_path

    url = with_campaign(pg_url, "brigands")
    build(tmp_path, "brigands_de_la_foret.toml", url)
    here = tmp_path / "here"
    here.mkdir()
    monkeypatch.chdir(here)
    stem = history_path(url)
    assert stem.parent == tmp_path / "secrets" and stem.name.endswith("-brigands.history")
    res = play(url, FIGHT + "note 'la brume'\n", cwd=here)
    assert res.returncode == 0, res.stderr
    console = Console(url)
    try:
        assert console.prompt_text() == "brigands> "
    finally:
        console.close()
    assert list(here.iterdir()) == []
