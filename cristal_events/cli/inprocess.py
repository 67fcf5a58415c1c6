"""Running the ``cristal`` click commands in this process over a campaign kept open: the one way the
faces above the CLI (the table console, the web table) run a command line.

:class:`Kept` is what ``open_campaign`` of the commands uses when ``ctx.obj["shared_campaign"]`` is
set: one :class:`~cristal_events.service.Campaign` kept open across commands, its state in memory caught
up at each command with every writer's appends (:meth:`Campaign.state`), the projections attached at
its first write. :func:`invoke` runs the words of one command line (without ``cristal`` and ``--db``)
through the same click group as the terminal, so the parser, the errors and the output are the
terminal's own; a refusal raises the :class:`click.ClickException` whose sentence the terminal prints.
:func:`captured` takes what the commands run in one context print (the web table's answer and warnings).
"""

from __future__ import annotations

import io
import sqlite3
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, TextIO

import click

#: a module of this package without commands of its own (the listing of core commands reads it)
COMMANDS: list[click.Command] = []


class Kept:
    """One campaign file kept open for the commands run in this process."""

    def __init__(self, db: str):
        self.db = db
        self.campaign: Any = None
        self.attached = False

    @property
    def ruleset(self) -> str | None:
        """The ruleset of the campaign once open (the click group picks the ruleset's commands by it
        instead of reading the file's header again at each command)."""
        return None if self.campaign is None else self.campaign.ruleset.name

    def __call__(self, write: bool) -> Any:
        from ..service import Campaign

        if self.campaign is None:
            self.campaign = Campaign.open(self.db, readonly=False)
            self.campaign.head_snapshots = False  # the state is held here; the snapshot is written at close
        if write and not self.attached:
            from cristal_events import projections

            projections.attach(self.campaign)
            self.attached = True
        return self.campaign

    def sealed(self) -> list[int] | None:
        """The positions of the last session's secret rolls still sealed (what every command's output
        ends with, ``cli._sealed_notice``), read on the campaign kept open: its state, caught up with
        every writer's appends by the command (only the rows after the last position it folded are read),
        keeps them (``core.sealed``), and the last session's start is one look-up in the session starts'
        index. No second connection and no scan of the session, unlike the one-shot peek
        (:meth:`Store.sealed_of <cristal_events.store.Store.sealed_of>`), whose result it equals.
        None when the campaign is not open or cannot be read (the caller peeks)."""
        if self.campaign is None:
            return None
        from ..errors import CristalError

        try:
            start = self.campaign.store.last_session_start()
            if start is None:
                return []
            return [p for p in self.campaign.state().core.sealed if p > start]
        except (CristalError, sqlite3.Error):  # a command closed it (serve): the caller peeks, as before
            return None

    def close(self) -> None:
        if self.campaign is not None:
            try:  # a cache for the next process's fold: a busy, read-only or gone store goes without it
                self.campaign.snapshot_head()
            except Exception:  # noqa: BLE001 - whatever the backend's error, closing must go on
                pass
            self.campaign.close()
            self.campaign = None
            self.attached = False


def invoke(kept: Kept, words: list[str], *, actor: str = "GM") -> int:
    """Run ``cristal --db DB --actor ACTOR WORDS...`` in this process (its output goes to this process's
    stdout and stderr); return its exit status. A refusal raises :class:`click.ClickException` (the
    terminal's ``Error: ...`` sentence is its ``format_message()``); an interrupt :class:`click.Abort`."""
    from . import cli

    try:
        code = cli.main(args=["--db", kept.db, "--actor", actor, *words], prog_name="cristal",
                        standalone_mode=False, obj={"shared_campaign": kept})
    except click.exceptions.Exit as exc:
        return exc.exit_code
    return code if isinstance(code, int) else 0


#: the (stdout, stderr) buffers of the commands this context runs under :func:`captured`, or None
_capture: ContextVar[tuple[io.StringIO, io.StringIO] | None] = ContextVar("cristal_capture", default=None)
_install_lock = threading.Lock()


class _Routed(io.TextIOBase):
    """What ``sys.stdout`` / ``sys.stderr`` are once :func:`captured` has run in this process: a write goes
    to the buffers of the context that writes (a web request's command, in its worker thread), else to the
    stream this one stands for. ``contextlib.redirect_stdout`` swaps the process's one ``sys.stdout``
    instead: whatever any other thread printed meanwhile (the table console or a terminal command in
    another language, a test's CliRunner, a Python warning) landed in the request's answer, which is how
    a French sealed-roll warning reached the ``X-Cristal-Warnings`` of an English request whose summary was
    English; and two overlapping swaps restored each other's buffers. Written here because the standard
    library's redirections are process-wide by design (``contextlib``'s documentation says so)."""

    encoding = "utf-8"  # click writes text to a stream that names an encoding as it is (no re-wrapping)
    errors = "strict"

    def __init__(self, index: int, fallback: TextIO):
        super().__init__()
        self.index, self.fallback = index, fallback

    def _target(self) -> TextIO:
        found = _capture.get()
        return found[self.index] if found is not None else self.fallback

    def write(self, text: str) -> int:
        return self._target().write(text)

    def flush(self) -> None:
        self._target().flush()

    def isatty(self) -> bool:
        return self._target().isatty()

    def writable(self) -> bool:
        return True

    @property
    def buffer(self) -> Any:  # the binary stream beneath, for a caller writing bytes (a capture has none)
        return self._target().buffer

    def fileno(self) -> int:
        return self._target().fileno()  # a capture has none (io.UnsupportedOperation, as a StringIO)


def _install() -> None:
    """Route ``sys.stdout`` and ``sys.stderr`` through :class:`_Routed` (again after anyone swapped them)."""
    with _install_lock:
        if not isinstance(sys.stdout, _Routed):
            sys.stdout = _Routed(0, sys.stdout)
        if not isinstance(sys.stderr, _Routed):
            sys.stderr = _Routed(1, sys.stderr)


@contextmanager
def captured() -> Iterator[tuple[io.StringIO, io.StringIO]]:
    """``with captured() as (out, err):`` what the commands run in this context print, and only that: the
    writes of other threads and contexts go where they went (see :class:`_Routed`)."""
    _install()
    out, err = io.StringIO(), io.StringIO()
    token = _capture.set((out, err))
    try:
        yield out, err
    finally:
        _capture.reset(token)
