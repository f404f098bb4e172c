-- Surveys belong to a workspace; a campaign may reuse any survey of its own workspace.
CREATE TABLE surveys (
    id uuid PRIMARY KEY,
    workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    title text NOT NULL,
    languages text[] NOT NULL CHECK (cardinality(languages) >= 1),
    -- [{id, kind, min, max, required, texts: [[language, text], ...]}, ...]
    questions jsonb NOT NULL,
    created_at timestamptz NOT NULL,
    UNIQUE (id, workspace_id)
);

CREATE TABLE campaigns (
    id uuid PRIMARY KEY,
    workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    survey_id uuid NOT NULL,
    code text NOT NULL UNIQUE,
    name text NOT NULL,
    status text NOT NULL CHECK (status IN ('DRAFT', 'ACTIVE')),
    audience text NOT NULL CHECK (audience IN ('OPEN', 'CLOSED')),
    require_signed boolean NOT NULL DEFAULT false,
    quality jsonb NOT NULL,
    delivery jsonb NOT NULL,
    order_terms jsonb NOT NULL,
    anonymity_floor integer NOT NULL CHECK (anonymity_floor >= 1),
    created_at timestamptz NOT NULL,
    launched_at timestamptz,
    -- The survey is of the campaign's own workspace.
    FOREIGN KEY (survey_id, workspace_id) REFERENCES surveys (id, workspace_id)
);
CREATE INDEX campaigns_workspace ON campaigns (workspace_id);

-- Contact details and the invitation nonce are sealed (XChaCha20-Poly1305, associated data =
-- key id + campaign + external ref + field); nothing personal is stored in the clear.
CREATE TABLE respondents (
    id uuid PRIMARY KEY,
    campaign_id uuid NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
    external_ref text NOT NULL,
    name_sealed bytea,
    email_sealed bytea,
    phone_sealed bytea,
    invitation_sealed bytea NOT NULL,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    UNIQUE (campaign_id, external_ref)
);

CREATE TABLE launch_keys (
    id uuid PRIMARY KEY,
    campaign_id uuid NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
    slot smallint NOT NULL CHECK (slot IN (1, 2)),
    fingerprint text NOT NULL,
    secret_sealed bytea NOT NULL,
    created_at timestamptz NOT NULL,
    last_used_at timestamptz,
    revoked_at timestamptz
);
-- One active key per slot.
CREATE UNIQUE INDEX launch_keys_active_slot ON launch_keys (campaign_id, slot) WHERE revoked_at IS NULL;

-- Single-use links: minted `lt` links (no nonce), minted `/s/` links and audience invitations
-- (nonce digest; invitations have no expiry).
CREATE TABLE launch_links (
    id uuid PRIMARY KEY,
    campaign_id uuid NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
    nonce_digest bytea UNIQUE,
    respondent_id uuid REFERENCES respondents (id) ON DELETE CASCADE,
    language text,
    external_user_digest bytea,
    device jsonb NOT NULL,
    attributes jsonb NOT NULL,
    expires_at timestamptz,
    spent_at timestamptz,
    created_at timestamptz NOT NULL
);

-- The `jti`s of partner-signed tokens that started a session, until the token expires.
CREATE TABLE spent_launch_tokens (
    campaign_id uuid NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
    jti text NOT NULL,
    launch_key_id uuid NOT NULL,
    expires_at timestamptz NOT NULL,
    spent_at timestamptz NOT NULL,
    PRIMARY KEY (campaign_id, jti)
);
CREATE INDEX spent_launch_tokens_expires_at ON spent_launch_tokens (expires_at);

CREATE TABLE sessions (
    id uuid PRIMARY KEY,
    campaign_id uuid NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
    token_digest bytea NOT NULL,
    language text NOT NULL,
    respondent_id uuid REFERENCES respondents (id) ON DELETE SET NULL,
    launch_link_id uuid REFERENCES launch_links (id) ON DELETE SET NULL,
    launch_key_id uuid REFERENCES launch_keys (id) ON DELETE SET NULL,
    external_user_digest bytea,
    tags text[] NOT NULL,
    context jsonb NOT NULL,
    status text NOT NULL CHECK (status IN ('STARTED', 'COMPLETED')),
    answered integer NOT NULL DEFAULT 0,
    total integer NOT NULL,
    started_at timestamptz NOT NULL,
    completed_at timestamptz
);
CREATE INDEX sessions_campaign_status ON sessions (campaign_id, status);
CREATE INDEX sessions_respondent ON sessions (respondent_id) WHERE respondent_id IS NOT NULL;

-- A text answer is sealed (associated data = key id + session + question); its word count is
-- kept for the quality rules.
CREATE TABLE answers (
    session_id uuid NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    question_id text NOT NULL,
    rating smallint,
    text_sealed bytea,
    word_count integer NOT NULL,
    answered_at timestamptz NOT NULL,
    PRIMARY KEY (session_id, question_id),
    CHECK ((rating IS NULL) <> (text_sealed IS NULL))
);
