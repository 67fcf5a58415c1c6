-- Snapshots bound to the log (issue 14, item 6). A snapshot is a cache of the state folded up to a
-- position; from now on it also stores the hash of the event at that position (event_hash) and a
-- SHA-256 digest of its state bound to that hash (digest). The engine uses a snapshot only when the
-- log still holds event_hash at its position and the digest matches; `cristal verify` compares every
-- snapshot with a fold of the log. The old, unbound snapshots are dropped: they are derived data,
-- written again as the log grows or by `cristal rebuild`.
DROP TABLE snapshots;
CREATE TABLE snapshots (
    position      INTEGER NOT NULL,
    state_version TEXT NOT NULL,
    event_hash    TEXT NOT NULL,
    digest        TEXT NOT NULL,
    state         BLOB NOT NULL,
    PRIMARY KEY (state_version, position)
);
