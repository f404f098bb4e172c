ALTER TABLE workspaces DROP COLUMN time_zone;
ALTER TABLE respondents DROP COLUMN time_zone_sealed;
