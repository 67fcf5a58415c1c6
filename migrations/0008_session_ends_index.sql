-- The session ends (issue 20, eleventh session): every session's receipt is the position and chain
-- hash of its `session.ended` event (Store.session_ends), read by the HTML export before its walk (in
-- both of its processes), the recap, the site cache and the timeline exports. Without an index that
-- read scanned the whole log: 0.16-0.22 s at 1M events for 1,406 rows. This partial index holds only
-- the session ends; an append of any other event only checks the predicate. The query repeats the
-- index's term (SQLite uses a partial index only then).
CREATE INDEX events_session_ends ON events (position) WHERE type = 'session.ended';
