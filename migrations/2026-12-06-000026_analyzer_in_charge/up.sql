-- Analyses read under an older analyzer are read again in the background (docs/results.md):
-- each job says which analyzer read its session's text, and one row says which analyzer is in
-- charge (the one the replica started last runs).

-- 'sentiment=<version> themes=<version>' (the domain's AnalyzerInfo::fingerprint), '' when the
-- session had no text to read, NULL while not analyzed or when recorded by a version of Pulse
-- that did not say: every analysis recorded before this is read again once, reusing each result
-- whose model version is unchanged. A nullable column without a default changes only the
-- catalogue. Byte order: `<>` is searched as two ranges.
ALTER TABLE analysis_jobs ADD COLUMN analyzed_with text COLLATE "C";

-- Results count a campaign's analyses still to be read again; the claim looks across campaigns.
DROP INDEX analysis_jobs_campaign;
CREATE INDEX analysis_jobs_campaign ON analysis_jobs (campaign_id, analyzed_with);
CREATE INDEX analysis_jobs_analyzed_with ON analysis_jobs (analyzed_with) WHERE due_at IS NULL;

CREATE TABLE analyzer_in_charge (
    singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    analyzed_with text COLLATE "C" NOT NULL,
    started_at timestamptz NOT NULL
);
