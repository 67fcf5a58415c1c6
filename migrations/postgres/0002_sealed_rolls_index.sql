-- The secret rolls and their reveals, as migrations/0007_sealed_rolls_index.sql on SQLite: the
-- sealed-roll peek after every command (PgStore.sealed_of) reads O(secret rolls), not the whole last
-- session.
CREATE INDEX events_sealed_rolls ON events (position) WHERE type IN ('roll.sealed', 'roll.revealed');
