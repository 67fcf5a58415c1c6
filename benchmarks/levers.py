"""A/B measurements of the design levers of issue 20 (benchmarks/README.md, "Levers, A/B").

    python benchmarks/levers.py rebuild --events 100000 --rounds 7
    python benchmarks/levers.py command --events 100000 --rounds 5
    python benchmarks/levers.py console --events 1000000 --rounds 6 --commands 100

``rebuild``: a rebuild of every read model folding the read models that keep a state of their own
(timeline, sessions, ledger) in a second process (A) against one process (B: the same code with
``runner.PARALLEL_REBUILD_MIN`` out of reach), the two taking turns in each round, on two copies of a
generated campaign (``generator.cached``). Prints the median of each and their ratio.

``timeline``: a rebuild of every read model, in one process, with the timeline storing no summary
(version 2, its line told when read by ``projections.timeline.summary``; its rows copied from the
log in SQL, ``Timeline.log_columns``, or folded in Python) against the timeline of version 1 (a
French ``summary`` told and stored for each event), each on its own copy; then the
readers of one session (``log --session S`` and ``export timeline --format md --session S``, in
process through click) calling ``timeline.summary`` (A) or ``Campaign.summarize`` as before (B).

``memory``: a rebuild in one process, run in a child process per round and variant (the figure is
its VmHWM, read from /proc/self/status, as benchmarks/run.py reads it, and its wall time): the
rebuild as it is (every lever) against each memory lever taken back in turn.

``command``: ``note TEXT`` through the web table's in-process API path (``web.commands.run``, a
campaign kept open), p50 of ``--commands`` commands, with every command lever (A) and with each one
taken back in turn: the combat view built again when no rules event was folded
(``CristalCombats.changed_rows``), every session row rewritten (``Sessions.changed_rows``), the
checkpointed states decoded again (``runner._written`` emptied before each command). The variants take
turns in each round, each on its own copy of the campaign; the figure is the median over rounds.

``combatlog``: the combat read model's rebuild (``runner._run`` of that read model alone) and ``combat
log``'s read of the campaign's longest fight (its rows to its lines, p50 of ``--commands`` reads), with
the facts stored and each line and IT map computed when read (A: ``CristalCombats`` version 3) against
the lines and IT maps stored as text (B: version 2, kept in :func:`_stored_text_combats`), each on its
own copy of the generated campaign, the variants taking turns in each round.

``split``: a rebuild of every read model, each in a child process of its own on its own copy of
``--campaign`` (never written), the second process forced on (``runner._free_core``), with the rules'
read models split at the snapshot at or before ``runner.SPLIT_AT`` of the log (A, one variant per
``--split-at`` value) against the split taken back (B: ``SPLIT_AT`` 0, the second process folding the
sessions and the ledger only, as before) and one process (C), and ``baseline.raw_replay`` of the same
events (a raw copy of the log), all taking turns in each round. Prints each variant's median wall
time, CPU time of the rebuilding process and of its second process (``RUSAGE_CHILDREN``), the longer
of the two (the critical path a quiet machine shows, whatever the load here), its VmHWM, and the
ratios to the raw replay; then the load average::

    python benchmarks/levers.py split --campaign /tmp/me/big.db --rounds 3 --split-at 0.55,0.62

``console``: an attack (``attack A B 10,1`` in a fight of two extras, the fight current) and a
``note`` through :meth:`Console.run_line` (what ``cristal play`` runs for a line), p50 of ``--commands``
of each, with every lever and with the sessions' state copied into their checkpoint at each command
instead of being their rows (``Projection.rows_state`` taken back). The variants take turns in each
round, each on its own copy of the campaign. (The read models caught up in the command's own
transaction, one commit instead of two, was measured with this function at commit fed6160 and lost:
benchmarks/README.md, "Levers, A/B".)

``import``: a bulk import (``run.engine_import``: ``Store.import_rows(rows, validate=codec.decode)``)
with the payloads validated in worker processes (A: ``log_rows.validated``'s pool, one and two workers)
against this process alone (B: the same code with ``log_rows.IMPORT_PARALLEL_MIN`` out of reach), and
the raw sqlite3 + msgspec floor of ``run.py``, taking turns in each round, on the first ``--sizes``
rows of a campaign (``--campaign PATH``, read-only; default ``generator.cached(--events)``)::

    python benchmarks/levers.py import --campaign /tmp/me/big.db --sizes 10000,100000,1000000 --rounds 7

``verify``: ``Store.verify`` of a campaign (``--campaign PATH``, a copy) in two processes taking
stretches in turn (A), in two processes walking fixed halves (B: ``store._STRETCH_MIN`` out of reach)
and in one, against ``baseline.raw_scan`` of the same file, taking turns in each round; first in this
small process, then holding every exported row of the campaign in memory as ``run.py`` did before it
let them go (a fork, and the child's exit, cost with the size of the forking process)::

    python benchmarks/levers.py verify --campaign /tmp/me/big.db --rounds 7
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

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


def timeline_ab(events: int, rounds: int, session: int) -> dict[str, tuple[float, float]]:
    """{figure: (median seconds of the lever, of the lever taken back)}: the rebuild with the timeline
    copied in SQL, or folded in Python, against version 1; the readers with and without
    ``timeline.summary``."""
    from click.testing import CliRunner
    from cristal_events.projections import timeline
    from cristal_events.projections.base import Table

    import cristal_events.cli.campaign as cli_campaign
    import cristal_events.jobs.walk as walk
    from cristal_events import i18n
    from cristal_events.cli import cli

    class Folded(timeline.Timeline):
        """Version 2 folded in Python (its rows built by ``appended``), not copied from the log in SQL."""

        log_columns = {}

    class StoredSummary(timeline.Timeline):
        """Version 1 of the timeline, as it was: its French summary told and stored for each event."""

        version = 1
        log_columns = {}  # folded in Python, as version 1 was
        append_tables = {"timeline": Table({**timeline.Timeline.append_tables["timeline"].columns,
                                            "summary": "TEXT"}, pk="position")}

        def __init__(self, campaign):
            super().__init__(campaign)
            self._summarizers = {}

        def appended(self, state, rec):
            summarize = self._summarizers.get(type(rec.event))
            if summarize is None:
                summarize = self._summarizers[type(rec.event)] = self.campaign.summarizer(type(rec.event))
            with i18n.use("fr"):
                summary = summarize(rec)
            return {"timeline": [(rec.position, rec.recorded_at, rec.session, rec.stream, rec.type, rec.actor,
                                  summary)]}

    folder = tempfile.mkdtemp(prefix="cristal-levers-")
    real_for_campaign, told = runner.for_campaign, timeline.summary
    threshold = runner.PARALLEL_REBUILD_MIN
    try:
        src = generator.cached(events, quiet=True)
        dbs = [os.path.join(folder, f"{k}.db") for k in "abc"]
        for db in dbs:
            shutil.copyfile(src, db)
        a_db = dbs[0]
        a, b, c = (open_campaign(db) for db in dbs)
        runner.PARALLEL_REBUILD_MIN = 1 << 62  # one process: the lever itself is measured

        def with_timeline(cls, camp):
            def run() -> None:
                runner.for_campaign = lambda campaign: [cls(campaign) if type(p) is timeline.Timeline else p
                                                        for p in real_for_campaign(campaign)]
                try:
                    runner.rebuild(camp)
                finally:
                    runner.for_campaign = real_for_campaign
            return run

        print(f"load average before: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores", file=sys.stderr)
        ta, tb, tc = B.median_times([lambda: runner.rebuild(a), with_timeline(Folded, b),
                                     with_timeline(StoredSummary, c)], rounds)
        out = {f"rebuild of {events:,} events, version 2 copied in SQL / version 1": (ta, tc),
               f"rebuild of {events:,} events, version 2 folded in Python / version 1": (tb, tc)}
        for camp in (a, b, c):
            camp.close()
        invoke = CliRunner().invoke

        def reading(args):
            def run() -> None:
                done = invoke(cli, ["--db", a_db, *args])
                assert done.exit_code == 0, done.output
            return run

        def as_before(fn):
            def run() -> None:
                cli_campaign.timeline_summary = walk.timeline_summary = lambda camp, rec: camp.summarize(rec)
                try:
                    fn()
                finally:
                    cli_campaign.timeline_summary = walk.timeline_summary = told
            return run

        for name, args in ((f"log --session {session}", ["log", "--session", str(session)]),
                           (f"export timeline --format md --session {session}",
                            ["export", "timeline", "--format", "md", "--session", str(session)])):
            for lang in ("fr", "en"):
                fn = reading(["--lang", lang, *args])
                out[f"{name} (--lang {lang})"] = tuple(B.median_times([fn, as_before(fn)], rounds))
        print(f"load average after: {os.getloadavg()[0]:.1f}", file=sys.stderr)
        return out
    finally:
        runner.for_campaign, runner.PARALLEL_REBUILD_MIN = real_for_campaign, threshold
        shutil.rmtree(folder, ignore_errors=True)


#: the child of :func:`memory_ab`: a rebuild in one process with some levers taken back (argv: the
#: campaign, ``runner.FLUSH_EVERY``, ``runner.REBUILD_CACHE_KIB`` (0: None), ``runner.INSERT_CHUNK``,
#: 1 to fold the timeline in Python instead of copying it); prints its seconds, its seconds of CPU (what
#: a loaded machine leaves comparable) and its VmHWM in KiB
MEMORY_CHILD = """
import sys, time
from cristal_events import open_campaign
from cristal_events.projections import runner, timeline
db, flush, cache, chunk, folded = sys.argv[1], *map(int, sys.argv[2:6])
runner.PARALLEL_REBUILD_MIN = 1 << 62
runner.FLUSH_EVERY, runner.REBUILD_CACHE_KIB, runner.INSERT_CHUNK = flush, cache or None, chunk
if folded:
    timeline.Timeline.log_columns = {}
