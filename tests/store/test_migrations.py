"""Migrations: applied on open, recorded with checksums; changes and newer schemas are reported."""

from __future__ import annotations

import hashlib
import sqlite3

import pytest

from cristal_events import migrate, open_campaign
from cristal_events.errors import MigrationError, NotACampaign, SchemaTooNew


def digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_fresh_campaign_records_every_migration(campaign, db_path):
    conn = sqlite3.connect(db_path)
    rows = conn.execute("SELECT number, name, checksum FROM schema_migrations ORDER BY number").fetchall()
    shipped = migrate.available()
    assert [(m.number, m.name, m.checksum) for m in shipped] == rows
    assert conn.execute("PRAGMA application_id").fetchone()[0] == migrate.APPLICATION_ID
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_reopen_applies_nothing_again(campaign, db_path):
    campaign.close()
    camp = open_campaign(db_path)
    assert migrate.check(camp.store.conn) == []
    assert camp.store.count() == 1
    camp.close()


def test_tampered_checksum_is_reported(campaign, db_path):
    campaign.close()
    conn = sqlite3.connect(db_path)
    conn.execute("UPDATE schema_migrations SET checksum = 'x' WHERE number = 1")
    conn.commit()
    conn.close()
    with pytest.raises(MigrationError, match=r"Migration 0001_event_log.sql was changed after it was applied"):
        open_campaign(db_path)


def test_newer_schema_is_refused_and_left_untouched(campaign, db_path):
    campaign.close()
    conn = sqlite3.connect(db_path)
    conn.execute("INSERT INTO schema_migrations VALUES (9999, '9999_future.sql', 'abc', '2030-01-01')")
    conn.commit()
    conn.close()
    before = digest(db_path)
    with pytest.raises(SchemaTooNew, match="schema version 9999, newer than this engine's"):
        open_campaign(db_path)
    assert digest(db_path) == before


def test_missing_migration_is_reported(campaign, db_path, monkeypatch):
    campaign.close()
    shipped = migrate.available()
    monkeypatch.setattr(migrate, "available", lambda: shipped[:1] + [migrate.Migration(9999, "9999_x.sql", "")])
    with pytest.raises(MigrationError, match="Migration 0002_read_models.sql is recorded in the campaign but missing"):
        open_campaign(db_path)


def test_plain_sqlite_file_is_not_a_campaign(tmp_path):
    other = tmp_path / "other.db"
    sqlite3.connect(other).execute("CREATE TABLE t (x)")
    with pytest.raises(NotACampaign, match="is an SQLite file but not a cristal-events campaign"):
        open_campaign(other)
