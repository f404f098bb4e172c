-- Each new device's first install checked its foreign key to app_devices: a trigger and a
-- locking lookup of the device, per row, in the one statement that writes a group of registers
-- (docs/performance.md, "Lever: installs leave with their device by a trigger"). Nothing that
-- inserts an install needs the check: a new device's install is inserted with it, in the same
-- statement, and a known device's only after its row is locked (FOR NO KEY UPDATE), in this
-- release and the previous one.
--
-- What the foreign key also did, deleting a device's installs with it, a trigger on app_devices
-- does now: it costs nothing when devices and installs are written, only when devices are
-- deleted. This release's erasure and the previous release's (which runs beside it during a
-- rolling upgrade) both delete the device and rely on it. In READ COMMITTED the trigger's delete
-- reads with a snapshot of its own, so an install committed by a register that held the device
-- while the erasure waited for it goes as well.
--
-- The tables are locked first, devices before installs, as a register, a heartbeat and an erasure
-- take them; should a long transaction hold one of them, the migration gives up after waiting 2
-- seconds for it and is run again. Only the catalog changes, so the locks last an instant.
SET LOCAL lock_timeout = '2s';
LOCK TABLE app_devices, app_installs IN ACCESS EXCLUSIVE MODE;

CREATE FUNCTION delete_installs_of_deleted_devices() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM app_installs i USING deleted WHERE i.device_id = deleted.id;
    RETURN NULL;
END
$$;

CREATE TRIGGER app_devices_installs_deleted AFTER DELETE ON app_devices
    REFERENCING OLD TABLE AS deleted
    FOR EACH STATEMENT EXECUTE FUNCTION delete_installs_of_deleted_devices();

ALTER TABLE app_installs DROP CONSTRAINT app_installs_device_id_fkey;
