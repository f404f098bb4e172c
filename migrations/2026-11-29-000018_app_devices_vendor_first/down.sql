CREATE UNIQUE INDEX app_devices_vendor_workspace_first ON app_devices (workspace_id, app_id, vendor_digest)
    WHERE vendor_digest IS NOT NULL;
DROP INDEX app_devices_vendor;
ALTER INDEX app_devices_vendor_workspace_first RENAME TO app_devices_vendor;
