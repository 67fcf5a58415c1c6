"""A damaged campaign file is called that: a truncated or corrupted SQLite campaign gets "<path> is damaged
(truncated or corrupted): ..." with what to do, a file that is not SQLite at all keeps "is not a campaign
file", and SQLite errors are classified by their class and error code, never by their message text."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import one_error

from cristal_events.cli import cli
from cristal_events.errors import CampaignDamaged, IntegrityError, NotACampaign, StoreUnavailable
from cristal_events.store import Store, translate_sqlite_error

PAGE = 4096


def _cli(db: Path, *args: str):
    return CliRunner().invoke(cli, ["--db", str(db), *args], catch_exceptions=False)


def _damaged(path: Path, what: str) -> str:
    return (f"Error: {path} is damaged (truncated or corrupted): SQLite reports {what!r} and nothing was written; "
            "restore a copy (a backup of the file, or a JSONL export checked with 'cristal verify --file "
            "EXPORT.jsonl' and rebuilt with 'cristal import EXPORT.jsonl NEW.db').")


@pytest.fixture(scope="module")
def real(tmp_path_factory) -> Path:
    """A real campaign of several pages: a character and a session of notes."""
    db = tmp_path_factory.mktemp("real") / "real.db"
    assert _cli(db, "init", "--name", "Réelle", "--seed", "3").exit_code == 0
    assert _cli(db, "character", "create", "thor", "--race", "Humain", "--name", "Thor").exit_code == 0
    assert _cli(db, "session", "start", "--title", "Un").exit_code == 0
    for i in range(60):
        assert _cli(db, "note", f"Note {i}: " + "le gué des loups " * 20).exit_code == 0
    assert _cli(db, "session", "end").exit_code == 0
    con = sqlite3.connect(db)
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    assert db.stat().st_size >= 12 * PAGE
    assert _cli(db, "sheet", "thor").exit_code == 0
    return db


def _copy(real: Path, tmp_path: Path, name: str) -> Path:
    target = tmp_path / name
    shutil.copy(real, target)
    return target


def _every_command_says(db: Path, message: str) -> None:
    before = db.read_bytes()
    for args in (["log"], ["sheet", "thor"], ["note", "écrite ?"]):
        assert one_error(_cli(db, *args)) == message, args
    assert db.read_bytes() == before


def test_a_campaign_cut_in_half_is_damaged(real, tmp_path):
    db = _copy(real, tmp_path, "moitie.db")
    with open(db, "r+b") as fh:
        fh.truncate(db.stat().st_size // 2)
    _every_command_says(db, _damaged(db, "database disk image is malformed"))


def test_a_campaign_with_flipped_bytes_in_its_schema_page_is_damaged(real, tmp_path):
    db = _copy(real, tmp_path, "retournee.db")
    data = bytearray(db.read_bytes())
    for i in range(100, PAGE):  # page 1 after the 100-byte file header: the schema
        data[i] ^= 0x5A
    db.write_bytes(bytes(data))
    _every_command_says(db, _damaged(db, "database disk image is malformed"))


def test_a_file_with_the_sqlite_header_but_a_broken_page_size_is_damaged(real, tmp_path):
    db = _copy(real, tmp_path, "entete.db")
    data = bytearray(db.read_bytes())
    data[16:18] = b"\x00\x03"  # not a power of two
    db.write_bytes(bytes(data))
    _every_command_says(db, _damaged(db, "file is not a database"))


def test_a_campaign_cut_inside_its_header_is_damaged(real, tmp_path):
    db = tmp_path / "debut.db"
    db.write_bytes(real.read_bytes()[:60])
    with pytest.raises(CampaignDamaged):
        Store.open(db)


def test_a_file_that_is_not_sqlite_is_still_not_a_campaign_file(tmp_path):
    text = tmp_path / "notes.db"
    text.write_text("bonjour\n" * 500, encoding="utf-8")
    _every_command_says(text, f"Error: {text} is not a campaign file (not an SQLite database).")


def _error(cls: type[sqlite3.Error], message: str, code: int) -> sqlite3.Error:
    exc = cls(message)
    exc.sqlite_errorcode = code  # what the sqlite3 module sets on every error raised by SQLite
    exc.sqlite_errorname = "X"
    return exc


@pytest.mark.parametrize("code, kind, words", [
    (sqlite3.SQLITE_BUSY, StoreUnavailable, "is locked by another program"),
    (sqlite3.SQLITE_LOCKED, StoreUnavailable, "is locked by another program"),
    (sqlite3.SQLITE_READONLY, StoreUnavailable, "is read-only"),
    (sqlite3.SQLITE_READONLY_DBMOVED, StoreUnavailable, "is read-only"),
    (sqlite3.SQLITE_FULL, StoreUnavailable, "is full"),
    (sqlite3.SQLITE_IOERR_SHORT_READ, StoreUnavailable, "(I/O error)"),
    (sqlite3.SQLITE_CORRUPT, CampaignDamaged, "is damaged (truncated or corrupted)"),
    (sqlite3.SQLITE_CANTOPEN, NotACampaign, "cannot be opened"),
    (sqlite3.SQLITE_CONSTRAINT_TRIGGER, IntegrityError, "is append-only"),
    (sqlite3.SQLITE_CONSTRAINT_CHECK, StoreUnavailable, "could not be used: database is locked (X)."),
])
def test_errors_are_classified_by_code_not_by_message(tmp_path, code, kind, words):
    # the message says the opposite of the code: "locked" for a full disk, "full" for a lock ...
    misleading = "disk is full" if code in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED) else "database is locked"
    out = translate_sqlite_error(_error(sqlite3.OperationalError, misleading, code), tmp_path / "c.db")
    assert type(out) is kind and words in str(out), str(out)


def test_an_error_without_a_code_is_not_guessed_from_its_text(tmp_path):
    out = translate_sqlite_error(sqlite3.ProgrammingError("database is locked, disk is full"), tmp_path / "c.db")
    assert type(out) is StoreUnavailable
    assert str(out) == f"The campaign {tmp_path / 'c.db'} could not be used: database is locked, disk is full (ProgrammingError)."


def test_the_append_only_triggers_are_recognised_by_their_code(tmp_path):
    db = tmp_path / "c.db"
    assert _cli(db, "init", "--name", "x").exit_code == 0
    store = Store.open(db)
    try:
        with pytest.raises(sqlite3.IntegrityError) as raised:
            store.conn.execute("UPDATE events SET actor = 'Mallory'")
        assert raised.value.sqlite_errorcode == sqlite3.SQLITE_CONSTRAINT_TRIGGER
        out = translate_sqlite_error(raised.value, db)
        assert isinstance(out, IntegrityError) and "append-only" in str(out)
    finally:
        store.close()


def test_a_lock_held_by_another_writer_is_busy(tmp_path):
    db = tmp_path / "c.db"
    assert _cli(db, "init", "--name", "x").exit_code == 0
    other = sqlite3.connect(db, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        res = CliRunner(env={"CRISTAL_BUSY_TIMEOUT": "0.1"}).invoke(cli, ["--db", str(db), "note", "x"])
        assert one_error(res) == (f"Error: The campaign {db} is locked by another program past the timeout; "
                                   "nothing was written.")
    finally:
        other.execute("ROLLBACK")
        other.close()


def test_a_campaign_truncated_to_nothing_is_called_that(tmp_path):
    db = tmp_path / "vide.db"
    db.write_bytes(b"")
    assert one_error(_cli(db, "log")) == (
        f"Error: {db} is empty (0 bytes): a campaign truncated to nothing, or not a campaign file; restore a copy "
        "(a backup, or 'cristal import' of a JSONL export).")
    assert db.read_bytes() == b""
