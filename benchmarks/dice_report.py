"""The fairness report and the recap on a big campaign, each beside the read it cannot avoid (issue 21).

Two A/B figures, medians of ``--rounds`` rounds, the two paths taking turns within each round:

* **dice report**: ``dice_report(store.read_all())`` over the whole log against the same decoded read
  alone (``list(store.read_all())``): the report's own cost is the difference;
* **recap**: ``recap.build`` of the campaign's busiest session in the players' view against the
  folded walk of that session (``list(walk(...))``, which every recap and the replay start from).

    python benchmarks/dice_report.py --events 20000 --rounds 5
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.generator import generate
from cristal_events.jobs import dice_report, recap
from cristal_events.jobs.walk import resolve_range, walk
from cristal_events.service import Campaign


def _median_pair(first, second, rounds: int) -> tuple[float, float]:
    a, b = [], []
    for _ in range(rounds):
        t = time.perf_counter()
        first()
        a.append(time.perf_counter() - t)
        t = time.perf_counter()
        second()
        b.append(time.perf_counter() - t)
    return statistics.median(a), statistics.median(b)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "big.db"
        generate(path, args.events, quiet=True)
        with Campaign.open(path, readonly=True) as camp:
            records = list(camp.store.read_all())
            report = dice_report.dice_report(records)
            sizes = Counter(r.session for r in records if r.session is not None)
            busiest = sizes.most_common(1)[0][0]
            print(f"{len(records)} events, {report.dice} dice in {report.commands} commands, "
                  f"{len(report.groups)} groups; busiest session {busiest} ({sizes[busiest]} events)")
            engine, floor = _median_pair(lambda: dice_report.dice_report(camp.store.read_all()),
                                         lambda: list(camp.store.read_all()), args.rounds)
            print(f"dice report: {engine * 1000:.0f} ms; decoded read alone {floor * 1000:.0f} ms "
                  f"({engine / floor:.2f} ×)")
            after, end = resolve_range(camp, session=busiest)
            engine, floor = _median_pair(lambda: recap.build(camp, session=busiest, view="players"),
                                         lambda: list(walk(camp, after=after, until=end)), args.rounds)
            print(f"recap (players): {engine * 1000:.0f} ms; folded walk of the session {floor * 1000:.0f} ms "
                  f"({engine / floor:.2f} ×)")


if __name__ == "__main__":
    main()
