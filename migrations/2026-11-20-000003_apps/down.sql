ALTER TABLE sessions DROP COLUMN identity, DROP COLUMN app_install_id, DROP COLUMN app_user_id, DROP COLUMN device_id;
DROP TABLE app_installs;
DROP TABLE app_devices;
DROP TABLE app_users;
