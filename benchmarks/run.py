"""Every figure of issue 8's performance table, with its target, its baseline and the ratio.

    python benchmarks/run.py [--events 1000000] [--small 100000] [--repeat 3]

Builds a realistic Lois du Cristal campaign (benchmarks/generator.py: a party, sessions, fights,
purchases, rests, notes; played through the engine's rules, then extended by eras), and measures:

* bulk import (validate each payload with the campaign's codec, re-chain and hash, append in
  batches of 1,000) of ``--small`` and ``--events`` exported events, vs raw sqlite3 inserts of the
  same payloads and vs the eventsourcing library (``bench`` extra; skipped when not installed);
* replay (read, decode to typed events, fold) vs the raw decode + the same fold;
* a full rebuild of every real projection vs the raw replay;
* ``sheet --at`` a random position (snapshot + fold) vs a full replay of the state;
* one CLI write (``cristal xp award``) vs the start-up of ``python -c "import sqlite3"``;
* ``verify`` of the hash chain vs a raw scan of the same rows;
* the peak memory (max RSS) of a process rebuilding every projection of the big campaign.
Figures are medians of ``--repeat`` runs (the big-campaign ones: of ``--repeat-big`` runs), an engine figure
and its baseline taking turns in each round (``baseline.median_times``).
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import random
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path[:0] = [str(ROOT), str(HERE)]

import baseline as B
import generator
import msgspec
from cristal_events.projections import runner

import cristal_events.store as S
from cristal_events import open_campaign
from cristal_events.store import Store

ENV = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
# an installed engine runs from compiled bytecode (pip compiles it): measure start-up that way even
# where PYTHONDONTWRITEBYTECODE is set, with the bytecode kept out of the source tree
ENV.pop("PYTHONDONTWRITEBYTECODE", None)
ENV["PYTHONPYCACHEPREFIX"] = os.path.join(tempfile.gettempdir(), "cristal-bench-pycache")


def exported_rows(camp) -> list[B.Row]:
    """The envelope and payload of every event, as an export file carries them (ids included)."""
    return [(r.event_id, r.stream, r.version, r.type, r.schema_version, r.payload, r.recorded_at, r.session, r.actor,
             r.causation_id, r.correlation_id) for r in camp.store.read_all(decode=False)]


def engine_import(path: str, codec, rows) -> None:
    """What ``cristal import`` does: validate every payload with the campaign's codec while
    ``Store.import_rows`` re-chains, hashes and appends them (multi-row INSERTs, one transaction)."""
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(path + suffix):
            os.remove(path + suffix)
    store = Store.create(path, codec)
    decode = codec.decode

    def validated():
        for r in rows:
            decode(r[3], r[4], r[5])  # validation: a bad payload is refused naming the field
            yield r

    store.import_rows(validated())
    store.close()


def raw_import(path: str, rows) -> None:
    conn = B.raw_create(path)
    B.raw_append(conn, rows, 1000)
    conn.close()


def count_fold(state: int, ev) -> int:
    return state + 1


def engine_replay(camp) -> int:
    state = 0
    for rec in camp.store.read_all(hashes=False):  # a replay folds; the raw floor reads no hashes either
        state = count_fold(state, rec.event)
    return state


def full_state(camp):
    world = camp._initial()
    for rec in camp.store.read_all(hashes=False):
        world = camp.fold(world, rec)
    return world


def _user_env() -> dict[str, str]:
    """The environment of a user's shell: no source tree on the path, and bytecode used as pip wrote it
    (this machine sets PYTHONDONTWRITEBYTECODE, which would make pip skip it and every run recompile)."""
    drop = ("PYTHONPATH", "PYTHONPYCACHEPREFIX", "PYTHONDONTWRITEBYTECODE", "CRISTAL_DB")
    return {k: v for k, v in os.environ.items() if k not in drop}


def runtime_dependencies(name: str = "cristal-events") -> list[Any]:
    """The installed distributions ``pip install .`` would bring (the closure of the requirements,
    extras left out), without ``name`` itself."""
    from importlib import metadata

    seen: dict[str, Any] = {}

    def walk(req: str) -> None:
        key = re.sub(r"[-_.]+", "-", req).lower()
        if key in seen:
            return
        try:
            seen[key] = dist = metadata.distribution(req)
        except metadata.PackageNotFoundError:
            return
        for line in dist.requires or []:
            if "extra ==" not in line:
                walk(re.match(r"[A-Za-z0-9_.\-]+", line).group(0))

    walk(name)
    return [d for k, d in seen.items() if k != name]


def link_dependencies(folder: str) -> str:
    """A folder holding links to the top-level modules (and metadata) of :func:`runtime_dependencies`
    only: a user's environment has those, not this development environment's test and benchmark
    tools (``typing_extensions`` there, for one, makes every ``import msgspec`` a few ms slower)."""
    deps = os.path.join(folder, "deps")
    os.makedirs(deps, exist_ok=True)
    for dist in runtime_dependencies():
        for top in {Path(str(f)).parts[0] for f in dist.files or ()}:
            target, link = Path(dist.locate_file(top)), os.path.join(deps, top)
            if top not in ("..", "__pycache__") and target.exists() and not os.path.lexists(link):
                os.symlink(target, link)
    return deps


def installed_python(folder: str) -> str:
    """A fresh virtual environment with the engine installed from this tree as a user installs it
    (``pip install .``: a wheel, compiled bytecode, no editable finder), its runtime dependencies
    seen through a ``.pth`` line (:func:`link_dependencies`). Returns its python.

    The start-up of an editable install (a finder imported by ``site``), or of a source tree on
    PYTHONPATH, is not the one a user gets; and the floor must run in the same interpreter set-up.
    """
    venv = os.path.join(folder, "venv")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", venv], check=True)
    py = os.path.join(venv, "bin", "python")
    purelib = subprocess.run([py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             check=True, capture_output=True, text=True).stdout.strip()
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--compile", "--target", purelib,
                    str(ROOT)], check=True, capture_output=True, cwd=folder, env=_user_env())
    Path(purelib, "bench_deps.pth").write_text(link_dependencies(folder) + "\n")
    return py


def cli_write_seconds(py: str, db: str, repeat: int) -> tuple[float, float, float]:
    """(median seconds of one ``cristal xp award``, of ``python -c 'import sqlite3'``, and of
    ``python -c 'import sqlite3, click, msgspec'``: the start-up with the two libraries the product
    is built on and none of its code), all run by the installed engine's interpreter ``py`` (see
    :func:`installed_python`), taking turns in each round."""
    code = "from cristal_events.cli import main; main()"
    who = next(iter(open_campaign(db).state().rules.characters))
    env, away = _user_env(), os.path.dirname(os.path.dirname(py))  # not the source tree: -c puts the cwd first

    def write() -> None:
        subprocess.run([py, "-c", code, "--db", os.path.abspath(db), "xp", "award", who, "5", "--reason", "bench"],
                       env=env, check=True, capture_output=True, cwd=away)

    def floor() -> None:
        subprocess.run([py, "-c", "import sqlite3"], env=env, check=True, capture_output=True, cwd=away)

    def libraries() -> None:
        subprocess.run([py, "-c", "import sqlite3, click, msgspec"], env=env, check=True, capture_output=True,
                       cwd=away)

    write()  # warm-up: the file cache, as at a table where the engine already ran
    floor()
    libraries()
    w, f, lib = B.median_times([write, floor, libraries], repeat)
    return w, f, lib


def warm_file_cache(*paths: str) -> None:
    """Read each file (and its WAL) once, so that the OS caches it before a measurement."""
    for path in paths:
        for name in (path, path + "-wal"):
            if os.path.exists(name):
                with open(name, "rb") as f:
                    while f.read(1 << 20):
                        pass


def peak_rebuild_mb(db: str) -> float:
    """The rebuilding process's own peak RSS (VmHWM). Not ``ru_maxrss``: Linux carries a process's
    maxrss across fork and exec, so a child of this (large) benchmark process would report the
    parent's size."""
    code = ("from cristal_events import open_campaign\nfrom cristal_events.projections import runner as r\n"
            f"c = open_campaign({db!r}); r.rebuild(c); c.close()\n"
            "print(next(l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM:')))")
    out = subprocess.run([sys.executable, "-c", code], env=ENV, check=True, capture_output=True, text=True)
    return int(out.stdout.strip().splitlines()[-1]) / 1024


