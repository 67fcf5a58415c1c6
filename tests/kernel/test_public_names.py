"""Public names across modules (issue 15, item 8): a name another module imports is public. No module of
``cristal_events/`` or ``projections/`` imports a ``_private`` name from another module
(``from .common import _int``); a name used across modules loses its leading underscore instead. Dunder
names (``__version__``) are not private."""

from __future__ import annotations

import ast
from pathlib import Path

import cristal_events

ROOT = Path(cristal_events.__file__).parent.parent
TREES = ("cristal_events", "projections")


def private_imports(source: str) -> list[tuple[int, str, str]]:
    """``(line, module, name)`` of each ``from MODULE import _name`` in ``source`` (relative modules keep
    their dots: ``..content``); gettext's ``_`` is not a private name."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            module = "." * node.level + (node.module or "")
            out.extend((node.lineno, module, alias.name) for alias in node.names
                       if alias.name.startswith("_") and not alias.name.startswith("__")
                       and alias.name != "_")  # gettext's ``_`` (cristal_events.i18n) is public by convention
    return out


def test_the_trees_hold_the_modules():
    files = [f for tree in TREES for f in (ROOT / tree).rglob("*.py")]
    assert len(files) > 100
    assert ROOT / "cristal_events" / "rulesets" / "cristal" / "fights" / "common.py" in files


def test_no_module_imports_a_private_name_from_another():
    found = {str(f.relative_to(ROOT)): hits for tree in TREES for f in sorted((ROOT / tree).rglob("*.py"))
             if (hits := private_imports(f.read_text(encoding="utf-8")))}
    assert found == {}


def test_the_check_catches_a_private_import_and_lets_public_and_dunder_names_pass():
    source = ("from .common import _int, need\n"
              "from ..content import content_from_sections as cfs, _parse_file as parse\n"
              "from cristal_events import __version__\n"
              "import cristal_events._private_module\n")
    assert private_imports(source) == [(1, ".common", "_int"), (2, "..content", "_parse_file")]
