-- Webhooks: partners' endpoints, the event outbox and each event's delivery to each endpoint.

CREATE TABLE webhook_subscriptions (
    id uuid PRIMARY KEY,
    workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    url text NOT NULL,
    description text,
    -- Empty: every event.
    event_types text[] NOT NULL,
    -- Sealed with the master key; shown to the partner once, at creation.
    secret_sealed bytea NOT NULL,
    is_active boolean NOT NULL,
    disabled_at timestamptz,
    disabled_reason text,
    -- DEAD deliveries since the last DELIVERED one; the fifth disables the endpoint.
    dead_in_a_row integer NOT NULL DEFAULT 0,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL
);
CREATE INDEX webhook_subscriptions_workspace ON webhook_subscriptions (workspace_id, created_at);

-- The outbox: written in the transaction of the fact it reports.
CREATE TABLE webhook_events (
    id uuid PRIMARY KEY,
    workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    event_type text NOT NULL,
    aggregate text NOT NULL,
    aggregate_id uuid NOT NULL,
    payload jsonb NOT NULL,
    occurred_at timestamptz NOT NULL
);
CREATE INDEX webhook_events_aggregate ON webhook_events (aggregate_id, event_type);

CREATE TABLE webhook_deliveries (
    id uuid PRIMARY KEY,
    position bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
    subscription_id uuid NOT NULL REFERENCES webhook_subscriptions (id) ON DELETE CASCADE,
    event_id uuid NOT NULL REFERENCES webhook_events (id) ON DELETE CASCADE,
    status text NOT NULL CHECK (status IN ('PENDING', 'DELIVERED', 'FAILED', 'DEAD')),
    attempts integer NOT NULL DEFAULT 0,
    -- When due; while a worker holds the delivery, the end of its lease.
    next_attempt_at timestamptz,
    -- The worker holding the delivery: only it may record the attempt.
    claim_token uuid,
    last_status_code integer,
    last_error text,
    delivered_at timestamptz,
    UNIQUE (subscription_id, event_id)
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status IN ('PENDING', 'FAILED');
CREATE INDEX webhook_deliveries_trail ON webhook_deliveries (subscription_id, position);

CREATE TABLE webhook_attempts (
    delivery_id uuid NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
    attempt integer NOT NULL,
    attempted_at timestamptz NOT NULL,
    status_code integer,
    error text,
    duration_ms integer NOT NULL,
    PRIMARY KEY (delivery_id, attempt)
);
