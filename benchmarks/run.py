"""Every figure of issue 20's speed table, with its goal, its baseline measured in the same run, the
ratio and pass / MISS; then how the cost of a command, ``sheet --at`` and ``verify`` grows with the log.

    python benchmarks/run.py                    # 10k, 100k and 1M-event campaigns
    python benchmarks/run.py --events 100000    # a quick run: 10k and 100k

Campaigns come from benchmarks/generator.py (a party, sessions, fights, purchases, rests, notes;
played through the engine's rules, then extended by eras), generated once per size and kept under the
temporary directory (``generator.cached``). Rows:

* bulk import (what ``cristal import`` does) of 100k and of the big campaign vs raw sqlite3 + msgspec;
* replay (read, decode to typed events, fold) vs the raw read + decode + the same fold;
* a rebuild of every read model vs that raw replay;
* ``verify`` of the hash chain vs a raw scan of the same rows;
* one CLI write (``cristal xp award``, a wheel install) vs ``python -c "import click, msgspec, sqlite3"``
  and vs ``sqlite-utils insert`` of one row, the same interpreter set-up;
* a command at the console (``Console.run_line``, what ``cristal play`` runs for a line: an attack in a
  fight and a note) and through the web table's in-process API path (``web.commands.run``, what
  ``cristal serve`` runs) on the big campaign vs the same command one-shot;
* the three PostgreSQL rows, from benchmarks/postgres.py when it exists;
* the peak memory of a process rebuilding the big campaign, and its HTML export (cold: a new folder);
  then the same export again after one more session played on a copy (the site cache, the warm
  case: ``html_export_again``), of 100k and of the big campaign.
Figures are medians of ``--repeat`` rounds (``--repeat-big`` on the big campaign), an engine figure and
its baseline taking turns in each round (``baseline.median_times``).
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
import statistics
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
from cristal_events.jobs.page import CHARACTERS_FILE, DICE_FILE
from cristal_events.store import Store

ENV = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
# an installed engine runs from compiled bytecode (pip compiles it): measure start-up that way even
# where PYTHONDONTWRITEBYTECODE is set, with the bytecode kept out of the source tree
ENV.pop("PYTHONDONTWRITEBYTECODE", None)
ENV["PYTHONPYCACHEPREFIX"] = os.path.join(tempfile.gettempdir(), "cristal-bench-pycache")


def exported_rows(camp, until: int | None = None) -> list[B.Row]:
    """The envelope and payload of every event (up to position ``until``), as an export file carries
    them (ids included)."""
    return [(r.event_id, r.stream, r.version, r.type, r.schema_version, r.payload, r.recorded_at, r.session, r.actor,
             r.causation_id, r.correlation_id) for r in camp.store.read_all(decode=False, until=until)]


def engine_import(path: str, codec, rows) -> None:
    """What ``cristal import`` does: validate every payload with the campaign's codec while
    ``Store.import_rows`` re-chains, hashes and appends them (multi-row INSERTs, one transaction); a big
    import validates in a worker process (``log_rows.validated``)."""
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(path + suffix):
            os.remove(path + suffix)
    store = Store.create(path, codec)
    store.import_rows(rows, validate=codec.decode)  # validation: a bad payload is refused naming the field
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


def sqlite_utils_insert_seconds(py: str, folder: str, repeat: int) -> float:
    """Median seconds of ``sqlite-utils insert DB notes -`` of one JSON row, the sqlite-utils command
    line of the same interpreter set-up as the engine's write (:func:`installed_python`)."""
    db = os.path.join(folder, "su.db")
    env, away = _user_env(), os.path.dirname(os.path.dirname(py))
    code = "from sqlite_utils.cli import cli; cli()"

    def insert() -> None:
        subprocess.run([py, "-c", code, "insert", db, "notes", "-"], input=b'{"text": "bench", "n": 1}', env=env,
                       check=True, capture_output=True, cwd=away)

    insert()
    return B.median_time(insert, repeat)


