"""Nothing below the CLI drives the CLI (issue 15, item 4): campaign scripts live in ``cli/``, no
module below the CLI imports it, and ``demo`` renders the sheets itself, as ``cristal sheet`` does."""

from __future__ import annotations

import re
from pathlib import Path

from cristal_events import open_campaign
from cristal_events.cli import demo
from cristal_events.cli.script import load
from cristal_events.cli.script import run as run_script

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "cristal_events"
_IMPORTS_CLI = re.compile(r"^\s*(from\s+(cristal_events\.cli|\.+cli)\b|import\s+cristal_events\.cli\b)", re.M)


def _below_the_cli() -> list[Path]:
    """The package's modules that sit below the CLI: all but ``cli/``, ``web/`` and ``console/`` (the web
    table and the table console are faces above the CLI: they run the same click commands in-process,
    one command surface)."""
    return [p for p in sorted(PACKAGE.rglob("*.py"))
            if not {"cli", "web", "console"} & set(p.relative_to(PACKAGE).parts) and not p.name.startswith("cli")]


def test_no_module_below_the_cli_imports_it():
    found = [p.relative_to(ROOT).as_posix() for p in _below_the_cli()
             if _IMPORTS_CLI.search(p.read_text(encoding="utf-8"))]
    assert found == []
    assert (PACKAGE / "jobs" / "script.py").exists() is False


def test_the_check_would_catch_an_import_of_the_cli():
    assert _IMPORTS_CLI.search("    from ..cli import cli\n")
    assert _IMPORTS_CLI.search("from cristal_events.cli.common import echo\n")
    assert not _IMPORTS_CLI.search("from ..click_helpers import x\n")


def test_demo_never_runs_the_cli_in_process():
    text = Path(demo.__file__).read_text(encoding="utf-8")
    assert "cli.main" not in text and "redirect_stdout" not in text


def test_demo_sheets_are_what_cristal_sheet_prints(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from cristal_events.cli import cli

    for ruleset in ("cristal", "illergan"):
        db = tmp_path / f"{ruleset}.db"
        run_script(load(demo.find_sample(ruleset)), db)
        with open_campaign(db, readonly=True) as camp:
            party = demo._party(camp)
            assert party
            for cid in party:
                printed = CliRunner().invoke(cli, ["--db", str(db), "sheet", cid], catch_exceptions=False)
                assert printed.exit_code == 0, printed.output
                assert demo._sheet_text(camp, cid) == printed.output.rstrip()
            assert demo._sheet_text(camp, "nobody").startswith("(no sheet for nobody: ")
