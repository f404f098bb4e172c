//! Analysis jobs. A job is queued by the transaction that completes its session
//! ([`queue_analysis`]); workers claim due jobs with `FOR UPDATE SKIP LOCKED` under a lease and
//! record the outcome, with the session's results tally, in one transaction with
//! `feedback.analyzed`.

use diesel::sql_types::{BigInt, Bool, Bytea, Double, Integer, Nullable, Text, Timestamptz, Uuid as SqlUuid};
use diesel::{OptionalExtension as _, QueryableByName, sql_query};
use diesel_async::{AsyncConnection as _, AsyncPgConnection, RunQueryDsl};
use pulse_domain::analysis::models::{AnalysisJob, AnalysisRecord, Rejection, SessionInput};
use pulse_domain::analysis::ports::AnalysisRepository;
use pulse_domain::apps::models::Identity;
use pulse_domain::campaigns::models::LanguageTag;
use pulse_domain::ids::{AppInstallId, AppUserId, CampaignId, DeviceId, SessionId, WorkspaceId};
use pulse_domain::results::models::SessionTally;
use pulse_domain::sessions::models::{Completion, SessionFacts, StoredAnswer};
use pulse_domain::{Error, Result};
use time::OffsetDateTime;
use uuid::Uuid;

use crate::error::from_diesel;
use crate::results::maintain::replace_tally;
use crate::results::rows::{AnswerRow, StepRow};
use crate::rows::{self, RowCount, to_i32, to_u32};
use crate::statement::Cached as _;
use crate::store::{PgStore, TxError};
use crate::webhooks::outbox::emit_events;

fn corrupt(what: &str) -> Error {
    rows::corrupt("analysis", what)
}

/// Queues the analysis of a session completed in the caller's transaction, due at once.
pub(crate) async fn queue_analysis(conn: &mut AsyncPgConnection, completion: &Completion) -> diesel::QueryResult<()> {
    sql_query(
        "INSERT INTO analysis_jobs (session_id, campaign_id, event_id, due_at, created_at)
         VALUES ($1, $2, $3, $4, $4) ON CONFLICT (session_id) DO NOTHING",
    )
    .bind::<SqlUuid, _>(completion.facts.session.0)
    .bind::<SqlUuid, _>(completion.facts.campaign.0)
    .bind::<SqlUuid, _>(completion.received_event.0)
    .bind::<Timestamptz, _>(completion.at)
    .cached()
    .execute(conn)
    .await?;
    Ok(())
}

#[derive(QueryableByName)]
struct JobRow {
    #[diesel(sql_type = SqlUuid)]
    session_id: Uuid,
    #[diesel(sql_type = SqlUuid)]
    claim_token: Uuid,
    #[diesel(sql_type = Integer)]
    attempts: i32,
}

#[derive(QueryableByName)]
struct InputRow {
    #[diesel(sql_type = SqlUuid)]
    campaign_id: Uuid,
    #[diesel(sql_type = SqlUuid)]
    workspace_id: Uuid,
    #[diesel(sql_type = Text)]
    code: String,
    #[diesel(sql_type = Text)]
    language: String,
    #[diesel(sql_type = Timestamptz)]
    started_at: OffsetDateTime,
    #[diesel(sql_type = Timestamptz)]
    completed_at: OffsetDateTime,
    #[diesel(sql_type = Integer)]
    answered: i32,
    #[diesel(sql_type = Integer)]
    total: i32,
    #[diesel(sql_type = Integer)]
    exchanges: i32,
    #[diesel(sql_type = Nullable<SqlUuid>)]
    device_id: Option<Uuid>,
    #[diesel(sql_type = Nullable<SqlUuid>)]
    app_user_id: Option<Uuid>,
    #[diesel(sql_type = Nullable<SqlUuid>)]
    app_install_id: Option<Uuid>,
    #[diesel(sql_type = Nullable<Text>)]
    identity: Option<String>,
    #[diesel(sql_type = Bool)]
    announced: bool,
}

#[derive(QueryableByName)]
struct Held {
    #[diesel(sql_type = Bool)]
    held: bool,
}

impl JobRow {
    fn into_job(self) -> AnalysisJob {
        AnalysisJob {
            session: SessionId(self.session_id),
            claim_token: self.claim_token,
            attempts: to_u32(self.attempts),
        }
    }
}

/// `analysis_jobs.analyzed_with` of a session that had no text to read; `NULL` is left for jobs
/// not analyzed yet and those recorded by a version of Pulse that did not say.
const NO_TEXT_READ: &str = "";

