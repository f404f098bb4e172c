-- Locked first in the order the up migration explains; adding the foreign keys back checks every
-- row, so the tables are held for seconds per million installs.
SET LOCAL lock_timeout = '2s';
LOCK TABLE campaigns, app_devices, app_installs, workspaces IN ACCESS EXCLUSIVE MODE;
ALTER TABLE app_devices
    ADD CONSTRAINT app_devices_position_key UNIQUE (position),
    ADD CONSTRAINT app_devices_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES workspaces (id) ON DELETE CASCADE;
CREATE INDEX app_installs_device ON app_installs (device_id);
ALTER TABLE app_installs
    ADD CONSTRAINT app_installs_campaign_id_device_id_key UNIQUE (campaign_id, device_id),
    ADD CONSTRAINT app_installs_position_key UNIQUE (position),
    ADD CONSTRAINT app_installs_campaign_id_fkey FOREIGN KEY (campaign_id) REFERENCES campaigns (id) ON DELETE CASCADE;
