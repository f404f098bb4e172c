-- Calls: a TELEPHONY message is a call placed through the voice provider, and this is what its
-- turns record. The call's session token is sealed to the call; nothing said is kept here.
ALTER TABLE outreach_messages DROP CONSTRAINT outreach_messages_channel_check;
ALTER TABLE outreach_messages ADD CONSTRAINT outreach_messages_channel_check
    CHECK (channel IN ('EMAIL', 'SMS', 'WHATSAPP', 'TELEPHONY')) NOT VALID;
ALTER TABLE outreach_messages VALIDATE CONSTRAINT outreach_messages_channel_check;

CREATE TABLE outreach_calls (
    message_id uuid PRIMARY KEY REFERENCES outreach_messages (id) ON DELETE CASCADE,
    provider_call_id text,
    session_id uuid REFERENCES sessions (id) ON DELETE SET NULL,
    session_token_sealed bytea,
    outcome text CHECK (outcome IN ('COMPLETED', 'PARTIAL', 'DECLINED', 'STOPPED', 'MACHINE', 'BUSY',
                                    'NO_ANSWER', 'FAILED')),
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL
);
-- Erasing a session, or finding what a session's call was.
CREATE INDEX outreach_calls_session ON outreach_calls (session_id) WHERE session_id IS NOT NULL;
