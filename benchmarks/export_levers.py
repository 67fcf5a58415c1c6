"""A/B of the HTML site export's levers (benchmarks/README.md, "HTML export").

    python benchmarks/export_levers.py --db CAMPAIGN.db --rounds 3 [--until POSITION]

The site of a campaign (``jobs.page.export_site`` into a staged folder, as ``cristal export timeline
--format html -o SITE`` writes it), in three variants taking turns in each round: every lever (the
cycle collector paused, the later sessions in a second process), the cycle collector left on (one
process), and one process with the collector paused. Prints the wall-clock and CPU seconds (of the
first process) of each round and their medians, with the load average. The campaign is only read:
give it a generated campaign or a copy (``generator.cached``); never a campaign in use.
"""

from __future__ import annotations

import argparse
import importlib
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

from cristal_events.cli.export import _session_rows
from cristal_events.jobs import page
from cristal_events.jobs.outputs import output_folder
from cristal_events.service import Campaign

site_walk = importlib.import_module("cristal_events.jobs.site_walk")


def variants() -> dict[str, tuple[object, int]]:
    paused = site_walk.no_cycle_collector
    return {"every lever (collector paused, 2 processes)": (paused, 2),
            "collector on, 1 process": (nullcontext, 1),
            "collector paused, 1 process": (paused, 1)}


def export_ab(db: str, rounds: int, until: int | None) -> dict[str, list[tuple[float, float]]]:
    out: dict[str, list[tuple[float, float]]] = {name: [] for name in variants()}
    paused = site_walk.no_cycle_collector
    with tempfile.TemporaryDirectory(prefix="cristal-export-ab-") as folder:
        for r in range(rounds):
            for name, (collector, processes) in variants().items():
                site_walk.no_cycle_collector = collector
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
                    site_walk.no_cycle_collector = paused
                wall, cpu = out[name][-1]
                print(f"round {r + 1} {name}: {wall:.2f} s, {cpu:.2f} s CPU; load {os.getloadavg()[0]:.1f}",
                      flush=True)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", required=True, help="the campaign to export (only read)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--until", type=int, default=None, help="export positions 1..UNTIL only")
    a = ap.parse_args()
    for name, runs in export_ab(a.db, a.rounds, a.until).items():
        print(f"{name}: median {statistics.median(w for w, _ in runs):.2f} s, "
              f"{statistics.median(c for _, c in runs):.2f} s CPU of the first process")


if __name__ == "__main__":
    main()
