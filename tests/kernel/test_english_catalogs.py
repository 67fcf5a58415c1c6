"""English is the language of the msgids: every English catalog gives each msgid back as its msgstr
(and a plural's two forms by English's rule), so the engine reads no English catalog at run time
(:meth:`cristal_events.i18n.Domain.catalog`: a one-shot command in English parses none of the three
catalogs). This test holds the catalogs to that: an English wording is changed in its msgid."""

from __future__ import annotations

import gettext
from pathlib import Path

import pytest

from cristal_events import i18n

ROOT = Path(__file__).resolve().parents[2]
CATALOGS = sorted((ROOT / "cristal_events").rglob("en/LC_MESSAGES/*.mo"))


def test_the_four_domains_have_an_english_catalog():
    # click's own texts have a catalog of the engine's too (tests/cli/test_click_texts.py)
    assert {p.stem for p in CATALOGS} == {"cristal_events", "cristal_rules", "illergan_rules", "click"}


@pytest.mark.parametrize("mo", CATALOGS, ids=lambda p: p.stem)
def test_each_english_msgstr_is_its_msgid(mo):
    with mo.open("rb") as f:
        catalog = gettext.GNUTranslations(f)
    entries = {k: v for k, v in catalog._catalog.items() if k}  # the header's key is ""
    assert len(entries) > (60 if mo.stem == "click" else 300)  # the catalog was read (an empty one proves nothing)
    singular = {k: v for k, v in entries.items() if isinstance(k, str) and v != k}
    assert singular == {}
    plural_ids = {k[0] for k in entries if isinstance(k, tuple)}
    for msgid in plural_ids:  # ngettext's two forms: the msgid for 1, msgid_plural for any other n
        one, other = entries[(msgid, 0)], entries[(msgid, 1)]
        assert catalog.ngettext(msgid, other, 1) == one == msgid
        assert catalog.ngettext(msgid, other, 2) == other
        assert gettext.NullTranslations().ngettext(msgid, other, 2) == other


def test_english_texts_are_the_msgids_without_a_catalog():
    with i18n.use("en"):
        assert type(i18n.CORE.catalog("en")) is gettext.NullTranslations
        assert i18n._("No session is open.") == "No session is open."
        assert i18n.ngettext("{n} die", "{n} dice", 2) == "{n} dice"
    with i18n.use("fr"):
        assert i18n._("No session is open.") != "No session is open."  # French still reads its catalog
