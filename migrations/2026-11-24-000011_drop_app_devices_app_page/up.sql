-- No query reads devices by app in position order (the device list filters an app within the
-- workspace's order, through app_devices_page), and on a table that grew since it was last analyzed
-- the planner chose this index over the unique vendor index for the register's lookup by vendor id,
-- filtering every device of the app. Dropping it also makes each new device one index cheaper.
DROP INDEX app_devices_app_page;
