-- The session ends join the rows the engine looks up by type (issue 20, eleventh session): every
-- session's receipt is the position and chain hash of its `session.ended` event (PgStore.session_ends),
-- read by the HTML export, the recap and the timeline exports, which scanned the whole log for them.
-- One partial index still (see 0004: each partial index is one more predicate checked per inserted
-- row); "type = 'session.ended'" implies its predicate (tests/store/test_pg_marked_index.py reads the plan).
DROP INDEX events_marked;
CREATE INDEX events_marked ON events (position)
    WHERE type IN ('session.started', 'session.ended', 'roll.sealed', 'roll.revealed');
