-- Analysis of finished sessions: a job per session, queued in the transaction that completes it
-- (next to its feedback.received outbox row), the session's verdict, and each analyzer's result
-- per text answer.

-- Answer writes a respondent made (answering again counts again): `exchanges` in feedback.analyzed.
ALTER TABLE sessions ADD COLUMN exchanges integer NOT NULL DEFAULT 0;

CREATE TABLE analysis_jobs (
    session_id uuid PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,
    campaign_id uuid NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
    -- The completion's feedback.received event; events are purged after 30 days, jobs are not.
    event_id uuid REFERENCES webhook_events (id) ON DELETE SET NULL,
    -- NULL once done. A claimed job is due again at the end of its lease.
    due_at timestamptz,
    claim_token uuid,
    attempts integer NOT NULL DEFAULT 0,
    created_at timestamptz NOT NULL
);
CREATE INDEX analysis_jobs_due ON analysis_jobs (due_at) WHERE due_at IS NOT NULL;
CREATE INDEX analysis_jobs_campaign ON analysis_jobs (campaign_id);

-- Sessions finished before analysis existed are analyzed too (their feedback.received is older).
INSERT INTO analysis_jobs (session_id, campaign_id, due_at, created_at)
SELECT id, campaign_id, completed_at, completed_at FROM sessions WHERE status = 'COMPLETED';

-- A row here means feedback.analyzed was emitted for the session.
CREATE TABLE session_analyses (
    session_id uuid PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,
    campaign_id uuid NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
    rejection text CHECK (rejection IN ('TOO_FAST', 'LOW_COVERAGE', 'TOO_FEW_WORDS', 'OVER_CAPACITY')),
    duration_secs integer NOT NULL,
    coverage double precision NOT NULL,
    words integer NOT NULL,
    analyzed_at timestamptz NOT NULL
);
CREATE INDEX session_analyses_campaign ON session_analyses (campaign_id);

-- Key phrases are the respondent's words: sealed like the answers they come from.
CREATE TABLE answer_analyses (
    session_id uuid NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    question_id text NOT NULL,
    step text NOT NULL CHECK (step IN ('sentiment', 'themes')),
    version text NOT NULL,
    input_digest bytea NOT NULL,
    covered boolean NOT NULL,
    score double precision,
    phrases_sealed bytea,
    PRIMARY KEY (session_id, question_id, step)
);
