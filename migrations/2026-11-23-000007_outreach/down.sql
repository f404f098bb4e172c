DROP TABLE outreach_opt_outs;
DROP TABLE outreach_messages;
ALTER TABLE surveys DROP COLUMN register;
