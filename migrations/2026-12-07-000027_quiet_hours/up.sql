-- Quiet hours follow the person's time zone, given in the audience (sealed like the other contact
-- details), else the workspace's. Both columns are nullable: adding them rewrites no table.
ALTER TABLE respondents ADD COLUMN time_zone_sealed bytea;
ALTER TABLE workspaces ADD COLUMN time_zone text;
