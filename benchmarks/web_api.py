"""A command through the web table's HTTP API against the same command through the table console, on a
big generated campaign (issue 19, item 7: goal <= 5 ms p50 through the API).

    python benchmarks/web_api.py                       # a 100k-event campaign, 300 commands a round, 3 rounds
    python benchmarks/web_api.py --events 20000 --rounds 100 --repeats 2   # a quick run
    python benchmarks/web_api.py --db /tmp/mine/c100k.db                   # a campaign of yours (copied)

The campaign is generated into a temporary folder, or copied there from ``--db`` (the benchmark appends
to its copies, never to ``--db``: the shared cache of generated campaigns stays as it is). The server is
``cristal serve`` in its own process on 127.0.0.1 (uvicorn, ``http="auto"`` and ``loop="auto"``: httptools
and uvloop when installed, the web extra's ``uvicorn[standard]``), and beside it, in the same run, the
same application under plain uvicorn (``http="h11"``, ``loop="asyncio"``), each on its own copy of the
campaign; the client keeps one HTTP connection open to each (httpx), as a page does. Each command is
``note TEXT`` (one event appended, answered with what ``--json`` prints). The console column runs the
same line (``note TEXT --json``) through the table console's in-process command path
(:meth:`cristal_events.console.session.Console.run_line`: the campaign kept open, the same click command
as the terminal) with its output captured, which is what the server does for each request, without
HTTP, authorization or the thread hop. The HTTP floor rows are a static file fetched over the same
connections (HTTP, uvicorn and httpx, nothing of the campaign): what the API pays that the console
cannot. Each repeat times ``--rounds`` commands of each kind, the kinds taking turns; the figures are
the medians over the repeats of each repeat's p50 and p99.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.generator import generate
from cristal_events.console.session import Console


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def through_console(console: Console, text: str) -> str:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        done = console.run_line(f"note '{text}' --json")
    assert done is True, err.getvalue()
    return out.getvalue()


#: the servers compared: name -> uvicorn's (http, loop) for the application (None: ``cristal serve`` itself,
#: which lets uvicorn choose); --servers picks some
SERVERS: dict[str, tuple[str, str] | None] = {"auto": None, "plain": ("h11", "asyncio"),
                                              "httptools": ("httptools", "asyncio"), "uvloop": ("h11", "uvloop")}
UVICORN = ("import sys, uvicorn; from cristal_events.web.app import create_app; "
           "uvicorn.run(create_app(sys.argv[1]), host='127.0.0.1', port=int(sys.argv[2]), log_level='warning', "
           "http=sys.argv[3], loop=sys.argv[4])")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=int, default=100_000)
    ap.add_argument("--rounds", type=int, default=300, help="commands of each kind per repeat")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--db", default=None, help="an existing campaign, copied (default: generate one)")
    ap.add_argument("--servers", nargs="*", default=["auto", "plain"], choices=list(SERVERS),
                    help="the uvicorn set-ups compared (auto: cristal serve; plain: h11 and asyncio; httptools; "
                         "uvloop)")
    args = ap.parse_args()
    chosen = {name: SERVERS[name] for name in args.servers}

    import shutil
    from importlib.util import find_spec

    import httpx2 as httpx  # httpx's maintained successor, the one Starlette's test client prefers

    tmp = tempfile.mkdtemp(prefix="cristal-web-bench-")
    source = args.db or os.path.join(tmp, "big.db")
    if args.db is None:
        t0 = time.perf_counter()
        generate(source, args.events, quiet=True)
        print(f"generated {args.events:,} events in {time.perf_counter() - t0:.0f} s")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    auto = [name for name in ("httptools", "uvloop") if find_spec(name) is not None]
    servers, clients, dbs = [], {}, {}
    try:
        for i, (name, how) in enumerate(chosen.items()):
            db = dbs[name] = os.path.join(tmp, f"server{i}.db")
            shutil.copyfile(source, db)
            run = [sys.executable, "-c", "from cristal_events.cli import main; main()", "--db", db]
            token = json.loads(subprocess.run([*run, "access", "grant", f"bench{os.getpid()}", "--gm", "--json"],
                                              capture_output=True, text=True, env=env, check=True).stdout)["token"]
            port = free_port()
            cmd = [*run, "serve", "--port", str(port)] if how is None else [sys.executable, "-c", UVICORN, db,
                                                                             str(port), *how]
            servers.append(subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL))
            client = clients[name] = httpx.Client(base_url=f"http://127.0.0.1:{port}",
                                                  headers={"Authorization": f"Bearer {token}"})
            deadline = time.monotonic() + 60
            while True:
                try:
                    client.get("/api/log?after=999999999")
                    break
                except httpx.TransportError:
                    if time.monotonic() > deadline:
                        raise SystemExit("the server did not start") from None
                    time.sleep(0.1)
            events = client.get("/api/log?after=999999999")
            assert events.status_code == 200, events.text
        first = next(iter(chosen))
        console_db = os.path.join(tmp, "console.db")  # its own copy: a server sharing its file with the
        shutil.copyfile(source, console_db)           # console would catch up with the console's notes too
        console = Console(console_db)  # the console's campaign kept open
        kinds = [*(f"api: {n}" for n in chosen), "console", *(f"http: {n}" for n in chosen)]
        p50s: dict[str, list[float]] = {k: [] for k in kinds}
        p99s: dict[str, list[float]] = {k: [] for k in kinds}
        for repeat in range(args.repeats):
            times: dict[str, list[float]] = {k: [] for k in kinds}
            for i in range(args.rounds):
                turns = list(clients.items())[::1 if i % 2 else -1]  # the servers' order alternates
                for name, client in turns:
                    t0 = time.perf_counter()
                    r = client.post("/api/command", json={"argv": ["note", f"api {repeat}.{i}"]})
                    times[f"api: {name}"].append(time.perf_counter() - t0)
                    assert r.status_code == 200 and r.json()["type"] == "note.recorded", r.text
                t0 = time.perf_counter()
                out = through_console(console, f"console {repeat}.{i}")
                times["console"].append(time.perf_counter() - t0)
                assert json.loads(out)["type"] == "note.recorded", out
                for name, client in turns:
                    t0 = time.perf_counter()  # the HTTP floor: the same connection, a static file, no campaign
                    r = client.get("/static/favicon.svg")
                    times[f"http: {name}"].append(time.perf_counter() - t0)
                    assert r.status_code == 200
            for k in times:
                p50s[k].append(quantile(times[k], 0.50))
                p99s[k].append(quantile(times[k], 0.99))
        console.close()
        run = [sys.executable, "-c", "from cristal_events.cli import main; main()", "--db", dbs[first]]
        last = json.loads(subprocess.run([*run, "log", "--after", "0", "--type", "campaign.created", "--json"],
                                         capture_output=True, text=True, env=env, check=True).stdout)
        assert last["position"] == 1
    finally:
        for server in servers:
            server.terminate()
            server.wait(10)
        shutil.rmtree(tmp, ignore_errors=True)
    ms = lambda xs: f"{statistics.median(xs) * 1000:8.2f}"  # noqa: E731
    print(f"campaign: {args.db or f'{args.events:,} generated events'} (copied); {args.rounds} commands of each "
          f"kind x {args.repeats} repeats (medians over repeats); load average {os.getloadavg()[0]:.2f}")
    print(f"uvicorn auto picks: {', '.join(auto) or 'nothing more (h11, asyncio: httptools and uvloop are not installed)'}")
    print("servers: " + "; ".join(f"{n} = " + ("cristal serve (uvicorn http='auto', loop='auto')" if how is None
                                                 else f"uvicorn http={how[0]!r}, loop={how[1]!r}")
                                  for n, how in chosen.items()))
    print(f"{'':42}{'p50 ms':>8}  {'p99 ms':>8}")
    for name in chosen:
        print(f"{'note through POST /api/command, ' + name:42}{ms(p50s['api: ' + name])}  {ms(p99s['api: ' + name])}")
    print(f"{'note through the console':42}{ms(p50s['console'])}  {ms(p99s['console'])}")
    for name in chosen:
        print(f"{'HTTP floor (a static file), ' + name:42}{ms(p50s['http: ' + name])}  {ms(p99s['http: ' + name])}")
    api = statistics.median(p50s[f"api: {first}"])
    print(f"{'API (' + first + ') / console (p50)':42}{api / statistics.median(p50s['console']):8.2f}x")
    print(f"goal p50 <= 5 ms through the API ({first}): {'met' if api * 1000 <= 5 else 'MISSED'}")


if __name__ == "__main__":
    main()
