DROP INDEX result_quotes_by_score;
DROP INDEX result_quotes_by_neutrality;
DROP INDEX result_quotes_by_length;
CREATE INDEX result_quotes_by_score ON result_quotes (campaign_id, question_id, (COALESCE(score, 0)), len);
CREATE INDEX result_quotes_by_neutrality
    ON result_quotes (campaign_id, question_id, (abs(COALESCE(score, 0))), (COALESCE(score, 0)) DESC, len DESC);
CREATE INDEX result_quotes_by_length ON result_quotes (campaign_id, question_id, len, (COALESCE(score, 0)));