c = open_campaign(db)
t, cpu = time.perf_counter(), time.process_time()
runner.rebuild(c)
t, cpu = time.perf_counter() - t, time.process_time() - cpu
c.close()
print(t, cpu, next(int(l.split()[1]) for l in open('/proc/self/status') if l.startswith('VmHWM:')))
"""


def memory_variants() -> dict[str, list[str]]:
    """The rebuild as it is, then each memory lever taken back (or pushed further) in turn."""
    kept = [runner.FLUSH_EVERY, runner.REBUILD_CACHE_KIB or 0, runner.INSERT_CHUNK, 0]

    def but(i: int, value: int) -> list[str]:
        return [str(value if k == i else v) for k, v in enumerate(kept)]

    return {"every lever": but(-1, 0),
            "the timeline folded in Python (not copied in SQL)": but(3, 1),
            "pending rows flushed every 5,000 events": but(0, 5_000),
            "pending rows flushed every 100,000 events": but(0, 100_000),
            "page cache 256 KiB": but(1, 256),
            "page cache 8,000 KiB": but(1, 8_000),
            "rows converted and inserted all at once": but(2, 1 << 40)}


def memory_ab(events: int, rounds: int, variants: dict[str, list[str]]) -> dict[str, tuple[float, float, float]]:
    """{variant: (median seconds, median seconds of CPU, median VmHWM in MB)} of a rebuild in a child
    process per round."""
    import statistics
    import subprocess

    folder = tempfile.mkdtemp(prefix="cristal-levers-")
    out: dict[str, list[tuple[float, float, float]]] = {k: [] for k in variants}
    env = {**os.environ, "PYTHONPATH": str(HERE.parent)}
    try:
        src = generator.cached(events, quiet=True)
        print(f"load average before: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores", file=sys.stderr)
        for r in range(rounds):
            names = list(variants) if r % 2 == 0 else list(variants)[::-1]
            for name in names:
                db = os.path.join(folder, "m.db")
                shutil.copyfile(src, db)
                done = subprocess.run([sys.executable, "-c", MEMORY_CHILD, db, *variants[name]], env=env, cwd=folder,
                                      check=True, capture_output=True, text=True)
                secs, cpu, kib = done.stdout.split()
                out[name].append((float(secs), float(cpu), int(kib) / 1024))
                os.remove(db)
        print(f"load average after: {os.getloadavg()[0]:.1f}", file=sys.stderr)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return {k: tuple(statistics.median(x[i] for x in v) for i in range(3)) for k, v in out.items()}  # type: ignore[misc]


#: the child of :func:`split_ab`: a rebuild of ``argv[1]`` with ``runner.SPLIT_AT`` = ``argv[2]`` (-1: one
#: process), the second process forced on; prints its seconds, its CPU seconds, its second process's
#: CPU seconds and its VmHWM in KiB
SPLIT_CHILD = """
import resource, sys, time
from cristal_events import open_campaign
from cristal_events.projections import runner
db, split = sys.argv[1], float(sys.argv[2])
if split < 0:
    runner.PARALLEL_REBUILD_MIN = 1 << 62
