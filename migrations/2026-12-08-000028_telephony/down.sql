DROP TABLE outreach_calls;
DELETE FROM outreach_messages WHERE channel = 'TELEPHONY';
ALTER TABLE outreach_messages DROP CONSTRAINT outreach_messages_channel_check;
ALTER TABLE outreach_messages ADD CONSTRAINT outreach_messages_channel_check
    CHECK (channel IN ('EMAIL', 'SMS', 'WHATSAPP'));
