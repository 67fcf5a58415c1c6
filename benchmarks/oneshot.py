"""The one-shot CLI write of issue 20 on its own, and as an A/B of source trees.

``python benchmarks/oneshot.py`` times, as whole processes of an installed engine (a wheel of this tree in a
fresh venv: ``run.installed_python``), ``cristal xp award`` and ``cristal note`` on a copy of the cached
10k campaign and ``cristal --help``, against the two baselines of the row in ``benchmarks/run.py``
(``python -c "import sqlite3, click, msgspec"`` and ``sqlite-utils insert`` of one row), all taking
turns in each round; it prints each median (wall and CPU time of the process), its ratio to the
baselines, and the load average before and after.

``--tree OTHER`` (repeatable) adds the same commands from another source tree (e.g. ``git archive`` of a
commit unpacked into ``/tmp/before``), its own wheel in its own venv, in the same rounds: the A/B of a
change to the start-up (benchmarks/README.md, "One-shot CLI write"); ``--commands "xp award"`` times only
that command of each tree. The wall time of a process and its CPU time (user + system) are both printed:
on a shared machine the CPU time is the steadier signal.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE)]

import run  # the benchmark's own set-up: the installed engine, the cached campaigns, the user's environment


def install(tree: Path, folder: str) -> str:
    """An installed engine of ``tree`` (what ``run.installed_python`` does for this one), its python."""
    venv = os.path.join(folder, "venv")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", venv], check=True)
    py = os.path.join(venv, "bin", "python")
    purelib = subprocess.run([py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             check=True, capture_output=True, text=True).stdout.strip()
    # built from a copy: pip builds in the tree it is given, and a build/ left there from another state of
    # the tree would hand the wheel its stale modules
    source = shutil.copytree(tree, os.path.join(folder, "src"), ignore=shutil.ignore_patterns(
        ".git", "build", "*.egg-info", "__pycache__", ".venv", "*.db"))
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--compile", "--target", purelib,
                    source], check=True, capture_output=True, cwd=folder, env=run._user_env())
    Path(purelib, "bench_deps.pth").write_text(run.link_dependencies(folder) + "\n")
    return py


def timed(argv: list[str], cwd: str, stdin: bytes | None = None) -> tuple[float, float]:
    """(wall, CPU) seconds of one process (its CPU time: user + system, from the kernel's accounting)."""
    t0 = time.perf_counter()
    p = subprocess.Popen(argv, env=run._user_env(), cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE)
    assert p.stdin is not None and p.stderr is not None
    if stdin:
        p.stdin.write(stdin)
    p.stdin.close()
    err = p.stderr.read()
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode:
        raise SystemExit(f"{' '.join(argv)} failed: {err.decode()[-500:]}")
    return wall, usage.ru_utime + usage.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=20, help="rounds, every command once in each (default 20)")
    ap.add_argument("--tree", type=Path, action="append", default=[],
                    help="another source tree to time beside this one (repeatable; labelled by its folder's name)")
    ap.add_argument("--commands", default="xp award,note,--help",
                    help="the engine's commands to time, among xp award, note, --help (default: all three)")
    a = ap.parse_args()
    wanted = {c.strip() for c in a.commands.split(",")}
    folder = tempfile.mkdtemp(prefix="cristal-oneshot-")
    try:
        template = run.generator.cached(10_000, quiet=True)  # the benchmark's cached 10k campaign (read only)
        trees = {"this": run.ROOT, **{t.resolve().name: t.resolve() for t in a.tree}}
        cmds: dict[str, tuple[list[str], str, bytes | None]] = {}
        floor_py = None
        for label, tree in trees.items():
            sub = os.path.join(folder, label)
            os.makedirs(sub)
            py = install(tree, sub)
            floor_py = floor_py or py
            db = run.writable_copy(template, sub, "cli.db")
            who = next(iter(run.open_campaign(db).state().rules.characters))
            away = os.path.dirname(os.path.dirname(py))  # not the source tree: -c puts the cwd first
            code = ["-c", "from cristal_events.cli import main; main()", "--db", db]
            for name, args in (("xp award", ["xp", "award", who, "5", "--reason", "bench"]),
                               ("note", ["note", "bench one-shot"]), ("--help", ["--help"])):
                if name in wanted:
                    cmds[f"{label}: {name}"] = ([py, *code, *args], away, None)
        assert floor_py is not None
        away = os.path.dirname(os.path.dirname(floor_py))
        cmds["import click, msgspec, sqlite3"] = ([floor_py, "-c", "import sqlite3, click, msgspec"], away, None)
        su_db = os.path.join(folder, "su.db")
        cmds["sqlite-utils insert"] = ([floor_py, "-c", "from sqlite_utils.cli import cli; cli()", "insert", su_db,
                                        "notes", "-"], away, b'{"text": "bench", "n": 1}')
        for k, (argv, cwd, stdin) in list(cmds.items()):  # warm-up: the file cache, the read models' tables
            try:
                timed(argv, cwd, stdin)
            except SystemExit as exc:  # e.g. an older tree whose --help needs a dependency not linked
                print(f"left out: {k}: {str(exc)[-300:]}", file=sys.stderr)
                del cmds[k]
        load = os.getloadavg()[0]
        times: dict[str, list[tuple[float, float]]] = {k: [] for k in cmds}
        for _ in range(a.rounds):
            for k, (argv, cwd, stdin) in cmds.items():
                times[k].append(timed(argv, cwd, stdin))
        wall = {k: statistics.median(t[0] for t in v) for k, v in times.items()}
        cpu = {k: statistics.median(t[1] for t in v) for k, v in times.items()}
        lib, su = wall["import click, msgspec, sqlite3"], wall["sqlite-utils insert"]
        print(f"{a.rounds} rounds, medians; load average {load:.2f} before, {os.getloadavg()[0]:.2f} after")
        lib_cpu, su_cpu = cpu["import click, msgspec, sqlite3"], cpu["sqlite-utils insert"]
        print(f"{'command':<34} {'wall ms':>8} {'cpu ms':>8} {'/ import':>9} {'/ sqlite-utils':>15} "
              f"{'cpu / import':>13} {'cpu / s-u':>10}")
        for k in cmds:
            print(f"{k:<34} {wall[k] * 1000:8.1f} {cpu[k] * 1000:8.1f} {wall[k] / lib:8.2f}x {wall[k] / su:14.2f}x "
                  f"{cpu[k] / lib_cpu:12.2f}x {cpu[k] / su_cpu:9.2f}x")
        print("goal: xp award <= 1.5 x import click, msgspec, sqlite3 and <= 0.7 x sqlite-utils insert")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
