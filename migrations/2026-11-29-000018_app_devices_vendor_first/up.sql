-- The register's lookup of a device by its vendor id is a cached statement, planned once per
-- connection. Planned while app_devices held a few rows and had no statistics (a new deployment, or
-- a database whose autovacuum is off), the plan walked app_devices_page, the workspace's devices in
-- position order, filtering each by app and vendor id: 1.2 ms per register on 20,000 devices
-- instead of 0.03 ms, and growing with the workspace. The vendor index now leads with the vendor
-- digest, and the lookups leave the workspace condition out of every index (`IS NOT DISTINCT
-- FROM`), so this index is the only one that can answer them, whatever the statistics say.
--
-- Built before the old one is dropped: registers wait while it builds, reads go on, and the drop
-- at the end holds the table only for an instant. The running release's lookups use either index.
CREATE UNIQUE INDEX app_devices_vendor_first ON app_devices (vendor_digest, app_id, workspace_id)
    WHERE vendor_digest IS NOT NULL;
DROP INDEX app_devices_vendor;
ALTER INDEX app_devices_vendor_first RENAME TO app_devices_vendor;
