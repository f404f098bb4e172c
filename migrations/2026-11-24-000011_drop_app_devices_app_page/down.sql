CREATE INDEX app_devices_app_page ON app_devices (workspace_id, app_id, position);
