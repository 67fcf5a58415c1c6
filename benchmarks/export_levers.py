"""A/B of the HTML site export's levers (benchmarks/README.md, "HTML export").

    python benchmarks/export_levers.py --db CAMPAIGN.db --rounds 3 [--until POSITION]
    python benchmarks/export_levers.py --db CAMPAIGN.db --tree BEFORE --after 900000 --events 10000 --rounds 6

``--tree BEFORE`` (a source tree of the engine, e.g. ``git archive COMMIT | tar -x -C BEFORE``)
measures this tree's site walk and pages against that one's: positions ``--after``+1 ..
``--after``+``--events`` written by ``jobs.page._write_sessions`` in one process (the emitted pages
counted, not written), each tree in a new process, the two taking turns (the first of a round
alternating), the CPU microseconds an event of each round and their medians and minimums (the
minimum is the figure that survives a machine shared by other work).

The site of a campaign (``jobs.page.export_site`` into a staged folder, as ``cristal export timeline
--format html -o SITE`` writes it), in three variants taking turns in each round: every lever (the
cycle collector paused, the later sessions in a second process), the cycle collector left on (one
process), and one process with the collector paused. Prints the wall-clock and CPU seconds (of the
first process) of each round and their medians, with the load average. The campaign is only read:
give it a generated campaign or a copy (``generator.cached``); never a campaign in use.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from contextlib import nullcontext
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE)]

from cristal_events import cycles  # the pause page.py reads, replaced per variant below
from cristal_events.cli.export import _session_rows
from cristal_events.jobs import page
from cristal_events.jobs.outputs import output_folder
from cristal_events.service import Campaign


def variants() -> dict[str, tuple[object, int]]:
    paused = cycles.no_cycle_collector
    return {"every lever (collector paused, 2 processes)": (paused, 2),
            "collector on, 1 process": (nullcontext, 1),
            "collector paused, 1 process": (paused, 1)}


def export_ab(db: str, rounds: int, until: int | None) -> dict[str, list[tuple[float, float]]]:
    out: dict[str, list[tuple[float, float]]] = {name: [] for name in variants()}
    paused = cycles.no_cycle_collector
    with tempfile.TemporaryDirectory(prefix="cristal-export-ab-") as folder:
        for r in range(rounds):
            for name, (collector, processes) in variants().items():
                cycles.no_cycle_collector = collector
                target = Path(folder) / "site"
                shutil.rmtree(target, ignore_errors=True)
                try:
                    with Campaign.open(db, readonly=True) as camp:
                        t0, c0 = time.perf_counter(), time.process_time()
                        with output_folder(target) as emit:
                            page.export_site(camp, emit, until=until, ledger=_session_rows(camp, None, None),
                                             processes=processes)
                        out[name].append((time.perf_counter() - t0, time.process_time() - c0))
                finally:
                    cycles.no_cycle_collector = paused
                wall, cpu = out[name][-1]
                print(f"round {r + 1} {name}: {wall:.2f} s, {cpu:.2f} s CPU; load {os.getloadavg()[0]:.1f}",
                      flush=True)
    return out


_TREE_CODE = r"""
import sys, time, gc, hashlib
from cristal_events import i18n
from cristal_events.jobs import page, site_walk
from cristal_events.jobs.walk import sessions
from cristal_events.service import Campaign
i18n.set_language("en")
db, after, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
gc.disable()  # as export_site does
with Campaign.open(db, readonly=True) as camp:
    infos = sessions(camp)
    col = page._Collector(camp, [])
    pages = []
    t = time.process_time()
    page._write_sessions(col, site_walk.steps(camp, after=after, until=after + n, infos=infos),
                         lambda name, html: pages.append((name, html)))
    cpu = time.process_time() - t
    digest = hashlib.sha256("".join(f"{name}\0{html}\0" for name, html in pages).encode()).hexdigest()
    print(cpu / n * 1e6, digest)
"""


def trees_ab(db: str, before: str, after: int, events: int, rounds: int) -> dict[str, list[float]]:
    """This tree against ``before``: CPU microseconds an event of the site walk and pages of one
    stretch, each round in new processes taking turns; both must write the same pages (a SHA-256 of
    their names and texts)."""
    import subprocess

    trees = {"this tree": str(HERE.parent), f"before ({before})": before}
    out: dict[str, list[float]] = {name: [] for name in trees}
    sizes: dict[str, str] = {}
    for r in range(rounds):
        order = list(trees.items()) if r % 2 == 0 else list(trees.items())[::-1]
        for name, tree in order:
            # -P: the current folder is not put first on the path (it would import this tree for both)
            done = subprocess.run([sys.executable, "-P", "-c", _TREE_CODE, os.path.abspath(db), str(after),
                                   str(events)], check=True, capture_output=True, text=True,
                                  env={**os.environ, "PYTHONPATH": tree})
            cpu, digest = done.stdout.split()
            out[name].append(float(cpu))
            sizes[name] = digest
        print(f"round {r + 1}: " + ", ".join(f"{k} {v[-1]:.1f}" for k, v in out.items())
              + f" µs an event (CPU); load {os.getloadavg()[0]:.1f}", flush=True)
    if len(set(sizes.values())) != 1:
        raise SystemExit(f"the trees wrote different pages: {sizes}")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", required=True, help="the campaign to export (only read)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--until", type=int, default=None, help="export positions 1..UNTIL only")
    ap.add_argument("--tree", default=None, help="a source tree to measure this one against (see above)")
    ap.add_argument("--after", type=int, default=0, help="with --tree: the position before the stretch")
    ap.add_argument("--events", type=int, default=10_000, help="with --tree: the events of the stretch")
    a = ap.parse_args()
    if a.tree:
        for name, runs in trees_ab(a.db, a.tree, a.after, a.events, a.rounds).items():
            print(f"{name}: median {statistics.median(runs):.1f}, minimum {min(runs):.1f} µs an event (CPU)")
        return
    for name, runs in export_ab(a.db, a.rounds, a.until).items():
        print(f"{name}: median {statistics.median(w for w, _ in runs):.2f} s, "
              f"{statistics.median(c for _, c in runs):.2f} s CPU of the first process")


if __name__ == "__main__":
    main()
