"""Read models: pure folds over the event log, written to tables of the campaign file.

Each module of this package may define ``PROJECTIONS``: a list of :class:`projections.base.Projection`
subclasses. They are found automatically; each says which rulesets it applies to. The runner
(:mod:`projections.runner`) catches them up incrementally, rebuilds them and verifies them.

``attach(campaign)`` makes every command of a :class:`cristal_events.Campaign` catch the read models
up right after it commits; the CLI does this for every write command.
"""

from __future__ import annotations

import importlib
import os
from functools import cache
from typing import TYPE_CHECKING

from .base import Projection

if TYPE_CHECKING:
    from cristal_events import Campaign


@cache
def _classes(ruleset: str) -> tuple[type[Projection], ...]:
    """The projection classes for one ruleset. A module named ``<ruleset>_*.py`` belongs to that
    ruleset and is imported only for its campaigns; any other module is imported for every one."""
    from cristal_events.rulesets import BUILTIN  # not names(): scanning entry points costs start-up time

    owners = tuple(f"{n}_" for n in {*BUILTIN, ruleset})
    found: list[type[Projection]] = []
    # the package's own files, without pkgutil (see benchmarks/README.md, 'projection discovery')
    names = sorted({f[:-3] for folder in __path__ for f in os.listdir(folder)
                    if f.endswith(".py") and not f.startswith("_")})
    for name in names:
        if name in ("base", "runner"):
            continue
        if name.startswith(owners) and not name.startswith(f"{ruleset}_"):
            continue
        mod = importlib.import_module(f"{__name__}.{name}")
        found.extend(cls for cls in getattr(mod, "PROJECTIONS", ()) if cls.rulesets is None or ruleset in cls.rulesets)
    return tuple(found)


def for_campaign(campaign: "Campaign") -> list[Projection]:
    """Instances of every projection that applies to this campaign's ruleset."""
    return [cls(campaign) for cls in _classes(campaign.ruleset.name)]


def attach(campaign: "Campaign") -> "Campaign":
    """Catch the read models up after every command this campaign executes."""
    from .runner import catch_up

    def hook(c: "Campaign") -> list[str]:
        problems: list[str] = []  # what a read model could not hold: the campaign's warning
        catch_up(c, problems=problems)
        return problems

    campaign.hooks.append(hook)
    return campaign


__all__ = ["Projection", "attach", "for_campaign"]
