"""Child processes of the reliability tests (run as a script: ``workers.py MODE ARGS...``).

* ``crash DB SEED``: append commands forever, printing ``ack <correlation> <events>`` after each
  acknowledged command; the test kills it with SIGKILL at a random moment.
* ``write DB WORKER N``: N commands (XP awards and spends, many on the shared character ``thor``),
  printing one JSON line per outcome: acknowledged (with its events) or refused (with its sentence).
* ``read DB STOPFILE``: read the whole log again and again until STOPFILE exists, and print how many
  reads saw a command with some but not all of its events.
* ``lock DB``: hold a write lock on DB until killed.
"""

from __future__ import annotations

import json
import os
import random
import sqlite3
import sys
import time
from collections import Counter
from typing import Any

import ledger_ruleset as L

L.register()

from cristal_events import open_campaign
from cristal_events.errors import CristalError


def _command(rng: random.Random, me: str) -> object:
    who = "thor" if rng.random() < 0.7 else me
    if rng.random() < 0.55:
        return L.AwardXp(character=who, amount=rng.randint(1, 20), reason="combat")
    return L.SpendXp(character=who, amount=rng.randint(1, 15), what="technique")


def crash(db: str, seed: str) -> None:
    from cristal_events.projections import runner

    from cristal_events import projections

    rng = random.Random(int(seed))
    camp = projections.attach(open_campaign(db))
    runner.catch_up(camp)  # imports every read model now, so the kills land among appends
    camp.state()
    print("ready", flush=True)
    while True:
        try:
            recs = camp.execute(_command(rng, "york"))
        except CristalError:
            continue
        print(f"ack {recs[0].correlation_id} {len(recs)}", flush=True)


def write(db: str, worker: str, n: str) -> None:
    from cristal_events import projections

    rng = random.Random(int(worker))
    camp = projections.attach(open_campaign(db))
    for _ in range(int(n)):
        cmd = _command(rng, f"pj{worker}")
        try:
            recs = camp.execute(cmd)
        except CristalError as exc:
            print(json.dumps({"refused": str(exc), "kind": type(exc).__name__}), flush=True)
            continue
        print(json.dumps({"ack": [[r.position, r.stream, r.version, r.type, json.loads(r.payload)] for r in recs]}),
              flush=True)


def read(db: str, stopfile: str) -> None:
    reads = torn = 0
    if db.startswith("postgresql://"):  # a PostgreSQL campaign: each SELECT (autocommit) sees one snapshot
        import psycopg
        from pgcluster import without_campaign

        url, schema = without_campaign(db)
        conn: Any = psycopg.connect(url, autocommit=True, options=f"-c search_path={schema}")
    else:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)
    while not os.path.exists(stopfile) or reads == 0:
        parts: Counter[str] = Counter()
        want: dict[str, int] = {}
        for corr, payload in conn.execute("SELECT correlation_id, payload FROM events"):
            of = json.loads(payload).get("of")
            if corr and of:
                parts[corr] += 1
                want[corr] = of
        torn += sum(1 for c, k in parts.items() if k != want[c])
        reads += 1
        time.sleep(0.005)
    print(json.dumps({"reads": reads, "torn": torn}), flush=True)


def lock(db: str) -> None:
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("BEGIN EXCLUSIVE")
    print("locked", flush=True)
    time.sleep(600)


if __name__ == "__main__":
    mode, *args = sys.argv[1:]
    {"crash": crash, "write": write, "read": read, "lock": lock}[mode](*args)
