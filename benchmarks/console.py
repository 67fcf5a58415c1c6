"""A command at the table console against the same command through the one-shot CLI, on big generated
campaigns (issue 18, item 2: goal <= 2 ms p50 of engine time at 1M events).

    python benchmarks/console.py                                  # 100k and 1M events (generated once, kept)
    python benchmarks/console.py --sizes 20000 --rounds 100       # a quick run
    python benchmarks/console.py --db /tmp/big.db                 # an existing Lois du Cristal campaign
    python benchmarks/console.py --profile                        # and cProfile of the console's lines
    python benchmarks/console.py --sizes 1000000 --ab             # the sealed-notice levers, A/B/C

``--db`` is written to (each round appends its events): point it at a copy, never at the shared cache of
generated campaigns (``benchmarks/generator.py``'s ``CACHE``, /tmp/cristal-bench-campaigns/), which it
refuses (``--ab`` only copies it, and may name one). Without ``--db`` the campaigns are generated into
``--keep`` (and kept there between runs).

Each round is one attack in a fight of two extras started for the benchmark (``attack m1 m2 10,1``
with the fight current: the console expands it to ``combat attack bench m1 m2 --dice 10,1``; one
attack, one damage, one dice record appended, projections following), and one ``note``. Columns:

- console: :meth:`Console.run_line` on the campaign kept open (what ``cristal play`` does for a line;
  its text output captured, so the terminal's own speed is not counted): the engine time of a line;
- one-shot, in process: the same click command through ``cristal.main`` in this process, opening the
  campaign for the command as the terminal does (the one-shot CLI's engine time, start-up excluded);
- one-shot, process: ``cristal --db DB ...`` as a new process (what the game master waits for at the
  terminal: interpreter start-up and imports included; fewer rounds, it is slow).

The rounds run in ``--repeats`` blocks of each kind in turn (a console at the table has no other writer
between its lines; the first line after a one-shot block catches up with what that block appended).
Figures are p50 and p99 over the rounds; the baseline columns run in the same process and the same run.

``--ab``: the console's attack and note with the levers of the sealed-roll count that ends every
command's output (``cli._sealed_notice``), each variant on its own copy of the campaign, the variants
taking turns in blocks of each round: ``kept + index`` (what ships: the count read on the campaign kept
open, ``Kept.sealed``), ``peek + index`` (the one-shot peek ``Store.sealed_of`` at every line: a second
connection, the secret rolls read through their partial index of migration 0007) and ``peek, no index``
(the peek scanning the whole last session: the engine before both levers).
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import io
import os
import pstats
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.generator import CACHE, generate
from cristal_events.cli import cli
from cristal_events.console.session import Console

STATS = ["--stat", "m1:PV=9999", "--stat", "m1:ATT=4", "--stat", "m1:DP=4", "--stat", "m1:DMG=1d6", "--stat", "m1:REF=2",
         "--stat", "m2:PV=9999", "--stat", "m2:ATT=4", "--stat", "m2:DP=4", "--stat", "m2:DMG=1d6", "--stat", "m2:REF=1"]


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def quiet(fn, *args):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        result = fn(*args)
    return result, out.getvalue(), err.getvalue()


def whose_turn(console: Console, fight: str) -> tuple[str, str]:
    shown = console._json(["combat", "show", fight])  # what the bottom bar reads (not timed)
    actor = shown["next"]
    return actor, "m2" if actor == "m1" else "m1"


def one_shot(db: str, words: list[str]) -> None:
    code = cli.main(args=["--db", db, *words], prog_name="cristal", standalone_mode=False)
    assert code in (None, 0), words


def bench(db: str, rounds: int, repeats: int, processes: int, profile: bool) -> dict[str, list[float]]:
    console = Console(db)
    times: dict[str, list[float]] = {k: [] for k in ("console attack", "console note", "one-shot attack",
                                                     "one-shot note", "process attack")}
    try:
        fight = f"bench{os.getpid()}{int(time.time())}"
        ok, _, err = quiet(console.run_line, f"combat start {fight} --with m1,m2 " + " ".join(STATS))
        assert ok is True, err
        assert quiet(console.run_line, f"fight {fight}")[0] is True
        quiet(console.run_line, "note warm-up")
        profiler = cProfile.Profile() if profile else None
        block = max(1, rounds // repeats)
        for start in range(0, rounds, block):  # blocks of each kind in turn: a console at the table has
            n = min(block, rounds - start)      # no other writer between its lines, the one-shot CLI is one
            for i in range(start, start + n):
                actor, target = whose_turn(console, fight)
                t0 = time.perf_counter()
                if profiler:
                    profiler.enable()
                ok, _, err = quiet(console.run_line, f"attack {actor} {target} 10,1")
                if profiler:
                    profiler.disable()
                times["console attack"].append(time.perf_counter() - t0)
                assert ok is True, err
                t0 = time.perf_counter()
                ok, _, err = quiet(console.run_line, f"note 'console {i}'")
                times["console note"].append(time.perf_counter() - t0)
                assert ok is True, err
            for i in range(start, start + n):
                actor, target = whose_turn(console, fight)
                t0 = time.perf_counter()
                quiet(one_shot, db, ["combat", "attack", fight, actor, target, "--dice", "10,1"])
                times["one-shot attack"].append(time.perf_counter() - t0)
                t0 = time.perf_counter()
                quiet(one_shot, db, ["note", f"one-shot {i}"])
                times["one-shot note"].append(time.perf_counter() - t0)
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        for _ in range(processes):
            actor, target = whose_turn(console, fight)
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-c", "from cristal_events.cli import main; main()", "--db", db,
                            "combat", "attack", fight, actor, target, "--dice", "10,1"],
                           check=True, env=env, capture_output=True)
            times["process attack"].append(time.perf_counter() - t0)
        quiet(console.run_line, f"combat end {fight}")
        if profiler:
            stats = pstats.Stats(profiler)
            stats.sort_stats("cumulative").print_stats(30)
            stats.sort_stats("tottime").print_stats(15)
    finally:
        console.close()
    return times


#: the sealed-notice variants of --ab: (name, reads the count on the kept campaign, keeps the index)
VARIANTS = (("kept + index", True, True), ("peek + index", False, True), ("peek, no index", False, False))


def ab(db: str, rounds: int, repeats: int, keep: str) -> dict[str, list[float]]:
    """Console attack and note times per sealed-notice variant (see ``--ab`` above)."""
    import shutil
    import sqlite3

    consoles: list[tuple[str, Console, str]] = []
    times: dict[str, list[float]] = {}
    try:
        for i, (name, kept, index) in enumerate(VARIANTS):
            copy = os.path.join(keep, f"ab{i}.db")
            shutil.copyfile(db, copy)
            console = Console(copy)
            fight = f"bench{os.getpid()}{int(time.time())}"
            ok, _, err = quiet(console.run_line, f"combat start {fight} --with m1,m2 " + " ".join(STATS))
            assert ok is True, err
            assert quiet(console.run_line, f"fight {fight}")[0] is True
            quiet(console.run_line, "note warm-up")  # opened: migration 0007 applied to the copy
            if not index:  # the engine before the index: taken back on this copy only
                conn = sqlite3.connect(copy)
                conn.execute("DROP INDEX events_sealed_rolls")
                conn.commit()
                conn.close()
            if not kept:  # the one-shot peek at every line (cli._sealed_notice's fallback)
                console.kept.sealed = lambda: None  # type: ignore[method-assign]
            consoles.append((name, console, fight))
            times[f"{name}: attack"], times[f"{name}: note"] = [], []
        block = max(1, rounds // repeats)
        for k, start in enumerate(range(0, rounds, block)):
            turn = k % len(consoles)  # each variant's block in turn, the first one rotating
            for name, console, fight in consoles[turn:] + consoles[:turn]:
                for i in range(start, min(rounds, start + block)):
                    actor, target = whose_turn(console, fight)
                    t0 = time.perf_counter()
                    ok, _, err = quiet(console.run_line, f"attack {actor} {target} 10,1")
                    times[f"{name}: attack"].append(time.perf_counter() - t0)
                    assert ok is True, err
                    t0 = time.perf_counter()
                    ok, _, err = quiet(console.run_line, f"note 'ab {i}'")
                    times[f"{name}: note"].append(time.perf_counter() - t0)
                    assert ok is True, err
    finally:
        for _, console, _ in consoles:
            console.close()
    return times


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="*", default=[100_000, 1_000_000], help="events of each campaign")
    ap.add_argument("--db", default=None, help="an existing Lois du Cristal campaign (instead of --sizes)")
    ap.add_argument("--rounds", type=int, default=300)
    ap.add_argument("--repeats", type=int, default=3, help="blocks of each kind, in turn")
    ap.add_argument("--processes", type=int, default=10, help="rounds of the one-shot CLI as a new process")
    ap.add_argument("--keep", default=os.path.join(os.environ.get("TMPDIR", "/tmp"), "cristal-console-bench"),
                    help="where the generated campaigns are kept between runs")
    ap.add_argument("--profile", action="store_true", help="print cProfile of the console's attack lines")
    ap.add_argument("--ab", action="store_true", help="the sealed-notice levers A/B/C (each on a copy in --keep)")
    args = ap.parse_args()
    if args.db and not args.ab and Path(args.db).resolve().is_relative_to(CACHE.resolve()):
        raise SystemExit(f"--db is written to: copy {args.db} out of {CACHE} first (the cache is shared)")

    targets: list[tuple[str, str]] = []
    if args.db:
        targets.append((args.db, args.db))
    else:
        os.makedirs(args.keep, exist_ok=True)
        for n in args.sizes:
            db = os.path.join(args.keep, f"c{n}.db")
            if not os.path.exists(db):
                t0 = time.perf_counter()
                generate(db, n, quiet=True)
                print(f"generated {n:,} events in {time.perf_counter() - t0:.0f} s ({db})")
            targets.append((db, f"{n:,} events"))
    if args.ab:
        os.makedirs(args.keep, exist_ok=True)
        print(f"{'console, sealed notice':28}{'p50 ms':>9}{'p99 ms':>9}   (each variant on its own copy, in turn)")
        for db, label in targets:
            times = ab(db, args.rounds, args.repeats, args.keep)
            print(f"-- {label} ({args.rounds} rounds; load average {os.getloadavg()[0]:.2f})")
            for k, xs in times.items():
                print(f"{k:28}{quantile(xs, 0.5) * 1000:9.2f}{quantile(xs, 0.99) * 1000:9.2f}")
        return
    print(f"{'':28}{'p50 ms':>9}{'p99 ms':>9}   (console: campaign kept open; one-shot: opened per command)")
    for db, label in targets:
        times = bench(db, args.rounds, args.repeats, args.processes, args.profile)
        print(f"-- {label} ({args.rounds} rounds; {args.processes} processes)")
        for k, xs in times.items():
            if xs:
                print(f"{k:28}{quantile(xs, 0.5) * 1000:9.2f}{quantile(xs, 0.99) * 1000:9.2f}")
        p50 = quantile(times["console attack"], 0.5) * 1000
        print(f"one-shot / console (attack p50): {quantile(times['one-shot attack'], 0.5) * 1000 / p50:.1f}x; "
              f"goal p50 <= 2 ms for a console attack: {'met' if p50 <= 2 else 'MISSED'}")


if __name__ == "__main__":
    main()
