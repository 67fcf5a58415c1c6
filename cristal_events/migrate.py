"""Numbered, forward-only schema migrations, recorded with their SHA-256 checksum.

The SQL files live in ``migrations/`` at the top of the repository, installed as ``cristal_events.migrations``. On open, every
migration not yet applied is applied in order; a recorded migration whose file changed or vanished
is reported, and a campaign that records a migration this engine does not know was written by a
newer engine: it is refused and left untouched.
"""

from __future__ import annotations

import os
import re
import sqlite3
from datetime import UTC, datetime

import msgspec

import cristal_events.migrations as _migrations_package

from .errors import MigrationError, SchemaTooNew
from .i18n import _
from .log_rows import sha256

APPLICATION_ID = 0x43524953  # "CRIS": marks an SQLite file as a cristal-events campaign
_NAME = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")


class Migration(msgspec.Struct, frozen=True):
    number: int
    name: str
    sql: str

    @property
    def checksum(self) -> str:
        return sha256()(self.sql.encode()).hexdigest()


def available() -> list[Migration]:
    """The migrations shipped with this engine, in order."""
    out = []
    folder = os.path.dirname(_migrations_package.__file__)  # os, not pathlib: see store.path_text
    for name in os.listdir(folder):
        m = _NAME.match(name)
        if m:
            with open(os.path.join(folder, name), encoding="utf-8") as f:
                out.append(Migration(int(m.group(1)), name, f.read()))
    out.sort(key=lambda m: m.number)
    return out


def latest() -> int:
    return available()[-1].number


def _recorded(conn: sqlite3.Connection) -> dict[int, tuple[str, str]]:
    has = conn.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name='schema_migrations'").fetchone()
    if not has:
        return {}
    return {n: (name, cs) for n, name, cs in conn.execute("SELECT number, name, checksum FROM schema_migrations")}


def check(conn: sqlite3.Connection) -> list[Migration]:
    """Compare recorded migrations to the shipped ones; return those still to apply.

    Raises SchemaTooNew for a newer campaign and MigrationError for a changed or missing one.
    """
    shipped = {m.number: m for m in available()}
    recorded = _recorded(conn)
    newer = sorted(n for n in recorded if n not in shipped)
    if newer and newer[-1] > max(shipped):
        raise SchemaTooNew(
            _("This campaign uses schema version {max}, newer than this engine's {max2}; upgrade "
              "cristal-events to open it (the file was not touched).").format(max=max(recorded), max2=max(shipped))
        )
    for n, (name, cs) in sorted(recorded.items()):
        m = shipped.get(n)
        if m is None:
            raise MigrationError(_("Migration {name} is recorded in the campaign but missing from this engine.").format(name=name))
        if m.checksum != cs:
            raise MigrationError(_("Migration {name} was changed after it was applied (checksum mismatch).").format(name=name))
    return [m for n, m in sorted(shipped.items()) if n not in recorded]


def apply_pending(conn: sqlite3.Connection) -> list[str]:
    """Apply every pending migration, each in its own transaction. Returns their names."""
    pending = check(conn)
    done = []
    for m in pending:
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations (number INTEGER PRIMARY KEY, name TEXT NOT NULL, "
                "checksum TEXT NOT NULL, applied_at TEXT NOT NULL)"
            )
            for statement in _split(m.sql):
                conn.execute(statement)
            conn.execute(
                "INSERT INTO schema_migrations VALUES (?, ?, ?, ?)",
                (m.number, m.name, m.checksum, datetime.now(UTC).isoformat(timespec="microseconds")),
            )
            conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        done.append(m.name)
    return done


def _split(sql: str) -> list[str]:
    """Split a migration file into statements (trigger bodies keep their inner semicolons)."""
    statements, buf = [], []
    for line in sql.splitlines():
        buf.append(line)
        chunk = "\n".join(buf)
        if sqlite3.complete_statement(chunk):
            text = chunk.strip()
            if text and not all(line.strip().startswith("--") or not line.strip() for line in buf):
                statements.append(text)
            buf = []
    return statements
