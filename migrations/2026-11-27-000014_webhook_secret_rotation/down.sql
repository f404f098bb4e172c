ALTER TABLE webhook_subscriptions
    DROP CONSTRAINT webhook_subscriptions_previous_secret,
    DROP COLUMN previous_secret_expires_at,
    DROP COLUMN previous_secret_sealed;
