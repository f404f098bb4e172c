-- Exports of a campaign's aggregate results. Records are polled often and files are large, so the
-- files live in their own table (or in S3, by configuration) and a record read never loads one.
CREATE TABLE exports (
    id uuid PRIMARY KEY,
    workspace_id uuid NOT NULL REFERENCES workspaces (id),
    campaign_id uuid NOT NULL REFERENCES campaigns (id),
    campaign_code text NOT NULL,
    format text NOT NULL CHECK (format IN ('json', 'pdf')),
    include_transcripts boolean NOT NULL,
    status text NOT NULL CHECK (status IN ('QUEUED', 'RUNNING', 'READY', 'FAILED', 'EXPIRED')),
    -- The key that asked: a download link dies with it.
    requested_by uuid NOT NULL REFERENCES api_keys (id),
    created_at timestamptz NOT NULL,
    started_at timestamptz,
    finished_at timestamptz,
    failure_code text,
    failure_description text,
    expires_at timestamptz,
    byte_size bigint,
    sha256 text,
    attempts integer NOT NULL DEFAULT 0,
    claim_token uuid,
    lease_until timestamptz
);
CREATE INDEX exports_due ON exports (created_at, id) WHERE status IN ('QUEUED', 'RUNNING');
CREATE INDEX exports_retention ON exports (expires_at) WHERE status = 'READY';

CREATE TABLE export_files (
    export_id uuid PRIMARY KEY REFERENCES exports (id) ON DELETE CASCADE,
    bytes bytea NOT NULL
);

-- Fetches per download link and hour, shared by every replica.
CREATE TABLE download_fetches (
    link_id uuid NOT NULL,
    window_start timestamptz NOT NULL,
    fetches integer NOT NULL,
    PRIMARY KEY (link_id, window_start)
);

-- Export workers beat here; a request for an export is refused while none has beaten lately.
CREATE TABLE export_workers (
    worker_id uuid PRIMARY KEY,
    seen_at timestamptz NOT NULL
);
