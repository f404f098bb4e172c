-- Results maintained as sessions are analyzed (docs/results-storage.md). The transaction that
-- records a session's analysis keeps its tally here under the final verdict, in place of an
-- earlier one, and adds the difference to its campaign's sums. The unfiltered view reads the sums;
-- a filtered view sums the tallies of the sessions it selects. Counts, digests and segments are not
-- personal; phrases and quote texts (the respondents' words) are sealed.

-- One row per analyzed session: its verdict, the columns filters read, and its counters
-- (pulse_domain::results::models::Metric) as parallel arrays.
CREATE TABLE result_sessions (
    session_id uuid PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,
    campaign_id uuid NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
    accepted boolean NOT NULL,
    -- The launch's labels (the platform in ASCII lower case); without them, filters read the app
    -- device's labels as they are at query time, as before.
    platform text,
    app_version text,
    device_id uuid,
    tags text[] NOT NULL,
    -- Attribute names to the texts a filter compares (strings, numbers, booleans).
    attributes jsonb NOT NULL,
    metrics text[] NOT NULL,
    questions text[] NOT NULL,
    vals bigint[] NOT NULL,
    ns bigint[] NOT NULL
);
CREATE INDEX result_sessions_campaign ON result_sessions (campaign_id);

-- An accepted session's share of each theme, by keyed digests of the phrase's key and label, in
-- each scope ('' for all questions, else a question id); scores summed in units of 1e-4.
CREATE TABLE result_theme_shares (
    session_id uuid NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    campaign_id uuid NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
    scope text NOT NULL,
    key_digest bytea NOT NULL,
    label_digest bytea NOT NULL,
    mentions bigint NOT NULL,
    score_sum bigint NOT NULL,
    scores bigint NOT NULL,
    PRIMARY KEY (session_id, scope, key_digest, label_digest)
);
CREATE INDEX result_theme_shares_campaign ON result_theme_shares (campaign_id);

-- An accepted session's quotable answers: the text trimmed, contacts redacted, sealed.
CREATE TABLE result_quotes (
    session_id uuid NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    question_id text NOT NULL,
    campaign_id uuid NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
    score double precision,
    len integer NOT NULL,
    text_sealed bytea NOT NULL,
    PRIMARY KEY (session_id, question_id)
);
-- The orders quotes are picked in (pulse_domain::results::models::QUOTE_CANDIDATES).
CREATE INDEX result_quotes_by_score ON result_quotes (campaign_id, question_id, (COALESCE(score, 0)), len);
CREATE INDEX result_quotes_by_neutrality
    ON result_quotes (campaign_id, question_id, (abs(COALESCE(score, 0))), (COALESCE(score, 0)) DESC, len DESC);
CREATE INDEX result_quotes_by_length ON result_quotes (campaign_id, question_id, len, (COALESCE(score, 0)));

-- The campaign's counters: the sum of its sessions' counters.
CREATE TABLE result_counts (
    campaign_id uuid NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
    metric text NOT NULL,
    question_id text NOT NULL,
    value bigint NOT NULL,
    n bigint NOT NULL,
    PRIMARY KEY (campaign_id, metric, question_id, value)
);

-- The campaign's themes: sessions mentioning each key, the scores of the mentions, and the
-- mentions of each label.
CREATE TABLE result_themes (
    campaign_id uuid NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
    scope text NOT NULL,
    key_digest bytea NOT NULL,
    sessions bigint NOT NULL,
    score_sum bigint NOT NULL,
    scores bigint NOT NULL,
    PRIMARY KEY (campaign_id, scope, key_digest)
);
-- Themes are shown from two sessions on (MIN_THEME_SESSIONS; a const assert in crates/postgres keeps them equal).
CREATE INDEX result_themes_shown ON result_themes (campaign_id) WHERE sessions >= 2;

CREATE TABLE result_theme_labels (
    campaign_id uuid NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
    scope text NOT NULL,
    key_digest bytea NOT NULL,
    label_digest bytea NOT NULL,
    mentions bigint NOT NULL,
    PRIMARY KEY (campaign_id, scope, key_digest, label_digest)
);

-- Each phrase (key and label) a campaign's themes may show, sealed once per campaign.
CREATE TABLE result_phrases (
    campaign_id uuid NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
    key_digest bytea NOT NULL,
    label_digest bytea NOT NULL,
    phrase_sealed bytea NOT NULL,
    PRIMARY KEY (campaign_id, key_digest, label_digest)
);

-- Whether the job's last recording kept a tally. Analyses recorded without one (before tallies
-- existed, or by a replica still running older code after the upgrade) are claimed again by the
-- analysis worker, after every due job, until they are tallied: recording reuses every unchanged
-- analyzer result (no analyzer runs again, no second feedback.analyzed). Until then, results count
-- them as pending analysis.
ALTER TABLE analysis_jobs ADD COLUMN tallied boolean NOT NULL DEFAULT false;
CREATE INDEX analysis_jobs_untallied ON analysis_jobs (created_at, session_id) WHERE due_at IS NULL AND NOT tallied;
