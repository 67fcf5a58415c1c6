"""A small campaign at the table: Thor (Alice's), York (Bob's), an ogre, a fight going on, and a
token for the game master and each player; the web application over it, in-process or served."""

from __future__ import annotations

import json
import socket
import sqlite3
import threading
import time

import pytest
from click.testing import CliRunner

from cristal_events.cli import cli

pytest.importorskip("starlette", reason="the web extra (starlette) is not installed")


def cristal(db, *args: str) -> str:
    result = CliRunner().invoke(cli, ["--db", str(db), *args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout


def cristal_process(db, *args: str) -> str:
    """``cristal --db DB ARGS`` in a process of its own (a terminal beside the served table: click's
    in-process runner would swap this process's stdout under the server's commands)."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    r = subprocess.run([sys.executable, "-c", "from cristal_events.cli import main; main()", "--db", str(db), *args],
                       capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    return r.stdout


def event_count(db) -> int:
    conn = sqlite3.connect(db)
    try:
        return conn.execute("SELECT COUNT(*) FROM events").fetchone()[0]
    finally:
        conn.close()


class TableSetup:
    def __init__(self, db):
        self.db = db
        cristal(db, "init", str(db), "--name", "La Taverne", "--ruleset", "cristal", "--seed", "7")
        cristal(db, "session", "start", "--title", "L'auberge")
        for cid, name, player in (("thor", "Thor", "Alice"), ("york", "York", "Bob"), ("ogre", "Ogre", "")):
            cristal(db, "character", "create", cid, "--race", "Humain", "--name", name,
                    *(["--player", player] if player else []))
        cristal(db, "xp", "award", "thor", "york", "400", "--reason", "Départ")
        cristal(db, "combat", "start", "pendu", "--with", "thor", "--with", "york", "--with", "ogre",
                "--it", "york=1", "--it", "ogre=2")
        self.tokens = {}
        for name, extra in (("mj", ["--gm"]), ("alice", ["--character", "thor"]), ("bob", ["--character", "york"])):
            self.tokens[name] = json.loads(cristal(db, "access", "grant", name, *extra, "--json"))["token"]

    def headers(self, who: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[who]}"}


@pytest.fixture
def table(tmp_path):
    return TableSetup(tmp_path / "taverne.db")


@pytest.fixture
def client(table):
    from starlette.testclient import TestClient

    from cristal_events.web.app import create_app

    with TestClient(create_app(table.db)) as c:
        yield c


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Served:
    """The application under uvicorn on 127.0.0.1 in a thread of this process."""

    def __init__(self, db):
        import uvicorn

        from cristal_events.web.app import create_app

        self.port = free_port()
        config = uvicorn.Config(create_app(db), host="127.0.0.1", port=self.port, log_level="warning")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 10
        while not self.server.started:
            assert time.monotonic() < deadline, "the web table did not start"
            time.sleep(0.05)

    def url(self, token: str) -> str:
        return f"http://127.0.0.1:{self.port}/?token={token}"

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)


@pytest.fixture
def served(table):
    s = Served(table.db)
    yield s
    s.stop()
