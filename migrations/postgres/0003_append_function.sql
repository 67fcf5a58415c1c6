-- One append in one statement (issue 20, eighth session): PgStore.append calls this function in
-- autocommit, so an append of a few events is ONE round trip and one transaction (the statement's own),
-- not five statements (BEGIN, the lock, the state, the INSERT, COMMIT) each waiting on the server.
--
-- The function keeps every guarantee of the five statements, in their order, inside its transaction:
--   1. the campaign's ordering lock (pg_advisory_xact_lock on the key the engine computes; re-entrant
--      when the caller's transaction already holds it);
--   2. idempotent retry by event id (p_check_ids): every id stored -> their positions (status 1);
--      some of them -> status 2 (the engine's "a retry must resend the same batch");
--   3. the stream's version against the version the rows were numbered from (status 3 with the
--      actual version: the engine raises its ConcurrencyConflict when that version was expected,
--      or numbers the rows again when it was not);
--   4. the head (position and hash) against the one the rows were chained from (status 4 with the
--      actual head: the engine chains the rows again); with p_now, also the time: rows stamped
--      before the head's recorded_at are refused the same way (status 4; the engine stamps them
--      again), so recorded_at follows positions as when the engine took the time under the lock. The hash chain is computed by the engine
--      only, as on SQLite (log_rows / store.row_hash); this function never hashes, it only refuses
--      rows chained from a head that is not the log's;
--   5. the rows inserted (position = head + n, version = stream version + n, prev_hash = the previous
--      row's hash), the head row moved: status 0.
-- Every read is an equality or an ORDER BY ... DESC LIMIT 1 on an index, never MAX(): the plans of
-- this function are cached per connection, generic after five calls, and a generic MAX planned while
-- the table was small was a plain aggregate over every row of the stream, kept as the log grew.
-- Statements 2-4 run after the lock, each with its own snapshot (a VOLATILE function in READ
-- COMMITTED), so they see every append committed before the lock was granted. The rows travel as one
-- bound JSON parameter ([[id, type, schema_version, payload, causation_id, hash], ...]), never as SQL
-- text. The tables are found on the caller's search_path (the
-- campaign's schema, as for every statement of the engine); the function is SECURITY INVOKER, so the
-- append-only triggers and the revoked privileges apply to it as to any INSERT.
CREATE FUNCTION cristal_append(
    p_lock bigint, p_stream text, p_version integer, p_head bigint, p_prev text, p_check_ids boolean, p_now boolean,
    p_recorded_at text, p_session bigint, p_actor text, p_correlation text, p_rows json,
    OUT status integer, OUT version integer, OUT head bigint, OUT head_hash text, OUT positions bigint[])
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    n integer := json_array_length(p_rows);
    known integer;
    seq bigint;
    head_at text;
BEGIN
    PERFORM pg_advisory_xact_lock(p_lock);
    IF p_check_ids THEN
        SELECT count(e.position), array_agg(e.position ORDER BY i.o) INTO known, positions
            FROM json_array_elements(p_rows) WITH ORDINALITY AS i(j, o)
            CROSS JOIN LATERAL (SELECT s.position FROM events s WHERE s.event_id = i.j->>0) e;
        IF known = n THEN
            status := 1;
            RETURN;
        ELSIF known > 0 THEN
            status := 2;
            version := known;
            positions := NULL;
            RETURN;
        END IF;
        positions := NULL;
    END IF;
    SELECT COALESCE((SELECT e.version FROM events e WHERE e.stream = p_stream
                     ORDER BY e.stream DESC, e.version DESC LIMIT 1), 0), l.position, t.position,
           t.hash, t.recorded_at
        INTO version, seq, head, head_hash, head_at
        FROM log_head l LEFT JOIN LATERAL (SELECT e.position, e.hash, e.recorded_at FROM events e
                                           ORDER BY e.position DESC LIMIT 1) t ON true;
    IF head IS NULL THEN
        head := seq;
        head_hash := repeat('0', 64);
    ELSE
        head := GREATEST(head, seq);
    END IF;
    IF version <> p_version THEN
        status := 3;
        RETURN;
    END IF;
    IF head <> p_head OR head_hash <> p_prev OR p_now AND head_at COLLATE "C" > p_recorded_at COLLATE "C" THEN
        status := 4;
        RETURN;
    END IF;
    WITH moved AS (UPDATE log_head SET position = GREATEST(log_head.position, p_head + n))
    INSERT INTO events (position, event_id, stream, version, type, schema_version, payload, recorded_at,
                        session, actor, causation_id, correlation_id, prev_hash, hash)
        SELECT p_head + r.o, r.j->>0, p_stream, p_version + r.o, r.j->>1, (r.j->>2)::integer, r.j->>3,
               p_recorded_at, p_session, p_actor, r.j->>4, p_correlation,
               COALESCE(lag(r.j->>5) OVER (ORDER BY r.o), p_prev), r.j->>5
        FROM json_array_elements(p_rows) WITH ORDINALITY AS r(j, o)
        ORDER BY r.o;
    status := 0;
    head := p_head + n;
    head_hash := p_rows->(n - 1)->>5;
    version := p_version + n;
END;
$$;
