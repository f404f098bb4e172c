-- Results kept per segment, so a results filter with several conditions reads a few rows per
-- segment instead of grouping every session it selects (docs/results-storage.md). A segment is one
-- whole set of launch labels (platform, app version, tags, attributes) that a campaign's sessions
-- were launched with; any filter selects whole segments, and sessions of different segments are
-- different sessions, so a filter's sums are the sums of the segments it selects. Sessions whose
-- platform or app version is their device's are in no segment: a read groups them as before.
--
-- Kept like the slices (migration 000017): statement triggers on the tallies' own writes, each
-- under its campaign's lock, tables that leave half of each page free for updated sums.

-- The backfill and the triggers must see the same rows: no tally is written between them.
LOCK TABLE result_sessions, result_theme_shares IN SHARE ROW EXCLUSIVE MODE;

CREATE TABLE result_segments (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    campaign_id uuid NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
    -- result_segment_digest of the labels below: the labels themselves may be too long to index.
    labels_digest bytea NOT NULL,
    platform text,
    app_version text,
    tags text[] NOT NULL,
    attributes jsonb NOT NULL,
    UNIQUE (campaign_id, labels_digest)
);

CREATE TABLE result_segment_counts (
    segment_id bigint NOT NULL REFERENCES result_segments (id) ON DELETE CASCADE,
    metric text NOT NULL,
    question_id text NOT NULL,
    value bigint NOT NULL,
    n bigint NOT NULL,
    PRIMARY KEY (segment_id, metric, question_id, value)
) WITH (fillfactor = 50);

CREATE TABLE result_segment_themes (
    segment_id bigint NOT NULL REFERENCES result_segments (id) ON DELETE CASCADE,
    scope text NOT NULL,
    key_digest bytea NOT NULL,
    sessions bigint NOT NULL,
    score_sum bigint NOT NULL,
    scores bigint NOT NULL,
    PRIMARY KEY (segment_id, scope, key_digest)
) WITH (fillfactor = 50);

CREATE TABLE result_segment_theme_labels (
    segment_id bigint NOT NULL REFERENCES result_segments (id) ON DELETE CASCADE,
    scope text NOT NULL,
    key_digest bytea NOT NULL,
    label_digest bytea NOT NULL,
    mentions bigint NOT NULL,
    PRIMARY KEY (segment_id, scope, key_digest, label_digest)
) WITH (fillfactor = 50);

-- Names a set of labels: equal labels give equal digests (jsonb prints a value one way).
CREATE FUNCTION result_segment_digest(platform text, app_version text, tags text[], attributes jsonb)
RETURNS bytea LANGUAGE sql IMMUTABLE AS $$
    SELECT sha256(convert_to(jsonb_build_array(platform, app_version, tags, attributes)::text, 'UTF8'))
$$;

-- Whether a tally is in a segment: it is unless its platform or app version is its device's, read
-- when results are (the complement of the partial index result_sessions_device_labelled).
CREATE FUNCTION result_segmented(device_id uuid, platform text, app_version text)
RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
    SELECT device_id IS NULL OR (platform IS NOT NULL AND app_version IS NOT NULL)
$$;

