-- A campaign's counts (audience, responded, started, completed) kept as sessions and respondents are
-- written, so the overview and results read a few rows instead of counting the campaign's sessions
-- on every call (docs/results-storage.md). Triggers keep them, so no write path can forget one.
--
-- Each connection adds to its own slot (its backend pid modulo 16): concurrent writers to one
-- campaign rarely wait on each other's row, and a reader sums at most 16 rows. A slot's figures may
-- go below zero (a respondent deleted through another connection); only the sums mean anything.

-- The backfill and the triggers must see the same rows: no session or respondent is written
-- between them.
LOCK TABLE sessions, respondents IN SHARE ROW EXCLUSIVE MODE;

-- Whether the respondent has completed a session: set once, by the completion's own transaction, so
-- two sessions of one respondent completing together count one response.
ALTER TABLE respondents ADD COLUMN responded boolean NOT NULL DEFAULT false;
UPDATE respondents r SET responded = true
WHERE EXISTS (SELECT 1 FROM sessions s WHERE s.respondent_id = r.id AND s.status = 'COMPLETED');

CREATE TABLE campaign_counts (
    campaign_id uuid NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
    slot smallint NOT NULL,
    invited bigint NOT NULL DEFAULT 0,
    invited_with_email bigint NOT NULL DEFAULT 0,
    invited_with_phone bigint NOT NULL DEFAULT 0,
    responded bigint NOT NULL DEFAULT 0,
    started bigint NOT NULL DEFAULT 0,
    completed bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (campaign_id, slot)
);

INSERT INTO campaign_counts (campaign_id, slot, invited, invited_with_email, invited_with_phone, responded, started, completed)
SELECT c.id, 0,
       (SELECT count(*) FROM respondents r WHERE r.campaign_id = c.id),
       (SELECT count(*) FROM respondents r WHERE r.campaign_id = c.id AND r.email_sealed IS NOT NULL),
       (SELECT count(*) FROM respondents r WHERE r.campaign_id = c.id AND r.phone_sealed IS NOT NULL),
       (SELECT count(*) FROM respondents r WHERE r.campaign_id = c.id AND r.responded),
       (SELECT count(*) FROM sessions s WHERE s.campaign_id = c.id),
       (SELECT count(*) FROM sessions s WHERE s.campaign_id = c.id AND s.status = 'COMPLETED')
FROM campaigns c;

-- Adds one campaign's differences to the current connection's slot. A campaign deleted in this
-- transaction (its sessions and respondents cascading away) is skipped: its counts go with it.
-- PL/pgSQL, not SQL: it keeps its plan from one call to the next, where a SQL function that
-- writes is planned again on every call.
CREATE FUNCTION add_campaign_counts(campaign uuid, invited bigint, invited_with_email bigint,
    invited_with_phone bigint, responded bigint, started bigint, completed bigint) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO campaign_counts AS c
        (campaign_id, slot, invited, invited_with_email, invited_with_phone, responded, started, completed)
    SELECT campaign, pg_backend_pid() % 16, invited, invited_with_email, invited_with_phone, responded,
           started, completed
    WHERE EXISTS (SELECT 1 FROM campaigns k WHERE k.id = campaign)
    ON CONFLICT (campaign_id, slot) DO UPDATE SET
        invited = c.invited + excluded.invited,
        invited_with_email = c.invited_with_email + excluded.invited_with_email,
        invited_with_phone = c.invited_with_phone + excluded.invited_with_phone,
        responded = c.responded + excluded.responded,
        started = c.started + excluded.started,
        completed = c.completed + excluded.completed;
END $$;

-- Statement triggers read the statement's rows at once (a group of starts is one insert), and add
-- them campaign by campaign in campaign order, so statements touching the same campaigns lock
-- their slots alike.

CREATE FUNCTION count_sessions_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM add_campaign_counts(campaign_id, 0, 0, 0, 0, count(*), count(*) FILTER (WHERE status = 'COMPLETED'))
    FROM inserted GROUP BY campaign_id ORDER BY campaign_id;
    -- Sessions are started, not inserted finished, on every path today: skip the update (and the
    -- respondents' statement trigger it would fire) unless one was.
    IF EXISTS (SELECT 1 FROM inserted WHERE status = 'COMPLETED' AND respondent_id IS NOT NULL) THEN
        UPDATE respondents SET responded = true
        WHERE id IN (SELECT respondent_id FROM inserted WHERE status = 'COMPLETED') AND NOT responded;
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER sessions_counted_inserted AFTER INSERT ON sessions
    REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION count_sessions_inserted();

-- Row by row, and only when the status changes: answering updates sessions far more often than it
-- completes one.
CREATE FUNCTION count_session_status() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM add_campaign_counts(NEW.campaign_id, 0, 0, 0, 0, 0,
        (NEW.status = 'COMPLETED')::int - (OLD.status = 'COMPLETED')::int);
    IF NEW.status = 'COMPLETED' AND NEW.respondent_id IS NOT NULL THEN
        UPDATE respondents SET responded = true WHERE id = NEW.respondent_id AND NOT responded;
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER sessions_counted_status AFTER UPDATE OF status ON sessions
    FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status) EXECUTE FUNCTION count_session_status();

CREATE FUNCTION count_sessions_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM add_campaign_counts(campaign_id, 0, 0, 0, 0, -count(*), -count(*) FILTER (WHERE status = 'COMPLETED'))
    FROM deleted GROUP BY campaign_id ORDER BY campaign_id;
    RETURN NULL;
END $$;
CREATE TRIGGER sessions_counted_deleted AFTER DELETE ON sessions
    REFERENCING OLD TABLE AS deleted FOR EACH STATEMENT EXECUTE FUNCTION count_sessions_deleted();

CREATE FUNCTION count_respondents_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM add_campaign_counts(campaign_id, count(*), count(email_sealed), count(phone_sealed),
        count(*) FILTER (WHERE responded), 0, 0)
    FROM inserted GROUP BY campaign_id ORDER BY campaign_id;
    RETURN NULL;
END $$;
CREATE TRIGGER respondents_counted_inserted AFTER INSERT ON respondents
    REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION count_respondents_inserted();

CREATE FUNCTION count_respondents_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM add_campaign_counts(n.campaign_id, 0,
        count(n.email_sealed) - count(o.email_sealed),
        count(n.phone_sealed) - count(o.phone_sealed),
        count(*) FILTER (WHERE n.responded) - count(*) FILTER (WHERE o.responded), 0, 0)
    FROM updated_new n JOIN updated_old o ON o.id = n.id
    GROUP BY n.campaign_id ORDER BY n.campaign_id;
    RETURN NULL;
END $$;
CREATE TRIGGER respondents_counted_updated AFTER UPDATE ON respondents
    REFERENCING OLD TABLE AS updated_old NEW TABLE AS updated_new
    FOR EACH STATEMENT EXECUTE FUNCTION count_respondents_updated();

CREATE FUNCTION count_respondents_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM add_campaign_counts(campaign_id, -count(*), -count(email_sealed), -count(phone_sealed),
        -count(*) FILTER (WHERE responded), 0, 0)
    FROM deleted GROUP BY campaign_id ORDER BY campaign_id;
    RETURN NULL;
END $$;
CREATE TRIGGER respondents_counted_deleted AFTER DELETE ON respondents
    REFERENCING OLD TABLE AS deleted FOR EACH STATEMENT EXECUTE FUNCTION count_respondents_deleted();