impl AnalysisRepository for PgStore {
    async fn claim_analyses(
        &self,
        now: OffsetDateTime,
        lease_until: OffsetDateTime,
        limit: u32,
    ) -> Result<Vec<AnalysisJob>> {
        let mut conn = self.conn().await?;
        let mut rows: Vec<JobRow> = sql_query(
            "WITH due AS (
                SELECT session_id FROM analysis_jobs
                WHERE due_at IS NOT NULL AND due_at <= $1
                ORDER BY due_at, session_id
                LIMIT $3
                FOR UPDATE SKIP LOCKED
            )
            UPDATE analysis_jobs j SET due_at = $2, claim_token = gen_random_uuid()
            FROM due WHERE j.session_id = due.session_id
            RETURNING j.session_id, j.claim_token, j.attempts",
        )
        .bind::<Timestamptz, _>(now)
        .bind::<Timestamptz, _>(lease_until)
        .bind::<BigInt, _>(i64::from(limit))
        .cached()
        .load(&mut conn)
        .await
        .map_err(from_diesel)?;
        // Then, with what room is left, analyses recorded without a tally (before the tallies
        // existed, or by a replica that predates them): they are recorded again, reusing every
        // analyzer result, after every due job, so catching up never delays a new completion.
        let room = i64::from(limit) - i64::try_from(rows.len()).unwrap_or(i64::MAX);
        if room > 0 {
            let behind: Vec<JobRow> = sql_query(
                "WITH behind AS (
                    SELECT j.session_id FROM analysis_jobs j
                    WHERE j.due_at IS NULL AND NOT j.tallied
                      AND EXISTS (SELECT 1 FROM session_analyses a WHERE a.session_id = j.session_id)
                    ORDER BY j.created_at, j.session_id
                    LIMIT $2
                    FOR UPDATE SKIP LOCKED
                )
                UPDATE analysis_jobs j SET due_at = $1, claim_token = gen_random_uuid()
                FROM behind WHERE j.session_id = behind.session_id
                RETURNING j.session_id, j.claim_token, j.attempts",
            )
            .bind::<Timestamptz, _>(lease_until)
            .bind::<BigInt, _>(room)
            .cached()
            .load(&mut conn)
            .await
            .map_err(from_diesel)?;
            rows.extend(behind);
        }
        Ok(rows.into_iter().map(JobRow::into_job).collect())
    }

    async fn analysis_input(&self, session: SessionId) -> Result<Option<SessionInput>> {
        let mut conn = self.conn().await?;
        let found: Option<InputRow> = sql_query(
            "SELECT s.campaign_id, c.workspace_id, c.code, s.language, s.started_at, s.completed_at, s.answered,
                    s.total, s.exchanges, s.device_id, s.app_user_id, s.app_install_id, s.identity,
                    EXISTS (SELECT 1 FROM session_analyses a WHERE a.session_id = s.id) AS announced
             FROM sessions s JOIN campaigns c ON c.id = s.campaign_id
             WHERE s.id = $1 AND s.status = 'COMPLETED' AND s.completed_at IS NOT NULL",
        )
        .bind::<SqlUuid, _>(session.0)
        .cached()
        .get_result(&mut conn)
        .await
        .optional()
        .map_err(from_diesel)?;
        let Some(row) = found else { return Ok(None) };
        let answers: Vec<AnswerRow> = sql_query(
            "SELECT session_id, question_id, rating, text_sealed, word_count, answered_at FROM answers
             WHERE session_id = $1 ORDER BY question_id",
        )
        .bind::<SqlUuid, _>(session.0)
        .cached()
        .load(&mut conn)
        .await
        .map_err(from_diesel)?;
        let earlier: Vec<StepRow> = sql_query(
            "SELECT session_id, question_id, step, version, input_digest, covered, score, phrases_sealed,
                    language, other_language
             FROM answer_analyses WHERE session_id = $1",
        )
        .bind::<SqlUuid, _>(session.0)
        .cached()
        .load(&mut conn)
        .await
        .map_err(from_diesel)?;
        let identity =
            row.identity.as_deref().map(|i| Identity::parse(i).ok_or_else(|| corrupt("identity"))).transpose()?;
        let (device_id, user_id) =
            SessionFacts::proven(row.device_id.map(DeviceId), row.app_user_id.map(AppUserId), identity);
        Ok(Some(SessionInput {
            facts: SessionFacts {
                session,
                campaign: CampaignId(row.campaign_id),
                workspace: WorkspaceId(row.workspace_id),
                public_ref: row.code,
                app_install_id: row.app_install_id.map(AppInstallId),
                device_id,
                user_id,
            },
            language: LanguageTag::parse("language", &row.language).map_err(|_| corrupt("language"))?,
            started_at: row.started_at,
            completed_at: row.completed_at,
            answered: to_u32(row.answered),
            total: to_u32(row.total),
            exchanges: to_u32(row.exchanges),
            answers: answers
                .into_iter()
                .map(|a| StoredAnswer {
                    question_id: a.question_id,
                    rating: a.rating,
                    text_sealed: a.text_sealed,
                    word_count: to_u32(a.word_count),
                    answered_at: a.answered_at,
                })
                .collect(),
            earlier: earlier.into_iter().map(StepRow::into_domain).collect::<Result<_>>()?,
            announced: row.announced,
        }))
    }

    async fn record_analysis(
        &self,
        claim_token: Uuid,
        record: &AnalysisRecord,
        tally: &SessionTally,
    ) -> Result<Option<Option<Rejection>>> {
        let mut conn = self.conn().await?;
        let recorded = conn
            .transaction::<_, TxError, _>(async |conn| {
                let held: Option<Held> = sql_query(
                    "SELECT true AS held FROM analysis_jobs WHERE session_id = $1 AND claim_token = $2 FOR UPDATE",
                )
                .bind::<SqlUuid, _>(record.session.0)
                .bind::<SqlUuid, _>(claim_token)
                .cached()
                .get_result(conn)
                .await
                .optional()?;
                if held.is_none_or(|h| !h.held) {
                    return Ok(None);
                }
                // The campaign's lock orders concurrent verdicts, so the cap is never exceeded (and
                // its sums are added to in turn); NO KEY leaves sessions' foreign keys unblocked.
                sql_query("SELECT id FROM campaigns WHERE id = $1 FOR NO KEY UPDATE")
                    .bind::<SqlUuid, _>(record.campaign.0)
                    .cached()
                    .execute(conn)
                    .await?;
                let mut verdict = record.verdict.rejection;
                if verdict.is_none()
                    && let Some(max) = record.max_responses
                {
                    let accepted: RowCount = sql_query(
                        "SELECT count(*) AS n FROM session_analyses
                         WHERE campaign_id = $1 AND rejection IS NULL AND session_id <> $2",
                    )
                    .bind::<SqlUuid, _>(record.campaign.0)
                    .bind::<SqlUuid, _>(record.session.0)
                    .cached()
                    .get_result(conn)
                    .await?;
                    if accepted.n >= i64::from(max) {
                        verdict = Some(Rejection::OverCapacity);
                    }
                }
                sql_query(
                    "INSERT INTO session_analyses
                        (session_id, campaign_id, rejection, duration_secs, coverage, words, analyzed_at)
                     VALUES ($1, $2, $3, $4, $5, $6, $7)
                     ON CONFLICT (session_id) DO UPDATE SET rejection = excluded.rejection,
                        duration_secs = excluded.duration_secs, coverage = excluded.coverage,
                        words = excluded.words, analyzed_at = excluded.analyzed_at",
                )
                .bind::<SqlUuid, _>(record.session.0)
                .bind::<SqlUuid, _>(record.campaign.0)
                .bind::<Nullable<Text>, _>(verdict.map(Rejection::as_str))
                .bind::<Integer, _>(to_i32(record.verdict.duration_secs))
                .bind::<Double, _>(record.verdict.coverage)
                .bind::<Integer, _>(to_i32(record.verdict.words))
                .bind::<Timestamptz, _>(record.analyzed_at)
                .cached()
                .execute(conn)
                .await?;
                sql_query("DELETE FROM answer_analyses WHERE session_id = $1")
                    .bind::<SqlUuid, _>(record.session.0)
                    .cached()
                    .execute(conn)
                    .await?;
                for result in &record.results {
                    sql_query(
                        "INSERT INTO answer_analyses
                            (session_id, question_id, step, version, input_digest, covered, score, phrases_sealed,
                             language, other_language)
                         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
                    )
                    .bind::<SqlUuid, _>(record.session.0)
                    .bind::<Text, _>(&result.question_id)
                    .bind::<Text, _>(result.step.as_str())
                    .bind::<Text, _>(&result.version)
                    .bind::<Bytea, _>(&result.input_digest)
                    .bind::<Bool, _>(result.covered)
                    .bind::<Nullable<Double>, _>(result.score)
                    .bind::<Nullable<Bytea>, _>(result.phrases_sealed.as_deref())
                    .bind::<Nullable<Text>, _>(result.language.as_ref().map(LanguageTag::as_str))
                    .bind::<Bool, _>(result.other_language)
                    .cached()
                    .execute(conn)
                    .await?;
                }
                replace_tally(conn, record.campaign, record.session, verdict, tally).await?;
                if let Some(event) = &record.event {
                    emit_events(conn, std::slice::from_ref(event)).await?;
                }
                sql_query(
                    "UPDATE analysis_jobs SET due_at = NULL, claim_token = NULL, tallied = true, analyzed_with = $2
                     WHERE session_id = $1",
                )
                .bind::<SqlUuid, _>(record.session.0)
                .bind::<Text, _>(record.analyzed_with.as_deref().unwrap_or(NO_TEXT_READ))
                .cached()
                .execute(conn)
                .await?;
                Ok(Some(verdict))
            })
            .await?;
        Ok(recorded)
    }

    async fn release_analysis(&self, session: SessionId, claim_token: Uuid, retry_at: OffsetDateTime) -> Result<()> {
        let mut conn = self.conn().await?;
        sql_query(
            "UPDATE analysis_jobs SET due_at = $3, claim_token = NULL, attempts = attempts + 1
             WHERE session_id = $1 AND claim_token = $2",
        )
        .bind::<SqlUuid, _>(session.0)
        .bind::<SqlUuid, _>(claim_token)
        .bind::<Timestamptz, _>(retry_at)
        .cached()
        .execute(&mut conn)
        .await
        .map_err(from_diesel)?;
        Ok(())
    }

    async fn announce_analyzer(&self, analyzed_with: &str, started_at: OffsetDateTime) -> Result<()> {
        let mut conn = self.conn().await?;
        sql_query(
            "INSERT INTO analyzer_in_charge (analyzed_with, started_at) VALUES ($1, $2)
             ON CONFLICT (singleton) DO UPDATE
                SET analyzed_with = excluded.analyzed_with, started_at = excluded.started_at
                WHERE analyzer_in_charge.started_at <= excluded.started_at",
        )
        .bind::<Text, _>(analyzed_with)
        .bind::<Timestamptz, _>(started_at)
        .cached()
        .execute(&mut conn)
        .await
        .map_err(from_diesel)?;
        Ok(())
    }

    async fn claim_reanalyses(
        &self,
        analyzed_with: &str,
        lease_until: OffsetDateTime,
        limit: u32,
    ) -> Result<Vec<AnalysisJob>> {
        let mut conn = self.conn().await?;
        // `<>` as two ranges, so the index on `analyzed_with` finds the few stale rows among many.
        let rows: Vec<JobRow> = sql_query(
            "WITH stale AS (
                SELECT j.session_id FROM analysis_jobs j
                WHERE j.due_at IS NULL
                  AND EXISTS (SELECT 1 FROM analyzer_in_charge c WHERE c.analyzed_with = $1)
                  AND (j.analyzed_with IS NULL OR (j.analyzed_with > '' AND j.analyzed_with < $1)
                       OR j.analyzed_with > $1)
                LIMIT $3
                FOR UPDATE SKIP LOCKED
            )
            UPDATE analysis_jobs j SET due_at = $2, claim_token = gen_random_uuid()
            FROM stale WHERE j.session_id = stale.session_id
            RETURNING j.session_id, j.claim_token, j.attempts",
        )
        .bind::<Text, _>(analyzed_with)
        .bind::<Timestamptz, _>(lease_until)
        .bind::<BigInt, _>(i64::from(limit))
        .cached()
        .load(&mut conn)
        .await
        .map_err(from_diesel)?;
        Ok(rows.into_iter().map(JobRow::into_job).collect())
    }

    async fn requeue_analyses(&self, campaign: CampaignId, now: OffsetDateTime) -> Result<Option<u64>> {
        let mut conn = self.conn().await?;
        let known: Option<Held> = sql_query("SELECT true AS held FROM campaigns WHERE id = $1")
            .bind::<SqlUuid, _>(campaign.0)
            .cached()
            .get_result(&mut conn)
            .await
            .optional()
            .map_err(from_diesel)?;
        if known.is_none() {
            return Ok(None);
        }
        let queued = sql_query("UPDATE analysis_jobs SET due_at = $2, claim_token = NULL WHERE campaign_id = $1")
            .bind::<SqlUuid, _>(campaign.0)
            .bind::<Timestamptz, _>(now)
            .cached()
            .execute(&mut conn)
            .await
            .map_err(from_diesel)?;
        Ok(Some(queued as u64))
    }
}