else:
    runner._free_core, runner.SPLIT_AT = (lambda: True), split
c = open_campaign(db)
t, cpu = time.perf_counter(), time.process_time()
runner.rebuild(c)
t, cpu = time.perf_counter() - t, time.process_time() - cpu
c.close()
child = resource.getrusage(resource.RUSAGE_CHILDREN)
print(t, cpu, child.ru_utime + child.ru_stime,
      next(int(l.split()[1]) for l in open('/proc/self/status') if l.startswith('VmHWM:')))
"""

#: the raw replay of :func:`split_ab`, in a child process as the rebuilds: prints its seconds and CPU seconds
RAW_CHILD = """
import sys, time
import baseline as B
from cristal_events import open_campaign
camp = open_campaign(sys.argv[2], readonly=True)
classes = camp.store.codec.classes
camp.close()
conn = B.raw_connect(sys.argv[1])
t, cpu = time.perf_counter(), time.process_time()
B.raw_replay(conn, classes, lambda s, e: s + 1, 0)
print(time.perf_counter() - t, time.process_time() - cpu)
"""


def split_ab(source: str, rounds: int, splits: list[float]) -> tuple[dict[str, dict[str, float]], tuple[float, float]]:
    """({variant: median wall, cpu, child_cpu, path (the longer CPU time), VmHWM MB}, (raw replay wall, cpu))."""
    import statistics
    import subprocess

    folder = tempfile.mkdtemp(prefix="cristal-levers-")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(HERE.parent), str(HERE)])}
    variants = {**{f"split at {x:g} of the log": x for x in splits},
                "no split (the second process folds the sessions and the ledger)": 0.0, "one process": -1.0}
    out: dict[str, list[list[float]]] = {k: [] for k in [*variants, "raw"]}
    loads: list[float] = []
    try:
        raw = os.path.join(folder, "raw.db")
        conn = B.raw_create(raw)  # the raw floor's table holding the same events (run.py imports them the same way)
        conn.execute("ATTACH ? AS src", (f"file:{source}?mode=ro",))
        conn.execute("BEGIN")
        conn.execute("INSERT INTO events SELECT position, event_id, stream, version, type, schema_version, payload, "
                     "recorded_at, session, actor, causation_id, correlation_id FROM src.events ORDER BY position")
        conn.execute("COMMIT")
        conn.close()
        for r in range(rounds):
            names = ["raw", *variants] if r % 2 == 0 else [*variants, "raw"][::-1]
            for name in names:
                loads.append(os.getloadavg()[0])
                if name == "raw":
                    args = [RAW_CHILD, raw, source]
                else:
                    db = os.path.join(folder, "r.db")
                    shutil.copyfile(source, db)
                    args = [SPLIT_CHILD, db, str(variants[name])]
                done = subprocess.run([sys.executable, "-c", *args], env=env, cwd=folder, check=True,
                                      capture_output=True, text=True)
                out[name].append([float(x) for x in done.stdout.split()])
                print(f"round {r + 1}, {name}: {done.stdout.strip()} (load {loads[-1]:.1f})", file=sys.stderr)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    res = {}
    for name in variants:
        rows = out[name]
        wall, cpu, child, kib = (statistics.median(x[i] for x in rows) for i in range(4))
        res[name] = {"wall": wall, "cpu": cpu, "child_cpu": child,
                     "path": statistics.median(max(x[1], x[2]) for x in rows), "mb": kib / 1024}
    raw_wall, raw_cpu = (statistics.median(x[i] for x in out["raw"]) for i in range(2))
    print(f"load average {min(loads):.1f}-{max(loads):.1f} on {os.cpu_count()} cores", file=sys.stderr)
    return res, (raw_wall, raw_cpu)


def command_ab(events: int, rounds: int, commands_per_round: int) -> dict[str, float]:
    """Median over ``rounds`` of each variant's p50 seconds (see the module's docstring)."""
    import statistics
    import time

    from cristal_events.projections import base, cristal_combats, timeline

    from cristal_events.web import commands

    gm = {"name": "GM", "gm": True, "characters": []}
    src = generator.cached(events, quiet=True)
    folder = tempfile.mkdtemp(prefix="cristal-levers-")
    combats, sessions = cristal_combats.CristalCombats.changed_rows, timeline.Sessions.changed_rows
    variants = {"every lever": {}, "without the combats' shortcut": {"combats": True},
                "without the sessions' changed rows": {"sessions": True}, "without the kept states": {"kept": True}}
    out: dict[str, list[float]] = {k: [] for k in variants}
    try:
        for r in range(rounds):
            names = list(variants) if r % 2 == 0 else list(variants)[::-1]
            for name in names:
                off = variants[name]
                cristal_combats.CristalCombats.changed_rows = base.Projection.changed_rows if off.get("combats") else combats
                timeline.Sessions.changed_rows = base.Projection.changed_rows if off.get("sessions") else sessions
                db = os.path.join(folder, "c.db")
                shutil.copyfile(src, db)
                commands.run(db, gm, ["note", "warm-up"])
                times = []
                for i in range(commands_per_round):
                    if off.get("kept"):
                        runner._written.clear()
                    t0 = time.perf_counter()
                    commands.run(db, gm, ["note", f"bench {i}"])
                    times.append(time.perf_counter() - t0)
                commands.close_shared(db)
                out[name].append(statistics.median(times))
    finally:
        cristal_combats.CristalCombats.changed_rows, timeline.Sessions.changed_rows = combats, sessions
        shutil.rmtree(folder, ignore_errors=True)
    return {k: statistics.median(v) for k, v in out.items()}


def console_ab(events: int, rounds: int, commands_per_round: int) -> dict[str, dict[str, float]]:
    """Median over ``rounds`` of each variant's p50 seconds of an attack and of a note at the console."""
    import statistics
    import time

    from console import STATS, quiet, whose_turn

    from cristal_events.console.session import Console

    src = generator.cached(events, quiet=True)
    folder = tempfile.mkdtemp(prefix="cristal-levers-")
    from cristal_events.projections import timeline

    variants = ["every lever", "the sessions' state in their checkpoint (rewritten at each command)"]
    out: dict[str, dict[str, list[float]]] = {k: {"attack": [], "note": []} for k in variants}
    try:
        for r in range(rounds):
            for name in (variants if r % 2 == 0 else variants[::-1]):
                timeline.Sessions.rows_state = not name.startswith("the sessions'")
                db = os.path.join(folder, "c.db")
                shutil.copyfile(src, db)
                console = Console(db)
                try:
                    fight = f"ab{r}"
                    ok, _, err = quiet(console.run_line, f"combat start {fight} --with m1,m2 " + " ".join(STATS))
                    assert ok is True, err
                    quiet(console.run_line, f"fight {fight}")
                    quiet(console.run_line, "note warm-up")
                    att, note = [], []
                    for i in range(commands_per_round):
                        actor, target = whose_turn(console, fight)
                        t0 = time.perf_counter()
                        ok, _, err = quiet(console.run_line, f"attack {actor} {target} 10,1")
                        att.append(time.perf_counter() - t0)
                        assert ok is True, err
                        t0 = time.perf_counter()
                        ok, _, err = quiet(console.run_line, f"note 'ab {i}'")
                        note.append(time.perf_counter() - t0)
                        assert ok is True, err
                finally:
                    console.close()
                    timeline.Sessions.rows_state = True
                out[name]["attack"].append(statistics.median(att))
                out[name]["note"].append(statistics.median(note))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return {k: {c: statistics.median(v) for c, v in d.items()} for k, d in out.items()}


