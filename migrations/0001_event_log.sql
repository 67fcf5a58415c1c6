-- The append-only event log. Every game action is one row; nothing is ever updated or deleted.
CREATE TABLE events (
    position       INTEGER PRIMARY KEY AUTOINCREMENT,  -- global, monotonic, never reused
    event_id       TEXT NOT NULL UNIQUE,               -- UUID
    stream         TEXT NOT NULL,                      -- campaign, character:thor, combat:taverne ...
    version        INTEGER NOT NULL,                   -- per-stream version, from 1
    type           TEXT NOT NULL,                      -- stable event tag
    schema_version INTEGER NOT NULL,
    payload        TEXT NOT NULL CHECK (json_valid(payload)),
    recorded_at    TEXT NOT NULL,                      -- UTC, ISO 8601
    session        INTEGER,                            -- play session number, NULL outside sessions
    actor          TEXT NOT NULL,                      -- GM or a player's name
    causation_id   TEXT,
    correlation_id TEXT,
    prev_hash      TEXT NOT NULL,
    hash           TEXT NOT NULL,
    UNIQUE (stream, version)
);
CREATE INDEX events_by_type ON events (type);
CREATE INDEX events_by_session ON events (session);

CREATE TRIGGER events_no_update BEFORE UPDATE ON events
BEGIN
    SELECT RAISE(ABORT, 'the event log is append-only: UPDATE is forbidden');
END;

CREATE TRIGGER events_no_delete BEFORE DELETE ON events
BEGIN
    SELECT RAISE(ABORT, 'the event log is append-only: DELETE is forbidden');
END;
