"""Full disk, read-only file, a lock held past the timeout, a newer engine's file: one sentence, nothing lost."""

from __future__ import annotations

import hashlib
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

import ledger_ruleset as L
import pytest
from click.testing import CliRunner
from conftest import child_env, log_fingerprint, worker

from cristal_events import migrate, open_campaign
from cristal_events.cli import cli
from cristal_events.errors import SchemaTooNew, StoreUnavailable
from cristal_events.service import RecordNote


def _note(path: Path, text: str = "Une note") -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["--db", str(path), "note", text])
    return result.exit_code, result.output


def test_a_full_disk_is_one_sentence_and_loses_nothing(ledger_db: Path) -> None:
    before = log_fingerprint(ledger_db)
    camp = open_campaign(ledger_db)
    pages = camp.store.conn.execute("PRAGMA page_count").fetchone()[0]
    camp.store.conn.execute(f"PRAGMA max_page_count = {pages}")
    with pytest.raises(StoreUnavailable) as err:
        camp.execute(RecordNote(text="x" * 200_000))
    assert str(err.value) == f"The disk holding {ledger_db} is full; nothing was written."
    # the connection stays usable once space is back
    camp.store.conn.execute(f"PRAGMA max_page_count = {pages * 100}")
    camp.execute(L.AwardXp(character="thor", amount=1))
    camp.close()
    n, _ = log_fingerprint(ledger_db)
    assert n == before[0] + 1
    camp = open_campaign(ledger_db, readonly=True)
    assert camp.verify().ok
    assert camp.state().rules.xp == {"thor": 101}
    camp.close()


def test_a_read_only_open_refuses_writes_in_one_sentence(ledger_db: Path) -> None:
    before = log_fingerprint(ledger_db)
    camp = open_campaign(ledger_db, readonly=True)
    with pytest.raises(StoreUnavailable) as err:
        camp.execute(L.AwardXp(character="thor", amount=5))
    camp.close()
    assert str(err.value) == f"The campaign {ledger_db} is read-only; nothing was written."
    assert log_fingerprint(ledger_db) == before


def _without_root_override() -> list[str]:
    """A command prefix under which even root cannot write a 0444 file (CAP_DAC_OVERRIDE dropped)."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without setpriv: chmod cannot make a file read-only for root")
    return [setpriv, "--bounding-set=-dac_override", "--inh-caps=-dac_override", "--"]


def test_a_read_only_file_refuses_the_cli_write_in_one_sentence(ledger_db: Path) -> None:
    """chmod does not stop root: as root, the CLI runs without the capability that overrides it."""
    folder = Path(tempfile.mkdtemp(prefix="cristal-ro-"))
    try:
        os.chmod(folder, 0o777)  # sqlite may create its -shm and -wal files beside the campaign
        path = folder / "ro.db"
        shutil.copy(ledger_db, path)
        os.chmod(path, 0o444)
        before = log_fingerprint(path)
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        code = ("import ledger_ruleset; ledger_ruleset.register()\n"
                "from cristal_events.cli import main; main()\n")
        proc = subprocess.run([*_without_root_override(), sys.executable, "-c", code, "--db", str(path), "note", "Refusé"],
                              env=child_env(), capture_output=True, text=True, timeout=60)
        assert proc.returncode == 1, proc.stderr
        assert proc.stderr == f"Error: The campaign {path} is read-only; nothing was written.\n"
        assert log_fingerprint(path) == before
        assert hashlib.sha256(path.read_bytes()).hexdigest() == digest
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def test_a_lock_held_past_the_timeout_is_one_sentence(ledger_db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    before = log_fingerprint(ledger_db)
    holder = worker("lock", str(ledger_db))
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        monkeypatch.setenv("CRISTAL_BUSY_TIMEOUT", "0.2")
        code, out = _note(ledger_db)
    finally:
        holder.kill()
        holder.communicate(timeout=30)
    assert code == 1
    assert out == f"Error: The campaign {ledger_db} is locked by another program past the timeout; nothing was written.\n"
    assert log_fingerprint(ledger_db) == before
    code, out = _note(ledger_db)  # the lock is gone: the same command now succeeds
    assert code == 0, out
    assert log_fingerprint(ledger_db)[0] == before[0] + 1


def test_a_file_from_a_newer_engine_is_refused_and_untouched(ledger_db: Path) -> None:
    conn = sqlite3.connect(ledger_db, isolation_level=None)
    conn.execute("INSERT INTO schema_migrations VALUES (9999, '9999_future.sql', 'x', '2030-01-01')")
    conn.close()
    before = log_fingerprint(ledger_db)
    digest = hashlib.sha256(ledger_db.read_bytes()).hexdigest()
    for args in (["note", "Trop tôt"], ["log"], ["verify"]):
        result = CliRunner().invoke(cli, ["--db", str(ledger_db), *args])
        assert result.exit_code == 1
        assert result.output == ("Error: This campaign uses schema version 9999, newer than this engine's "
                                 f"{migrate.latest()}; "
                                 "upgrade cristal-events to open it (the file was not touched).\n")
    with pytest.raises(SchemaTooNew):
        open_campaign(ledger_db)
    assert log_fingerprint(ledger_db) == before
    assert hashlib.sha256(ledger_db.read_bytes()).hexdigest() == digest
