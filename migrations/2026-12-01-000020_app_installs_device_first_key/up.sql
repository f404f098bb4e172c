-- app_installs' unique key led by device_id instead of campaign_id, so that it also answers
-- lookups by device and the next migration can drop app_installs_device (docs/performance.md,
-- "Lever: lighter register rows"). Built in a migration of its own, so that only app_installs is
-- held while it builds: writes to installs wait, reads go on.
CREATE UNIQUE INDEX app_installs_device_campaign ON app_installs (device_id, campaign_id);
