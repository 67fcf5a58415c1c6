"""The cyclic garbage collector paused around a long read that makes many objects and no cycle (the
site export's walk, :mod:`.jobs.site_walk`; the XP ledger's rows, :func:`.jobs.audit.ledger_rows`).
The standard library has no such context manager; ``imports_paused`` (the package's ``__init__``)
is the other pause, which also freezes what the imports made. Below both jobs, so that the ledger's
read does not import the export's walk (which imports pickle and tempfile) to share it."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def no_cycle_collector() -> Iterator[None]:
    """Python's cycle collector paused for a long read, as it was before afterwards. The site walk makes
    a state per event, each holding a new map of the characters (2,000 of them at 1M events), and
    keeps a session's states until its page is written: each collection of the youngest objects
    then walks those maps again. The walk makes no reference cycle (its objects are freed by their
    counts as each page is written); paused, the fold of the 1M campaign's events took 21 µs
    instead of 81 and the diff 30 instead of 75 (benchmarks/README.md, "HTML export")."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()
