-- One PostgreSQL backend writes a whole group of registers in one statement, so what each new
-- device's two rows (its app_devices row and its first app_installs row) cost there is register's
-- ceiling. Each foreign key is a trigger and a lookup per inserted row, and each index an insert
-- (docs/performance.md, "Lever: lighter register rows").
--
-- Foreign keys dropped: app_devices.workspace_id and app_installs.campaign_id. They point at
-- workspaces and campaigns, which Pulse never deletes, and every insert takes them from the
-- campaign row it reads in the same statement or transaction. app_installs.device_id keeps its
-- foreign key: the previous release's erasure relies on its cascade, and runs beside this one
-- during a rolling upgrade.
-- Indexes dropped:
-- * the unique index on `position` alone, on both tables: no query reads it, and nothing writes
--   `position` but its identity;
-- * app_installs_device: the unique key now leads with device_id, so it answers lookups by device.
--
-- The new key is built before anything is dropped: writes to installs wait while it builds, reads
-- go on, and the drops at the end hold the tables only for an instant.
CREATE UNIQUE INDEX app_installs_device_campaign ON app_installs (device_id, campaign_id);
ALTER TABLE app_installs
    DROP CONSTRAINT app_installs_campaign_id_fkey,
    DROP CONSTRAINT app_installs_position_key,
    DROP CONSTRAINT app_installs_campaign_id_device_id_key;
DROP INDEX app_installs_device;
ALTER TABLE app_devices
    DROP CONSTRAINT app_devices_workspace_id_fkey,
    DROP CONSTRAINT app_devices_position_key;