def import_ab(source: str, sizes: list[int], rounds: int) -> dict[int, dict[str, float]]:
    """{size: {variant: median seconds}} of a bulk import of the first ``size`` rows of ``source``."""
    import gc
    import statistics
    from collections.abc import Callable

    import run as R

    from cristal_events import log_rows

    camp = open_campaign(source, readonly=True)
    codec = camp.store.codec
    folder = tempfile.mkdtemp(prefix="cristal-levers-")
    limit, workers = log_rows.IMPORT_PARALLEL_MIN, log_rows.import_workers

    def variant(parallel_min: int, n_workers: int | None) -> None:
        log_rows.IMPORT_PARALLEL_MIN = parallel_min
        log_rows.import_workers = workers if n_workers is None else (lambda: n_workers)

    cpu: dict[str, list[tuple[float, float]]] = {}  # variant: [(this process's CPU s, the workers' CPU s)]

    def timed(name: str, fn: Callable[[], object]) -> Callable[[], None]:
        def run() -> None:
            t0 = os.times()
            fn()
            t1 = os.times()
            cpu.setdefault(name, []).append((t1.user + t1.system - t0.user - t0.system,
                                             t1.children_user + t1.children_system - t0.children_user - t0.children_system))
        return run

    def measure(part: list) -> dict[str, float]:
        gc.freeze()  # as run.py: the benchmark holds every row, an import process does not
        db = os.path.join(folder, "imp.db")
        cpu.clear()
        fns = {"one worker": timed("one worker", lambda: (variant(0, 1), R.engine_import(db, codec, part))),
               "two workers": timed("two workers", lambda: (variant(0, 2), R.engine_import(db, codec, part))),
               "one process": timed("one process", lambda: (variant(1 << 62, None), R.engine_import(db, codec, part))),
               "raw sqlite3 + msgspec": lambda: R.raw_import(os.path.join(folder, "raw.db"), part)}
        print(f"{len(part):,} rows, load average before: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores",
              file=sys.stderr)
        got = dict(zip(fns, B.median_times(list(fns.values()), rounds)))
        print(f"load average after: {os.getloadavg()[0]:.1f}", file=sys.stderr)
        for name, pairs in cpu.items():
            print(f"  {name}: CPU of the importing process {statistics.median(p[0] for p in pairs):.3f} s, "
                  f"of its workers {statistics.median(p[1] for p in pairs):.3f} s (medians)", file=sys.stderr)
        return got

    out: dict[int, dict[str, float]] = {}
    try:
        for n in sizes:
            # only these rows held: a fork (the worker's) costs with the size of the forking process
            out[n] = measure(R.exported_rows(camp, until=n))
    finally:
        camp.close()
        log_rows.IMPORT_PARALLEL_MIN, log_rows.import_workers = limit, workers
        shutil.rmtree(folder, ignore_errors=True)
    return out


