"""The registry of rule systems, by name.

Built-in: ``cristal`` (Les Lois du Cristal) and ``illergan`` (the Dé100 rules of Illergan). A
package can add one through the ``cristal_events.rulesets`` entry-point group, naming a module that
defines ``RULESET`` (an instance of :class:`cristal_events.ruleset.Ruleset`) and, optionally, a
``cli`` submodule with a ``commands()`` function returning click commands, or a ``PARTS`` dict
naming, for each command, the submodule whose ``COMMANDS`` list holds it (the CLI then imports only
the module of the command typed).
"""

from __future__ import annotations

import importlib
from functools import cache
from types import ModuleType
from typing import TYPE_CHECKING

from ..errors import CristalError

if TYPE_CHECKING:
    from ..ruleset import Ruleset

BUILTIN = {
    "cristal": "cristal_events.rulesets.cristal",
    "illergan": "cristal_events.rulesets.illergan",
}


@cache
def _modules() -> dict[str, str]:
    from importlib.metadata import entry_points  # scanning installed packages is slow: only when asked

    found = dict(BUILTIN)
    for ep in entry_points(group="cristal_events.rulesets"):
        found.setdefault(ep.name, ep.value)
    return found


def names() -> list[str]:
    """The names of every ruleset this engine can run."""
    return sorted(_modules())


def module(name: str) -> ModuleType:
    try:
        path = BUILTIN[name] if name in BUILTIN else _modules()[name]
    except KeyError:
        raise CristalError(f"Unknown ruleset {name!r}; known rulesets: {', '.join(names())}.") from None
    return importlib.import_module(path)


@cache
def get(name: str) -> "Ruleset":
    """The ruleset registered under ``name``."""
    return module(name).RULESET
