"""The shared assertions of a refusal: one sentence, and nothing written.

``refused`` is the rules and API form (a command raises exactly ``message`` and the log does not grow);
``one_error`` is the CLI form (exit status 1, no traceback, exactly one line, returned for comparison).
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from cristal_events.errors import CristalError, RuleError


def refused(target: Any, command: Any, message: str, *, exc: type[CristalError] = RuleError,
            faces: list[int] | None = None) -> None:
    """``command`` is refused in exactly the one sentence ``message`` and nothing is appended.

    ``target`` is the rules harness's :class:`~harness.Table` or a :class:`~cristal_events.service.Campaign`:
    the one helper for every rule refusal, whichever layer the test stands on."""
    last = target.store.last_position if hasattr(target, "store") else target.last_position
    before = last()
    with pytest.raises(exc) as info:
        target.execute(command, faces=faces)
    assert str(info.value) == message, str(info.value)
    assert last() == before


def one_error(res: Any) -> str:
    """The one line a refused CLI command prints (exit status 1, no traceback, nothing else)."""
    assert res.exit_code == 1, res.output
    assert "Traceback" not in res.output and "Internal error" not in res.output
    lines = res.output.strip().splitlines()
    assert len(lines) == 1, res.output
    return lines[0]


def every_table(camp: Any) -> dict[str, list[Any]]:
    """Every table of a SQLite campaign file, its rows sorted (the log, the read models, their
    checkpoints, the snapshots): two campaigns built two ways compare equal row for row."""
    names = sorted(r[0] for r in camp.store.conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'"))
    return {t: sorted(camp.store.conn.execute(f'SELECT * FROM "{t}"').fetchall(), key=repr) for t in names}


def bench_generator() -> Any:
    """The benchmarks' campaign generator (benchmarks/generator.py, not a package), loaded once as the
    module ``bench_generator``."""
    if "bench_generator" in sys.modules:
        return sys.modules["bench_generator"]
    path = Path(__file__).resolve().parents[1] / "benchmarks" / "generator.py"
    spec = importlib.util.spec_from_file_location("bench_generator", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_generator"] = module
    spec.loader.exec_module(module)
    return module


def second_process_fails(monkeypatch: Any) -> None:
    """Make a rebuild's second process fail (its rows refused as a cell SQLite cannot hold), while
    this process writes its own as usual: what a failed child must leave to the first."""
    from cristal_events.projections import runner

    parent, real = os.getpid(), runner._plain_rows

    def fails_in_the_child(rows: Any, table: Any) -> Any:
        if os.getpid() != parent:
            raise ValueError("a cell of type Fraction")
        return real(rows, table)

    monkeypatch.setattr(runner, "_plain_rows", fails_in_the_child)
