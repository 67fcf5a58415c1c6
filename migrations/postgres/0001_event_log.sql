-- The PostgreSQL form of a campaign (issue 20): one schema per campaign (the connection's search_path
-- names it), holding the same tables as an SQLite campaign file. Columns keep SQLite's meaning and the
-- payload stays the exact JSON text the engine hashed (text, not jsonb, which would reorder keys), so a
-- row hashes the same on both backends.
CREATE TABLE events (
    position       bigint PRIMARY KEY,              -- global, assigned under the campaign's advisory lock
    event_id       text NOT NULL UNIQUE,            -- UUID
    stream         text NOT NULL,                   -- campaign, character:thor, combat:taverne ...
    version        integer NOT NULL,                -- per-stream version, from 1
    type           text NOT NULL,                   -- stable event tag
    schema_version integer NOT NULL,
    payload        text NOT NULL,                   -- compact JSON of the event, as hashed
    recorded_at    text NOT NULL,                   -- UTC, ISO 8601
    session        bigint,                          -- play session number, NULL outside sessions
    actor          text NOT NULL,
    causation_id   text,
    correlation_id text,
    prev_hash      text NOT NULL,
    hash           text NOT NULL,
    UNIQUE (stream, version)
);
CREATE INDEX events_by_session ON events (session);
CREATE INDEX events_session_starts ON events (position) WHERE type = 'session.started';

-- The highest position ever written (SQLite's AUTOINCREMENT counter): shows events removed from the end.
CREATE TABLE log_head (
    one      boolean PRIMARY KEY DEFAULT true CHECK (one),
    position bigint NOT NULL
);
INSERT INTO log_head (one, position) VALUES (true, 0);

CREATE FUNCTION events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'the event log is append-only: % is forbidden', TG_OP USING ERRCODE = 'integrity_constraint_violation';
END;
$$;
CREATE TRIGGER events_no_update BEFORE UPDATE ON events FOR EACH ROW EXECUTE FUNCTION events_append_only();
CREATE TRIGGER events_no_delete BEFORE DELETE ON events FOR EACH ROW EXECUTE FUNCTION events_append_only();
CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON events FOR EACH STATEMENT EXECUTE FUNCTION events_append_only();
-- ... and the role that writes with the engine (the owner of the table) may not even try:
REVOKE UPDATE, DELETE, TRUNCATE ON events FROM PUBLIC;
REVOKE UPDATE, DELETE, TRUNCATE ON events FROM CURRENT_USER;

-- Derived data (checkpoints and snapshots bound to the log, as SQLite's migration 0005).
CREATE TABLE projection_checkpoints (
    name     text PRIMARY KEY,
    version  integer NOT NULL,
    position bigint NOT NULL,
    state    bytea
);
CREATE TABLE snapshots (
    position      bigint NOT NULL,
    state_version text NOT NULL,
    event_hash    text NOT NULL,
    digest        text NOT NULL,
    state         bytea NOT NULL,
    PRIMARY KEY (state_version, position)
);
-- Legacy session secrets: always empty here (secrets live in a file outside the database).
CREATE TABLE session_secrets (
    session bigint PRIMARY KEY,
    secret  text NOT NULL
);
-- Web access tokens (SQLite's migration 0006): only each token's SHA-256.
CREATE TABLE access_tokens (
    name        text PRIMARY KEY,
    token_hash  text NOT NULL UNIQUE,
    characters  text NOT NULL DEFAULT '[]',
    gm          integer NOT NULL DEFAULT 0,
    granted_at  text NOT NULL,
    revoked_at  text
);
