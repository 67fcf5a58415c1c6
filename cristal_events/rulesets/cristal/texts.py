"""The Lois du Cristal's own texts (its gettext domain, ``cristal_rules``): the rules' refusals, its click
commands' help and outputs, read from ``locale/{fr,en}/LC_MESSAGES/cristal_rules.mo`` beside this file.

Msgids are English sentences; the French catalog holds the French text (where a text was French before there
were two languages, exactly as it was, so French outputs stay byte-identical). Kept with
``python -m cristal_events.i18n_catalogs update`` over :data:`SOURCES` (see docs/architecture.md,
"Languages", and tests/rules/test_cristal_i18n.py).
"""

from __future__ import annotations

import os

from ...i18n import N_, Domain

__all__ = ["N_", "SOURCES", "TEXTS", "_", "ngettext"]

#: the ruleset's catalogs (declared as ``CristalRuleset.text_domain``)
TEXTS = Domain("cristal_rules", os.path.join(os.path.dirname(__file__), "locale"))
_ = TEXTS.gettext
ngettext = TEXTS.ngettext

#: the files whose texts this domain holds, relative to the checkout (an ``i18n_catalogs.extract`` mapping;
#: what the catalog test checks)
SOURCES: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = (
    ("cristal_events/rulesets/cristal", (("**.py", "python"),)),
    ("cristal_events/cli/cristal", (("**.py", "python"),)),  # its click commands: help, refusals, outputs
)


def main(argv: list[str] | None = None) -> int:
    """``python -m cristal_events.rulesets.cristal.texts update|check``: the core's catalog tool over
    :data:`SOURCES` (both folders at once: a single-folder run would drop the other's texts)."""
    import sys

    from ... import i18n_catalogs as tool  # Babel, the dev extra

    what = (sys.argv[1:] if argv is None else argv or ["update"])[0]
    template = tool.extract(tool.ROOT, SOURCES)
    if what == "update":
        tool.sync(template, TEXTS.locale_dir, TEXTS.name)
        return 0
    lacking = tool.missing(template, TEXTS.locale_dir, TEXTS.name)
    for lang, ids in lacking.items():
        for msgid in ids:
            print(f"{lang}: {msgid!r}")
    return 1 if any(lacking.values()) else 0


if __name__ == "__main__":
    raise SystemExit(main())
