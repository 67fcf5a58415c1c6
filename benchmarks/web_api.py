"""A command through the web table's HTTP API against the same command through the table console, on a
big generated campaign (issue 19, item 7: goal <= 5 ms p50 through the API).

    python benchmarks/web_api.py                       # a 100k-event campaign, 300 commands a round, 3 rounds
    python benchmarks/web_api.py --events 20000 --rounds 100 --repeats 2   # a quick run

The server is ``cristal serve`` in its own process on 127.0.0.1 (uvicorn); the client keeps one HTTP
connection open (httpx), as a page does. Each command is ``note TEXT`` (one event appended, answered
with what ``--json`` prints). The console column runs the same line (``note TEXT --json``) through the
table console's in-process command path (:meth:`cristal_events.console.session.Console.run_line`: the
campaign kept open, the same click command as the terminal) with its output captured, which is what the
server does for each request, without HTTP, authorization or the thread hop. The HTTP floor
row is a static file fetched over the same connection (HTTP, uvicorn and httpx, nothing of the
campaign): what the API pays that the console cannot. Each repeat
times ``--rounds`` commands of each kind, alternating; the figures are the medians over the repeats
of each repeat's p50 and p99.
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=int, default=100_000)
    ap.add_argument("--rounds", type=int, default=300, help="commands of each kind per repeat")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--db", default=None, help="an existing campaign to use (default: generate one)")
    args = ap.parse_args()

    import httpx

    tmp = tempfile.mkdtemp(prefix="cristal-web-bench-")
    db = args.db or os.path.join(tmp, "big.db")
    if args.db is None:
        t0 = time.perf_counter()
        generate(db, args.events, quiet=True)
        print(f"generated {args.events:,} events in {time.perf_counter() - t0:.0f} s")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = [sys.executable, "-c", "from cristal_events.cli import main; main()", "--db", db]
    token = json.loads(subprocess.run([*run, "access", "grant", f"bench{os.getpid()}", "--gm", "--json"],
                                      capture_output=True, text=True, env=env, check=True).stdout)["token"]
    port = free_port()
    server = subprocess.Popen([*run, "serve", "--port", str(port)], env=env, stdout=subprocess.DEVNULL)
    try:
        client = httpx.Client(base_url=f"http://127.0.0.1:{port}", headers={"Authorization": f"Bearer {token}"})
        deadline = time.monotonic() + 30
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
        console = Console(db)  # the console's campaign kept open, beside the server's
        p50s: dict[str, list[float]] = {"api": [], "console": [], "http": []}
        p99s: dict[str, list[float]] = {"api": [], "console": [], "http": []}
        for repeat in range(args.repeats):
            times: dict[str, list[float]] = {"api": [], "console": [], "http": []}
            for i in range(args.rounds):
                t0 = time.perf_counter()
                r = client.post("/api/command", json={"argv": ["note", f"api {repeat}.{i}"]})
                times["api"].append(time.perf_counter() - t0)
                assert r.status_code == 200 and r.json()["type"] == "note.recorded", r.text
                t0 = time.perf_counter()
                out = through_console(console, f"console {repeat}.{i}")
                times["console"].append(time.perf_counter() - t0)
                assert json.loads(out)["type"] == "note.recorded", out
                t0 = time.perf_counter()  # the HTTP floor: the same connection, a static file, no campaign
                r = client.get("/static/favicon.svg")
                times["http"].append(time.perf_counter() - t0)
                assert r.status_code == 200
            for k in times:
                p50s[k].append(quantile(times[k], 0.50))
                p99s[k].append(quantile(times[k], 0.99))
        console.close()
        last = json.loads(subprocess.run([*run, "log", "--after", "0", "--type", "campaign.created", "--json"],
                                         capture_output=True, text=True, env=env, check=True).stdout)
        assert last["position"] == 1
    finally:
        server.terminate()
        server.wait(10)
    ms = lambda xs: f"{statistics.median(xs) * 1000:8.2f}"  # noqa: E731
    print(f"campaign: {args.db or f'{args.events:,} generated events'}; {args.rounds} commands of each kind "
          f"x {args.repeats} repeats (medians over repeats)")
    print(f"{'':34}{'p50 ms':>8}  {'p99 ms':>8}")
    print(f"{'note through POST /api/command':34}{ms(p50s['api'])}  {ms(p99s['api'])}")
    print(f"{'note through the console':34}{ms(p50s['console'])}  {ms(p99s['console'])}")
    print(f"{'HTTP floor (GET a static file)':34}{ms(p50s['http'])}  {ms(p99s['http'])}")
    print(f"{'API / console (p50)':34}{statistics.median(p50s['api']) / statistics.median(p50s['console']):8.2f}x")
    goal = statistics.median(p50s["api"]) * 1000 <= 5
    print(f"goal p50 <= 5 ms through the API: {'met' if goal else 'MISSED'}")


if __name__ == "__main__":
    main()