GM = {"name": "GM", "gm": True, "characters": []}


def api_command_times(db: str, rounds: int) -> list[float]:
    """Engine time of ``note TEXT`` through the web table's in-process command path
    (``cristal_events.web.commands.run``: parse, authorize, run the click command on the campaign kept
    open, catch the read models up, answer its ``--json``), one figure per command, seconds. The first
    command (opening the campaign, attaching the read models) is left out: the console and the server
    pay it once."""
    from cristal_events.web import commands

    commands.run(db, GM, ["note", "warm-up"])
    out = []
    for i in range(rounds):
        t0 = time.perf_counter()
        commands.run(db, GM, ["note", f"bench {i}"])
        out.append(time.perf_counter() - t0)
    commands.close_shared(db)
    return out


def in_own_process(name: str, db: str, rounds: int) -> Any:
    """``name(db, rounds)`` (a function of this module) run in a new Python process, its result back
    as JSON: a console (``cristal play``) or a server (``cristal serve``) is a process of its own, and
    the same lines timed here, after the import, replay, rebuild and verify rows had run in this
    process, took 1.2-2.4 ms p50 where a process of their own took 1.2-1.5 (a replay of the 1M log
    alone, first, made them 25 % slower: the allocator's and the caches' state; benchmarks/README.md,
    "Ninth session: the console's figure in a process of its own")."""
    code = (f"import sys; sys.path[:0] = [{str(HERE)!r}, {str(ROOT)!r}]; import msgspec, run; "
            f"sys.stdout.buffer.write(msgspec.json.encode(run.{name}({db!r}, {rounds})))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, cwd=str(ROOT))
    if done.returncode != 0:
        sys.stderr.write(done.stderr.decode(errors="replace"))
        raise SystemExit(f"{name} failed in its own process (exit {done.returncode})")
    import msgspec

    return msgspec.json.decode(done.stdout)


def console_command_times(db: str, rounds: int) -> dict[str, list[float]]:
    """Engine time of a line at the console (``Console.run_line`` on the campaign kept open, its text
    output captured): ``attack A B 10,1`` in a fight of two extras started for it (the fight current:
    one attack, one damage, one dice record, the read models following) and ``note TEXT``, one figure
    per line, seconds (benchmarks/console.py, whose helpers it uses)."""
    from console import STATS, quiet, whose_turn

    from cristal_events.console.session import Console

    console = Console(db)
    times: dict[str, list[float]] = {"attack": [], "note": []}
    try:
        fight = f"bench{os.getpid()}"
        ok, _, err = quiet(console.run_line, f"combat start {fight} --with m1,m2 " + " ".join(STATS))
        assert ok is True, err
        quiet(console.run_line, f"fight {fight}")
        quiet(console.run_line, "note warm-up")
        for i in range(rounds):
            actor, target = whose_turn(console, fight)
            t0 = time.perf_counter()
            ok, _, err = quiet(console.run_line, f"attack {actor} {target} 10,1")
            times["attack"].append(time.perf_counter() - t0)
            assert ok is True, err
            t0 = time.perf_counter()
            ok, _, err = quiet(console.run_line, f"note 'console {i}'")
            times["note"].append(time.perf_counter() - t0)
            assert ok is True, err
        quiet(console.run_line, f"combat end {fight}")
    finally:
        console.close()
    return times


def one_shot_attack_seconds(py: str, db: str, repeat: int) -> float:
    """Median seconds of one attack run as one CLI process (the installed engine), in a fight of its own."""
    from console import STATS

    env, away = _user_env(), os.path.dirname(os.path.dirname(py))

    def cristal(*words: str) -> None:
        subprocess.run([py, "-c", "from cristal_events.cli import main; main()", "--db", os.path.abspath(db),
                        "--actor", "GM", *words], env=env, check=True, capture_output=True, cwd=away)

    cristal("combat", "start", "oneshot", "--with", "m1,m2", *STATS)
    turn = iter(["m1", "m2"] * (repeat + 2))

    def once() -> None:
        actor = next(turn)
        cristal("combat", "attack", "oneshot", actor, "m2" if actor == "m1" else "m1", "--dice", "10,1", "--json")

    once()
    seconds = B.median_time(once, repeat)
    cristal("combat", "end", "oneshot")
    return seconds


def one_shot_command_seconds(py: str, db: str, repeat: int) -> float:
    """Median seconds of the same ``note`` run as one CLI process (the installed engine)."""
    env, away = _user_env(), os.path.dirname(os.path.dirname(py))

    def once() -> None:
        subprocess.run([py, "-c", "from cristal_events.cli import main; main()", "--db", os.path.abspath(db),
                        "--actor", "GM", "note", "bench one-shot", "--json"], env=env, check=True,
                       capture_output=True, cwd=away)

    once()
    return B.median_time(once, repeat)


def sheet_at_times(db: str, rounds: int) -> list[float]:
    """``sheet WHO --at P --json`` run in-process (the click command, on the campaign kept open) at
    random positions P; seconds each."""
    from cristal_events.web import commands

    camp = open_campaign(db)
    last, who = camp.store.last_position(), sorted(camp.state().rules.characters)
    camp.close()
    rng = random.Random(7)
    commands.run(db, GM, ["sheet", who[0], "--at", str(last)])
    out = []
    for _ in range(rounds):
        args = ["sheet", rng.choice(who[:5]), "--at", str(rng.randint(last // 2, last))]
        t0 = time.perf_counter()
        try:
            commands.run(db, GM, args)
        except commands.Refused:  # a recruit not yet created at that position: time it all the same
            pass
        out.append(time.perf_counter() - t0)
    commands.close_shared(db)
    return out


#: the HTML export is stopped past these (6 x its 10 s goal; 4 GB of address space): on the 1M campaign
#: the single-page export of this session held the whole page in memory, 10 GB after 9 minutes, on a
#: machine shared by eight engineers
EXPORT_SECONDS, EXPORT_BYTES = 120, 4 << 30


def _limit_memory() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (EXPORT_BYTES, EXPORT_BYTES))


#: the export's command line, which prints its peak resident set (VmHWM) on stderr as it exits
_EXPORT_CODE = ("import atexit, sys\n"
                "atexit.register(lambda: sys.stderr.write('VmHWM ' + next(l.split()[1] for l in "
                "open('/proc/self/status') if l.startswith('VmHWM:')) + '\\n'))\n"
                "from cristal_events.cli import main; main()")


def html_export(db: str, folder: str, *, fresh: bool = True,
                said: list[dict[str, Any]] | None = None) -> tuple[float, int, int, float] | str:
    """``cristal export timeline --format html -o SITE`` (the export is a small site: index.html, a
    page per session and per character, the characters' list and the dice page,
    ``jobs.page.export_site``, its later sessions in a second process) as one command: (seconds,
    bytes of index.html, bytes of every file written in SITE, peak memory of the exporting process
    in MB: its VmHWM; the second process is a fork of it, whose own peak is not in the figure), or
    why it was stopped and what it had written. ``fresh=False``
    exports into the site already there (the site cache: the export goes on from it when it matches);
    ``said``: the command's ``--json`` answer is appended to it."""
    site = os.path.join(folder, "site")
    if fresh:
        shutil.rmtree(site, ignore_errors=True)
    index = os.path.join(site, "index.html")
    t0 = time.perf_counter()
    try:
        done = subprocess.run([sys.executable, "-c", _EXPORT_CODE, "--db", db, "export",
                               "timeline", "--format", "html", "-o", site, *(["--json"] if said is not None else [])],
                              env=ENV, check=True, capture_output=True, timeout=EXPORT_SECONDS,
                              preexec_fn=_limit_memory)
    except subprocess.TimeoutExpired:
        pages = [f for f in Path(folder).rglob("*.html")]  # the pages are staged beside SITE until the end
        return (f"stopped after {EXPORT_SECONDS} s, {len(pages)} pages "
                f"({sum(f.stat().st_size for f in pages) / 1e6:,.0f} MB) written")
    except subprocess.CalledProcessError as exc:
        return f"failed after {time.perf_counter() - t0:.0f} s ({exc.stderr.decode(errors='replace').strip()[-120:]})"
    took = time.perf_counter() - t0
    if said is not None:
        said.append(msgspec.json.decode(done.stdout))
    total = sum(f.stat().st_size for f in Path(site).rglob("*") if f.is_file())
    peak = next((int(line.split()[1]) for line in done.stderr.decode(errors="replace").splitlines()
                 if line.startswith("VmHWM ")), 0)
    return took, os.path.getsize(index), total, peak / 1024


def linked_pages(folder: str) -> str:
    """The sizes of the two pages the site's index links to (the characters' list, the dice page)."""
    site = Path(folder) / "site"
    sizes = [(name, site / file) for name, file in (("characters' list", CHARACTERS_FILE), ("dice page", DICE_FILE))]
    return ", ".join(f"{name} {path.stat().st_size / 1e6:,.2f} MB" for name, path in sizes if path.exists())


#: the events of the game night the warm row adds (several hundred, as a session of the generator)
NIGHT_EVENTS = 600


def html_export_again(t: Table, src: str, n: int, folder: str, cold: float) -> None:
    """The row "HTML export of N again after one more session": a copy of the campaign just exported
    (the same log: the site in ``folder`` is its site), one more session played on it through the
    engine's commands (``generator.one_more_session``), then the same command into the same folder,
    which goes on from the earlier export (jobs/site_cache.py); the cold export is the baseline.
    The warm case: the cold row's verdict stays the goal's."""
    figure = f"HTML export of {n:,} again after one more session"
    copy = writable_copy(src, folder, "export-again.db")
    added = generator.one_more_session(copy, NIGHT_EVENTS)
    said: list[dict[str, Any]] = []
    again = html_export(copy, folder, fresh=False, said=said)
    os.remove(copy)
    if isinstance(again, str):
        t.add(figure, "<= 10 s (the warm case)", again, f"cold {cold:,.1f} s", "-", None)
        return
    took, index, total, _peak = again
    kept = (f"{said[0]['kept']:,} session pages kept (jobs/site_cache.py)" if said and said[0].get("incremental")
            else "NOT incremental: the cache did not match")
    t.add(figure, "<= 10 s (the warm case)", f"{took:,.1f} s", f"the cold export {cold:,.1f} s",
          f"{took / cold:,.2f}", None, f"{added} events added; {kept}; the cold row's verdict stands")


def writable_copy(src: str, folder: str, name: str) -> str:
    """A copy of a cached campaign that a benchmark may write to."""
    dst = os.path.join(folder, name)
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(dst + suffix):
            os.remove(dst + suffix)
    shutil.copyfile(src, dst)
    return dst


def p50(values: list[float]) -> float:
    return statistics.median(values)


class Table:
    def __init__(self) -> None:
        self.rows: list[tuple[str, str, str, str, str, str]] = []

    def add(self, figure: str, goal: str, ours: str, baseline: str, ratio: str, verdict: bool | None,
            note: str = "") -> None:
        ok = "" if verdict is None else ("pass" if verdict else "MISS")
        self.rows.append((figure, goal, ours, baseline, ratio, " ".join(x for x in (ok, f"({note})" if note else "") if x)))
        print(f"  {figure}: {ours} (baseline {baseline}, ratio {ratio}, goal {goal}) {ok}", file=sys.stderr, flush=True)

    def print(self) -> None:
        head = ("figure", "goal", "ours", "baseline (same run)", "ratio", "")
        widths = [max(len(r[i]) for r in [head, *self.rows]) for i in range(6)]
        for r in [head, tuple("-" * w for w in widths), *self.rows]:
            print("| " + " | ".join(c.ljust(w) for c, w in zip(r, widths)) + " |")


def postgres_rows(events: int, rounds: int) -> list[dict[str, Any]] | str:
    """The PostgreSQL rows from ``benchmarks/postgres.py`` (``postgres_rows(events, rounds)``), or why
    there are none."""
    if not (HERE / "postgres.py").exists():
        return "not measured: benchmarks/postgres.py not present"
    import postgres

    return list(postgres.postgres_rows(events, rounds))


PG_FIGURES = [("PostgreSQL: append 1,000/txn", ">= 0.7 x raw COPY"),
              ("PostgreSQL: append 1/txn, with the campaign's ordering lock", ">= 0.5 x raw autocommit INSERT"),
              ("PostgreSQL: replay (read in position order, decode, fold)", ">= 0.7 x raw keyset SELECT + decode")]


def main() -> None:
    ap = argparse.ArgumentParser(description="Print every figure of issue 20's table with its goal and baseline.")
    ap.add_argument("--events", type=int, default=1_000_000, help="size of the big campaign (default 1M)")
    ap.add_argument("--repeat", type=int, default=5, help="rounds of the figures on 100k events or less")
    ap.add_argument("--repeat-big", type=int, default=3, help="rounds of the figures on the big campaign")
    ap.add_argument("--commands", type=int, default=200, help="commands timed for each p50")
    ap.add_argument("--skip-pg", action="store_true", help="leave the PostgreSQL rows out")
    a = ap.parse_args()
    print(f"machine: {machine()}")
    folder = tempfile.mkdtemp(prefix="cristal-bench-")
    t = Table()
    sizes = sorted({n for n in (10_000, 100_000, a.events) if n <= a.events})
    try:
        paths = {}
        for n in sizes:
            t0 = time.perf_counter()
            paths[n] = generator.cached(n, quiet=True)
            print(f"campaign of {n:,} events: {paths[n]} ({time.perf_counter() - t0:.0f} s)", file=sys.stderr)
        big = paths[a.events]
        camp = open_campaign(big)
        n_big = camp.store.last_position()
        codec = camp.store.codec

        # --- bulk import, 100k and the big campaign. Each size holds only its own rows: a big import
        # forks its validation worker, and a fork (and the worker's exit) costs with the size of the
        # forking process, which a real import keeps small (it reads its file as it goes)
        for n in ([100_000] if n_big >= 150_000 else []) + [n_big]:  # 100k, and the big campaign
            rows = part = exported_rows(camp, until=n)
            gc.freeze()  # see benchmarks/README.md: the benchmark holds every row, an import process does not
            rep = a.repeat if n <= 100_000 else a.repeat_big
            te, tr = B.median_times([lambda part=part: engine_import(os.path.join(folder, "imp.db"), codec, part),
                                     lambda part=part: raw_import(os.path.join(folder, "raw.db"), part)], rep)
            e, r = n / te, n / tr
            t.add(f"bulk import {n:,}", ">= 0.7 x raw", f"{e:,.0f} ev/s", f"raw sqlite3 + msgspec {r:,.0f} ev/s",
                  f"{e / r:.2f} x", e >= 0.7 * r, f"load {os.getloadavg()[0]:.1f}")
            del part
        # --- replay and rebuild
        raw_path = os.path.join(folder, "raw.db")
        raw_import(raw_path, rows)
        del rows  # the verify below forks: a smaller process forks faster (see the imports above)
        warm_file_cache(big, raw_path)
        conn = B.raw_connect(raw_path)
        te, tr = B.median_times([lambda: engine_replay(camp),
                                 lambda: B.raw_replay(conn, codec.classes, count_fold, 0)], max(a.repeat_big, 5))
        conn.close()  # 5 rounds at least: 3 gave 0.85-0.96 x from one run of the same code to the next
        e, raw_replay = n_big / te, n_big / tr
        t.add(f"replay {n_big:,}: read, decode, fold", ">= 0.9 x raw", f"{e:,.0f} ev/s",
              f"raw {raw_replay:,.0f} ev/s", f"{e / raw_replay:.2f} x", e >= 0.9 * raw_replay)
        camp.close()
        reb_db = writable_copy(big, folder, "rebuild.db")
        rcamp = open_campaign(reb_db)
        free = []  # whether each rebuild found a free core for its second process (runner._free_core)

        def rebuild() -> None:
            free.append(runner._free_core())
            runner.rebuild(rcamp)

        reb = B.median_time(rebuild, a.repeat_big)
        rcamp.close()
        e = n_big / reb
        t.add(f"rebuild every read model, {n_big:,}", ">= 0.25 x raw replay", f"{e:,.0f} ev/s",
              f"raw replay {raw_replay:,.0f} ev/s", f"{e / raw_replay:.2f} x", e >= 0.25 * raw_replay,
              f"second process in {sum(free)} of {len(free)} rounds; load {os.getloadavg()[0]:.1f}")
        # --- verify, at every size
        verify_at = {}
        for n in sizes:
            c = open_campaign(paths[n])
            m = c.store.last_position()
            scan = B.raw_connect(paths[n])
            tv, ts = B.median_times([c.verify, lambda scan=scan: B.raw_scan(scan)],
                                    a.repeat if n <= 100_000 else a.repeat_big)
            scan.close()
            c.close()
            verify_at[n] = tv
            if n == a.events:
                e, r = m / tv, m / ts
                t.add(f"verify the chain, {m:,} ({S.verify_workers(m)} processes)", ">= 1.0 x raw scan",
                      f"{e:,.0f} ev/s", f"raw scan {r:,.0f} ev/s", f"{e / r:.2f} x", e >= r)
        # --- one-shot CLI write
        py = installed_python(folder)
        small_db = writable_copy(paths[10_000], folder, "cli.db")
        w, _, lib = cli_write_seconds(py, small_db, a.repeat * 2)
        su = sqlite_utils_insert_seconds(py, folder, a.repeat * 2)
        t.add("one-shot CLI write (cristal xp award, 10k campaign)", "<= 1.5 x import click, msgspec, sqlite3",
              f"{w * 1000:,.0f} ms", f"python -c 'import click, msgspec, sqlite3' {lib * 1000:,.0f} ms",
              f"{w / lib:.2f} x", w <= 1.5 * lib)
        t.add("one-shot CLI write (cristal xp award, 10k campaign)", "<= 0.7 x sqlite-utils insert of one row",
              f"{w * 1000:,.0f} ms", f"sqlite-utils insert {su * 1000:,.0f} ms", f"{w / su:.2f} x", w <= 0.7 * su)
        # --- a command through the API path, at every size (it must not grow with the log); sheet --at
        cmd_at, sheet_at, console_at = {}, {}, {}
        for n in sizes:
            db = writable_copy(paths[n], folder, f"cmd{n}.db")
            cmd_at[n] = p50(in_own_process("api_command_times", db, a.commands))
            sheet_at[n] = p50(sheet_at_times(db, max(20, a.commands // 5)))
            line = in_own_process("console_command_times", db, a.commands)
            att, note = p50(line["attack"]), p50(line["note"])
            console_at[n] = att
            print(f"  growth at {n:,}: command {cmd_at[n] * 1000:.2f} ms, console attack {att * 1000:.2f} ms, "
                  f"sheet --at {sheet_at[n] * 1000:.2f} ms, "
                  f"verify {verify_at[n]:.2f} s", file=sys.stderr, flush=True)
            if n == a.events:
                one_att = one_shot_attack_seconds(py, db, a.repeat)
                t.add(f"a command at the console (attack in a fight), {n:,} campaign", "<= 2 ms p50 engine time",
                      f"{att * 1000:,.2f} ms p50", f"the same attack one-shot {one_att * 1000:,.0f} ms",
                      f"1/{one_att / att:,.0f}", att <= 0.002, "cristal play: Console.run_line")
                one = one_shot_command_seconds(py, db, a.repeat)
                t.add(f"a command at the console (note), {n:,} campaign", "<= 2 ms p50 engine time",
                      f"{note * 1000:,.2f} ms p50", f"the same command one-shot {one * 1000:,.0f} ms",
                      f"1/{one / note:,.0f}", note <= 0.002, "cristal play: Console.run_line")
                t.add(f"a command through the API (note), {n:,} campaign", "<= 2 ms p50 engine time",
                      f"{cmd_at[n] * 1000:,.2f} ms p50", f"the same command one-shot {one * 1000:,.0f} ms",
                      f"1/{one / cmd_at[n]:,.0f}", cmd_at[n] <= 0.002, "cristal serve: web.commands.run")
            os.remove(db)
        # --- PostgreSQL
        pg = "left out (--skip-pg)" if a.skip_pg else postgres_rows(min(a.events, 100_000), a.repeat)
        if isinstance(pg, str):
            for figure, goal in PG_FIGURES:
                t.add(figure, goal, "-", "-", "-", None, pg)
        else:
            for row in pg:
                t.add(row["figure"], row["goal"], row["ours"], row["baseline"], row["ratio"], row["ok"],
                      row.get("note", ""))
        # --- peak memory and the HTML export of the big campaign
        mb = peak_rebuild_mb(writable_copy(big, folder, "rebuild.db"))
        t.add(f"peak memory, rebuild of {n_big:,}", "<= 100 MB", f"{mb:,.0f} MB", "-", "-", mb <= 100,
              "VmHWM of the rebuilding child process")
        for n in sorted({100_000, n_big}) if n_big > 100_000 else [n_big]:  # 100k: how it grows
            exported = html_export(big if n == n_big else paths[n], folder)
            figure = f"HTML export of {n:,} (cristal export timeline --format html)"
            if isinstance(exported, str):
                t.add(figure, "index <= 2 MB, <= 10 s", exported, "-", "-", False if n == n_big else None,
                      f"limits: {EXPORT_SECONDS} s, {EXPORT_BYTES >> 30} GB of memory")
            else:
                took, index, total, peak = exported
                t.add(figure, "index <= 2 MB, <= 10 s", f"{took:,.1f} s, index {index / 1e6:,.2f} MB", "-", "-",
                      took <= 10 and index <= 2e6 if n == n_big else None,
                      f"{total / 1e6:,.1f} MB written in all ({linked_pages(folder)}); peak memory {peak:,.0f} MB "
                      "(VmHWM)")
                html_export_again(t, big if n == n_big else paths[n], n, folder, took)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    print()
    t.print()
    print()
    print("How each cost grows with the log (medians):")
    grow = [("a command at the head (note, API path), p50", cmd_at, 1000, "ms"),
            ("an attack at the console (Console.run_line), p50", console_at, 1000, "ms"),
            ("sheet --at a random position (in-process), p50", sheet_at, 1000, "ms"),
            ("verify the chain", verify_at, 1, "s")]
    head = "| cost | " + " | ".join(f"{n:,} events" for n in sizes) + " |"
    print(head)
    print("|---|" + "---|" * len(sizes))
    for label, d, scale, unit in grow:
        print(f"| {label} | " + " | ".join(f"{d[n] * scale:,.2f} {unit}" for n in sizes) + " |")


def machine() -> str:
    model = ""
    try:
        model = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
        model = next((line.split(":", 1)[1].strip() for line in model.splitlines() if line.startswith("Model name")), "")
    except OSError:
        pass
    return (f"{model or platform.processor()}, {os.cpu_count()} cores, {platform.system()} {platform.release()}, "
            f"Python {platform.python_version()}, SQLite {sqlite3.sqlite_version}, msgspec {msgspec.__version__}")


if __name__ == "__main__":
    main()
