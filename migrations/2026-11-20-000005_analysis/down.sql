DROP TABLE answer_analyses;
DROP TABLE session_analyses;
DROP TABLE analysis_jobs;
ALTER TABLE sessions DROP COLUMN exchanges;
