"""A throw-away PostgreSQL 15 cluster for the tests and benchmarks/postgres.py (issue 20, item 5).

``Cluster.start()`` runs Debian's ``initdb`` into a temporary directory (as the ``postgres`` user when
this process is root: PostgreSQL refuses to run as root), starts the server listening only on a Unix
socket in that directory (no TCP port), and creates the role the engine writes with (``cristal``,
not a superuser: the append-only privileges are checked against it). ``stop()`` stops it and removes
the directory. ``CRISTAL_TEST_POSTGRES`` (a superuser URL of a running server) is used instead when set.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

BIN = Path(os.environ.get("CRISTAL_PG_BIN", "/usr/lib/postgresql/15/bin"))
ENGINE_ROLE = "cristal"


class ClusterMissing(RuntimeError):
    """No PostgreSQL server could be found or started (the sentence says what is missing)."""


def _as_postgres(argv: list[str]) -> list[str]:
    if os.geteuid() != 0:
        return argv
    runuser = shutil.which("runuser")
    if runuser:
        return [runuser, "-u", "postgres", "--", *argv]
    return ["su", "postgres", "-s", "/bin/sh", "-c", " ".join(f"'{a}'" for a in argv)]


def _with_user(url: str, user: str, dbname: str) -> str:
    parts = urlsplit(url)
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit(parts._replace(netloc=f"{user}@{host}", path=f"/{dbname}"))


class Cluster:
    """A server the tests may create databases and roles on, through its superuser ``admin_url``."""

    def __init__(self, admin_url: str, directory: Path | None = None):
        self.admin_url = admin_url
        self.directory = directory
        self._ensure_role()

    @classmethod
    def start(cls, *, fsync: bool = False) -> Cluster:
        """A new cluster in a temporary directory. ``fsync`` off for the tests (nothing here survives a
        power cut anyway); the benchmarks start it with fsync on, as the issue measured."""
        initdb, pg_ctl = BIN / "initdb", BIN / "pg_ctl"
        if not initdb.exists():
            raise ClusterMissing(f"PostgreSQL 15 is not installed ({initdb} is missing): apt-get install "
                                 "postgresql-15, or set CRISTAL_TEST_POSTGRES to a superuser URL of a running server.")
        if os.geteuid() == 0:
            try:
                import pwd

                pw = pwd.getpwnam("postgres")
            except KeyError:
                raise ClusterMissing("The tests run as root but there is no 'postgres' user to run PostgreSQL as; "
                                     "set CRISTAL_TEST_POSTGRES to a superuser URL of a running server.") from None
        d = Path(tempfile.mkdtemp(prefix="cristal-pg-"))
        if os.geteuid() == 0:
            os.chown(d, pw.pw_uid, pw.pw_gid)
        data = d / "data"
        try:
            subprocess.run(_as_postgres([str(initdb), "-D", str(data), "-U", "postgres", "--auth=trust",
                                         "-E", "UTF8", "--no-locale", "--no-sync"]),
                           check=True, capture_output=True, text=True)
            opts = (f"-c listen_addresses='' -c unix_socket_directories='{d}' -c fsync={'on' if fsync else 'off'} "
                    "-c max_connections=60 -c shared_buffers=64MB")
            if not fsync:
                opts += " -c synchronous_commit=off -c full_page_writes=off"
            subprocess.run(_as_postgres([str(pg_ctl), "-D", str(data), "-l", str(d / "server.log"), "-o", opts,
                                         "-w", "-t", "60", "start"]), check=True, capture_output=True, text=True)
        except subprocess.CalledProcessError as exc:
            log = (d / "server.log").read_text(errors="replace")[-2000:] if (d / "server.log").exists() else ""
            shutil.rmtree(d, ignore_errors=True)
            raise ClusterMissing(f"PostgreSQL could not be started in {d}: {(exc.stderr or '').strip()} {log}") from None
        return cls(f"postgresql://postgres@/postgres?host={d}", d)

    @classmethod
    def from_env(cls) -> Cluster:
        """The server of ``CRISTAL_TEST_POSTGRES`` when set, else a new temporary cluster."""
        url = os.environ.get("CRISTAL_TEST_POSTGRES")
        if url:
            return cls(url)
        return cls.start()

    def _admin(self):  # type: ignore[no-untyped-def]
        import psycopg

        try:
            return psycopg.connect(self.admin_url, autocommit=True)
        except psycopg.Error as exc:
            raise ClusterMissing(f"The PostgreSQL server {self.admin_url} cannot be reached: {exc}".strip()) from None

    def _ensure_role(self) -> None:
        with self._admin() as conn:
            if not conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (ENGINE_ROLE,)).fetchone():
                conn.execute(f"CREATE ROLE {ENGINE_ROLE} LOGIN NOSUPERUSER NOCREATEROLE")

    def new_database(self, prefix: str = "t") -> str:
        """A fresh, empty database owned by the engine's role; its URL (as that role)."""
        name = f"{prefix}_{uuid.uuid4().hex[:12]}"
        with self._admin() as conn:
            conn.execute(f"CREATE DATABASE {name} OWNER {ENGINE_ROLE} TEMPLATE template0")
        return _with_user(self.admin_url, ENGINE_ROLE, name)

    def superuser_url(self, url: str) -> str:
        """The same database as ``url``, as the superuser (for what the engine's role may not do)."""
        dbname = urlsplit(url).path.strip("/")
        return _with_user(self.admin_url, urlsplit(self.admin_url).username or "postgres", dbname)

    def drop_database(self, url: str) -> None:
        name = urlsplit(url).path.strip("/")
        with self._admin() as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")

    def stop(self) -> None:
        if self.directory is None:
            return
        subprocess.run(_as_postgres([str(BIN / "pg_ctl"), "-D", str(self.directory / "data"), "-m", "immediate",
                                     "-w", "stop"]), capture_output=True)
        shutil.rmtree(self.directory, ignore_errors=True)
        self.directory = None


def with_campaign(url: str, campaign: str) -> str:
    """``url`` naming ``campaign`` (``?campaign=NAME`` added to its query)."""
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(parts.query) if k != "campaign"] + [("campaign", campaign)]
    return urlunsplit(parts._replace(query=urlencode(query)))


def without_campaign(url: str) -> tuple[str, str]:
    """A campaign's URL as (the database's libpq URL, the campaign's schema)."""
    parts = urlsplit(url)
    query = parse_qsl(parts.query)
    name = next((v for k, v in query if k == "campaign"), "default")
    rest = [(k, v) for k, v in query if k != "campaign"]
    return urlunsplit(parts._replace(query=urlencode(rest))), f"cristal_{name}"


@contextmanager
def module_target(request, folder: Path, name: str) -> Iterator[str]:  # type: ignore[no-untyped-def]
    """The campaign target of a module-scoped fixture parametrised over ``["sqlite", "postgres"]``: a file
    in ``folder``, or campaign ``name`` of a new database (dropped at the end), its dice secrets in
    ``folder/secrets`` while the fixture lives (as ``pg_url`` does for one test)."""
    import pytest

    if request.param == "sqlite":
        yield str(folder / f"{name}.db")
        return
    cluster = request.getfixturevalue("pg_cluster")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("CRISTAL_SECRETS_DIR", str(folder / "secrets"))
        url = cluster.new_database()
        try:
            yield with_campaign(url, name)
        finally:
            cluster.drop_database(url)
