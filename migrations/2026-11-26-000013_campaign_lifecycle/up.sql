-- Campaigns can be paused, resumed and closed, partners list them in the order they were made,
-- and the respondent page links the privacy notice a partner sets.
ALTER TABLE campaigns DROP CONSTRAINT campaigns_status_check;
ALTER TABLE campaigns ADD CONSTRAINT campaigns_status_check
    CHECK (status IN ('DRAFT', 'ACTIVE', 'PAUSED', 'CLOSED'));
ALTER TABLE campaigns
    ADD COLUMN privacy_notice_url text CHECK (char_length(privacy_notice_url) <= 2048),
    ADD COLUMN closed_at timestamptz,
    -- Orders the list: it only grows, so campaigns made while a partner pages land on later pages.
    ADD COLUMN position bigint GENERATED ALWAYS AS IDENTITY UNIQUE;
CREATE INDEX campaigns_page ON campaigns (workspace_id, position);
CREATE INDEX campaigns_status_page ON campaigns (workspace_id, status, position);
-- The access check tells a finished link from a bad one by the session the link started.
CREATE INDEX sessions_launch_link ON sessions (launch_link_id) WHERE launch_link_id IS NOT NULL;
