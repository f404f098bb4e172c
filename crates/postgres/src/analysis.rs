//! Analysis jobs and what results read. A job is queued by the transaction that completes its
//! session ([`queue_analysis`]); workers claim due jobs with `FOR UPDATE SKIP LOCKED` under a
//! lease and record the outcome in one transaction with `feedback.analyzed`.

use diesel::sql_types::{
    Array, BigInt, Bool, Bytea, Double, Integer, Jsonb, Nullable, Text, Timestamptz, Uuid as SqlUuid,
};
use diesel::{OptionalExtension as _, QueryableByName, sql_query};
use diesel_async::{AsyncConnection as _, AsyncPgConnection, RunQueryDsl};
use pulse_domain::analysis::models::{AnalysisJob, AnalysisRecord, Rejection, SessionInput, Step, StepResult};
use pulse_domain::analysis::ports::AnalysisRepository;
use pulse_domain::apps::models::Identity;
use pulse_domain::campaigns::models::LanguageTag;
use pulse_domain::campaigns::ports::CampaignRepository;
use pulse_domain::ids::{AppInstallId, AppUserId, CampaignId, DeviceId, SessionId, WorkspaceId};
use pulse_domain::results::models::{AnalyzedAnswer, AnalyzedSession, ResultsInput, Segment};
use pulse_domain::sessions::models::{Completion, SessionFacts, StoredAnswer};
use pulse_domain::{Error, Result};
use serde_json::Value;
use time::OffsetDateTime;
use uuid::Uuid;

use crate::error::from_diesel;
use crate::statement::Cached as _;
use crate::store::{PgStore, TxError};
use crate::webhooks::emit_events;
use pulse_domain::results::ports::ResultsRepository;

fn corrupt(what: &str) -> Error {
    Error::internal(format!("an analysis row has an unknown {what}"))
}

fn to_u32(n: i32) -> u32 {
    u32::try_from(n).unwrap_or(0)
}

fn to_i32(n: u32) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
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
struct AnswerRow {
    #[diesel(sql_type = SqlUuid)]
    session_id: Uuid,
    #[diesel(sql_type = Text)]
    question_id: String,
    #[diesel(sql_type = Nullable<diesel::sql_types::SmallInt>)]
    rating: Option<i16>,
    #[diesel(sql_type = Nullable<Bytea>)]
    text_sealed: Option<Vec<u8>>,
    #[diesel(sql_type = Integer)]
    word_count: i32,
    #[diesel(sql_type = Timestamptz)]
    answered_at: OffsetDateTime,
}

#[derive(QueryableByName)]
struct StepRow {
    #[diesel(sql_type = SqlUuid)]
    session_id: Uuid,
    #[diesel(sql_type = Text)]
    question_id: String,
    #[diesel(sql_type = Text)]
    step: String,
    #[diesel(sql_type = Text)]
    version: String,
    #[diesel(sql_type = Bytea)]
    input_digest: Vec<u8>,
    #[diesel(sql_type = Bool)]
    covered: bool,
    #[diesel(sql_type = Nullable<Double>)]
    score: Option<f64>,
    #[diesel(sql_type = Nullable<Bytea>)]
    phrases_sealed: Option<Vec<u8>>,
}

impl StepRow {
    fn into_domain(self) -> Result<StepResult> {
        Ok(StepResult {
            question_id: self.question_id,
            step: Step::parse(&self.step).ok_or_else(|| corrupt("step"))?,
            version: self.version,
            input_digest: self.input_digest,
            covered: self.covered,
            score: self.score,
            phrases_sealed: self.phrases_sealed,
        })
    }
}

#[derive(QueryableByName)]
struct AnalyzedRow {
    #[diesel(sql_type = SqlUuid)]
    session_id: Uuid,
    #[diesel(sql_type = Nullable<Text>)]
    rejection: Option<String>,
    #[diesel(sql_type = Integer)]
    duration_secs: i32,
    #[diesel(sql_type = Double)]
    coverage: f64,
    #[diesel(sql_type = Jsonb)]
    context: Value,
    #[diesel(sql_type = Array<Text>)]
    tags: Vec<String>,
    #[diesel(sql_type = Nullable<Text>)]
    app_platform: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    app_version: Option<String>,
}

#[derive(QueryableByName)]
struct Count {
    #[diesel(sql_type = BigInt)]
    n: i64,
}

#[derive(QueryableByName)]
struct Held {
    #[diesel(sql_type = Bool)]
    held: bool,
}

fn rejection(text: Option<&str>) -> Result<Option<Rejection>> {
    text.map(|t| Rejection::parse(t).ok_or_else(|| corrupt("rejection"))).transpose()
}

