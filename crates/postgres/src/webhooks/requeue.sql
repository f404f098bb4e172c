WITH matching AS (
    SELECT d.id, d.status FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
    WHERE d.subscription_id = $1 AND ($2::uuid IS NULL OR d.id = $2)
        AND ($3::timestamptz IS NULL OR e.occurred_at >= $3) AND ($4::timestamptz IS NULL OR e.occurred_at < $4)
        AND d.status = ANY ($5)
    ORDER BY d.position
    LIMIT $6 + 1
    FOR UPDATE OF d
), requeued AS (
    UPDATE webhook_deliveries d SET
        status = CASE WHEN m.status IN ('DEAD', 'DELIVERED') THEN 'PENDING' ELSE d.status END,
        next_attempt_at = CASE
            WHEN m.status IN ('DEAD', 'DELIVERED') THEN $7
            WHEN d.claim_token IS NULL THEN LEAST(d.next_attempt_at, $7)
            ELSE d.next_attempt_at END,
        attempts_before_redelivery =
            CASE WHEN m.status IN ('DEAD', 'DELIVERED') THEN d.attempts ELSE d.attempts_before_redelivery END,
        delivered_at = CASE WHEN m.status IN ('DEAD', 'DELIVERED') THEN NULL ELSE d.delivered_at END
    FROM matching m
    WHERE d.id = m.id AND (SELECT count(*) FROM matching) <= $6
    RETURNING d.id, d.attempts, m.status AS was
), audited AS (
    INSERT INTO webhook_redeliveries (delivery_id, attempts_before, requested_at)
    SELECT id, attempts, $7 FROM requeued WHERE was IN ('DEAD', 'DELIVERED')
)
SELECT count(*) AS matched FROM matching
