-- Each quote names its session's segment, so a filtered read picks its quote candidates from the
-- few that each selected segment has first in each pick order, through indexes per segment,
-- instead of walking the campaign's quotes until enough of the group's turn up
-- (docs/results-storage.md). Quotes of sessions in no segment (whose platform or app version is
-- their device's) keep none and are ranked with their group when read.
--
-- A migration that rebuilds the segments must set the quotes' again, as this one does, and refill
-- the segments' day sums (migration 000033), which are deleted with them.

-- The backfill and the trigger must see the same rows: no tally or quote is written between them.
LOCK TABLE result_sessions, result_quotes IN SHARE ROW EXCLUSIVE MODE;

ALTER TABLE result_quotes ADD COLUMN segment_id bigint;

UPDATE result_quotes q SET segment_id = s.id
FROM result_sessions r
     JOIN result_segments s ON s.campaign_id = r.campaign_id
          AND s.labels_digest = result_segment_digest(r.language, r.platform, r.app_version, r.tags, r.attributes)
WHERE r.session_id = q.session_id AND result_segmented(r.device_id, r.platform, r.app_version);

-- A quote is written after its session's tally, whose statement trigger made the segment.
CREATE FUNCTION result_quotes_segment() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.segment_id IS NULL THEN
        SELECT s.id INTO NEW.segment_id
        FROM result_sessions r
             JOIN result_segments s ON s.campaign_id = r.campaign_id
                  AND s.labels_digest = result_segment_digest(r.language, r.platform, r.app_version, r.tags, r.attributes)
        WHERE r.session_id = NEW.session_id AND result_segmented(r.device_id, r.platform, r.app_version);
    END IF;
    RETURN NEW;
END $$;

CREATE TRIGGER result_quotes_segmented BEFORE INSERT ON result_quotes
    FOR EACH ROW EXECUTE FUNCTION result_quotes_segment();

-- The pick orders of migration 000031, per segment.
CREATE INDEX result_quotes_segment_by_score
    ON result_quotes (segment_id, question_id, (COALESCE(score, 0)), len, session_id DESC)
    WHERE segment_id IS NOT NULL;
CREATE INDEX result_quotes_segment_by_neutrality
    ON result_quotes (segment_id, question_id, (abs(COALESCE(score, 0))), (COALESCE(score, 0)) DESC, len DESC, session_id)
    WHERE segment_id IS NOT NULL;
CREATE INDEX result_quotes_segment_by_length
    ON result_quotes (segment_id, question_id, len, (COALESCE(score, 0)), session_id DESC)
    WHERE segment_id IS NOT NULL;