class Table:
    def __init__(self) -> None:
        self.rows: list[tuple[str, str, str, str, str, str]] = []

    def add(self, figure: str, value: str, target: str, baseline: str, ratio: str, verdict: bool | None) -> None:
        self.rows.append((figure, value, target, baseline, ratio, "" if verdict is None else ("met" if verdict else "MISSED")))
        print(f"  {figure}: {value} (baseline {baseline}, ratio {ratio}, target {target})", file=sys.stderr, flush=True)

    def print(self) -> None:
        head = ("figure", "engine", "target", "baseline", "ratio", "")
        widths = [max(len(r[i]) for r in [head, *self.rows]) for i in range(6)]
        for r in [head, tuple("-" * w for w in widths), *self.rows]:
            print("| " + " | ".join(c.ljust(w) for c, w in zip(r, widths)) + " |")


def main() -> None:
    ap = argparse.ArgumentParser(description="Print every figure of issue 8's table with its target and baseline.")
    ap.add_argument("--events", type=int, default=1_000_000, help="size of the big campaign")
    ap.add_argument("--small", type=int, default=100_000, help="size of the small bulk import")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--repeat-big", type=int, default=1)
    ap.add_argument("--keep", default=None, help="reuse (or keep) the big campaign at this path (an existing file keeps its own size)")
    a = ap.parse_args()
    es_missing = B.eventsourcing_available()
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, {platform.system()} {platform.release()}, "
          f"Python {platform.python_version()}, SQLite {sqlite3.sqlite_version}")
    if es_missing:
        print(f"note: {es_missing}")
    folder = tempfile.mkdtemp(prefix="cristal-bench-")
    t = Table()
    try:
        big = a.keep or os.path.join(folder, "big.db")
        if not os.path.exists(big):
            t0 = time.perf_counter()
            generator.generate(big, a.events)
            print(f"generated {a.events:,} events in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
        camp = open_campaign(big)
        n_big = camp.store.last_position()
        print(f"big campaign: {n_big:,} events" + (f" (kept at {big})" if a.keep else ""))
        rows = exported_rows(camp)
        codec = camp.store.codec
        # the campaign's payloads as objects, for the eventsourcing column (the same data in both stores)
        payloads = [msgspec.json.decode(r[5]) for r in rows] if not es_missing else []
        # this process now holds every row (and payload) of the campaign: millions of objects that a
        # real import or replay process does not have. Out of the garbage collector's sight, they no
        # longer make each full collection during a measurement traverse them (which slowed whatever
        # allocates most: the engine's validation, eventsourcing's decoding).
        gc.freeze()

        # --- bulk import
        for n, rep in ((a.small, a.repeat), (n_big, a.repeat_big)):
            part = rows[:n]
            te, tr = B.median_times([lambda part=part: engine_import(os.path.join(folder, "imp.db"), codec, part),
                                     lambda part=part: raw_import(os.path.join(folder, "raw.db"), part)], rep)
            e, r = n / te, n / tr
            line = f"{e:,.0f} ev/s"
            t.add(f"bulk import {n:,}", line, ">= 0.7 x raw", f"raw {r:,.0f} ev/s", f"{e / r:.2f} x raw", e >= 0.7 * r)
            if not es_missing:
                es_append, _ = B.eventsourcing_run(os.path.join(folder, "es.db"), n, payloads=payloads[:n])
                t.add(f"bulk import {n:,} vs eventsourcing", line, ">= 4 x eventsourcing",
                      f"eventsourcing {es_append:,.0f} ev/s", f"{e / es_append:.2f} x es", e >= 4 * es_append)
                # what "4 x eventsourcing" asks of the engine here, against the raw floor of the same rows
                t.add(f"eventsourcing's import {n:,} against the raw floor", f"{es_append:,.0f} ev/s", "(information)",
                      f"raw {r:,.0f} ev/s", f"{es_append / r:.2f} x raw (4 x es = {4 * es_append / r:.2f} x raw)",
                      None)
                es_small, _ = B.eventsourcing_run(os.path.join(folder, "es.db"), n)
                t.add(f"bulk import {n:,} vs eventsourcing, two-field events", line, "(information)",
                      f"eventsourcing {es_small:,.0f} ev/s", f"{e / es_small:.2f} x es", None)
        # --- replay
        raw_path = os.path.join(folder, "raw.db")
        raw_import(raw_path, rows)
        # the raw floor's file was just written, so it is in the OS file cache; the campaign's may have
        # been pushed out by the imports above (gigabytes of files at 1M events): read both once, so
        # that the engine and its floor read from memory alike
        warm_file_cache(big, raw_path)
        conn = B.raw_connect(raw_path)
        te, tr, full = B.median_times([lambda: engine_replay(camp),
                                       lambda: B.raw_replay(conn, codec.classes, count_fold, 0),
                                       lambda: full_state(camp)], a.repeat_big)
        # on its own: a rebuild writes ~150k rows, and a read measured right after one runs slower
        # (which would flatter every ratio to that baseline)
        reb = B.median_time(lambda: runner.rebuild(camp), a.repeat_big)
        e, r = n_big / te, n_big / tr
        t.add(f"replay {n_big:,} (read, decode, fold)", f"{e:,.0f} ev/s", ">= 0.8 x raw", f"raw {r:,.0f} ev/s",
              f"{e / r:.2f} x raw", e >= 0.8 * r)
        if not es_missing:
            _, es_replay = B.eventsourcing_run(os.path.join(folder, "es.db"), min(n_big, a.small),
                                               payloads=payloads[:a.small])
            t.add("replay vs eventsourcing", f"{e:,.0f} ev/s", ">= 4 x eventsourcing",
                  f"eventsourcing {es_replay:,.0f} ev/s", f"{e / es_replay:.2f} x es", e >= 4 * es_replay)
        raw_replay = r
        t.add(f"replay {n_big:,} with the Lois du Cristal fold", f"{n_big / full:,.0f} ev/s", "(information)",
              f"raw {raw_replay:,.0f} ev/s", f"{n_big / full / raw_replay:.2f} x raw", None)
        # --- rebuild of every projection
        e = n_big / reb
        t.add(f"rebuild every projection, {n_big:,}", f"{e:,.0f} ev/s", ">= 0.25 x raw replay",
              f"raw replay {raw_replay:,.0f} ev/s", f"{e / raw_replay:.2f} x raw", e >= 0.25 * raw_replay)
        # --- sheet --at
        rng = random.Random(5)
        positions = [rng.randint(1, n_big) for _ in range(max(5, a.repeat * 3))]
        times = []
        for p in positions:
            t0 = time.perf_counter()
            camp.state_at(p)
            times.append(time.perf_counter() - t0)
        at = sorted(times)[len(times) // 2]
        t.add("sheet --at a random position", f"{at * 1000:,.1f} ms", "<= 1/50 of a full replay",
              f"full replay {full * 1000:,.0f} ms", f"1/{full / at:,.0f}", at <= full / 50)
        # --- verify
        scan = B.raw_connect(big)  # the same rows: the campaign's own events table
        tv, t1, ts = B.median_times([camp.verify, lambda: camp.verify(workers=1), lambda: B.raw_scan(scan)],
                                    a.repeat_big)
        e, e1, r = n_big / tv, n_big / t1, n_big / ts
        scan.close()
        t.add(f"verify {n_big:,} (hash chain, {S.verify_workers(n_big)} processes)", f"{e:,.0f} ev/s", ">= 0.5 x raw scan",
              f"raw scan {r:,.0f} ev/s", f"{e / r:.2f} x raw", e >= 0.5 * r)
        t.add(f"verify {n_big:,}, one process", f"{e1:,.0f} ev/s", "(information)", f"raw scan {r:,.0f} ev/s",
              f"{e1 / r:.2f} x raw", None)
        conn.close()
        camp.close()
        # --- CLI write and peak memory
        small_db = os.path.join(folder, "cli.db")
        generator.generate(small_db, 2000, quiet=True)
        py = installed_python(folder)
        w, f, lib = cli_write_seconds(py, small_db, a.repeat)
        t.add("CLI write (cristal xp award)", f"{w * 1000:,.0f} ms", "<= 3 x import sqlite3",
              f"python -c 'import sqlite3' {f * 1000:,.0f} ms", f"{w / f:.1f} x", w <= 3 * f)
        # what the target leaves to the engine: the libraries the product is built on, imported alone
        t.add("start-up importing click and msgspec only", f"{lib * 1000:,.0f} ms", "(information)",
              f"python -c 'import sqlite3' {f * 1000:,.0f} ms", f"{lib / f:.1f} x", None)
        w_big, _, _ = cli_write_seconds(py, big, 1)
        t.add(f"CLI write on the {n_big:,}-event campaign", f"{w_big * 1000:,.0f} ms", "(information)",
              f"python -c 'import sqlite3' {f * 1000:,.0f} ms", f"{w_big / f:.1f} x", None)
        mb = peak_rebuild_mb(big)
        t.add(f"peak memory, rebuild of {n_big:,}", f"{mb:,.0f} MB", "<= 150 MB", "-", "-", mb <= 150)
    finally:
        if not a.keep:
            shutil.rmtree(folder, ignore_errors=True)
    print()
    t.print()


if __name__ == "__main__":
    main()
