"""click's own texts ("Usage:", "Error: ...", "No such command ...") follow the language like every other
text of the CLI (issue 18, item 4): click ships no catalog, so the engine carries one (locale/*/click.po)
and points click's module-level ``_`` at it (``i18n.translate_click``)."""

from __future__ import annotations

import gettext

import click
import click.core
import click.exceptions
from click.testing import CliRunner

from cristal_events import i18n
from cristal_events.cli import cli


def run(*args: str):
    return CliRunner().invoke(cli, list(args), prog_name="cristal")


def test_click_modules_read_the_engines_catalog():
    assert click.core._ == i18n.CLICK.gettext
    assert click.exceptions._ == i18n.CLICK.gettext
    assert click.core.ngettext == i18n.CLICK.ngettext
    assert gettext.gettext("Usage:") == "Usage:"  # the process-wide gettext is left as it was


def test_a_usage_error_in_french_is_french_and_in_english_english(tmp_path):
    db = str(tmp_path / "c.db")
    assert run("--db", db, "init", "--name", "Essai").exit_code == 0
    fr = run("--lang", "fr", "--db", db, "combat", "lsit")
    assert fr.exit_code == 2
    assert "Utilisation : cristal combat [OPTIONS] COMMAND [ARGS]..." in fr.output
    assert "Essayez 'cristal combat --help' pour l'aide." in fr.output
    assert "Erreur : Commande inconnue : 'lsit'." in fr.output
    assert "Usage:" not in fr.output and "Error:" not in fr.output
    en = run("--lang", "en", "--db", db, "combat", "lsit")
    assert en.exit_code == 2
    assert "Usage: cristal combat [OPTIONS] COMMAND [ARGS]..." in en.output
    assert "Error: No such command 'lsit'." in en.output


def test_a_named_number_and_the_help_headings_follow_the_language(tmp_path):
    db = str(tmp_path / "c.db")
    assert run("--db", db, "init", "--name", "Essai").exit_code == 0
    fr = run("--lang", "fr", "--db", db, "xp", "award", "thor", "abc", "--reason", "x")
    assert fr.exit_code == 2 and "Erreur : Le montant d'XP 'abc' n'est pas un nombre entier." in fr.output
    en = run("--lang", "en", "--db", db, "xp", "award", "thor", "abc", "--reason", "x")
    assert en.exit_code == 2 and "Error: XP amount 'abc' is not a whole number." in en.output
    helped = run("--lang", "fr", "--help").output
    assert "Commandes:" in helped and "Affiche ce message et quitte." in helped
    assert "Commands:" in run("--lang", "en", "--help").output


def test_every_click_text_has_a_french_translation():
    catalog = i18n.CLICK.catalog("fr")
    assert isinstance(catalog, gettext.GNUTranslations)
    for msgid in ("Usage:", "Error: {message}", "Try '{command} {option}' for help.", "No such command {name!r}.",
                  "Missing argument", "Invalid value for {param_hint}: {message}", "Show this message and exit."):
        assert catalog.gettext(msgid) != msgid, msgid
    with i18n.use("fr"):
        assert i18n.CLICK.ngettext("Option {name!r} requires an argument.", "Option {name!r} requires {nargs} arguments.",
                                   2) == "L'option {name!r} demande {nargs} arguments."
