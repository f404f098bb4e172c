DROP TABLE analyzer_in_charge;
DROP INDEX analysis_jobs_analyzed_with;
DROP INDEX analysis_jobs_campaign;
CREATE INDEX analysis_jobs_campaign ON analysis_jobs (campaign_id);
ALTER TABLE analysis_jobs DROP COLUMN analyzed_with;
