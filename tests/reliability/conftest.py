"""Shared set-up of the reliability tests: the test ledger ruleset and subprocess helpers."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import ledger_ruleset


@pytest.fixture(autouse=True, scope="module")
def _ledger_ruleset_registered():
    """``ledger`` is a known ruleset during the reliability test modules only (other tests list the real ones)."""
    ledger_ruleset.register()
    yield
    ledger_ruleset.unregister()


def child_env(**extra: str) -> dict[str, str]:
    """The environment of a worker process: this checkout and this folder importable."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(HERE), str(HERE.parent), env.get("PYTHONPATH", "")])
    env.update(extra)
    return env


def worker(*args: str, **kw: object) -> subprocess.Popen[str]:
    """Start ``workers.py`` with ``args`` in a child process (stdout piped, text mode)."""
    return subprocess.Popen([sys.executable, str(HERE / "workers.py"), *args], env=child_env(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)  # type: ignore[call-overload]


def log_fingerprint(path: Path) -> tuple[int, str]:
    """(number of events, hash of the last one), read with a plain sqlite3 connection."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        n = conn.execute("SELECT COUNT(*) FROM events").fetchone()[0]
        row = conn.execute("SELECT hash FROM events ORDER BY position DESC LIMIT 1").fetchone()
        return n, row[0] if row else ""
    finally:
        conn.close()


@pytest.fixture
def ledger_db(tmp_path: Path) -> Path:
    """A fresh ledger campaign with a public seed and thor holding 100 XP."""
    from cristal_events import init_campaign

    path = tmp_path / "ledger.db"
    camp = init_campaign(path, name="Fiabilité", ruleset="ledger", seed=42)
    camp.execute(ledger_ruleset.AwardXp(character="thor", amount=100, reason="départ"))
    camp.close()
    return path