impl AnalysisRepository for PgStore {
    async fn claim_analyses(
        &self,
        now: OffsetDateTime,
        lease_until: OffsetDateTime,
        limit: u32,
    ) -> Result<Vec<AnalysisJob>> {
        let mut conn = self.conn().await?;
        let rows: Vec<JobRow> = sql_query(
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
        Ok(rows
            .into_iter()
            .map(|r| AnalysisJob {
                session: SessionId(r.session_id),
                claim_token: r.claim_token,
                attempts: to_u32(r.attempts),
            })
            .collect())
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
            "SELECT session_id, question_id, step, version, input_digest, covered, score, phrases_sealed
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

    async fn record_analysis(&self, claim_token: Uuid, record: &AnalysisRecord) -> Result<Option<Option<Rejection>>> {
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
                // The campaign's lock orders concurrent verdicts, so the cap is never exceeded.
                sql_query("SELECT id FROM campaigns WHERE id = $1 FOR UPDATE")
                    .bind::<SqlUuid, _>(record.campaign.0)
                    .cached()
                    .execute(conn)
                    .await?;
                let mut verdict = record.verdict.rejection;
                if verdict.is_none()
                    && let Some(max) = record.max_responses
                {
                    let accepted: Count = sql_query(
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
                            (session_id, question_id, step, version, input_digest, covered, score, phrases_sealed)
                         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
                    )
                    .bind::<SqlUuid, _>(record.session.0)
                    .bind::<Text, _>(&result.question_id)
                    .bind::<Text, _>(result.step.as_str())
                    .bind::<Text, _>(&result.version)
                    .bind::<Bytea, _>(&result.input_digest)
                    .bind::<Bool, _>(result.covered)
                    .bind::<Nullable<Double>, _>(result.score)
                    .bind::<Nullable<Bytea>, _>(result.phrases_sealed.as_deref())
                    .cached()
                    .execute(conn)
                    .await?;
                }
                if let Some(event) = &record.event {
                    emit_events(conn, std::slice::from_ref(event)).await?;
                }
                sql_query("UPDATE analysis_jobs SET due_at = NULL, claim_token = NULL WHERE session_id = $1")
                    .bind::<SqlUuid, _>(record.session.0)
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

impl ResultsRepository for PgStore {
    async fn results_input(
        &self,
        workspace: WorkspaceId,
        campaign: CampaignId,
        with_texts: bool,
    ) -> Result<Option<ResultsInput>> {
        let Some(overview) = self.campaign_overview(workspace, campaign).await? else { return Ok(None) };
        let mut conn = self.conn().await?;
        let pending: Count = sql_query(
            "SELECT count(*) AS n FROM sessions s
             WHERE s.campaign_id = $1 AND s.status = 'COMPLETED'
               AND NOT EXISTS (SELECT 1 FROM session_analyses a WHERE a.session_id = s.id)",
        )
        .bind::<SqlUuid, _>(campaign.0)
        .cached()
        .get_result(&mut conn)
        .await
        .map_err(from_diesel)?;
        let analyzed: Vec<AnalyzedRow> = sql_query(
            "SELECT a.session_id, a.rejection, a.duration_secs, a.coverage, s.context, s.tags,
                    d.platform AS app_platform, d.app_version
             FROM session_analyses a
             JOIN sessions s ON s.id = a.session_id
             LEFT JOIN app_devices d ON d.id = s.device_id
             WHERE a.campaign_id = $1
             ORDER BY a.session_id",
        )
        .bind::<SqlUuid, _>(campaign.0)
        .cached()
        .load(&mut conn)
        .await
        .map_err(from_diesel)?;
        let answers: Vec<AnswerRow> = sql_query(
            "SELECT w.session_id, w.question_id, w.rating,
                    CASE WHEN $2 THEN w.text_sealed END AS text_sealed, w.word_count, w.answered_at
             FROM answers w JOIN session_analyses a ON a.session_id = w.session_id
             WHERE a.campaign_id = $1",
        )
        .bind::<SqlUuid, _>(campaign.0)
        .bind::<Bool, _>(with_texts)
        .cached()
        .load(&mut conn)
        .await
        .map_err(from_diesel)?;
        let steps: Vec<StepRow> = sql_query(
            "SELECT r.session_id, r.question_id, r.step, r.version, r.input_digest, r.covered, r.score,
                    r.phrases_sealed
             FROM answer_analyses r JOIN session_analyses a ON a.session_id = r.session_id
             WHERE a.campaign_id = $1",
        )
        .bind::<SqlUuid, _>(campaign.0)
        .cached()
        .load(&mut conn)
        .await
        .map_err(from_diesel)?;

        let mut answers_of: std::collections::HashMap<Uuid, Vec<AnswerRow>> = std::collections::HashMap::new();
        for answer in answers {
            answers_of.entry(answer.session_id).or_default().push(answer);
        }
        let mut steps_of: std::collections::HashMap<(Uuid, String), Vec<StepRow>> = std::collections::HashMap::new();
        for step in steps {
            steps_of.entry((step.session_id, step.question_id.clone())).or_default().push(step);
        }
        let mut sessions = Vec::with_capacity(analyzed.len());
        for row in analyzed {
            let context = match row.context {
                Value::Object(map) => map,
                _ => serde_json::Map::new(),
            };
            let mut answers = Vec::new();
            for answer in answers_of.remove(&row.session_id).unwrap_or_default() {
                let results = steps_of
                    .remove(&(row.session_id, answer.question_id.clone()))
                    .unwrap_or_default()
                    .into_iter()
                    .map(StepRow::into_domain)
                    .collect::<Result<Vec<_>>>()?;
                answers.push(AnalyzedAnswer::new(answer.question_id, answer.rating, answer.text_sealed, &results));
            }
            sessions.push(AnalyzedSession {
                session: SessionId(row.session_id),
                rejection: rejection(row.rejection.as_deref())?,
                duration_secs: u32::try_from(row.duration_secs).unwrap_or(0),
                coverage: row.coverage,
                segment: Segment::of_session(
                    &context,
                    row.tags,
                    row.app_platform.as_deref(),
                    row.app_version.as_deref(),
                ),
                answers,
            });
        }
        Ok(Some(ResultsInput {
            campaign: overview.campaign,
            survey: overview.survey,
            counts: overview.counts,
            pending: u64::try_from(pending.n).unwrap_or(0),
            sessions,
        }))
    }
}
