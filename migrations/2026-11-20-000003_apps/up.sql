-- App install identity: the people apps name, devices (one install of an app, server-issued id)
-- and each device's registration against a campaign.

-- A person; with an `externalId` the id is a keyed digest of workspace and externalId, so the same
-- person is found again without the reference being stored. Contact details are sealed.
CREATE TABLE app_users (
    id uuid PRIMARY KEY,
    workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    has_external_id boolean NOT NULL,
    email_sealed bytea,
    phone_sealed bytea,
    verified boolean NOT NULL,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL
);

-- `position` orders the lists: it only grows, so items added while a partner pages land on later
-- pages.
CREATE TABLE app_devices (
    id uuid PRIMARY KEY,
    position bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
    workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    app_id text NOT NULL,
    platform text NOT NULL CHECK (platform IN ('ios', 'android', 'web', 'other')),
    app_version text NOT NULL,
    device_model text,
    os_version text,
    locale text,
    metadata jsonb,
    vendor_digest bytea,
    status text NOT NULL CHECK (status IN ('ACTIVE', 'BLOCKED')),
    refresh_digest bytea NOT NULL,
    refresh_expires_at timestamptz NOT NULL,
    user_id uuid REFERENCES app_users (id) ON DELETE SET NULL,
    identity text NOT NULL CHECK (identity IN ('anonymous', 'self_declared', 'verified')),
    -- The install of the latest register (v2 heartbeats count on it); no foreign key, the two
    -- tables reference each other.
    latest_install_id uuid NOT NULL,
    first_seen_at timestamptz NOT NULL,
    last_seen_at timestamptz NOT NULL,
    heartbeat_count bigint NOT NULL,
    feedback_count bigint NOT NULL,
    session_count bigint NOT NULL,
    recent_sessions timestamptz[] NOT NULL,
    -- The heartbeat rate's theoretical arrival time (GCRA).
    heartbeat_tat timestamptz
);
CREATE UNIQUE INDEX app_devices_vendor ON app_devices (workspace_id, app_id, vendor_digest)
    WHERE vendor_digest IS NOT NULL;
CREATE INDEX app_devices_page ON app_devices (workspace_id, position);
CREATE INDEX app_devices_app_page ON app_devices (workspace_id, app_id, position);

CREATE TABLE app_installs (
    id uuid PRIMARY KEY,
    position bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
    campaign_id uuid NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
    device_id uuid NOT NULL REFERENCES app_devices (id) ON DELETE CASCADE,
    app_id text NOT NULL,
    platform text NOT NULL CHECK (platform IN ('ios', 'android', 'web', 'other')),
    app_version text NOT NULL,
    device_model text,
    os_version text,
    locale text,
    first_seen_at timestamptz NOT NULL,
    last_seen_at timestamptz NOT NULL,
    heartbeat_count bigint NOT NULL,
    feedback_count bigint NOT NULL,
    session_count bigint NOT NULL,
    recent_sessions timestamptz[] NOT NULL,
    heartbeat_tat timestamptz,
    UNIQUE (campaign_id, device_id)
);
CREATE INDEX app_installs_page ON app_installs (campaign_id, position);
CREATE INDEX app_installs_device ON app_installs (device_id);

ALTER TABLE sessions
    ADD COLUMN device_id uuid REFERENCES app_devices (id) ON DELETE SET NULL,
    ADD COLUMN app_user_id uuid REFERENCES app_users (id) ON DELETE SET NULL,
    ADD COLUMN app_install_id uuid REFERENCES app_installs (id) ON DELETE SET NULL,
    ADD COLUMN identity text CHECK (identity IN ('anonymous', 'self_declared', 'verified'));
