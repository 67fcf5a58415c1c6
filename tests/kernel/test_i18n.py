"""Two languages (issue 18 item 4): every user-facing text of the core is in both catalogs, with the same
placeholders, and the language comes from ``--lang``, then ``CRISTAL_LANG``, then the locale."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from click.testing import CliRunner

from cristal_events import i18n, init_campaign
from cristal_events.cli import cli
from cristal_events.i18n_catalogs import LOCALE, extract, missing

#: a str.format field: its name, conversion and spec (``{n}``, ``{tag!r}``, ``{position:>6}``)
FIELD = re.compile(r"(?<!\{)\{([A-Za-z_][A-Za-z0-9_]*(?:![rsa])?(?::[^{}]*)?)\}")


def _fields(text: str) -> list[str]:
    return sorted(FIELD.findall(text))


def _catalog(lang: str):
    with (LOCALE / lang / "LC_MESSAGES" / "cristal_events.po").open("rb") as f:
        return read_po(f, locale=lang)


@pytest.fixture(scope="module")
def template():
    return extract()


def test_every_text_of_the_core_is_in_both_catalogs(template):
    """Extracted from the sources with Babel (``_``, ``ngettext``, ``N_``, click's help and docstrings); a
    text missing from a catalog, left empty or marked fuzzy fails here."""
    assert len(template) > 400  # the core's texts were found (an extraction that finds nothing proves nothing)
    assert missing(template) == {"en": [], "fr": []}


def test_the_check_catches_a_missing_or_fuzzy_text(template, tmp_path):
    from babel.messages.catalog import Catalog
    from babel.messages.pofile import write_po

    for lang in ("en", "fr"):
        (tmp_path / lang / "LC_MESSAGES").mkdir(parents=True)
        cat = Catalog(locale=lang)
        cat.add("Session {number} ended", "Session {number} terminée", flags=["fuzzy"] if lang == "fr" else ())
        cat.add("No session is open.", "" if lang == "fr" else "No session is open.")
        with (tmp_path / lang / "LC_MESSAGES" / "cristal_events.po").open("wb") as f:
            write_po(f, cat)
    probe = Catalog()
    for text in ("Session {number} ended", "No session is open.", "A note needs some text."):
        probe.add(text)
    assert missing(probe, tmp_path) == {
        "en": ["A note needs some text."],
        "fr": ["Session {number} ended", "No session is open.", "A note needs some text."]}


def test_the_extraction_finds_help_docstrings_and_plurals(template):
    ids = {m.id for m in template}
    assert "Only this session." in ids  # an option's help=
    assert any(isinstance(i, str) and i.startswith("Print the event log, one readable line") for i in ids)  # a docstring
    assert ("{n} anomaly:", "{n} anomalies:") in ids  # ngettext
    assert "Session {number} ended" in ids  # _()
    assert not any(isinstance(i, str) and "rulesets/" in i for i in ids)


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_every_translation_keeps_the_placeholders_of_its_text(lang):
    bad = []
    for m in _catalog(lang):
        if not m.id:
            continue
        ids = m.id if isinstance(m.id, tuple) else (m.id,)
        strings = m.string if isinstance(m.string, tuple) else (m.string,)
        want = _fields(ids[-1])
        bad += [(ids[0], s) for s in strings if _fields(s) != want]
    assert bad == []


def test_the_placeholder_check_sees_a_lost_field():
    assert _fields("Session {number} ended at position {position}.") == ["number", "position"]
    assert _fields("Session {number} terminée.") != _fields("Session {number} ended at position {position}.")
    assert _fields('The body must be {"argv": [...]}') == []
    assert _fields("{tag!r} at {pos:>6}") == ["pos:>6", "tag!r"]


@pytest.mark.parametrize(("value", "lang"), [("fr", "fr"), ("fr_FR.UTF-8", "fr"), ("fr_CA", "fr"), ("FR", "fr"),
                                             ("en_GB.UTF-8", "en"), ("de_DE.UTF-8", "en"), ("C", "en"),
                                             ("POSIX", "en")])
def test_a_french_locale_gets_french_anything_else_english(value, lang):
    assert i18n.resolve(None, {"LANG": value}) == lang


def test_the_order_is_option_then_cristal_lang_then_the_locale():
    env = {"CRISTAL_LANG": "en", "LC_ALL": "fr_FR.UTF-8", "LC_MESSAGES": "en_US", "LANG": "en_US"}
    assert i18n.resolve("fr", env) == "fr"
    assert i18n.resolve(None, env) == "en"
    assert i18n.resolve(None, {**env, "CRISTAL_LANG": ""}) == "fr"  # LC_ALL before LC_MESSAGES and LANG
    assert i18n.resolve(None, {"LC_MESSAGES": "fr_BE", "LANG": "en_US"}) == "fr"
    assert i18n.resolve(None, {}) == "en"


def test_use_sets_the_language_of_a_block_and_restores_it():
    with i18n.use("fr"):
        assert i18n._("Session {number} ended").format(number=3) == "Session 3 terminée"
        assert i18n.ngettext("{n} anomaly:", "{n} anomalies:", 2).format(n=2) == "2 anomalies :"
        assert i18n.ngettext("{n} anomaly:", "{n} anomalies:", 1).format(n=1) == "1 anomalie :"
        with i18n.use("en"):
            assert i18n._("Session {number} ended").format(number=3) == "Session 3 ended"
        assert i18n.current() == "fr"
    assert i18n.current() == "en"  # tests/conftest.py: CRISTAL_LANG=en


# ------------------------------------------------------------------------------------- through the CLI
@pytest.fixture
def camp_path(tmp_path):
    path = tmp_path / "t.db"
    init_campaign(path, name="La Taverne", ruleset="cristal", rounding="round", seed=7).close()
    return path


def _run(args, env=None):
    return CliRunner().invoke(cli, args, env=env, catch_exceptions=False)


REFUSED_FR = "Erreur : Aucune session n'est ouverte.\n"
REFUSED_EN = "Error: No session is open.\n"


def test_lang_option_picks_the_language_of_a_refusal(camp_path):
    fr = _run(["--lang", "fr", "--db", str(camp_path), "session", "end"])
    assert fr.exit_code == 1 and fr.output == REFUSED_FR
    en = _run(["--db", str(camp_path), "--lang", "en", "session", "end"], env={"CRISTAL_LANG": "fr"})
    assert en.exit_code == 1 and en.output == REFUSED_EN
    again = _run(["--db", str(camp_path), "session", "end"])  # the language does not stick to the process
    assert again.output == REFUSED_EN


def test_cristal_lang_picks_the_language_of_a_confirmation(camp_path):
    out = _run(["--db", str(camp_path), "note", "Thor a triché"], env={"CRISTAL_LANG": "fr"})
    assert out.exit_code == 0 and out.output == "Note enregistrée à la position 2.\n"
    out = _run(["--db", str(camp_path), "note", "Thor cheated"], env={"CRISTAL_LANG": "en"})
    assert out.output == "Note recorded at position 3.\n"
    log = _run(["--db", str(camp_path), "log"], env={"CRISTAL_LANG": "fr"})
    assert "Campagne « La Taverne » créée (règles cristal, arrondi round)" in log.output
    assert "Note du MJ : Thor a triché" in log.output


def test_a_french_locale_picks_the_language_of_the_help(camp_path):
    env = {"CRISTAL_LANG": None, "LC_ALL": None, "LC_MESSAGES": None, "LANG": "fr_FR.UTF-8"}
    out = _run(["--db", str(camp_path), "log", "--help"], env=env)
    assert out.exit_code == 0
    assert "Imprime le journal des événements, une ligne lisible par événement" in out.output
    assert "Seulement les événements de cette session." in out.output
    assert "Affiche ce message et quitte." in out.output
    root = _run(["--help"], env=env)
    assert "cristal : le journal de campagne en ajout seul" in root.output
    assert "Termine la session ouverte" in _run(["--db", str(camp_path), "session", "--help"], env=env).output
    english = _run(["--db", str(camp_path), "log", "--help"], env={**env, "LANG": "de_DE.UTF-8"})
    assert "Print the event log, one readable line per event" in english.output


def test_the_compiled_catalogs_are_those_of_the_sources():
    """The .mo files committed beside the .po are compiled from them (``python -m
    cristal_events.i18n_catalogs compile``): the French one answers every French text."""
    import gettext

    for lang in ("fr", "en"):
        mo = gettext.GNUTranslations((LOCALE / lang / "LC_MESSAGES" / "cristal_events.mo").open("rb"))
        for m in _catalog(lang):
            if m.id and isinstance(m.id, str):
                assert mo.gettext(m.id) == m.string, m.id
    assert Path(LOCALE / "fr" / "LC_MESSAGES" / "cristal_events.mo").stat().st_size > 10_000


def test_a_ruleset_keeps_its_own_catalog_with_the_same_tools(tmp_path):
    """The second wave's path (docs/architecture.md, "Languages"): a ruleset's package makes its own
    Domain, the catalogs' tool extracts, merges and compiles its texts, and the CLI's help lookup finds them."""
    from babel.messages.pofile import read_po, write_po

    from cristal_events import i18n_catalogs

    pkg = tmp_path / "probe_rules"
    pkg.mkdir()
    (pkg / "rules.py").write_text(
        "import click\n"
        "from cristal_events.i18n import Domain\n"
        "TEXTS = Domain('probe_rules', __file__.rsplit('/', 1)[0] + '/locale')\n"
        "_ = TEXTS.gettext\n"
        "def refuse(n):\n"
        "    return _('Thor has {n} PV left.').format(n=n)\n"
        "@click.command('heal')\n"
        "@click.option('--pv', help='The PV healed.')\n"
        "def heal(pv):\n"
        "    '''Heal a character. Example: cristal heal --pv 3'''\n", encoding="utf-8")
    locale = pkg / "locale"
    assert i18n_catalogs.main(["update", str(pkg), str(locale), "probe_rules"]) == 0
    assert i18n_catalogs.main(["check", str(pkg), str(locale), "probe_rules"]) == 1  # French still missing
    po = locale / "fr" / "LC_MESSAGES" / "probe_rules.po"
    with po.open("rb") as f:
        cat = read_po(f, locale="fr")
    assert {m.id for m in cat if m.id} == {"Thor has {n} PV left.", "The PV healed.",
                                           "Heal a character. Example: cristal heal --pv 3"}
    cat["Thor has {n} PV left."].string = "Il reste {n} PV à Thor."
    cat["The PV healed."].string = "Les PV soignés."
    cat["Heal a character. Example: cristal heal --pv 3"].string = "Soigne un personnage. Exemple : cristal heal --pv 3"
    with po.open("wb") as f:
        write_po(f, cat)
    assert i18n_catalogs.main(["compile", str(pkg), str(locale), "probe_rules"]) == 0
    assert i18n_catalogs.main(["check", str(pkg), str(locale), "probe_rules"]) == 0

    domain = i18n.Domain("probe_rules", locale)
    try:
        with i18n.use("fr"):
            assert domain.gettext("Thor has {n} PV left.").format(n=4) == "Il reste 4 PV à Thor."
            assert i18n.translate_any("The PV healed.") == "Les PV soignés."  # the CLI's help lookup
        with i18n.use("en"):
            assert domain.gettext("Thor has {n} PV left.").format(n=4) == "Thor has 4 PV left."
    finally:
        i18n.DOMAINS.remove(domain)


def test_the_read_models_do_not_depend_on_the_language_that_wrote_them(camp_path):
    """A table where commands are typed in both languages still verifies in either: the read models store
    no sentence (the timeline's line is told when read, projections.timeline.summary), whoever wrote them."""
    db = str(camp_path)
    assert _run(["--lang", "en", "--db", db, "session", "start", "--title", "Arrivée"]).exit_code == 0
    assert _run(["--lang", "fr", "--db", db, "note", "Thor arrive"]).exit_code == 0
    assert _run(["--lang", "en", "--db", db, "session", "end"]).exit_code == 0
    for lang in ("fr", "en"):
        out = _run(["--lang", lang, "--db", db, "verify"])
        assert out.exit_code == 0, out.output
    fr = _run(["--lang", "fr", "--db", db, "log"]).output
    en = _run(["--lang", "en", "--db", db, "log"]).output
    assert "Session 1 commence : Arrivée" in fr and "Session 1 begins: Arrivée" in en  # the log speaks live


def test_an_invocation_inside_a_chosen_language_keeps_it(camp_path):
    """The web table runs its commands in-process under 'cristal --lang fr serve': they speak its language
    unless they name their own."""
    db = str(camp_path)
    with i18n.use("fr"):
        assert _run(["--db", db, "session", "end"], env={"CRISTAL_LANG": "en"}).output == REFUSED_FR
        assert _run(["--lang", "en", "--db", db, "session", "end"]).output == REFUSED_EN
        assert i18n.current() == "fr"
