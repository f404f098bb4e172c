DROP TABLE erasures;
-- References converted by the application cannot be read back in SQL, and erased respondents have
-- none: down migrates only a database whose every row still holds its reference in clear.
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM respondents WHERE external_ref IS NULL) THEN
        RAISE EXCEPTION 'respondents hold digested references only; they cannot be put back in clear';
    END IF;
END $$;
ALTER TABLE respondents ALTER COLUMN invitation_sealed SET NOT NULL;
DROP INDEX respondents_clear_ref;
ALTER TABLE respondents
    DROP CONSTRAINT respondents_ref_sealed_with_digest,
    DROP CONSTRAINT respondents_campaign_ref_digest,
    DROP COLUMN ref_sealed,
    DROP COLUMN ref_digest,
    ALTER COLUMN external_ref SET NOT NULL;
