-- Who did what to a workspace's data. Written in the transaction of what it records and never
-- changed; no foreign keys, so erasing or removing what an entry names leaves the entry (ids only).
CREATE TABLE audit_events (
    position bigserial PRIMARY KEY,
    id uuid NOT NULL UNIQUE,
    -- One of the two: a workspace's entry, or a business-wide one (its keys) shown in every
    -- workspace of the business.
    workspace_id uuid,
    business_id uuid,
    actor text NOT NULL CHECK (actor IN ('key', 'operator')),
    key_prefix text,
    network text,
    action text NOT NULL,
    target text NOT NULL,
    occurred_at timestamptz NOT NULL,
    CHECK ((workspace_id IS NULL) <> (business_id IS NULL)),
    CHECK ((actor = 'key') = (key_prefix IS NOT NULL))
);

CREATE INDEX audit_events_of_workspace ON audit_events (workspace_id, position) WHERE workspace_id IS NOT NULL;
CREATE INDEX audit_events_of_business ON audit_events (business_id, position) WHERE business_id IS NOT NULL;
CREATE INDEX audit_events_by_age ON audit_events (occurred_at);