-- A tally written adds its counters to its segment (made on first use); a tally removed
-- (re-analysis, the campaign's deletion) subtracts them, and its theme shares, still there: a
-- re-analysis removes the tally before its shares. A campaign deleted by the statement is skipped.
CREATE FUNCTION segment_result_sessions() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    sign bigint := CASE TG_OP WHEN 'INSERT' THEN 1 ELSE -1 END;
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO result_segments (campaign_id, labels_digest, platform, app_version, tags, attributes)
        SELECT DISTINCT ON (1, 2) r.campaign_id,
               result_segment_digest(r.platform, r.app_version, r.tags, r.attributes),
               r.platform, r.app_version, r.tags, r.attributes
        FROM changed AS r
        WHERE result_segmented(r.device_id, r.platform, r.app_version)
          AND EXISTS (SELECT 1 FROM campaigns k WHERE k.id = r.campaign_id)
        ORDER BY 1, 2
        ON CONFLICT (campaign_id, labels_digest) DO NOTHING;
    END IF;
    INSERT INTO result_segment_counts AS c (segment_id, metric, question_id, value, n)
    SELECT s.id, e.metric, e.question_id, e.value, sign * sum(e.n)
    FROM changed AS r
         JOIN result_segments AS s ON s.campaign_id = r.campaign_id
              AND s.labels_digest = result_segment_digest(r.platform, r.app_version, r.tags, r.attributes)
         CROSS JOIN LATERAL unnest(r.metrics, r.questions, r.vals, r.ns) AS e(metric, question_id, value, n)
    WHERE result_segmented(r.device_id, r.platform, r.app_version)
      AND EXISTS (SELECT 1 FROM campaigns k WHERE k.id = r.campaign_id)
    GROUP BY 1, 2, 3, 4
    ORDER BY 1, 2, 3, 4
    ON CONFLICT (segment_id, metric, question_id, value) DO UPDATE SET n = c.n + excluded.n;
    IF TG_OP = 'DELETE' THEN
        PERFORM add_segment_themes(array_agg(t), (SELECT array_agg(ROW(r.*)::result_sessions) FROM changed AS r), -1)
        FROM result_theme_shares AS t WHERE t.session_id IN (SELECT session_id FROM changed)
        HAVING count(*) > 0;
    END IF;
    RETURN NULL;
END $$;

-- Theme shares written add to the segment of their session's tally, written just before them.
CREATE FUNCTION segment_result_theme_shares() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM add_segment_themes(array_agg(ROW(t.*)::result_theme_shares),
        (SELECT array_agg(r) FROM result_sessions AS r WHERE r.session_id IN (SELECT session_id FROM changed)), 1)
    FROM changed AS t HAVING count(*) > 0;
    RETURN NULL;
END $$;

-- Adds (sign 1) or subtracts (sign -1) theme shares to the segments of their sessions' tallies.
CREATE FUNCTION add_segment_themes(shares result_theme_shares[], tallies result_sessions[], sign bigint)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO result_segment_themes AS t (segment_id, scope, key_digest, sessions, score_sum, scores)
    SELECT s.id, x.scope, x.key_digest,
           sign * count(DISTINCT x.session_id), sign * sum(x.score_sum), sign * sum(x.scores)
    FROM unnest(shares) AS x
         JOIN unnest(tallies) AS r ON r.session_id = x.session_id
         JOIN result_segments AS s ON s.campaign_id = r.campaign_id
              AND s.labels_digest = result_segment_digest(r.platform, r.app_version, r.tags, r.attributes)
    WHERE result_segmented(r.device_id, r.platform, r.app_version)
      AND EXISTS (SELECT 1 FROM campaigns k WHERE k.id = r.campaign_id)
    GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
    ON CONFLICT (segment_id, scope, key_digest) DO UPDATE SET
        sessions = t.sessions + excluded.sessions,
        score_sum = t.score_sum + excluded.score_sum,
        scores = t.scores + excluded.scores;
    INSERT INTO result_segment_theme_labels AS l (segment_id, scope, key_digest, label_digest, mentions)
    SELECT s.id, x.scope, x.key_digest, x.label_digest, sign * sum(x.mentions)
    FROM unnest(shares) AS x
         JOIN unnest(tallies) AS r ON r.session_id = x.session_id
         JOIN result_segments AS s ON s.campaign_id = r.campaign_id
              AND s.labels_digest = result_segment_digest(r.platform, r.app_version, r.tags, r.attributes)
    WHERE result_segmented(r.device_id, r.platform, r.app_version)
      AND EXISTS (SELECT 1 FROM campaigns k WHERE k.id = r.campaign_id)
    GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
    ON CONFLICT (segment_id, scope, key_digest, label_digest) DO UPDATE SET mentions = l.mentions + excluded.mentions;
END $$;

CREATE TRIGGER result_sessions_segmented_inserted AFTER INSERT ON result_sessions
    REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION segment_result_sessions();
CREATE TRIGGER result_sessions_segmented_deleted AFTER DELETE ON result_sessions
    REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION segment_result_sessions();
CREATE TRIGGER result_theme_shares_segmented_inserted AFTER INSERT ON result_theme_shares
    REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION segment_result_theme_shares();

-- The tallies already kept.
INSERT INTO result_segments (campaign_id, labels_digest, platform, app_version, tags, attributes)
SELECT DISTINCT ON (1, 2) r.campaign_id, result_segment_digest(r.platform, r.app_version, r.tags, r.attributes),
       r.platform, r.app_version, r.tags, r.attributes
FROM result_sessions AS r
WHERE result_segmented(r.device_id, r.platform, r.app_version)
ORDER BY 1, 2;
INSERT INTO result_segment_counts (segment_id, metric, question_id, value, n)
SELECT s.id, e.metric, e.question_id, e.value, sum(e.n)
FROM result_sessions AS r
     JOIN result_segments AS s ON s.campaign_id = r.campaign_id
          AND s.labels_digest = result_segment_digest(r.platform, r.app_version, r.tags, r.attributes)
     CROSS JOIN LATERAL unnest(r.metrics, r.questions, r.vals, r.ns) AS e(metric, question_id, value, n)
WHERE result_segmented(r.device_id, r.platform, r.app_version)
GROUP BY 1, 2, 3, 4;
INSERT INTO result_segment_themes (segment_id, scope, key_digest, sessions, score_sum, scores)
SELECT s.id, x.scope, x.key_digest, count(DISTINCT x.session_id), sum(x.score_sum), sum(x.scores)
FROM result_theme_shares AS x
     JOIN result_sessions AS r ON r.session_id = x.session_id
     JOIN result_segments AS s ON s.campaign_id = r.campaign_id
          AND s.labels_digest = result_segment_digest(r.platform, r.app_version, r.tags, r.attributes)
WHERE result_segmented(r.device_id, r.platform, r.app_version)
GROUP BY 1, 2, 3;
INSERT INTO result_segment_theme_labels (segment_id, scope, key_digest, label_digest, mentions)
SELECT s.id, x.scope, x.key_digest, x.label_digest, sum(x.mentions)
FROM result_theme_shares AS x
     JOIN result_sessions AS r ON r.session_id = x.session_id
     JOIN result_segments AS s ON s.campaign_id = r.campaign_id
          AND s.labels_digest = result_segment_digest(r.platform, r.app_version, r.tags, r.attributes)
WHERE result_segmented(r.device_id, r.platform, r.app_version)
GROUP BY 1, 2, 3, 4;
