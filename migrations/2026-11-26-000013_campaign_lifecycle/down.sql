DROP INDEX sessions_launch_link;
DROP INDEX campaigns_status_page;
DROP INDEX campaigns_page;
ALTER TABLE campaigns DROP COLUMN position, DROP COLUMN closed_at, DROP COLUMN privacy_notice_url;
UPDATE campaigns SET status = 'ACTIVE' WHERE status IN ('PAUSED', 'CLOSED');
ALTER TABLE campaigns DROP CONSTRAINT campaigns_status_check;
ALTER TABLE campaigns ADD CONSTRAINT campaigns_status_check CHECK (status IN ('DRAFT', 'ACTIVE'));
