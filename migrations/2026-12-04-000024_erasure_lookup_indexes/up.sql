-- Erasing a device, a person or a respondent clears or deletes the rows that name it, through
-- foreign keys (sessions' device, install and person; a device's person) and through erasure's
-- own statements (a respondent's launch links). Without these indexes each of those lookups read
-- its table whole, so an erasure's time grew with every session and link ever written
-- (docs/erasure.md, "At scale"). Only rows that name a subject are indexed: a start, a mint or a
-- register that names none, the hot paths' case, writes no entry.
--
-- Building an index holds writes to its table (reads go on). The tables are locked first, in the
-- order a start that spends a link and counts on a device writes them, so such a start waits for
-- the migration rather than holding one of them while it waits for another. Erasing a device or a
-- person writes devices before sessions, so one under way may deadlock with the migration instead;
-- no order suits both, and starts are by far the more frequent. Should a long transaction hold one
-- of the tables, the migration gives up after waiting 2 seconds and is run again.
SET LOCAL lock_timeout = '2s';
LOCK TABLE launch_links, sessions, app_devices IN SHARE MODE;
CREATE INDEX launch_links_respondent ON launch_links (respondent_id)
    WHERE respondent_id IS NOT NULL;
CREATE INDEX sessions_device ON sessions (device_id) WHERE device_id IS NOT NULL;
CREATE INDEX sessions_app_install ON sessions (app_install_id) WHERE app_install_id IS NOT NULL;
CREATE INDEX sessions_app_user ON sessions (app_user_id) WHERE app_user_id IS NOT NULL;
CREATE INDEX app_devices_user ON app_devices (user_id) WHERE user_id IS NOT NULL;
