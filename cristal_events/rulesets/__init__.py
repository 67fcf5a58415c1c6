"""The registry of rule systems, by name: the plug-in surface of the engine.

Built-in: ``cristal`` (Les Lois du Cristal) and ``illergan`` (the Dé100 rules of Illergan). A third
ruleset is added without editing any core file, in one of two ways:

* :func:`register` ``(name, module)`` in the running process (a test, an application embedding the
  engine); ``module`` is a module object or its dotted name;
* the ``cristal_events.rulesets`` entry-point group of an installed package, naming the module.

The module defines ``RULESET``, an instance of :class:`cristal_events.ruleset.Ruleset`, whose class
declares everything else the engine finds (see :class:`~cristal_events.ruleset.Ruleset`): its read
models (``read_models``), its sample campaign (``sample_campaign``), its CLI module (``cli_module``:
``PARTS`` naming, for each command, the module whose ``COMMANDS`` list holds it, or a ``commands()``
function) and the read-model tables the exports include (``export_tables``).
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

#: the rulesets added by :func:`register` in this process: name -> dotted module name
_registered: dict[str, str] = {}


@cache
def _entry_points() -> dict[str, str]:
    from importlib.metadata import entry_points  # scanning installed packages is slow: only when asked

    return {ep.name: ep.value for ep in entry_points(group="cristal_events.rulesets")}


def _modules() -> dict[str, str]:
    """Every known ruleset: name -> dotted module name (the built-in and registered ones win)."""
    return {**_entry_points(), **BUILTIN, **_registered}


def register(name: str, module: ModuleType | str) -> None:
    """Make ``module`` (a module defining ``RULESET``, or its dotted name) the ruleset ``name`` in this
    process. Registering the same module again does nothing; a built-in name cannot be taken."""
    path = module if isinstance(module, str) else module.__name__
    if name in BUILTIN and BUILTIN[name] != path:
        raise CristalError(f"The ruleset name {name!r} belongs to a built-in ruleset.")
    if _registered.get(name) != path:
        _registered[name] = path
        get.cache_clear()


def unregister(name: str) -> None:
    """Forget a ruleset added by :func:`register` (nothing when it was not)."""
    if _registered.pop(name, None) is not None:
        get.cache_clear()


def names() -> list[str]:
    """The names of every ruleset this engine can run."""
    return sorted(_modules())


def module(name: str) -> ModuleType:
    """The module of the ruleset ``name``."""
    path = BUILTIN.get(name) or _registered.get(name)  # not the entry points: their scan costs start-up time
    if path is None:
        path = _entry_points().get(name)
    if path is None:
        raise CristalError(f"Unknown ruleset {name!r}; known rulesets: {', '.join(names())}.")
    return importlib.import_module(path)


@cache
def get(name: str) -> Ruleset:
    """The ruleset registered under ``name``."""
    return module(name).RULESET


__all__ = ["BUILTIN", "get", "module", "names", "register", "unregister"]
