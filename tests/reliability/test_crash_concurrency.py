"""Crash (SIGKILL at random moments) and concurrency (4 writers, 1 reader) against one campaign, on
both backends (issue 20, item 3): an SQLite file, and a PostgreSQL campaign whose writers are
serialized by its advisory lock."""

from __future__ import annotations

import json
import random
import signal
import sqlite3
import time
from collections import Counter
from pathlib import Path

import pytest
from conftest import worker
from cristal_events.projections import runner

from cristal_events import open_campaign

KILLS = 50
pytestmark = pytest.mark.slow


def _stored_commands(path: Path | str) -> Counter[str]:
    """The correlation ids of the stored events, read on a raw connection of the backend's own driver."""
    if isinstance(path, str) and path.startswith("postgresql://"):
        import psycopg
        from pgcluster import without_campaign

        url, schema = without_campaign(path)
        with psycopg.connect(url, options=f"-c search_path={schema}") as pg:
            return Counter(c for (c,) in pg.execute("SELECT correlation_id FROM events"))
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return Counter(c for (c,) in conn.execute("SELECT correlation_id FROM events"))
    finally:
        conn.close()


@pytest.fixture(params=["sqlite", "postgres"])
def ledger_target(request, ledger_db: Path) -> Path | str:
    """The ledger campaign of ``ledger_db`` on an SQLite file, or the same set-up on PostgreSQL."""
    if request.param == "sqlite":
        return ledger_db
    import ledger_ruleset
    from pgcluster import with_campaign

    from cristal_events import init_campaign

    url = with_campaign(request.getfixturevalue("pg_url"), "ledger")
    camp = init_campaign(url, name="Fiabilité", ruleset="ledger", seed=42)
    camp.execute(ledger_ruleset.AwardXp(character="thor", amount=100, reason="départ"))
    camp.close()
    return url


def test_sigkill_loses_no_acknowledged_append_and_leaves_no_half_command(ledger_target: Path | str) -> None:
    ledger_db = ledger_target
    rng = random.Random(8)
    acknowledged: dict[str, int] = {}
    kills = 0
    for i in range(KILLS):
        proc = worker("crash", str(ledger_db), str(i))
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "ready", proc.stderr.read() if proc.stderr else ""
        time.sleep(rng.uniform(0.0, 0.12))
        proc.send_signal(signal.SIGKILL)
        out, _ = proc.communicate(timeout=30)
        assert proc.returncode == -signal.SIGKILL
        kills += 1
        for line in out.splitlines():
            parts = line.split()
            if len(parts) == 3 and parts[0] == "ack":  # a line cut by the kill is not an acknowledgement
                acknowledged[parts[1]] = int(parts[2])

        camp = open_campaign(ledger_db)
        try:
            report = camp.verify()
            assert report.ok, report.problems
            stored = _stored_commands(ledger_db)
            lost = {c: n for c, n in acknowledged.items() if stored.get(c) != n}
            assert lost == {}, f"kill {i}: acknowledged commands missing or partial"
            # no half-written command: every spend has both of its events
            halves = [c for c, n in stored.items() if c and n not in (1, 2)]
            assert halves == []
            runner.catch_up(camp)
            assert runner.verify(camp) == []
            cp = camp.store.conn.execute("SELECT MIN(position) FROM projection_checkpoints").fetchone()[0]
            assert cp == camp.store.last_position()
        finally:
            camp.close()
    assert kills >= 50
    assert len(acknowledged) > KILLS // 2  # the loop really appended between the kills


def test_four_writers_and_a_reader_lose_nothing_and_never_see_half_a_command(ledger_target: Path | str,
                                                                            tmp_path: Path) -> None:
    ledger_db = ledger_target
    stop = tmp_path / "readers.stop"
    reader = worker("read", str(ledger_db), str(stop))
    writers = [worker("write", str(ledger_db), str(w), "250") for w in range(4)]
    outputs = [p.communicate(timeout=240) for p in writers]
    stop.touch()
    reader_out, reader_err = reader.communicate(timeout=60)
    for p, (_, err) in zip(writers, outputs):
        assert p.returncode == 0, err

    acks, refusals = [], []
    for out, _ in outputs:
        for line in out.splitlines():
            d = json.loads(line)
            (acks if "ack" in d else refusals).append(d)
    assert len(acks) + len(refusals) == 1000
    for r in refusals:  # each refusal is one clear sentence, never a crash or a lock error
        assert r["kind"] == "RuleError", r
        assert r["refused"].endswith(".") and "\n" not in r["refused"]
    assert acks, "no command was acknowledged"

    camp = open_campaign(ledger_db)
    try:
        assert camp.verify().ok
        rows = camp.store.conn.execute("SELECT position, stream, version FROM events ORDER BY position").fetchall()
        # no lost event: the log holds the set-up (2 events) plus every acknowledged event, contiguous
        acked_positions = sorted(e[0] for a in acks for e in a["ack"])
        assert [r[0] for r in rows] == list(range(1, len(rows) + 1))
        assert acked_positions == list(range(3, len(rows) + 1))
        # no duplicate stream version, and every stream counts 1, 2, 3 ...
        versions: dict[str, list[int]] = {}
        for _, stream, version in rows:
            versions.setdefault(stream, []).append(version)
        assert all(v == list(range(1, len(v) + 1)) for v in versions.values())
        # the final XP equals what was acknowledged
        xp: Counter[str] = Counter({"thor": 100})
        for a in acks:
            for _, _, _, type_, payload in a["ack"]:
                if type_ == "ledger.xp_awarded":
                    xp[payload["character"]] += payload["amount"]
                elif type_ == "ledger.xp_spent":
                    xp[payload["character"]] -= payload["amount"]
        state = camp.state().rules.xp
        assert state == {k: v for k, v in xp.items()}
        assert min(state.values()) >= 0
        runner.catch_up(camp)
        assert runner.verify(camp) == []
    finally:
        camp.close()

    seen = json.loads(reader_out)
    assert seen["reads"] > 0, reader_err
    assert seen["torn"] == 0
