-- Recordings of spoken answers at the voice provider, when the operator records them. Pulse
-- keeps each recording's reference sealed (never the audio) until the provider confirms it
-- deleted the recording; the row then stays, without the reference, for the campaign's counts.
CREATE TABLE call_recordings (
    id uuid PRIMARY KEY,
    message_id uuid NOT NULL REFERENCES outreach_messages (id),
    campaign_id uuid NOT NULL REFERENCES campaigns (id),
    -- The keyed digest of the provider's reference: a recording reported twice is kept once.
    reference_digest bytea NOT NULL,
    reference_sealed bytea,
    recorded_at timestamptz NOT NULL,
    delete_after timestamptz NOT NULL,
    deleted_at timestamptz,
    attempts integer NOT NULL DEFAULT 0,
    next_attempt_at timestamptz NOT NULL,
    claimed_until timestamptz,
    last_failure text,
    UNIQUE (message_id, reference_digest),
    CHECK ((deleted_at IS NULL) = (reference_sealed IS NOT NULL))
);
-- The worker's claim: recordings not yet deleted, by their next attempt.
CREATE INDEX call_recordings_due ON call_recordings (next_attempt_at) WHERE deleted_at IS NULL;
CREATE INDEX call_recordings_campaign ON call_recordings (campaign_id);
