-- Results over time kept per UTC day, campaign and segment, so a trend reads one row per day and
-- counter however many quarter hours were answered in, and a filtered trend reads the days of the
-- segments it selects instead of grouping every session (docs/results-storage.md).
--
-- A row holds the running sums of the day's 96 quarter hours: `upto[k]` is the sum of quarters 0
-- to k - 1 (`upto[96]` the day's total). Every time zone's days, whose offsets are whole quarter
-- hours, cut a UTC day only between quarters (at its local midnight and where its offset
-- changes), so the part of a day that falls in a local day is the difference of two elements.
--
-- Kept like the quarter-hour sums they replace (migration 000030): statement triggers on the
-- tallies' own writes, each under its campaign's lock, only accepted sessions and only the
-- counters a trend reads (result_trend_metric).

-- The backfill and the triggers must see the same rows: no tally is written between them.
LOCK TABLE result_sessions IN SHARE ROW EXCLUSIVE MODE;

DROP TRIGGER result_sessions_slotted_deleted ON result_sessions;
DROP TRIGGER result_sessions_slotted_inserted ON result_sessions;
DROP FUNCTION slot_result_sessions();
DROP TABLE result_slot_counts;

CREATE TABLE result_day_counts (
    campaign_id uuid NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
    -- Days since the epoch (UTC).
    day bigint NOT NULL,
    metric text NOT NULL,
    question_id text NOT NULL,
    value bigint NOT NULL,
    upto bigint[] NOT NULL,
    PRIMARY KEY (campaign_id, day, metric, question_id, value)
) WITH (fillfactor = 50);

CREATE TABLE result_segment_day_counts (
    segment_id bigint NOT NULL REFERENCES result_segments (id) ON DELETE CASCADE,
    day bigint NOT NULL,
    metric text NOT NULL,
    question_id text NOT NULL,
    value bigint NOT NULL,
    upto bigint[] NOT NULL,
    PRIMARY KEY (segment_id, day, metric, question_id, value)
) WITH (fillfactor = 50);

-- The running sums of a day whose quarter `quarters[i]` (0 to 95) holds `ns[i]`.
CREATE FUNCTION result_quarter_sums(quarters int[], ns bigint[]) RETURNS bigint[] LANGUAGE sql IMMUTABLE AS $$
    SELECT array_agg((SELECT COALESCE(sum(x.n), 0) FROM unnest(quarters, ns) AS x(q, n) WHERE x.q < k)::bigint ORDER BY k)
    FROM generate_series(1, 96) AS k
$$;

CREATE FUNCTION result_add_sums(a bigint[], b bigint[]) RETURNS bigint[] LANGUAGE sql IMMUTABLE AS $$
    SELECT array_agg(x.a + x.b ORDER BY x.k) FROM unnest(a, b) WITH ORDINALITY AS x(a, b, k)
$$;

-- A tally written adds its trend counters to its day, and to its segment's day (made by the
-- segment trigger, which fires first: statement triggers fire in the order of their names); a
-- tally removed subtracts them. A campaign deleted by the statement is skipped: its days go with it.
CREATE FUNCTION day_result_sessions() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    sign bigint := CASE TG_OP WHEN 'INSERT' THEN 1 ELSE -1 END;
BEGIN
    INSERT INTO result_day_counts AS c (campaign_id, day, metric, question_id, value, upto)
    SELECT r.campaign_id, r.completed_slot / 96, e.metric, e.question_id, e.value,
           result_quarter_sums(array_agg((r.completed_slot % 96)::int), array_agg(sign * e.n))
    FROM changed AS r
         CROSS JOIN LATERAL unnest(r.metrics, r.questions, r.vals, r.ns) AS e(metric, question_id, value, n)
    WHERE r.accepted AND r.completed_slot IS NOT NULL AND result_trend_metric(e.metric)
      AND EXISTS (SELECT 1 FROM campaigns k WHERE k.id = r.campaign_id)
    GROUP BY 1, 2, 3, 4, 5
    ORDER BY 1, 2, 3, 4, 5
    ON CONFLICT (campaign_id, day, metric, question_id, value) DO UPDATE SET upto = result_add_sums(c.upto, excluded.upto);
    INSERT INTO result_segment_day_counts AS c (segment_id, day, metric, question_id, value, upto)
    SELECT s.id, r.completed_slot / 96, e.metric, e.question_id, e.value,
           result_quarter_sums(array_agg((r.completed_slot % 96)::int), array_agg(sign * e.n))
    FROM changed AS r
         JOIN result_segments AS s ON s.campaign_id = r.campaign_id
              AND s.labels_digest = result_segment_digest(r.language, r.platform, r.app_version, r.tags, r.attributes)
         CROSS JOIN LATERAL unnest(r.metrics, r.questions, r.vals, r.ns) AS e(metric, question_id, value, n)
    WHERE r.accepted AND r.completed_slot IS NOT NULL AND result_trend_metric(e.metric)
      AND result_segmented(r.device_id, r.platform, r.app_version)
      AND EXISTS (SELECT 1 FROM campaigns k WHERE k.id = r.campaign_id)
    GROUP BY 1, 2, 3, 4, 5
    ORDER BY 1, 2, 3, 4, 5
    ON CONFLICT (segment_id, day, metric, question_id, value) DO UPDATE SET upto = result_add_sums(c.upto, excluded.upto);
    RETURN NULL;
END $$;

CREATE TRIGGER result_sessions_trended_inserted AFTER INSERT ON result_sessions
    REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION day_result_sessions();
CREATE TRIGGER result_sessions_trended_deleted AFTER DELETE ON result_sessions
    REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION day_result_sessions();

-- The tallies already kept.
INSERT INTO result_day_counts (campaign_id, day, metric, question_id, value, upto)
SELECT r.campaign_id, r.completed_slot / 96, e.metric, e.question_id, e.value,
       result_quarter_sums(array_agg((r.completed_slot % 96)::int), array_agg(e.n))
FROM result_sessions AS r
     CROSS JOIN LATERAL unnest(r.metrics, r.questions, r.vals, r.ns) AS e(metric, question_id, value, n)
WHERE r.accepted AND r.completed_slot IS NOT NULL AND result_trend_metric(e.metric)
GROUP BY 1, 2, 3, 4, 5;

INSERT INTO result_segment_day_counts (segment_id, day, metric, question_id, value, upto)
SELECT s.id, r.completed_slot / 96, e.metric, e.question_id, e.value,
       result_quarter_sums(array_agg((r.completed_slot % 96)::int), array_agg(e.n))
FROM result_sessions AS r
     JOIN result_segments AS s ON s.campaign_id = r.campaign_id
          AND s.labels_digest = result_segment_digest(r.language, r.platform, r.app_version, r.tags, r.attributes)
     CROSS JOIN LATERAL unnest(r.metrics, r.questions, r.vals, r.ns) AS e(metric, question_id, value, n)
WHERE r.accepted AND r.completed_slot IS NOT NULL AND result_trend_metric(e.metric)
  AND result_segmented(r.device_id, r.platform, r.app_version)
GROUP BY 1, 2, 3, 4, 5;
