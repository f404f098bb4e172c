-- Results kept per slice, so a results filter with one condition reads a few rows instead of
-- grouping every session it selects (docs/results-storage.md). A slice is one value of one filter
-- dimension a session was launched with: its platform, its app version, each of its tags, each of
-- its attributes. Sessions without a platform or app version label, whose device's current one
-- counts instead, are in no slice of that dimension: a read groups them as before.
--
-- Triggers keep the slices from the tallies' own writes (result_sessions, result_theme_shares), so
-- a replica still running the previous release keeps them too. Every tally write holds its
-- campaign's lock, so one campaign's slices have one writer at a time.
--
-- Nearly every write updates a row in place (a sum), so the tables leave half of each page free
-- for the new versions: updates stay on their page and add no index entry.

-- The backfill and the triggers must see the same rows: no tally is written between them.
LOCK TABLE result_sessions, result_theme_shares IN SHARE ROW EXCLUSIVE MODE;

CREATE TABLE result_slice_counts (
    campaign_id uuid NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
    dimension text NOT NULL,
    dimension_value text NOT NULL,
    metric text NOT NULL,
    question_id text NOT NULL,
    value bigint NOT NULL,
    n bigint NOT NULL,
    PRIMARY KEY (campaign_id, dimension, dimension_value, metric, question_id, value)
) WITH (fillfactor = 50);

CREATE TABLE result_slice_themes (
    campaign_id uuid NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
    dimension text NOT NULL,
    dimension_value text NOT NULL,
    scope text NOT NULL,
    key_digest bytea NOT NULL,
    sessions bigint NOT NULL,
    score_sum bigint NOT NULL,
    scores bigint NOT NULL,
    PRIMARY KEY (campaign_id, dimension, dimension_value, scope, key_digest)
) WITH (fillfactor = 50);

CREATE TABLE result_slice_theme_labels (
    campaign_id uuid NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
    dimension text NOT NULL,
    dimension_value text NOT NULL,
    scope text NOT NULL,
    key_digest bytea NOT NULL,
    label_digest bytea NOT NULL,
    mentions bigint NOT NULL,
    PRIMARY KEY (campaign_id, dimension, dimension_value, scope, key_digest, label_digest)
) WITH (fillfactor = 50);

-- The sessions a filter may still have to group one by one: those whose platform or app version
-- is their device's.
CREATE INDEX result_sessions_device_labelled ON result_sessions (campaign_id)
    WHERE device_id IS NOT NULL AND (platform IS NULL OR app_version IS NULL);

-- The slices a tally belongs to, named as the filter names them: platform (ASCII lower case, as
-- stored), appVersion, tag, attribute:<name>; the value in a column of its own.
CREATE FUNCTION result_slices(platform text, app_version text, tags text[], attributes jsonb)
RETURNS TABLE (dimension text, dimension_value text) LANGUAGE sql IMMUTABLE AS $$
    SELECT 'platform', platform WHERE platform IS NOT NULL
    UNION ALL SELECT 'appVersion', app_version WHERE app_version IS NOT NULL
    UNION ALL SELECT DISTINCT 'tag', t FROM unnest(tags) AS t WHERE t IS NOT NULL
    UNION ALL SELECT 'attribute:' || a.key, a.value FROM jsonb_each_text(attributes) AS a WHERE a.value IS NOT NULL
$$;

-- Statement triggers read the statement's rows at once and write in key order. A campaign deleted
-- by the statement (its tallies cascading away) is skipped: its slices go with it. PL/pgSQL keeps
-- each statement's plan from one call to the next.

-- A tally written adds its counters to its slices; a tally removed (re-analysis, the campaign's
-- deletion) subtracts them, and its theme shares, still there: a re-analysis removes the tally
-- before its shares.
CREATE FUNCTION slice_result_sessions() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    sign bigint := CASE TG_OP WHEN 'INSERT' THEN 1 ELSE -1 END;
BEGIN
    INSERT INTO result_slice_counts AS c (campaign_id, dimension, dimension_value, metric, question_id, value, n)
    SELECT r.campaign_id, s.dimension, s.dimension_value, e.metric, e.question_id, e.value, sign * sum(e.n)
    FROM changed AS r
         CROSS JOIN LATERAL result_slices(r.platform, r.app_version, r.tags, r.attributes) AS s
         CROSS JOIN LATERAL unnest(r.metrics, r.questions, r.vals, r.ns) AS e(metric, question_id, value, n)
    WHERE EXISTS (SELECT 1 FROM campaigns k WHERE k.id = r.campaign_id)
    GROUP BY 1, 2, 3, 4, 5, 6
    ORDER BY 1, 2, 3, 4, 5, 6
    ON CONFLICT (campaign_id, dimension, dimension_value, metric, question_id, value)
    DO UPDATE SET n = c.n + excluded.n;
    IF TG_OP = 'DELETE' THEN
        PERFORM add_slice_themes(array_agg(t), (SELECT array_agg(ROW(r.*)::result_sessions) FROM changed AS r), -1)
        FROM result_theme_shares AS t WHERE t.session_id IN (SELECT session_id FROM changed)
        HAVING count(*) > 0;
    END IF;
    RETURN NULL;
