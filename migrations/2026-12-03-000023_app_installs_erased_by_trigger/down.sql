-- Locked first in the order the up migration explains; adding the foreign key back checks every
-- install, so the tables are held for about a second per million installs.
SET LOCAL lock_timeout = '2s';
LOCK TABLE app_devices, app_installs IN ACCESS EXCLUSIVE MODE;
ALTER TABLE app_installs
    ADD CONSTRAINT app_installs_device_id_fkey FOREIGN KEY (device_id) REFERENCES app_devices (id) ON DELETE CASCADE;
DROP TRIGGER app_devices_take_installs ON app_devices;
DROP FUNCTION app_devices_take_installs();
