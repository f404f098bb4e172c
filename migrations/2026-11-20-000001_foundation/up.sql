-- Tenancy: businesses own workspaces and service accounts; service accounts own API keys.
CREATE TABLE businesses (
    id uuid PRIMARY KEY,
    name text NOT NULL,
    created_at timestamptz NOT NULL
);

CREATE TABLE workspaces (
    id uuid PRIMARY KEY,
    business_id uuid NOT NULL REFERENCES businesses (id),
    external_ref text NOT NULL,
    name text NOT NULL,
    slug text NOT NULL,
    kind text NOT NULL CHECK (kind IN ('INDIVIDUAL', 'COMPANY', 'PARTNERSHIP', 'GOVERNMENT', 'EDUCATIONAL', 'OTHER')),
    team text,
    location text,
    status text NOT NULL DEFAULT 'PENDING_APPROVAL' CHECK (status IN ('PENDING_APPROVAL', 'ACTIVE', 'SUSPENDED')),
    created_at timestamptz NOT NULL,
    UNIQUE (business_id, external_ref),
    UNIQUE (business_id, slug),
    -- Target of the allowlist's composite key: an allowlist row names a workspace together with
    -- its business (the code records the key's business there).
    UNIQUE (id, business_id)
);

CREATE TABLE service_accounts (
    id uuid PRIMARY KEY,
    business_id uuid REFERENCES businesses (id),
    name text NOT NULL,
    created_at timestamptz NOT NULL
);

-- Only a keyed digest (HMAC-SHA256 under a server key) of the whole key text is stored.
CREATE TABLE api_keys (
    id uuid PRIMARY KEY,
    service_account_id uuid NOT NULL REFERENCES service_accounts (id),
    prefix text NOT NULL UNIQUE,
    digest bytea NOT NULL,
    scopes text[] NOT NULL,
    expires_at timestamptz,
    revoked_at timestamptz,
    created_at timestamptz NOT NULL
);

CREATE TABLE api_key_workspaces (
    api_key_id uuid NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
    workspace_id uuid NOT NULL,
    business_id uuid NOT NULL,
    added_at timestamptz NOT NULL,
    PRIMARY KEY (api_key_id, workspace_id),
    FOREIGN KEY (workspace_id, business_id) REFERENCES workspaces (id, business_id) ON DELETE CASCADE
);

-- Idempotency-Key records, 24 hours. `status` and `sealed_body` are NULL while the first request
-- is in flight; the body is encrypted because some replayed bodies hold tokens. `claim_token`
-- names the request that holds the claim, so a request whose claim was taken over cannot
-- complete or release the new owner's.
CREATE TABLE idempotency_keys (
    scope text NOT NULL,
    key text NOT NULL,
    claim_token uuid NOT NULL,
    fingerprint bytea NOT NULL,
    status smallint,
    sealed_body bytea,
    created_at timestamptz NOT NULL,
    locked_at timestamptz NOT NULL,
    PRIMARY KEY (scope, key)
);
CREATE INDEX idempotency_keys_created_at ON idempotency_keys (created_at);

-- Fixed hourly quota windows shared by every replica.
CREATE TABLE quota_windows (
    subject text NOT NULL,
    family text NOT NULL,
    window_start timestamptz NOT NULL,
    count integer NOT NULL,
    PRIMARY KEY (subject, family, window_start)
);
CREATE INDEX quota_windows_window_start ON quota_windows (window_start);