END $$;

-- Theme shares written add to the slices of their session's tally, written just before them.
CREATE FUNCTION slice_result_theme_shares() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM add_slice_themes(array_agg(ROW(t.*)::result_theme_shares),
        (SELECT array_agg(r) FROM result_sessions AS r WHERE r.session_id IN (SELECT session_id FROM changed)), 1)
    FROM changed AS t HAVING count(*) > 0;
    RETURN NULL;
END $$;

-- Adds (sign 1) or subtracts (sign -1) theme shares to the slices of their sessions' tallies.
CREATE FUNCTION add_slice_themes(shares result_theme_shares[], tallies result_sessions[], sign bigint) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO result_slice_themes AS t
        (campaign_id, dimension, dimension_value, scope, key_digest, sessions, score_sum, scores)
    SELECT r.campaign_id, s.dimension, s.dimension_value, x.scope, x.key_digest,
           sign * count(DISTINCT x.session_id), sign * sum(x.score_sum), sign * sum(x.scores)
    FROM unnest(shares) AS x
         JOIN unnest(tallies) AS r ON r.session_id = x.session_id
         CROSS JOIN LATERAL result_slices(r.platform, r.app_version, r.tags, r.attributes) AS s
    WHERE EXISTS (SELECT 1 FROM campaigns k WHERE k.id = r.campaign_id)
    GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5
    ON CONFLICT (campaign_id, dimension, dimension_value, scope, key_digest) DO UPDATE SET
        sessions = t.sessions + excluded.sessions,
        score_sum = t.score_sum + excluded.score_sum,
        scores = t.scores + excluded.scores;
    INSERT INTO result_slice_theme_labels AS l
        (campaign_id, dimension, dimension_value, scope, key_digest, label_digest, mentions)
    SELECT r.campaign_id, s.dimension, s.dimension_value, x.scope, x.key_digest, x.label_digest,
           sign * sum(x.mentions)
    FROM unnest(shares) AS x
         JOIN unnest(tallies) AS r ON r.session_id = x.session_id
         CROSS JOIN LATERAL result_slices(r.platform, r.app_version, r.tags, r.attributes) AS s
    WHERE EXISTS (SELECT 1 FROM campaigns k WHERE k.id = r.campaign_id)
    GROUP BY 1, 2, 3, 4, 5, 6 ORDER BY 1, 2, 3, 4, 5, 6
    ON CONFLICT (campaign_id, dimension, dimension_value, scope, key_digest, label_digest)
    DO UPDATE SET mentions = l.mentions + excluded.mentions;
END $$;

CREATE TRIGGER result_sessions_sliced_inserted AFTER INSERT ON result_sessions
    REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION slice_result_sessions();
CREATE TRIGGER result_sessions_sliced_deleted AFTER DELETE ON result_sessions
    REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION slice_result_sessions();
CREATE TRIGGER result_theme_shares_sliced_inserted AFTER INSERT ON result_theme_shares
    REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION slice_result_theme_shares();

-- The tallies already kept.
INSERT INTO result_slice_counts (campaign_id, dimension, dimension_value, metric, question_id, value, n)
SELECT r.campaign_id, s.dimension, s.dimension_value, e.metric, e.question_id, e.value, sum(e.n)
FROM result_sessions AS r
     CROSS JOIN LATERAL result_slices(r.platform, r.app_version, r.tags, r.attributes) AS s
     CROSS JOIN LATERAL unnest(r.metrics, r.questions, r.vals, r.ns) AS e(metric, question_id, value, n)
GROUP BY 1, 2, 3, 4, 5, 6;
INSERT INTO result_slice_themes (campaign_id, dimension, dimension_value, scope, key_digest, sessions, score_sum, scores)
SELECT r.campaign_id, s.dimension, s.dimension_value, x.scope, x.key_digest,
       count(DISTINCT x.session_id), sum(x.score_sum), sum(x.scores)
FROM result_theme_shares AS x
     JOIN result_sessions AS r ON r.session_id = x.session_id
     CROSS JOIN LATERAL result_slices(r.platform, r.app_version, r.tags, r.attributes) AS s
GROUP BY 1, 2, 3, 4, 5;
INSERT INTO result_slice_theme_labels (campaign_id, dimension, dimension_value, scope, key_digest, label_digest, mentions)
SELECT r.campaign_id, s.dimension, s.dimension_value, x.scope, x.key_digest, x.label_digest, sum(x.mentions)
FROM result_theme_shares AS x
     JOIN result_sessions AS r ON r.session_id = x.session_id
     CROSS JOIN LATERAL result_slices(r.platform, r.app_version, r.tags, r.attributes) AS s
GROUP BY 1, 2, 3, 4, 5, 6;
