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
-- * app_installs_device and the unique key led by campaign_id: the key led by device_id
--   (migration 000020) answers both their lookups.
--
-- Dropping a foreign key locks its referenced table too. The tables are locked first, in the
-- order the previous release's register takes them (the campaign it reads, the device and install
-- it inserts, then the workspace its device's foreign key checks), so a register waits for the
-- migration rather than holding one of them while it waits for another: locked in another order,
-- a register under load deadlocked with it. The drops only change the catalog, so the locks last
-- an instant. Should a long transaction hold one of the tables, the migration gives up after
-- waiting 2 seconds for it (the timeout applies to each table) instead of stalling every reader
-- queued behind it, and is run again.
SET LOCAL lock_timeout = '2s';
LOCK TABLE campaigns, app_devices, app_installs, workspaces IN ACCESS EXCLUSIVE MODE;
ALTER TABLE app_installs
    DROP CONSTRAINT app_installs_campaign_id_fkey,
    DROP CONSTRAINT app_installs_position_key,
    DROP CONSTRAINT app_installs_campaign_id_device_id_key;
DROP INDEX app_installs_device;
ALTER TABLE app_devices
    DROP CONSTRAINT app_devices_workspace_id_fkey,
    DROP CONSTRAINT app_devices_position_key;
