-- Audience references (`externalRef`) are kept as a keyed digest, unique per campaign and the key
-- of an update, plus a sealed copy; no longer in clear. Only the application holds the key, so it
-- converts the rows written before (every `pulse serve` does at start and every five minutes,
-- docs/respondents.md) and then clears `external_ref`; a later migration drops it.
ALTER TABLE respondents
    ALTER COLUMN external_ref DROP NOT NULL,
    ADD COLUMN ref_digest bytea,
    ADD COLUMN ref_sealed bytea,
    ADD CONSTRAINT respondents_campaign_ref_digest UNIQUE (campaign_id, ref_digest),
    ADD CONSTRAINT respondents_ref_sealed_with_digest CHECK ((ref_digest IS NULL) = (ref_sealed IS NULL));
-- The conversion finds what is left in clear without reading the whole table.
CREATE INDEX respondents_clear_ref ON respondents (id) WHERE external_ref IS NOT NULL;

-- An erased respondent stays as a tombstone, so the campaign's counts stay: nothing of the person
-- is left on it, not even the sealed invitation.
ALTER TABLE respondents ALTER COLUMN invitation_sealed DROP NOT NULL;

-- Erasures (GDPR Article 17), for accountability: what kind of subject, its id and when; never a
-- reference or anything else of the person (docs/erasure.md).
CREATE TABLE erasures (
    id uuid PRIMARY KEY,
    workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    kind text NOT NULL CHECK (kind IN ('APP_USER', 'DEVICE', 'RESPONDENT')),
    subject_id uuid NOT NULL,
    erased_at timestamptz NOT NULL
);
CREATE INDEX erasures_workspace ON erasures (workspace_id, erased_at);
