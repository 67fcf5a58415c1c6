"""The Illergan Dé100 ruleset's texts: its own gettext domain, ``illergan_rules`` (docs/architecture.md,
"Languages", the second wave). Its rules' refusals, its click commands' help and outputs, in French and in
English; the catalogs live in ``locale/{fr,en}/LC_MESSAGES/illergan_rules.po`` beside this module, with
their compiled ``.mo`` (shipped in the wheel). Msgids are English sentences; the book's terms (PV, PM, IT,
DP, Dé100, Alc, PF ...) are written as the book writes them in both languages.

Kept with the core's tool (``i18n_catalogs.extract``, ``sync``) over :data:`SOURCES`, the rules package and
its click files (the tool's command line takes one folder; :func:`update` takes both)::

    python -c "from cristal_events.rulesets.illergan.texts import update; update()"
"""

from __future__ import annotations

from pathlib import Path

from ...i18n import N_ as N_  # re-exported: the marker its CLI files use
from ...i18n import Domain

LOCALE = Path(__file__).with_name("locale")
DOMAIN = "illergan_rules"

TEXTS = Domain(DOMAIN, LOCALE)
_ = TEXTS.gettext
ngettext = TEXTS.ngettext

#: the sources of this domain's texts, for ``i18n_catalogs.extract`` (folders of the checkout): the rules
#: package and its click files
SOURCES = (
    ("cristal_events", (("rulesets/illergan/**.py", "python"), ("cli/illergan/**.py", "python"))),
)


def update() -> None:
    """Extract this domain's texts, merge them into both ``.po`` and compile (needs Babel, the dev extra)."""
    from ...i18n_catalogs import ROOT, extract, sync

    sync(extract(ROOT, SOURCES), LOCALE, DOMAIN)
