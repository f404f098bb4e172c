-- Secret rotation with overlap: the secret being retired keeps signing deliveries, next to the new
-- one, until its expiry. Only one previous secret is kept; it is sealed like the current one.
ALTER TABLE webhook_subscriptions
    ADD COLUMN previous_secret_sealed bytea,
    ADD COLUMN previous_secret_expires_at timestamptz,
    ADD CONSTRAINT webhook_subscriptions_previous_secret
        CHECK ((previous_secret_sealed IS NULL) = (previous_secret_expires_at IS NULL));
