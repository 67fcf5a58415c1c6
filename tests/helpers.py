"""The shared assertions of a refusal: one sentence, and nothing written.

``refused`` is the rules and API form (a command raises exactly ``message`` and the log does not grow);
``one_error`` is the CLI form (exit status 1, no traceback, exactly one line, returned for comparison).
"""

from __future__ import annotations

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
