-- Solved proof-of-work challenges that started a session, kept until they expire so each starts
-- one session only. The fingerprint is a digest of the challenge's signature.
CREATE TABLE spent_challenges (
    fingerprint bytea PRIMARY KEY,
    expires_at timestamptz NOT NULL
);

CREATE INDEX spent_challenges_expiry ON spent_challenges (expires_at);
