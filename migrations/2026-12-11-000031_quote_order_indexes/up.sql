-- Quote candidates are picked in orders that end with the session id
-- (pulse_domain::results::models::QUOTE_CANDIDATES), so each order fetches a fixed number of rows
-- however many answers tie on score and length. The pick-order indexes end with it too, in the
-- direction each walk needs: the score index read forwards gives the most negative (session
-- descending) and backwards the most positive (session ascending); the length index is read
-- backwards.
DROP INDEX result_quotes_by_score;
DROP INDEX result_quotes_by_neutrality;
DROP INDEX result_quotes_by_length;
CREATE INDEX result_quotes_by_score
    ON result_quotes (campaign_id, question_id, (COALESCE(score, 0)), len, session_id DESC);
CREATE INDEX result_quotes_by_neutrality
    ON result_quotes (campaign_id, question_id, (abs(COALESCE(score, 0))), (COALESCE(score, 0)) DESC, len DESC, session_id);
CREATE INDEX result_quotes_by_length
    ON result_quotes (campaign_id, question_id, len, (COALESCE(score, 0)), session_id DESC);
