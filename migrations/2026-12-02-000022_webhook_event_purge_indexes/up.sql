-- Purging an event past its retention deletes its deliveries and clears its analysis jobs' link
-- to it, through their foreign keys: one lookup by event_id in each table per purged event, which
-- without these indexes read each table whole, so the purge's time grew with the square of its
-- events (docs/performance.md, "Found, then fixed: purging events read every delivery and analysis
-- job per event"). The purge takes its events oldest first, in batches, by occurred_at.
--
-- Building an index holds writes to its table (reads go on). The tables are locked first, in the
-- order a completing session writes them, so a completion waits for the migration rather than
-- holding one of them while it waits for another. Should a long transaction hold one of them, the
-- migration gives up after waiting 2 seconds for it and is run again.
SET LOCAL lock_timeout = '2s';
LOCK TABLE webhook_events, webhook_deliveries, analysis_jobs IN SHARE MODE;
CREATE INDEX webhook_events_occurred ON webhook_events (occurred_at);
CREATE INDEX webhook_deliveries_event ON webhook_deliveries (event_id);
-- A job's event_id is cleared when its event is purged; only the linked ones are looked up.
CREATE INDEX analysis_jobs_event ON analysis_jobs (event_id) WHERE event_id IS NOT NULL;
