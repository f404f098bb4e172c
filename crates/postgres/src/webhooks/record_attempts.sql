WITH input AS (
    SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::text[], $5::int[], $6::timestamptz[],
        $7::timestamptz[], $8::int[], $9::text[], $10::int[])
        WITH ORDINALITY AS i (delivery_id, token, subscription_id, status, attempt, attempted_at,
            next_attempt_at, status_code, error, duration_ms, ord)
), held AS MATERIALIZED (
    SELECT d.id FROM webhook_deliveries d JOIN input i ON d.id = i.delivery_id AND d.claim_token = i.token
    ORDER BY d.position
    FOR UPDATE OF d
), updated AS (
    UPDATE webhook_deliveries d SET status = i.status, attempts = i.attempt,
        next_attempt_at = i.next_attempt_at, last_status_code = i.status_code, last_error = i.error,
        delivered_at = CASE WHEN i.status = 'DELIVERED' THEN i.attempted_at ELSE d.delivered_at END,
        claim_token = NULL
    FROM input i
    WHERE d.id = i.delivery_id AND d.claim_token = i.token AND d.id IN (SELECT id FROM held)
    RETURNING i.*
), logged AS (
    INSERT INTO webhook_attempts (delivery_id, attempt, attempted_at, status_code, error, duration_ms)
    SELECT delivery_id, attempt, attempted_at, status_code, error, duration_ms FROM updated
), reset AS (
    UPDATE webhook_subscriptions SET dead_in_a_row = 0
    WHERE id IN (
        SELECT id FROM webhook_subscriptions
        WHERE dead_in_a_row > 0 AND id IN (
            SELECT subscription_id FROM updated GROUP BY subscription_id
            HAVING bool_or(status = 'DELIVERED') AND NOT bool_or(status = 'DEAD')
        )
        ORDER BY id
        FOR NO KEY UPDATE
    )
)
SELECT ord FROM updated
