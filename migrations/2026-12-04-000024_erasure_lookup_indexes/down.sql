-- Dropping an index holds its table against reads as well, so the tables are locked first, in the
-- order the up migration explains, and a long transaction makes it give up rather than wait.
SET LOCAL lock_timeout = '2s';
LOCK TABLE launch_links, sessions, app_devices IN ACCESS EXCLUSIVE MODE;
DROP INDEX app_devices_user;
DROP INDEX sessions_app_user;
DROP INDEX sessions_app_install;
DROP INDEX sessions_device;
DROP INDEX launch_links_respondent;
