"""The Lois du Cristal's own texts (its gettext domain, ``cristal_rules``): the rules' refusals, its click
commands' help and outputs, read from ``locale/{fr,en}/LC_MESSAGES/cristal_rules.mo`` beside this file.

Msgids are English sentences; the French catalog holds the French text (where a text was French before there
were two languages, exactly as it was, so French outputs stay byte-identical). Kept with
``python -m cristal_events.i18n_catalogs update`` over :data:`SOURCES` (see docs/architecture.md,
"Languages", and tests/rules/test_cristal_i18n.py).
"""

from __future__ import annotations

from pathlib import Path

from ...i18n import N_, Domain

__all__ = ["N_", "SOURCES", "TEXTS", "_", "ngettext"]

#: the ruleset's catalogs (declared as ``CristalRuleset.text_domain``)
TEXTS = Domain("cristal_rules", Path(__file__).with_name("locale"))
_ = TEXTS.gettext
ngettext = TEXTS.ngettext

#: the files whose texts this domain holds, relative to the checkout (an ``i18n_catalogs.extract`` mapping;
#: what the catalog test checks)
SOURCES: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = (
    ("cristal_events/rulesets/cristal", (("**.py", "python"),)),
    ("cristal_events/cli/cristal", (("**.py", "python"),)),  # its click commands: help, refusals, outputs
)
