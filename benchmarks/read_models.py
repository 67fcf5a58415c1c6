"""Read-model writes: sqlite-utils against the hand-written statements the store keeps (issue 15, item 5).

Three A/B figures, medians of ``--rounds`` rounds, the two paths taking turns within each round:

* **rows**: ``--rows`` rows of the shape of the ``xp_ledger`` read model (14 columns, one of them
  JSON) written into a fresh table in one transaction, by ``Table.insert_all(replace=True)`` and by
  the store's multi-row ``INSERT OR REPLACE`` (``Store.replace_rows``);
* **create**: the read-model tables of a campaign created (``Table.create``) against the
  hand-written ``CREATE TABLE IF NOT EXISTS`` of ``projections.base.Table.ddl``;
* **import**: ``python -c "import cristal_events.cli"`` (what every CLI command imports before it
  runs) against the same with ``sqlite_utils`` imported too: what a command that catches the read
  models up would pay if the per-command path used sqlite-utils.

    python benchmarks/read_models.py --rows 20000 --rounds 7
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import msgspec
import sqlite_utils
from cristal_events.projections.base import XP_LEDGER

from cristal_events.store import Store


def ledger_rows(n: int) -> list[tuple]:
    return [(i, f"hero{i % 5}", i // 500 + 1, "2026-12-01T10:00:00Z", "GM", "award" if i % 3 else "spend",
             (i % 90) - 30, "award", f"Victoire {i}", i % 7 or None, i % 7 or None, 1000 + i, None,
             msgspec.json.encode(["refund"] if i % 11 == 0 else []).decode()) for i in range(1, n + 1)]


def _fresh(folder: str, k: int) -> Store:
    store = Store.create(os.path.join(folder, f"c{k}.db"))
    return store


def time_rows(rows: list[tuple], rounds: int) -> tuple[float, float]:
    cols = list(XP_LEDGER.columns)
    hand, lib = [], []
    with tempfile.TemporaryDirectory() as folder:
        for r in range(rounds):
            for which in (("hand", "lib") if r % 2 == 0 else ("lib", "hand")):
                store = _fresh(folder, len(hand) + len(lib))
                store.conn.execute(XP_LEDGER.ddl("xp_ledger"))
                t = time.perf_counter()
                with store.transaction():
                    if which == "hand":
                        store.replace_rows("xp_ledger", cols, rows)
                    else:
                        db = sqlite_utils.Database(store.conn, recursive_triggers=False, execute_plugins=False)
                        db["xp_ledger"].insert_all((dict(zip(cols, row)) for row in rows), replace=True,
                                                   batch_size=500)
                (hand if which == "hand" else lib).append(time.perf_counter() - t)
                store.close()
    return statistics.median(hand), statistics.median(lib)


def time_create(rounds: int) -> tuple[float, float]:
    from cristal_events.projections import projection_classes

    tables = {name: t for cls in (*projection_classes("cristal"), *projection_classes("illergan"))
              for name, t in {**cls.state_tables, **cls.append_tables}.items()}
    hand, lib = [], []
    with tempfile.TemporaryDirectory() as folder:
        for r in range(rounds):
            for which in (("hand", "lib") if r % 2 == 0 else ("lib", "hand")):
                store = _fresh(folder, len(hand) + len(lib))
                t = time.perf_counter()
                with store.transaction():
                    if which == "hand":
                        for name, spec in tables.items():
                            store.conn.execute(spec.ddl(name))
                    else:
                        store.create_read_tables({n: (s.columns, s.pk) for n, s in tables.items()})
                (hand if which == "hand" else lib).append(time.perf_counter() - t)
                store.close()
    return statistics.median(hand), statistics.median(lib)


def time_import(rounds: int) -> tuple[float, float]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    without, with_ = [], []
    for r in range(rounds):
        for which in ((0, 1) if r % 2 == 0 else (1, 0)):
            code = "import cristal_events.cli" + (", sqlite_utils" if which else "")
            t = time.perf_counter()
            subprocess.run([sys.executable, "-c", code], env=env, check=True)
            (with_ if which else without).append(time.perf_counter() - t)
    return statistics.median(without), statistics.median(with_)


def main() -> None:
    ap = argparse.ArgumentParser(description="Read-model writes: sqlite-utils vs the store's own statements.")
    ap.add_argument("--rows", type=int, default=20000)
    ap.add_argument("--rounds", type=int, default=7)
    a = ap.parse_args()
    rows = ledger_rows(a.rows)
    print(f"Python {sys.version.split()[0]}, sqlite-utils {_version()}, "
          f"medians of {a.rounds} rounds")
    print(f"{'figure':<44} {'hand-written':>13} {'sqlite-utils':>13} {'cost':>8}")
    for name, (hand, lib) in (
        (f"rows: {a.rows:,} xp_ledger rows written", time_rows(rows, a.rounds)),
        ("create: every read-model table created", time_create(a.rounds)),
        ("import: python -c 'import cristal_events.cli'", time_import(a.rounds)),
    ):
        print(f"{name:<44} {hand * 1000:>10.1f} ms {lib * 1000:>10.1f} ms {100 * (lib - hand) / hand:>+7.0f}%")


def _version() -> str:
    from importlib.metadata import version

    return version("sqlite-utils")


if __name__ == "__main__":
    main()
