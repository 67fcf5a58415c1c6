-- The secret rolls and their reveals (issue 18 item 2: a console or web command costs its own work).
-- Every command's output ends with how many secret rolls of the last session are still sealed
-- (cristal_events/cli/__init__.py, _sealed_notice): without an index, the one-shot peek
-- (Store.sealed_of) scanned every event of the last session, ~2 ms on a long one. This partial
-- index holds only the roll.sealed and roll.revealed rows, so the peek reads O(secret rolls); an
-- append of any other event only checks the predicate. The query repeats this WHERE word for word
-- (SQLite uses a partial index only then): Store._SEALED_ROWS.
CREATE INDEX events_sealed_rolls ON events (position) WHERE type IN ('roll.sealed', 'roll.revealed');
