DROP INDEX analysis_jobs_event;
DROP INDEX webhook_deliveries_event;
DROP INDEX webhook_events_occurred;
