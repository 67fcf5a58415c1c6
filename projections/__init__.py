"""Read models: pure folds over the event log, written to tables of the campaign file.

Each module of this package may define ``PROJECTIONS``: a list of :class:`projections.base.Projection`
subclasses. A ruleset names the modules of its read models (``Ruleset.read_models``); the core ones
(:data:`CORE`) apply to every campaign. The runner
(:mod:`projections.runner`) catches them up incrementally, rebuilds them and verifies them.

``attach(campaign)`` makes every command of a :class:`cristal_events.Campaign` catch the read models
up right after it commits; the CLI does this for every write command.
"""

from __future__ import annotations

import importlib
from functools import cache
from typing import TYPE_CHECKING

from .base import Projection

if TYPE_CHECKING:
    from cristal_events import Campaign
    from cristal_events.ruleset import Ruleset


#: the read models of every campaign, whatever its rules (modules of this package)
CORE = ("cristal_events.projections.timeline",)


@cache
def projection_classes(ruleset: Ruleset) -> tuple[type[Projection], ...]:
    """The projection classes of one ruleset: the ``PROJECTIONS`` of the core modules (:data:`CORE`),
    then of the modules the ruleset declares (:attr:`~cristal_events.ruleset.Ruleset.read_models`)."""
    found: list[type[Projection]] = []
    for name in sorted({*CORE, *ruleset.read_models}):  # one order for the catch-up, by module name
        mod = importlib.import_module(name)
        found.extend(cls for cls in getattr(mod, "PROJECTIONS", ())
                     if cls.rulesets is None or ruleset.name in cls.rulesets)
    return tuple(found)


def for_campaign(campaign: Campaign) -> list[Projection]:
    """Instances of every projection that applies to this campaign's ruleset."""
    return [cls(campaign) for cls in projection_classes(campaign.ruleset)]


def attach(campaign: Campaign) -> Campaign:
    """Catch the read models up after every command this campaign executes."""
    from .runner import catch_up

    def hook(c: Campaign) -> list[str]:
        problems: list[str] = []  # what a read model could not hold: the campaign's warning
        catch_up(c, problems=problems)
        return problems

    campaign.hooks.append(hook)
    return campaign


__all__ = ["Projection", "attach", "for_campaign"]
