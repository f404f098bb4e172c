-- Results over time kept per quarter hour, so a campaign's trend reads a few rows per quarter hour
-- in which it was answered instead of grouping every session (docs/results-storage.md). A slot is
-- the quarter hour (UTC) a session was completed in, as seconds since the epoch over 900: every
-- time zone's days, whose offsets are whole quarter hours, are unions of slots.
--
-- Kept like the slices (migration 000017): statement triggers on the tallies' own writes, each
-- under its campaign's lock, a table that leaves half of each page free for updated sums. Only
-- accepted sessions count, and only the counters a trend reads
-- (pulse_domain::results::models::trend_metrics).

-- The backfill and the triggers must see the same rows: no tally is written between them.
LOCK TABLE result_sessions IN SHARE ROW EXCLUSIVE MODE;

-- The slot is kept on the tally, so a tally removed with its session (an erasure) still knows it.
ALTER TABLE result_sessions ADD COLUMN completed_slot bigint;

UPDATE result_sessions r SET completed_slot = floor(extract(epoch FROM s.completed_at) / 900)::bigint
FROM sessions s WHERE s.id = r.session_id AND s.completed_at IS NOT NULL;

-- A tally is written after its session completed: its slot is read from the session then.
CREATE FUNCTION result_sessions_slot() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.completed_slot IS NULL THEN
        SELECT floor(extract(epoch FROM s.completed_at) / 900)::bigint INTO NEW.completed_slot
        FROM sessions s WHERE s.id = NEW.session_id;
    END IF;
    RETURN NEW;
END $$;

CREATE TRIGGER result_sessions_slotted BEFORE INSERT ON result_sessions
    FOR EACH ROW EXECUTE FUNCTION result_sessions_slot();

CREATE TABLE result_slot_counts (
    campaign_id uuid NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
    slot bigint NOT NULL,
    metric text NOT NULL,
    question_id text NOT NULL,
    value bigint NOT NULL,
    n bigint NOT NULL,
    PRIMARY KEY (campaign_id, slot, metric, question_id, value)
) WITH (fillfactor = 50);

-- Whether a counter is one a trend reads.
CREATE FUNCTION result_trend_metric(metric text) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
    SELECT metric IN ('accepted', 'rating', 'session_score') OR metric LIKE 'session_sentiment:%'
$$;

-- A tally written adds its trend counters to its slot; a tally removed subtracts them. A campaign
-- deleted by the statement is skipped: its slots go with it.
CREATE FUNCTION slot_result_sessions() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    sign bigint := CASE TG_OP WHEN 'INSERT' THEN 1 ELSE -1 END;
BEGIN
    INSERT INTO result_slot_counts AS c (campaign_id, slot, metric, question_id, value, n)
    SELECT r.campaign_id, r.completed_slot, e.metric, e.question_id, e.value, sign * sum(e.n)
    FROM changed AS r
         CROSS JOIN LATERAL unnest(r.metrics, r.questions, r.vals, r.ns) AS e(metric, question_id, value, n)
    WHERE r.accepted AND r.completed_slot IS NOT NULL AND result_trend_metric(e.metric)
      AND EXISTS (SELECT 1 FROM campaigns k WHERE k.id = r.campaign_id)
    GROUP BY 1, 2, 3, 4, 5
    ORDER BY 1, 2, 3, 4, 5
    ON CONFLICT (campaign_id, slot, metric, question_id, value) DO UPDATE SET n = c.n + excluded.n;
    RETURN NULL;
END $$;

CREATE TRIGGER result_sessions_slotted_inserted AFTER INSERT ON result_sessions
    REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION slot_result_sessions();
CREATE TRIGGER result_sessions_slotted_deleted AFTER DELETE ON result_sessions
    REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION slot_result_sessions();

-- The tallies already kept.
INSERT INTO result_slot_counts (campaign_id, slot, metric, question_id, value, n)
SELECT r.campaign_id, r.completed_slot, e.metric, e.question_id, e.value, sum(e.n)
FROM result_sessions AS r
     CROSS JOIN LATERAL unnest(r.metrics, r.questions, r.vals, r.ns) AS e(metric, question_id, value, n)
WHERE r.accepted AND r.completed_slot IS NOT NULL AND result_trend_metric(e.metric)
GROUP BY 1, 2, 3, 4, 5;
