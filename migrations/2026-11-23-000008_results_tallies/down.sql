ALTER TABLE analysis_jobs DROP COLUMN tallied;
DROP TABLE result_phrases;
DROP TABLE result_theme_labels;
DROP TABLE result_themes;
DROP TABLE result_counts;
DROP TABLE result_quotes;
DROP TABLE result_theme_shares;
DROP TABLE result_sessions;
