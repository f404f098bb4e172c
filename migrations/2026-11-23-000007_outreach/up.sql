-- The register a survey is written in, so messages about it use the same (tu or vous).
ALTER TABLE surveys ADD COLUMN register text NOT NULL DEFAULT 'FORMAL' CHECK (register IN ('FORMAL', 'INFORMAL'));

-- The outreach outbox: one row per message a campaign's delivery settings ask for. Rows are
-- planned from durable state (active campaigns, attached respondents, earlier messages, finished
-- sessions), so a crash between a launch and its planning loses nothing. Bodies and addresses
-- are never stored: the worker composes each message and opens the address at send time.
CREATE TABLE outreach_messages (
    id uuid PRIMARY KEY,
    workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    campaign_id uuid NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
    respondent_id uuid NOT NULL REFERENCES respondents (id) ON DELETE CASCADE,
    channel text NOT NULL CHECK (channel IN ('EMAIL', 'SMS', 'WHATSAPP')),
    kind text NOT NULL CHECK (kind IN ('INVITATION', 'REMINDER', 'THANK_YOU')),
    -- 0 for an invitation or a thank-you; n for the n-th reminder.
    sequence smallint NOT NULL CHECK (sequence BETWEEN 0 AND 4),
    status text NOT NULL CHECK (status IN ('QUEUED', 'SENT', 'FAILED', 'SUPPRESSED')),
    attempts integer NOT NULL DEFAULT 0,
    due_at timestamptz NOT NULL,
    claim_token uuid,
    claimed_until timestamptz,
    sent_at timestamptz,
    -- A keyed digest of the address it went to: STOP replies are matched by it.
    address_digest bytea,
    provider_message_id text,
    -- FAILED: why (a provider's code class, never an address); SUPPRESSED: RESPONDED,
    -- OPTED_OUT, NOT_COLLECTING or NO_ADDRESS.
    reason text,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    UNIQUE (respondent_id, channel, kind, sequence)
);
-- One thank-you per person, whichever channel two replicas planning at once would pick.
CREATE UNIQUE INDEX outreach_messages_one_thank_you ON outreach_messages (respondent_id) WHERE kind = 'THANK_YOU';
CREATE INDEX outreach_messages_due ON outreach_messages (due_at) WHERE status = 'QUEUED';
CREATE INDEX outreach_messages_campaign ON outreach_messages (campaign_id, channel, status);
CREATE INDEX outreach_messages_address ON outreach_messages (address_digest, sent_at) WHERE address_digest IS NOT NULL;

-- People who asked a workspace to stop writing to them, by a keyed digest of the address.
CREATE TABLE outreach_opt_outs (
    workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    address_digest bytea NOT NULL,
    family text NOT NULL CHECK (family IN ('EMAIL', 'PHONE')),
    source text NOT NULL CHECK (source IN ('LINK', 'REPLY')),
    created_at timestamptz NOT NULL,
    PRIMARY KEY (workspace_id, address_digest)
);
