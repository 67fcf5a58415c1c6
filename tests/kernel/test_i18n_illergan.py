"""Two languages for the Illergan Dé100 ruleset (issue 18 item 4, second wave): its own gettext domain,
``illergan_rules``, holds every text of the rules package and of its click files in French and in English,
and the CLI speaks it: a refusal and an Illergan command's ``--help`` in each language."""

from __future__ import annotations

import gettext
import re

import pytest
from babel.messages.pofile import read_po
from click.testing import CliRunner

from cristal_events import i18n
from cristal_events.cli import cli
from cristal_events.i18n_catalogs import ROOT, extract, missing
from cristal_events.rulesets import get as ruleset_get
from cristal_events.rulesets.illergan import texts
from cristal_events.rulesets.illergan.texts import DOMAIN, LOCALE, SOURCES

FIELD = re.compile(r"(?<!\{)\{([A-Za-z_][A-Za-z0-9_]*(?:![rsa])?(?::[^{}]*)?)\}")


def _catalog(lang: str):
    with (LOCALE / lang / "LC_MESSAGES" / f"{DOMAIN}.po").open("rb") as f:
        return read_po(f, locale=lang)


@pytest.fixture(scope="module")
def template():
    return extract(ROOT, SOURCES)


def test_every_text_of_the_illergan_rules_is_in_both_catalogs(template):
    """Extracted with the core's tool from the rules package and its click files; a text missing from a
    catalog, left empty or marked fuzzy fails here."""
    ids = {m.id for m in template if m.id}
    assert len(ids) > 280  # the refusals were found (an extraction that finds nothing proves nothing)
    assert "A rank 0 skill is fixed and cannot be improved (I-L483)." in ids
    assert missing(template, LOCALE, DOMAIN) == {"en": [], "fr": []}


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_every_translation_keeps_the_placeholders_of_its_text(lang):
    bad = []
    for m in _catalog(lang):
        if not m.id:
            continue
        ids = m.id if isinstance(m.id, tuple) else (m.id,)
        strings = m.string if isinstance(m.string, tuple) else (m.string,)
        want = sorted(FIELD.findall(ids[-1]))
        bad += [(ids[0], s) for s in strings if sorted(FIELD.findall(s)) != want]
    assert bad == []


def test_the_compiled_catalogs_are_those_of_the_sources():
    for lang in ("fr", "en"):
        mo = gettext.GNUTranslations((LOCALE / lang / "LC_MESSAGES" / f"{DOMAIN}.mo").open("rb"))
        for m in _catalog(lang):
            if m.id and isinstance(m.id, str):
                assert mo.gettext(m.id) == m.string, m.id


def test_the_ruleset_declares_its_domain():
    assert i18n.load_domain(ruleset_get("illergan").text_domain) is texts.TEXTS
    assert texts.TEXTS in i18n.DOMAINS
    with i18n.use("fr"):
        assert texts._("{name} is dead.").format(name="Thor") == "Thor est mort."
    with i18n.use("en"):
        assert texts._("{name} is dead.").format(name="Thor") == "Thor is dead."


# ------------------------------------------------------------------------------------- through the CLI
def _run(*args):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


@pytest.fixture
def db(tmp_path):
    path = str(tmp_path / "gue.db")
    assert _run("--db", path, "init", "--name", "Gué", "--ruleset", "illergan", "--seed", "4").exit_code == 0
    assert _run("--db", path, "content", "load", "--example").exit_code == 0
    return path


@pytest.mark.parametrize(("lang", "said"), [
    ("fr", "Erreur : Le temps ne fait qu'avancer ; donnez des minutes, pas -5.\n"),
    ("en", "Error: Time passes forward only; give some minutes, not -5.\n"),
])
def test_an_illergan_refusal_in_each_language(db, lang, said):
    r = _run("--lang", lang, "--db", db, "wait", "--", "-5")
    assert (r.exit_code, r.output) == (1, said)


@pytest.mark.parametrize(("lang", "said"), [
    ("fr", "Une compétence de rang 0 est fixe et ne s'améliore pas (I-L483)."),
    ("en", "A rank 0 skill is fixed and cannot be improved (I-L483)."),
])
def test_a_refusal_from_deep_in_the_rules_in_each_language(lang, said):
    from cristal_events.errors import RuleError
    from cristal_events.rulesets.illergan import xp

    with i18n.use(lang), pytest.raises(RuleError) as err:
        xp.point_cost(40, 0)
    assert str(err.value) == said


@pytest.mark.parametrize(("lang", "said", "option"), [
    ("fr", "Laisse passer le temps : chaque buveur perd 1 Alc par 45 minutes jusqu'au minimum (I-L123).",
     "À quoi le temps a été passé."),
    ("en", "Let time pass: every drinker loses 1 Alc per 45 minutes down to the minimum (I-L123).",
     "What the time was spent on."),
])
def test_an_illergan_help_in_each_language(db, lang, said, option):
    """An Illergan command's --help comes from the ruleset's catalog (its docstring, its options' help)."""
    r = _run("--lang", lang, "--db", db, "wait", "--help")
    assert r.exit_code == 0
    text = " ".join(r.output.split())  # click wraps the lines to the terminal's width
    assert said in text and option in text
    assert ("Exemple : cristal wait 90" if lang == "fr" else "Example: cristal wait 90") in text


@pytest.mark.parametrize(("lang", "said"), [
    ("fr", "Erreur : Personnage inconnu 'nemo' ; personnages connus : aucun."),
    ("en", "Error: Unknown character 'nemo'; known characters: none."),
])
def test_a_refusal_of_an_illergan_command_in_each_language(db, lang, said):
    r = _run("--lang", lang, "--db", db, "drink", "nemo", "Bière")
    assert r.exit_code == 1
    assert r.output.strip() == said
