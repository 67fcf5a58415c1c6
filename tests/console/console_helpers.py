"""The console's test helpers: the console run as the table runs it, in its own process (piped
standard input, or a pseudo-terminal), and what the campaign's log holds."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from cristal_events.cli import cli

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": str(ROOT), "CRISTAL_LANG": "en"}
CRISTAL = [sys.executable, "-c", "from cristal_events.cli import main; main()"]


def build(tmp_path: Path, sample: str, target: str | None = None) -> Path | str:
    """The sample campaign built by its script, in ``tmp_path/table.db`` or at ``target`` (a PostgreSQL
    URL: the tests parametrised over both backends)."""
    db: Path | str = target if target is not None else tmp_path / "table.db"
    res = CliRunner().invoke(cli, ["script", "run", str(ROOT / "sample_campaigns" / sample), str(db)],
                             catch_exceptions=False)
    assert res.exit_code == 0, res.output
    return db


def play(db: Path | str, script: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``cristal --db DB play`` with ``script`` on its (piped) standard input (the environment read now:
    a PostgreSQL test's CRISTAL_SECRETS_DIR)."""
    return subprocess.run([*CRISTAL, "--db", str(db), "play"], input=script, capture_output=True, text=True,
                          env={**ENV, **{k: v for k, v in os.environ.items() if k == "CRISTAL_SECRETS_DIR"}},
                          timeout=120, cwd=cwd)


def last_position(db: Path | str) -> int:
    from cristal_events.service import Campaign

    camp = Campaign.open(db, readonly=True)
    try:
        return camp.store.last_position()
    finally:
        camp.close()