def verify_ab(source: str, rounds: int) -> dict[str, dict[str, float]]:
    """{"small process" | "holding the rows": {variant: median seconds}} (see the module's docstring)."""
    import gc

    import run as R

    import cristal_events.store as S

    camp = open_campaign(source, readonly=True)
    scan = B.raw_connect(source)  # (it sets WAL mode: give a copy, as for run.py)
    pieces = S._STRETCH_MIN

    def halves() -> None:  # the split before this lever: one stretch per process, fixed in advance
        S._STRETCH_MIN = 1 << 62
        try:
            camp.store.verify(workers=2)
        finally:
            S._STRETCH_MIN = pieces

    fns = {"two processes, stretches taken in turn": lambda: camp.store.verify(workers=2),
           "two processes, halves": halves, "one process": lambda: camp.store.verify(workers=1),
           "raw scan": lambda: B.raw_scan(scan)}
    out = {}
    try:
        for held in ("small process", "holding the rows"):
            rows = R.exported_rows(camp) if held == "holding the rows" else []
            gc.freeze()
            print(f"{held}: load average before: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores", file=sys.stderr)
            out[held] = dict(zip(fns, B.median_times(list(fns.values()), rounds)))
            print(f"load average after: {os.getloadavg()[0]:.1f}", file=sys.stderr)
            del rows
    finally:
        scan.close()
        camp.close()
    return out


