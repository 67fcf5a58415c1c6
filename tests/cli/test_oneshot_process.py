"""The ``cristal`` process of one command: its end (``cli._end_process``) and the collector's pause
while it imports (``cristal_events.imports_paused``)."""

from __future__ import annotations

import gc
import importlib
import os
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

ROOT = Path(__file__).resolve().parents[2]
MAIN = "from cristal_events.cli import main; main()"


def _cristal(*args: str, code: str = MAIN) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT), "CRISTAL_LANG": "en"})


def test_the_process_prints_all_and_exits_with_the_command_s_status(tmp_path):
    from cristal_events.cli import cli

    db = str(tmp_path / "c.db")
    assert _cristal("init", db, "--name", "T").returncode == 0
    for i in range(40):  # a long output through a pipe: every line reaches it before the process ends
        assert CliRunner().invoke(cli, ["--db", db, "note", f"note {i} " + "x" * 200]).exit_code == 0
    shown = _cristal("--db", db, "log")
    expected = CliRunner().invoke(cli, ["--db", db, "log"])  # click 8.2+: .stdout without stderr
    assert shown.returncode == 0 and shown.stdout == expected.stdout and len(shown.stdout.splitlines()) >= 41
    refused = _cristal("--db", db, "reveal", "999")
    assert refused.returncode == 1 and refused.stderr.startswith("Error: ")
    usage = _cristal("--db", db, "note")
    assert usage.returncode == 2 and "Missing argument" in usage.stderr


def test_exit_handlers_still_run_and_a_tracer_gets_the_interpreter_s_own_end(tmp_path):
    db = str(tmp_path / "c.db")
    handler = ("import atexit, sys; atexit.register(lambda: sys.stdout.write('handler ran\\n')); " + MAIN)
    out = _cristal("init", db, "--name", "T", code=handler)
    assert out.returncode == 0 and out.stdout.endswith("handler ran\n")
    # under a tracer (coverage) the interpreter ends as usual: what it does at its end still happens
    traced = ("import sys, atexit; sys.settrace(lambda *a: None); "
              "atexit.register(lambda: print('traced end')); " + MAIN)
    out = _cristal("--db", db, "note", "hi", code=traced)
    assert out.returncode == 0 and "Note recorded at position" in out.stdout and "traced end" in out.stdout


def test_main_with_arguments_returns_to_its_caller(tmp_path):
    db = str(tmp_path / "c.db")
    code = ("import sys\nfrom cristal_events.cli import main\n"
            "try:\n    main(sys.argv[1:])\nexcept SystemExit as e:\n    print('status', e.code)\n")
    out = _cristal("init", db, "--name", "T", code=code)
    assert out.returncode == 0 and out.stdout.strip().endswith("status 0")


def test_the_collector_pause_freezes_only_what_an_import_made_and_keeps_a_disabled_collector():
    from cristal_events import imports_paused

    assert gc.isenabled()
    frozen = gc.get_freeze_count()
    with imports_paused():
        assert not gc.isenabled()
    assert gc.isenabled() and gc.get_freeze_count() == frozen  # nothing imported: nothing frozen
    gc.disable()
    try:
        with imports_paused():
            importlib.import_module("cristal_events.cli.copy")  # a module this test process may not hold yet
        assert not gc.isenabled()  # the caller's choice stands
    finally:
        gc.enable()
    sys.modules.pop("cristal_events.rulesets.cristal.narration", None)
    with imports_paused():
        with imports_paused():  # an inner pause leaves the collector to the outer one
            importlib.import_module("cristal_events.rulesets.cristal.narration")
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled() and gc.get_freeze_count() > frozen
