DROP INDEX app_devices_user;
DROP INDEX sessions_app_user;
DROP INDEX sessions_app_install;
DROP INDEX sessions_device;
DROP INDEX launch_links_respondent;
