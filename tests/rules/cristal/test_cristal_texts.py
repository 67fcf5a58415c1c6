"""The Lois du Cristal in two languages (issue 18 item 4, the second wave): every text of the ruleset and of
its click commands is in both of its catalogs (``cristal_rules``), with the same placeholders, and a refusal
or a ``--help`` of a Cristal command comes in the language asked for."""

from __future__ import annotations

import re

import pytest
from babel.messages.pofile import read_po
from click.testing import CliRunner

from cristal_events import i18n, init_campaign
from cristal_events.cli import cli
from cristal_events.i18n_catalogs import ROOT, extract, missing
from cristal_events.rulesets import get as ruleset_get
from cristal_events.rulesets.cristal.texts import SOURCES, TEXTS

FIELD = re.compile(r"(?<!\{)\{([A-Za-z_][A-Za-z0-9_]*(?:![rsa])?(?::[^{}]*)?)\}")


@pytest.fixture(scope="module")
def template():
    return extract(ROOT, SOURCES)


def test_every_text_of_the_cristal_ruleset_is_in_both_catalogs(template):
    """Extracted with the core's tool from :data:`texts.SOURCES`; a text missing from the French or the English
    catalog, empty or fuzzy, fails here."""
    assert len(template) > 250  # the rules' refusals were found (an extraction that finds nothing proves nothing)
    assert missing(template, TEXTS.locale_dir, TEXTS.name) == {"en": [], "fr": []}


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_every_cristal_translation_keeps_the_placeholders_of_its_text(lang):
    with (TEXTS.locale_dir / lang / "LC_MESSAGES" / f"{TEXTS.name}.po").open("rb") as f:
        catalog = read_po(f, locale=lang)
    bad = []
    for m in catalog:
        if not m.id:
            continue
        ids = m.id if isinstance(m.id, tuple) else (m.id,)
        strings = m.string if isinstance(m.string, tuple) else (m.string,)
        bad += [(ids[0], s) for s in strings if sorted(FIELD.findall(s)) != sorted(FIELD.findall(ids[-1]))]
    assert bad == []


def test_the_ruleset_declares_its_domain():
    assert i18n.load_domain(ruleset_get("cristal").text_domain) is TEXTS
    assert TEXTS in i18n.DOMAINS


def test_a_rule_refusal_comes_in_the_language_asked_for():
    from cristal_events.errors import UnknownEntity
    from cristal_events.rulesets.cristal.content import load_core

    content = load_core()
    with i18n.use("fr"), pytest.raises(UnknownEntity) as fr:
        content.race("Hobbit")
    assert str(fr.value) == "Race inconnue « Hobbit » ; races connues : Elfe, Humain, Nain."
    with i18n.use("fr"), pytest.raises(UnknownEntity) as fr:
        content.race("Humian")
    assert str(fr.value) == "Race inconnue « Humian » ; Vouliez-vous dire « Humain » ? races connues : Elfe, Humain, Nain."
    with i18n.use("en"), pytest.raises(UnknownEntity) as en:
        content.race("Humian")
    assert str(en.value) == "Unknown race 'Humian'; Did you mean 'Humain'? known races: Elfe, Humain, Nain."


@pytest.fixture
def camp_path(tmp_path):
    path = tmp_path / "camp.db"
    init_campaign(path, name="La Taverne", ruleset="cristal", rounding="round", seed=7).close()
    return path


def _run(args, env=None):
    return CliRunner().invoke(cli, args, env=env, catch_exceptions=False)


def test_a_cristal_refusal_through_the_cli_in_french_and_in_english(camp_path):
    db = ["--db", str(camp_path)]
    fr = _run(["--lang", "fr", *db, "character", "create", "thor", "--race", "Humain", "--sex", "X"])
    assert (fr.exit_code, fr.output) == (1, "Erreur : Le sexe doit être F ou M, pas « X ».\n")
    en = _run(["--lang", "en", *db, "character", "create", "thor", "--race", "Humain", "--sex", "X"])
    assert (en.exit_code, en.output) == (1, "Error: Sex must be F or M, not 'X'.\n")
    fr = _run([*db, "combat", "attack", "taverne", "thor", "york"], env={"CRISTAL_LANG": "fr"})
    assert fr.exit_code == 1 and fr.output == (
        "Erreur : Aucun combat nommé 'taverne' n'est en cours ; commencez-en un avec « combat start » "
        "(la table d'un combat terminé : « combat log taverne »).\n")
    en = _run([*db, "combat", "attack", "taverne", "thor", "york"])
    assert en.exit_code == 1 and en.output.startswith("Error: There is no combat named 'taverne' in progress;")


def test_the_help_of_a_cristal_command_in_french_and_in_english(camp_path):
    db = ["--db", str(camp_path)]
    fr = _run(["--lang", "fr", *db, "combat", "start", "--help"])
    assert fr.exit_code == 0
    assert "Commencer le combat NAME ; chaque IT vaut 0 sauf s'il est fixé." in fr.output
    assert "Exemple : cristal combat start taverne" in fr.output
    assert "Un IT de base fixé par le MJ" in " ".join(fr.output.split())
    en = _run([*db, "combat", "start", "--help"])
    assert "Start the combat NAME; every IT is 0 unless set." in en.output
    assert "A base IT set by the GM (initiative method 1, L1317)." in " ".join(en.output.split())
    listing = _run([*db, "combat", "--help"], env={"CRISTAL_LANG": "fr"})
    assert "Les combats sur la ligne de l'Indice de Temps : le plus petit IT agit" in " ".join(listing.output.split())


def test_a_cristal_output_line_in_french_and_in_english(camp_path):
    db = ["--db", str(camp_path)]
    fr = _run(["--lang", "fr", *db, "content", "show"])
    assert fr.output.splitlines()[:2] == ["Packs : aucun (les règles de base seulement)", "Races (3) :"]
    en = _run([*db, "content", "show"])
    assert en.output.splitlines()[:2] == ["Packs: none (the core rules only)", "Races (3):"]


def test_the_help_of_a_gm_number_names_every_number_a_fight_knows():
    from cristal_events.cli.cristal.combat import start_cmd
    from cristal_events.rulesets.cristal.fights.model import STAT_KEYS

    (stat,) = [p for p in start_cmd.params if p.name == "stats"]
    assert stat.help.endswith(": " + ", ".join(STAT_KEYS) + ".")


def test_the_sheet_reads_in_french_as_on_the_feuille_de_personnage_and_in_english(camp_path):
    db = ["--db", str(camp_path)]
    assert _run([*db, "character", "create", "thor", "--race", "Humain", "--name", "Thor"]).exit_code == 0
    fr = _run(["--lang", "fr", *db, "sheet", "thor"]).output.splitlines()
    assert fr[1] == "Thor (thor) — Humain, Niveau Global 0 (aucune)"
    assert fr[2] == "Alignement +0   Chance 0   Or 0 PO   État : conscient"
    assert fr[-4:-1] == ["Techniques : aucune", "Sorts : aucun", "Équipement : rien"]
    en = _run([*db, "sheet", "thor"]).output.splitlines()
    assert en[1] == "Thor (thor) — Humain, Global Level 0 (no class)"
    assert en[2] == "Alignment +0   Chance 0   Gold 0 PO   Status: conscious"
    assert en[-4:-1] == ["Techniques: none", "Spells: none", "Equipment: nothing"]
    party = _run(["--lang", "fr", *db, "characters"]).output.splitlines()[0].split()
    assert party == ["Nom", "Id", "Race", "Niv.", "Classes", "PV", "PM", "XP", "État"]
