-- Derived data only: projection checkpoints and state snapshots. Disposable, rebuilt from the log.
CREATE TABLE projection_checkpoints (
    name     TEXT PRIMARY KEY,
    version  INTEGER NOT NULL,
    position INTEGER NOT NULL,
    state    BLOB
);

CREATE TABLE snapshots (
    position      INTEGER NOT NULL,
    state_version TEXT NOT NULL,
    state         BLOB NOT NULL,
    PRIMARY KEY (state_version, position)
);

-- Secret session seeds for verifiable dice: kept out of the log until session.ended reveals them.
CREATE TABLE session_secrets (
    session INTEGER PRIMARY KEY,
    secret  TEXT NOT NULL
);