def _stored_text_combats() -> type:
    """The combat read model as it was before the lever (version 2, until this branch): every action's
    line (its summary) and every IT before and after it stored as text in ``cristal_combat_log``. Kept
    here, and only here, to measure the lever against it."""
    import msgspec
    from cristal_events.projections.base import Table
    from cristal_events.projections.cristal_combats import CristalCombats

    from cristal_events.rulesets.cristal import fights

    turns = frozenset(fights.TURN_EVENTS)

    class StoredText(CristalCombats):
        version = 2
        append_tables = {"cristal_combat_log": Table(
            {"position": "INTEGER", "combat": "TEXT", "actor": "TEXT", "action": "TEXT", "duration": "INTEGER",
             "it_before": "TEXT", "it_after": "TEXT"}, pk="position")}

        def evolve(self, state: Any, rec: Any) -> Any:
            after = self._fold(state, rec)
            self._last = None
            if type(rec.event) in turns:
                e = fights.log_entry(state, after, rec.event)
                if e is not None:
                    self._last = (rec.position, {"cristal_combat_log": [(
                        rec.position, e["combat"], e["actor"], e["action"], e["duration"],
                        msgspec.json.encode(e["it_before"]).decode(), msgspec.json.encode(e["it_after"]).decode())]})
            return after

    return StoredText


