DROP INDEX result_quotes_segment_by_length;
DROP INDEX result_quotes_segment_by_neutrality;
DROP INDEX result_quotes_segment_by_score;
DROP TRIGGER result_quotes_segmented ON result_quotes;
DROP FUNCTION result_quotes_segment();
ALTER TABLE result_quotes DROP COLUMN segment_id;
