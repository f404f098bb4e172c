LOCK TABLE result_sessions IN SHARE ROW EXCLUSIVE MODE;

DROP TRIGGER result_sessions_trended_deleted ON result_sessions;
DROP TRIGGER result_sessions_trended_inserted ON result_sessions;
DROP FUNCTION day_result_sessions();
DROP FUNCTION result_add_sums(bigint[], bigint[]);
DROP FUNCTION result_quarter_sums(int[], bigint[]);
DROP TABLE result_segment_day_counts;
DROP TABLE result_day_counts;

CREATE TABLE result_slot_counts (
    campaign_id uuid NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
    slot bigint NOT NULL,
    metric text NOT NULL,
    question_id text NOT NULL,
    value bigint NOT NULL,
    n bigint NOT NULL,
    PRIMARY KEY (campaign_id, slot, metric, question_id, value)
) WITH (fillfactor = 50);

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

INSERT INTO result_slot_counts (campaign_id, slot, metric, question_id, value, n)
SELECT r.campaign_id, r.completed_slot, e.metric, e.question_id, e.value, sum(e.n)
FROM result_sessions AS r
     CROSS JOIN LATERAL unnest(r.metrics, r.questions, r.vals, r.ns) AS e(metric, question_id, value, n)
WHERE r.accepted AND r.completed_slot IS NOT NULL AND result_trend_metric(e.metric)
GROUP BY 1, 2, 3, 4, 5;
