-- The language a session was answered in, kept on its tally and in its segment's labels, so
-- results can be filtered and broken down by language (docs/results-storage.md). A segment is now
-- one whole set of labels including the language: the segments are rebuilt from the tallies.

-- The rebuild and the triggers must see the same rows: no tally is written between them.
LOCK TABLE result_sessions, result_theme_shares IN SHARE ROW EXCLUSIVE MODE;

ALTER TABLE result_sessions ADD COLUMN language text;

UPDATE result_sessions r SET language = s.language FROM sessions s WHERE s.id = r.session_id;

-- A tally is written after its session completed: its slot and language are read from the
-- session then.
DROP TRIGGER result_sessions_slotted ON result_sessions;
DROP FUNCTION result_sessions_slot();

CREATE FUNCTION result_sessions_of_session() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.completed_slot IS NULL OR NEW.language IS NULL THEN
        SELECT COALESCE(NEW.completed_slot, floor(extract(epoch FROM s.completed_at) / 900)::bigint),
               COALESCE(NEW.language, s.language)
        INTO NEW.completed_slot, NEW.language
        FROM sessions s WHERE s.id = NEW.session_id;
    END IF;
    RETURN NEW;
END $$;

CREATE TRIGGER result_sessions_of_session BEFORE INSERT ON result_sessions
    FOR EACH ROW EXECUTE FUNCTION result_sessions_of_session();

ALTER TABLE result_segments ADD COLUMN language text;

-- Names a set of labels: equal labels give equal digests (jsonb prints a value one way).
CREATE FUNCTION result_segment_digest(language text, platform text, app_version text, tags text[], attributes jsonb)
RETURNS bytea LANGUAGE sql IMMUTABLE AS $$
    SELECT sha256(convert_to(jsonb_build_array(language, platform, app_version, tags, attributes)::text, 'UTF8'))
$$;

CREATE OR REPLACE FUNCTION segment_result_sessions() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    sign bigint := CASE TG_OP WHEN 'INSERT' THEN 1 ELSE -1 END;
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO result_segments (campaign_id, labels_digest, language, platform, app_version, tags, attributes)
        SELECT DISTINCT ON (1, 2) r.campaign_id,
               result_segment_digest(r.language, r.platform, r.app_version, r.tags, r.attributes),
               r.language, r.platform, r.app_version, r.tags, r.attributes
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
              AND s.labels_digest = result_segment_digest(r.language, r.platform, r.app_version, r.tags, r.attributes)
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

CREATE OR REPLACE FUNCTION add_segment_themes(shares result_theme_shares[], tallies result_sessions[], sign bigint)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO result_segment_themes AS t (segment_id, scope, key_digest, sessions, score_sum, scores)
    SELECT s.id, x.scope, x.key_digest,
           sign * count(DISTINCT x.session_id), sign * sum(x.score_sum), sign * sum(x.scores)
    FROM unnest(shares) AS x
         JOIN unnest(tallies) AS r ON r.session_id = x.session_id
         JOIN result_segments AS s ON s.campaign_id = r.campaign_id
              AND s.labels_digest = result_segment_digest(r.language, r.platform, r.app_version, r.tags, r.attributes)
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
              AND s.labels_digest = result_segment_digest(r.language, r.platform, r.app_version, r.tags, r.attributes)
    WHERE result_segmented(r.device_id, r.platform, r.app_version)
      AND EXISTS (SELECT 1 FROM campaigns k WHERE k.id = r.campaign_id)
    GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
    ON CONFLICT (segment_id, scope, key_digest, label_digest) DO UPDATE SET mentions = l.mentions + excluded.mentions;
END $$;

DROP FUNCTION result_segment_digest(text, text, text[], jsonb);

-- The segments again, from the tallies already kept.
DELETE FROM result_segments;
INSERT INTO result_segments (campaign_id, labels_digest, language, platform, app_version, tags, attributes)
SELECT DISTINCT ON (1, 2) r.campaign_id, result_segment_digest(r.language, r.platform, r.app_version, r.tags, r.attributes),
       r.language, r.platform, r.app_version, r.tags, r.attributes
FROM result_sessions AS r
WHERE result_segmented(r.device_id, r.platform, r.app_version)
ORDER BY 1, 2;
INSERT INTO result_segment_counts (segment_id, metric, question_id, value, n)
SELECT s.id, e.metric, e.question_id, e.value, sum(e.n)
FROM result_sessions AS r
     JOIN result_segments AS s ON s.campaign_id = r.campaign_id
          AND s.labels_digest = result_segment_digest(r.language, r.platform, r.app_version, r.tags, r.attributes)
     CROSS JOIN LATERAL unnest(r.metrics, r.questions, r.vals, r.ns) AS e(metric, question_id, value, n)
WHERE result_segmented(r.device_id, r.platform, r.app_version)
GROUP BY 1, 2, 3, 4;
INSERT INTO result_segment_themes (segment_id, scope, key_digest, sessions, score_sum, scores)
SELECT s.id, x.scope, x.key_digest, count(DISTINCT x.session_id), sum(x.score_sum), sum(x.scores)
FROM result_theme_shares AS x
     JOIN result_sessions AS r ON r.session_id = x.session_id
     JOIN result_segments AS s ON s.campaign_id = r.campaign_id
          AND s.labels_digest = result_segment_digest(r.language, r.platform, r.app_version, r.tags, r.attributes)
WHERE result_segmented(r.device_id, r.platform, r.app_version)
GROUP BY 1, 2, 3;
INSERT INTO result_segment_theme_labels (segment_id, scope, key_digest, label_digest, mentions)
SELECT s.id, x.scope, x.key_digest, x.label_digest, sum(x.mentions)
FROM result_theme_shares AS x
     JOIN result_sessions AS r ON r.session_id = x.session_id
     JOIN result_segments AS s ON s.campaign_id = r.campaign_id
          AND s.labels_digest = result_segment_digest(r.language, r.platform, r.app_version, r.tags, r.attributes)
WHERE result_segmented(r.device_id, r.platform, r.app_version)
GROUP BY 1, 2, 3, 4;
