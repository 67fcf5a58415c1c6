"""cristal-events: an event-sourced campaign log for Les Lois du Cristal and the Illergan Dé100 rules.

The facade: open or create a campaign, run commands, read the log. See README.md and docs/api.md.
"""

import gc as _gc
import sys as _sys
from importlib.machinery import ModuleSpec as _ModuleSpec
from importlib.machinery import PathFinder as _PathFinder
from os import path as _path


class imports_paused:
    """The cyclic garbage collector paused while modules are imported, their objects then frozen.

    Importing creates objects that live as long as the process (classes, functions, tables), so the
    collections the allocations trigger meanwhile (about 50 while a one-shot command imports what it
    needs) traverse them for nothing, and every later full collection (and the interpreter's exit)
    would again; ``gc.freeze()`` moves them out of the collector's sight. Only a pause that imported
    a module freezes (a long-lived process, the web table, pauses around every command it resolves but
    imports each module once, so what it freezes is bounded). Re-entrant: an inner pause leaves the
    collector to the outer one; a process that disabled the collector keeps it disabled and nothing is
    frozen. (The standard library has no such helper; benchmarks/README.md, "Eighth session: the
    one-shot CLI write", has the A/B.)"""

    def __enter__(self) -> None:
        self.was_enabled = _gc.isenabled()
        self.modules = len(_sys.modules)
        _gc.disable()

    def __exit__(self, *exc: object) -> None:
        if self.was_enabled:
            if len(_sys.modules) > self.modules:
                _gc.freeze()
            _gc.enable()


#: Folders kept at the top of the repository that are installed inside this package (see pyproject.toml).
_BESIDE = ("projections", "migrations", "sample_campaigns")


class _CheckoutFinder:
    """Finds ``cristal_events.projections`` (and the two others) in a plain checkout run with
    PYTHONPATH=repo, where they sit beside this package instead of inside it. Installed (wheel or
    editable), they are inside it, or setuptools' own finder maps them, and this finder is not added.
    It answers for those three names only, so the rest of the checkout (tests/, benchmarks/ ...) never
    becomes part of the package, as appending the checkout to ``__path__`` would make it."""

    def __init__(self, root: str) -> None:
        self.root = root

    def find_spec(self, fullname: str, path: object = None, target: object = None) -> _ModuleSpec | None:
        if fullname.startswith(f"{__name__}.") and fullname.count(".") == 1 and fullname.rpartition(".")[2] in _BESIDE:
            return _PathFinder.find_spec(fullname, [self.root])
        return None


def _checkout_root() -> str | None:
    """The checkout this package sits in, if the three folders are beside it rather than inside it."""
    here = _path.dirname(_path.abspath(__file__))
    root = _path.dirname(here)
    if _path.isdir(_path.join(here, "migrations")):
        return None  # installed from the wheel: the folders are inside the package
    if all(_path.isfile(_path.join(root, name, "__init__.py")) for name in _BESIDE):
        return root
    return None


_root = _checkout_root()
if _root is not None and not any(type(f).__name__ == "_CheckoutFinder" for f in _sys.meta_path):
    # first: an editable install of another checkout must not hand this checkout its folders
    _sys.meta_path.insert(0, _CheckoutFinder(_root))

with imports_paused():
    from .errors import CristalError
    from .records import RecordedEvent
    from .service import Campaign, init_campaign, open_campaign
    from .store import Store
    from .version import __version__

__all__ = ["Campaign", "CristalError", "RecordedEvent", "Store", "__version__", "init_campaign", "open_campaign"]
