WITH due AS (
    SELECT id FROM outreach_messages
    WHERE status = 'QUEUED' AND due_at <= $1 AND channel = ANY($4)
      AND (claimed_until IS NULL OR claimed_until <= $1)
    ORDER BY due_at, id
    LIMIT $3
    FOR UPDATE SKIP LOCKED
), claimed AS (
    UPDATE outreach_messages m SET claim_token = gen_random_uuid(), claimed_until = $2, updated_at = $1
    FROM due WHERE m.id = due.id
    RETURNING m.*
)
SELECT cl.id, cl.claim_token, cl.attempts, cl.channel, cl.kind, cl.sequence, cl.workspace_id,
       w.name AS workspace_name, w.time_zone AS workspace_time_zone, c.id AS campaign_id, c.code AS campaign_code, c.name AS campaign_name,
       c.status = 'ACTIVE' AS collecting,
       COALESCE((c.delivery ->> 'greetByName')::boolean, false) AS greet_by_name,
       s.languages[1] AS language, s.register,
       r.id AS respondent_id, r.external_ref, r.ref_digest, r.ref_sealed, r.name_sealed, r.email_sealed,
       r.phone_sealed, r.time_zone_sealed, r.invitation_sealed,
       (SELECT se.id FROM sessions se WHERE se.respondent_id = r.id AND se.status = 'COMPLETED'
        ORDER BY se.completed_at LIMIT 1) AS finished_session
FROM claimed cl
JOIN campaigns c ON c.id = cl.campaign_id
JOIN surveys s ON s.id = c.survey_id
JOIN workspaces w ON w.id = cl.workspace_id
JOIN respondents r ON r.id = cl.respondent_id
ORDER BY cl.due_at, cl.id
