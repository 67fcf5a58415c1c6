"""Progress bars (issue 18 item 7): every command that walks the log draws one on stderr when it is
a terminal (a pseudo-terminal here, os.openpty), and none when stderr is a pipe."""

from __future__ import annotations

import os
import select
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from pgcluster import module_target

from cristal_events import init_campaign
from cristal_events.service import RecordNote

ROOT = Path(__file__).resolve().parents[2]
COMMANDS = {  # the command, and the label its bar starts with
    "verify": (["verify"], "verify: chain ["),
    "rebuild": (["rebuild"], "rebuild ["),
    "replay": (["replay"], "replay ["),
    "log": (["log"], "log ["),
    "audit": (["audit", "xp"], "audit ["),
    "export": (["export", "timeline", "--format", "md"], "export ["),
}


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def db(request, tmp_path_factory):
    """A long session on each backend (an SQLite file, a PostgreSQL campaign)."""
    with module_target(request, tmp_path_factory.mktemp("bars"), "barres") as path:
        camp = init_campaign(path, name="Barres", ruleset="cristal", seed=3)
        camp.start_session(title="Longue")
        with camp.store.transaction():
            for i in range(2500):
                camp.execute(RecordNote(text=f"note {i}"))
        camp.end_session()
        camp.close()
        yield path


def _cristal(db: Path | str, args: list[str], *, stderr_tty: bool) -> tuple[str, str]:
    """Run ``cristal --db DB ARGS`` in a new process, stderr to a pipe or to a pseudo-terminal; return (stdout, stderr)."""
    code = "import sys; from cristal_events.cli import main; sys.argv[0] = 'cristal'; main()"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "80"}
    cmd = [sys.executable, "-c", code, "--db", str(db), *args]
    if not stderr_tty:
        done = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120)
        assert done.returncode == 0, done.stderr
        return done.stdout, done.stderr
    master, slave = os.openpty()
    sink = tempfile.TemporaryFile()  # stdout to a file: a full pipe would stall the child
    try:
        proc = subprocess.Popen(cmd, stdout=sink, stderr=slave, stdin=subprocess.DEVNULL, env=env)
        os.close(slave)
        err = b""
        while True:
            ready, _, _ = select.select([master], [], [], 60)
            if not ready:
                break
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            err += chunk
        assert proc.wait(timeout=60) == 0, err.decode(errors="replace")
        sink.seek(0)
        return sink.read().decode(), err.decode(errors="replace")
    finally:
        os.close(master)
        sink.close()


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_a_terminal_shows_the_bar_and_a_pipe_does_not(db, name):
    args, label = COMMANDS[name]
    out, err = _cristal(db, args, stderr_tty=True)
    assert label in err and "100% (" in err, err[-500:]
    assert label not in out  # the bar is on stderr, never in what a script reads
    out, err = _cristal(db, args, stderr_tty=False)
    assert "[" not in err and "%" not in err, err[-500:]


def test_import_shows_its_bar_on_a_terminal_only(db, tmp_path):
    exported = tmp_path / "t.jsonl"
    out, _ = _cristal(db, ["export", "timeline", "--format", "jsonl", "-o", str(exported)], stderr_tty=False)
    out, err = _cristal(db, ["import", str(exported), str(tmp_path / "a.db")], stderr_tty=True)
    assert "import [" in err and "100% (" in err and "Imported 2503 events" in out
    out, err = _cristal(db, ["import", str(exported), str(tmp_path / "b.db")], stderr_tty=False)
    assert "[" not in err and "Imported 2503 events" in out
