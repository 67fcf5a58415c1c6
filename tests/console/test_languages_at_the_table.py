"""The table's outputs in both languages (issue 18 item 4): the console (its words, refusals and bottom
bar), the recap and the dice fairness report speak French under ``--lang fr`` and English under
``--lang en``, whatever ``CRISTAL_LANG`` says (the tests' environment is English)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner
from console_helpers import CRISTAL, ENV

from cristal_events.cli import cli
from cristal_events.console.session import Console
from cristal_events.i18n import use

CONSOLE_LINES = "help\nfight\nfight nope\nsession start --title Soir\ncombat start duel --with lia --with brok\nfight\n"


def console(db: Path, lang: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CRISTAL, "--lang", lang, "--db", str(db), "play"], input=CONSOLE_LINES,
                          capture_output=True, text=True, env={**ENV, "CRISTAL_LANG": "fr" if lang == "en" else "en"},
                          timeout=120)


def cristal(db: Path, *args: str) -> str:
    res = CliRunner().invoke(cli, ["--db", str(db), *args], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    return res.output


@pytest.mark.parametrize("lang,expected,absent", [
    ("fr", ["Mots de la console :", "  exit, quit           quitter la console (Ctrl-D aussi)",
            "Alias (utilisés quand la campagne n'a pas de commande de ce nom) :",
            "Aucun combat en cours ; 'fight NOM' en choisit un.", "Combat en cours : duel.",
            "Erreur : Aucun combat ne s'appelle 'nope' ; combats : aucun pour le moment ('combat start NOM --with "
            "...' en commence un)."],
     ["Console words:", "No current fight", "Error:"]),
    ("en", ["Console words:", "  exit, quit           leave the console (Ctrl-D too)",
            "Aliases (used when the campaign has no command of that name):",
            "No current fight; 'fight NAME' sets one.", "Current fight: duel.",
            "Error: No fight is named 'nope'; fights: none yet ('combat start NAME --with ...' starts one)."],
     ["Mots de la console", "Aucun combat", "Erreur :"]),
])
def test_the_console_speaks_the_language_asked_for(brigands, lang, expected, absent):
    res = console(brigands, lang)
    printed = (res.stdout + res.stderr).splitlines()
    assert [line for line in expected if line not in printed] == [], res.stdout + res.stderr
    assert not [word for word in absent if word in res.stdout + res.stderr]
    assert res.returncode == 1  # the refused 'fight nope'


def test_the_consoles_bottom_bar_in_both_languages(brigands):
    table = Console(str(brigands))
    try:
        with use("fr"):
            assert table.refresh_bar() == "Aucune session ouverte"
        with use("en"):
            assert table.refresh_bar() == "No session open"
        assert table.run_lines(["session start --title Soir", "combat start duel --with lia --with brok"]) == 0
        with use("fr"):
            assert table.refresh_bar() == "Session 3 « Soir » | duel : au tour de lia · lia IT 0 PV 6 · brok IT 0 PV 18"
        with use("en"):
            assert table.refresh_bar() == "Session 3 « Soir » | duel: next lia · lia IT 0 PV 6 · brok IT 0 PV 18"
    finally:
        table.close()


def test_the_recap_speaks_the_language_asked_for(brigands):
    fr = cristal(brigands, "--lang", "fr", "recap", "--session", "2", "--view", "players")
    en = cristal(brigands, "--lang", "en", "recap", "--session", "2", "--view", "players")
    first_fr, first_en = fr.splitlines()[0], en.splitlines()[0]
    assert first_fr.startswith("Session 2 : ") and first_fr.endswith("(vue des joueurs)")
    assert first_en.startswith("Session 2: ") and first_en.endswith("(players' view)")
    assert "\nJouée le " in "\n" + fr and " · Reçu : " in fr and "\nPersonnages : " in fr and "\nCombats : " in fr
    assert "\nPlayed on " in "\n" + en and " · Receipt: " in en and "\nCharacters: " in en and "\nFights: " in en
    assert "Personnages" not in en and "Characters" not in fr
    gm_fr = cristal(brigands, "--lang", "fr", "recap", "--session", "2", "--view", "gm")
    gm_en = cristal(brigands, "--lang", "en", "recap", "--session", "2", "--view", "gm")
    assert "(vue du MJ)" in gm_fr and "Combat « gue » : Indice de Temps" in gm_fr
    assert "(GM's view)" in gm_en and "Fight « gue »: Time Index" in gm_en


def test_the_vault_speaks_the_language_asked_for(brigands, tmp_path):
    for lang, heading, role in (("fr", "## Déroulé", "- **Rôle :** Personnage joueur"),
                                ("en", "## What happened", "- **Role:** Player character")):
        out = tmp_path / lang
        cristal(brigands, "--lang", lang, "recap", "--session", "2", "--view", "gm", "--format", "md", "--out", str(out))
        notes = "".join(p.read_text(encoding="utf-8") for p in sorted(out.glob("*.md")))
        assert heading in notes and role in notes, notes


def test_the_dice_report_speaks_the_language_asked_for(brigands):
    fr = cristal(brigands, "--lang", "fr", "dice", "report").splitlines()
    en = cristal(brigands, "--lang", "en", "dice", "report").splitlines()
    assert fr[0].startswith("Équité des dés, toute la campagne : ") and " dés dans " in fr[0]
    assert en[0].startswith("Dice fairness, the whole campaign: ") and " dice in " in en[0]
    assert any(line.startswith("d20, table : ") and line.endswith(" jet(s)") for line in fr)
    assert any(line.startswith("d20, table: ") and line.endswith(" roll(s)") for line in en)
    assert "  faces :    " in "\n".join(fr) and "  attendu : " in "\n".join(fr)
    assert "  faces:    " in "\n".join(en) and "  expected: " in "\n".join(en)
    assert any(line.startswith("  plus longue série d'une même face : ") for line in fr)
    assert any(line.startswith("  longest run of the same face: ") for line in en)
    assert fr[-1].startswith("Une petite valeur p") and en[-1].startswith("A small p-value")
