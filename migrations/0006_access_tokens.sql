-- Web access to the table (issue 19): one row per holder of a token for `cristal serve`. Only the
-- SHA-256 of each token is kept, never the token; the rows live beside the event log, not in it
-- (the log records each grant and revoke as access.granted / access.revoked, naming the holder and
-- the characters, never the token or its hash). A revoked row keeps its name and gets revoked_at.
CREATE TABLE access_tokens (
    name        TEXT PRIMARY KEY,
    token_hash  TEXT NOT NULL UNIQUE,
    characters  TEXT NOT NULL DEFAULT '[]',
    gm          INTEGER NOT NULL DEFAULT 0,
    granted_at  TEXT NOT NULL,
    revoked_at  TEXT
);
