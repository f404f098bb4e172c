-- One PostgreSQL backend writes a whole group of registers in one statement, so what each new
-- device's two rows (its app_devices row and its first app_installs row) cost there is register's
-- ceiling. Each foreign key is a trigger and a lookup per inserted row, and each index an insert.
-- Measured on the group's statement alone (32 new devices, one backend), this takes the backend's
-- CPU per device from 84-104 µs to 58 µs (docs/performance.md, "Lever: lighter register rows").
--
-- Foreign keys dropped, and what holds their rows together instead:
-- * app_devices.workspace_id and app_installs.campaign_id point at workspaces and campaigns, which
--   Pulse never deletes; every insert takes them from the campaign row it reads in the same
--   statement or transaction.
-- * app_installs.device_id: an install is inserted in the same statement as its new device, or
--   with its known device's row locked; erasing a device deletes its installs itself.
-- Indexes dropped:
-- * the unique index on `position` alone, on both tables: no query reads it, and an identity
--   column is unique without it;
-- * app_installs_device: the unique key now leads with device_id, so it answers lookups by device.
--
-- The new key is built before anything is dropped: registers wait while it builds, reads go on, and
-- the drops at the end hold the tables only for an instant.
CREATE UNIQUE INDEX app_installs_device_campaign ON app_installs (device_id, campaign_id);
ALTER TABLE app_installs
    DROP CONSTRAINT app_installs_campaign_id_fkey,
    DROP CONSTRAINT app_installs_device_id_fkey,
    DROP CONSTRAINT app_installs_position_key,
    DROP CONSTRAINT app_installs_campaign_id_device_id_key;
DROP INDEX app_installs_device;
ALTER TABLE app_devices
    DROP CONSTRAINT app_devices_workspace_id_fkey,
    DROP CONSTRAINT app_devices_position_key;
