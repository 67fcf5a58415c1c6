"""A/B measurements of the design levers of issue 20 (benchmarks/README.md, "Levers, A/B").

    python benchmarks/levers.py rebuild --events 100000 --rounds 7

``rebuild``: a rebuild of every read model folding the read models that keep a state of their own
(timeline, sessions, ledger) in a second process (A) against one process (B: the same code with
``runner.PARALLEL_REBUILD_MIN`` out of reach), the two taking turns in each round, on two copies of a
generated campaign (``generator.cached``). Prints the median of each and their ratio.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE)]

import baseline as B
import generator
from cristal_events.projections import runner

from cristal_events import open_campaign


def rebuild_ab(events: int, rounds: int) -> tuple[float, float]:
    """(median seconds of a rebuild with the second process, without it)."""
    folder = tempfile.mkdtemp(prefix="cristal-levers-")
    try:
        src = generator.cached(events, quiet=True)
        a_db, b_db = os.path.join(folder, "a.db"), os.path.join(folder, "b.db")
        shutil.copyfile(src, a_db)
        shutil.copyfile(src, b_db)
        a, b = open_campaign(a_db), open_campaign(b_db)
        threshold = runner.PARALLEL_REBUILD_MIN

        free = runner._free_core
        runner._free_core = lambda: True  # A always forks, whatever the load: the lever itself is measured

        def parallel() -> None:
            runner.PARALLEL_REBUILD_MIN = threshold
            runner.rebuild(a)

        def serial() -> None:
            runner.PARALLEL_REBUILD_MIN = 1 << 62
            runner.rebuild(b)

        print(f"load average before: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores", file=sys.stderr)
        ta, tb = B.median_times([parallel, serial], rounds)
        print(f"load average after: {os.getloadavg()[0]:.1f}", file=sys.stderr)
        runner.PARALLEL_REBUILD_MIN, runner._free_core = threshold, free
        a.close()
        b.close()
        return ta, tb
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("lever", choices=["rebuild"])
    ap.add_argument("--events", type=int, default=100_000)
    ap.add_argument("--rounds", type=int, default=7)
    a = ap.parse_args()
    if a.lever == "rebuild":
        ta, tb = rebuild_ab(a.events, a.rounds)
        print(f"rebuild of {a.events:,} events, medians of {a.rounds}: second process {ta:.3f} s, "
              f"one process {tb:.3f} s, {tb / ta:.2f} x faster")


if __name__ == "__main__":
    main()