def combat_log_ab(events: int, rounds: int, reads: int) -> dict[str, float]:
    """Medians over ``rounds`` of the combat read model's rebuild (alone) and of ``combat log``'s read
    of the longest fight (rows to lines, p50 of ``reads``), with the facts stored and each line
    computed when read (A, this branch) and with the lines and IT maps stored as text (B)."""
    import statistics
    import time

    from cristal_events.projections.cristal_combats import CristalCombats

    from cristal_events.cli import views
    from cristal_events.cli.cristal.combat import log_rows

    src = generator.cached(events, quiet=True)
    folder = tempfile.mkdtemp(prefix="cristal-levers-")
    old = _stored_text_combats()
    try:
        a_db, b_db = os.path.join(folder, "a.db"), os.path.join(folder, "b.db")
        shutil.copyfile(src, a_db)
        shutil.copyfile(src, b_db)
        a, b = open_campaign(a_db), open_campaign(b_db)
        rebuild_a, rebuild_b = B.median_times([lambda: runner._run(a, [CristalCombats(a)], rebuild=True, progress=None),
                                               lambda: runner._run(b, [old(b)], rebuild=True, progress=None)], rounds)
        name, count = a.store.conn.execute(
            "SELECT combat, COUNT(*) FROM cristal_combat_log GROUP BY combat ORDER BY 2 DESC LIMIT 1").fetchone()
        names = views.display_names(a.ruleset.characters(a.state().rules))

        def read_a() -> list[str]:
            return views.combat_log_lines(log_rows(a, name), names)

        def read_b() -> list[str]:
            import msgspec

            assert b.store.read_model_current("cristal_combats", old.version)  # the check the old read made
            cols = ("position", "actor", "action", "duration", "it_before", "it_after")
            rows = [{c: r[c] for c in cols} for r in b.store.read_model_rows(
                "cristal_combat_log", where={"combat": name}, order_by=("position",))]
            for r in rows:
                r["it_before"], r["it_after"] = msgspec.json.decode(r["it_before"]), msgspec.json.decode(r["it_after"])
            return views.combat_log_lines(rows, names)

        assert read_a() == read_b(), "the two read models must give the same combat log"
        out: dict[str, list[float]] = {"a": [], "b": []}
        for r in range(rounds):
            for key, fn in ((("a", read_a), ("b", read_b)) if r % 2 == 0 else (("b", read_b), ("a", read_a))):
                times = []
                for _ in range(reads):
                    t0 = time.perf_counter()
                    fn()
                    times.append(time.perf_counter() - t0)
                out[key].append(statistics.median(times))
        sizes = {db: os.path.getsize(db) for db in (a_db, b_db)}
        a.close()
        b.close()
        return {"rebuild_a": rebuild_a, "rebuild_b": rebuild_b, "read_a": statistics.median(out["a"]),
                "read_b": statistics.median(out["b"]), "rows": count, "fight": name,
                "size_a": sizes[a_db], "size_b": sizes[b_db]}
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("lever", choices=["rebuild", "command", "console", "import", "verify", "combatlog", "timeline", "memory",
                                      "split"])
    ap.add_argument("--split-at", default=str(runner.SPLIT_AT),
                    help="comma-separated shares of the log where the rebuild splits (split)")
    ap.add_argument("--campaign", help="the campaign whose rows are imported (import; read only)")
    ap.add_argument("--sizes", default="100000", help="comma-separated row counts imported (import)")
    ap.add_argument("--session", type=int, default=3, help="the session the readers show (timeline)")
    ap.add_argument("--commands", type=int, default=200, help="commands timed in each round (command)")
    ap.add_argument("--events", type=int, default=100_000)
    ap.add_argument("--rounds", type=int, default=7)
    a = ap.parse_args()
    if a.lever == "rebuild":
        ta, tb = rebuild_ab(a.events, a.rounds)
        print(f"rebuild of {a.events:,} events, medians of {a.rounds}: second process {ta:.3f} s, "
              f"one process {tb:.3f} s, {tb / ta:.2f} x faster")
    elif a.lever == "split":
        source = a.campaign or generator.cached(a.events, quiet=True)
        res, (raw_wall, raw_cpu) = split_ab(source, a.rounds, [float(x) for x in a.split_at.split(",")])
        print(f"raw replay, medians of {a.rounds}: {raw_wall:.2f} s ({raw_cpu:.2f} s of CPU)")
        for name, d in res.items():
            print(f"rebuild, {name}: {d['wall']:.2f} s ({raw_wall / d['wall']:.3f} x raw replay); CPU "
                  f"{d['cpu']:.2f} s + second process {d['child_cpu']:.2f} s, the longer {d['path']:.2f} s "
                  f"({raw_cpu / d['path']:.3f} x the raw replay's CPU); VmHWM {d['mb']:.1f} MB")
    elif a.lever == "import":
        sizes = [int(x) for x in a.sizes.split(",")]
        for n, d in import_ab(a.campaign or generator.cached(a.events, quiet=True), sizes, a.rounds).items():
            raw = d.pop("raw sqlite3 + msgspec")
            print(f"import of {n:,} rows, medians of {a.rounds}: " + ", ".join(
                f"{k} {t:.3f} s ({raw / t:.2f} x raw)" for k, t in d.items()) + f"; raw {raw:.3f} s")
    elif a.lever == "verify":
        for held, d in verify_ab(a.campaign or generator.cached(a.events, quiet=True), a.rounds).items():
            raw = d.pop("raw scan")
            print(f"verify, {held}, medians of {a.rounds}: " + ", ".join(
                f"{k} {t:.3f} s ({raw / t:.2f} x raw scan)" for k, t in d.items()) + f"; raw scan {raw:.3f} s")
    elif a.lever == "combatlog":
        print(f"load average before: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores", file=sys.stderr)
        d = combat_log_ab(a.events, a.rounds, a.commands)
        print(f"combat read model of {a.events:,} events, medians of {a.rounds} rounds: rebuild with the facts "
              f"stored {d['rebuild_a']:.3f} s, with the lines and ITs stored {d['rebuild_b']:.3f} s "
              f"({d['rebuild_b'] / d['rebuild_a']:.2f} x)")
        print(f"combat log {d['fight']!r} ({d['rows']} actions), p50 of {a.commands} reads: computed when read "
              f"{d['read_a'] * 1000:.2f} ms, stored {d['read_b'] * 1000:.2f} ms ({d['read_a'] / d['read_b']:.2f} x)")
        print(f"file after the rebuild: {d['size_a'] / 1e6:.1f} MB against {d['size_b'] / 1e6:.1f} MB")
        print(f"load average after: {os.getloadavg()[0]:.1f}", file=sys.stderr)
    elif a.lever == "timeline":
        for name, (ta, tb) in timeline_ab(a.events, a.rounds, a.session).items():
            print(f"{name}, medians of {a.rounds}: {ta:.3f} s / {tb:.3f} s ({tb / ta:.2f} x)")
    elif a.lever == "memory":
        for name, (t, cpu, mb) in memory_ab(a.events, a.rounds, memory_variants()).items():
            print(f"rebuild of {a.events:,} events, one process, {name}: {t:.2f} s ({cpu:.2f} s of CPU), "
                  f"VmHWM {mb:.1f} MB (medians of {a.rounds})")
    elif a.lever == "console":
        print(f"load average before: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores", file=sys.stderr)
        for name, d in console_ab(a.events, a.rounds, a.commands).items():
            print(f"console on the {a.events:,}-event campaign, {name}: attack {d['attack'] * 1000:.2f} ms p50, "
                  f"note {d['note'] * 1000:.2f} ms p50")
        print(f"load average after: {os.getloadavg()[0]:.1f}", file=sys.stderr)
    else:
        print(f"load average before: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores", file=sys.stderr)
        for name, t in command_ab(a.events, a.rounds, a.commands).items():
            print(f"note on the {a.events:,}-event campaign, API path, {name}: {t * 1000:.2f} ms p50")
        print(f"load average after: {os.getloadavg()[0]:.1f}", file=sys.stderr)


if __name__ == "__main__":
    main()
