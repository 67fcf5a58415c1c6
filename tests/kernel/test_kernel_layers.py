"""The kernel's floor (issue 15, done when): the modules at the bottom of the house import nothing above
them: not the store, the service, the CLI, the read models, the jobs, the rulesets, the import/export or
the fairness check, and not the package facade ``cristal_events/__init__.py`` (which imports the service)."""

from __future__ import annotations

import ast
from pathlib import Path

import cristal_events

PACKAGE = Path(cristal_events.__file__).parent
#: the kernel: the events and their envelope, the codec, dice and rolls, errors, rounding, bounds, display,
#: receipts, the XP ledger's shapes, content packs, the migrations runner, the ruleset contract, the lazy patterns, the rules' read-only maps
KERNEL = ("events", "records", "codec", "dice", "rolls", "errors", "rounding", "bounds", "display", "receipts",
          "xp_ledger", "packs", "migrate", "ruleset", "session_dice", "version", "i18n", "patterns", "maps")
ABOVE = ("cristal_events.store", "cristal_events.service", "cristal_events.cli", "cristal_events.projections",
         "projections", "cristal_events.jobs", "cristal_events.rulesets", "cristal_events.exchange",
         "cristal_events.fairness")
#: what the kernel may take from the package by name: its own modules and the shipped migrations' folder
SUBMODULES = {f"cristal_events.{name}" for name in KERNEL} | {"cristal_events.migrations"}


def _imports(path: Path) -> set[str]:
    """The absolute names ``path`` imports (relative imports resolved; ``from a import b`` gives ``a.b``)."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(["cristal_events"] + ([base] if base else []))
            out.update(f"{base}.{alias.name}" for alias in node.names)
    return out


def test_the_kernel_modules_exist():
    assert all((PACKAGE / f"{name}.py").is_file() for name in KERNEL)


def test_no_kernel_module_imports_anything_above_it():
    climbing = {name: sorted(n for n in _imports(PACKAGE / f"{name}.py") if n.startswith(ABOVE)) for name in KERNEL}
    assert {k: v for k, v in climbing.items() if v} == {}


def test_no_kernel_module_imports_the_package_facade():
    # ``from cristal_events import rounding`` goes through __init__.py, which imports the service above
    facade = {name: sorted(n for n in _imports(PACKAGE / f"{name}.py")
                           if n.startswith("cristal_events.") and n.count(".") == 1 and n not in SUBMODULES)
              for name in KERNEL}
    assert {k: v for k, v in facade.items() if v} == {}


def test_the_checks_catch_an_import_that_climbs(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("from .store import Store\nfrom . import __version__\nimport cristal_events.jobs.audit\n")
    names = _imports(bad)
    assert {"cristal_events.store.Store", "cristal_events.jobs.audit"} <= {n for n in names if n.startswith(ABOVE)}
    assert "cristal_events.__version__" in names and "cristal_events.__version__" not in SUBMODULES
