SELECT m.id, m.provider_message_id, m.workspace_id, w.name AS workspace_name, c.id AS campaign_id, c.code AS campaign_code,
       c.name AS campaign_name, r.id AS respondent_id, r.external_ref, r.ref_digest, r.ref_sealed,
       r.name_sealed, r.email_sealed, r.phone_sealed, r.time_zone_sealed, r.invitation_sealed,
       k.session_id, k.session_token_sealed, k.outcome,
       (c.delivery ->> 'audioRetentionDays')::smallint AS audio_retention_days,
       s.languages[1] AS language, s.register,
       EXISTS (SELECT 1 FROM sessions se WHERE se.respondent_id = r.id AND se.status = 'COMPLETED') AS finished
FROM outreach_messages m
JOIN campaigns c ON c.id = m.campaign_id
JOIN surveys s ON s.id = c.survey_id
JOIN workspaces w ON w.id = m.workspace_id
JOIN respondents r ON r.id = m.respondent_id
LEFT JOIN outreach_calls k ON k.message_id = m.id
WHERE m.id = $1 AND m.channel = 'TELEPHONY'
