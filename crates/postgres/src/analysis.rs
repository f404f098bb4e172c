//! Analysis jobs and what results read. A job is queued by the transaction that completes its
//! session ([`queue_analysis`]); workers claim due jobs with `FOR UPDATE SKIP LOCKED` under a
//! lease and record the outcome in one transaction with `feedback.analyzed`.

use diesel::sql_types::{
    Array, BigInt, Bool, Bytea, Double, Integer, Jsonb, Nullable, Text, Timestamptz, Uuid as SqlUuid,
};
use diesel::{OptionalExtension as _, QueryResult, QueryableByName, sql_query};
use diesel_async::{AsyncConnection as _, AsyncPgConnection, RunQueryDsl};
use pulse_domain::analysis::models::{AnalysisJob, AnalysisRecord, Rejection, SessionInput, Step, StepResult};
use pulse_domain::analysis::ports::AnalysisRepository;
use pulse_domain::apps::models::Identity;
use pulse_domain::campaigns::models::LanguageTag;
use pulse_domain::campaigns::ports::CampaignRepository;
use pulse_domain::ids::{AppInstallId, AppUserId, CampaignId, DeviceId, SessionId, WorkspaceId};
use pulse_domain::results::models::{
    AnalyzedAnswer, AnalyzedSession, Count as TallyCount, GroupTally, LONGEST_QUOTE_CANDIDATES, MIN_THEME_SESSIONS,
    Metric, QUOTE_CANDIDATES, QuoteRow, ResultsFilter, ResultsInput, Segment, SegmentLabels, SessionTally,
    StoredPhrase, TalliedInput, ThemeShare, ThemeTotal,
};
use pulse_domain::sessions::models::{Completion, SessionFacts, StoredAnswer};
use pulse_domain::{Error, Result};
use serde_json::Value;
use time::OffsetDateTime;
use uuid::Uuid;

use crate::error::from_diesel;
use crate::rows::RowCount;
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
    #[diesel(sql_type = Nullable<Text>)]
    language: Option<String>,
    #[diesel(sql_type = Bool)]
    other_language: bool,
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
            language: self
                .language
                .map(|language| LanguageTag::parse("language", &language).map_err(|_| corrupt("language")))
                .transpose()?,
            other_language: self.other_language,
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

/// The campaign's analyses that [`AnalysisRepository::claim_reanalyses`] would take for the
/// analyzer in charge (none when none was announced). The analyzer in charge is a scalar subquery,
/// not a join, so the ranges search the index on `(campaign_id, analyzed_with)`: a campaign with
/// nothing left to read again costs a few index probes.
async fn pending_reanalysis(conn: &mut AsyncPgConnection, campaign: CampaignId) -> QueryResult<u64> {
    let stale: RowCount = sql_query(
        "SELECT count(*) AS n FROM analysis_jobs j
         WHERE j.campaign_id = $1 AND j.due_at IS NULL AND EXISTS (SELECT 1 FROM analyzer_in_charge)
           AND (j.analyzed_with IS NULL
                OR (j.analyzed_with > '' AND j.analyzed_with < (SELECT analyzed_with FROM analyzer_in_charge))
                OR j.analyzed_with > (SELECT analyzed_with FROM analyzer_in_charge))",
    )
    .bind::<SqlUuid, _>(campaign.0)
    .cached()
    .get_result(conn)
    .await?;
    Ok(count_of(stale.n))
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

impl ResultsRepository for PgStore {
    async fn results_input(
        &self,
        workspace: WorkspaceId,
        campaign: CampaignId,
        with_texts: bool,
    ) -> Result<Option<ResultsInput>> {
        let Some(overview) = self.campaign_overview(workspace, campaign).await? else { return Ok(None) };
        let mut conn = self.read_conn().await?;
        let pending: RowCount = sql_query(
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
                    r.phrases_sealed, r.language, r.other_language
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
            pending_reanalysis: pending_reanalysis(&mut conn, campaign).await.map_err(from_diesel)?,
            sessions,
        }))
    }

    async fn results_tally(
        &self,
        workspace: WorkspaceId,
        campaign: CampaignId,
        filter: Option<&ResultsFilter>,
        with_quotes: bool,
    ) -> Result<Option<TalliedInput>> {
        let Some(overview) = self.campaign_overview(workspace, campaign).await? else { return Ok(None) };
        let text_questions: Vec<String> = overview
            .survey
            .questions
            .iter()
            .filter(|q| q.kind == pulse_domain::campaigns::models::QuestionKind::Text)
            .map(|q| q.id.clone())
            .collect();
        let mut conn = self.read_conn().await?;
        // One snapshot: the sums, the themes, the quotes and the finished sessions agree.
        let (tally, completed, stale) = conn
            .build_transaction()
            .read_only()
            .repeatable_read()
            .run::<_, TxError, _>(async |conn| {
                let tally = match filter {
                    None => Self::campaign_tally(conn, campaign, &text_questions, with_quotes).await,
                    Some(filter) => Self::filtered_tally(conn, campaign, filter, &text_questions, with_quotes).await,
                }
                .map_err(TxError::Domain)?;
                let completed: RowCount = sql_query(
                    "SELECT COALESCE(sum(completed), 0)::bigint AS n FROM campaign_counts WHERE campaign_id = $1",
                )
                .bind::<SqlUuid, _>(campaign.0)
                .cached()
                .get_result(conn)
                .await?;
                let stale = pending_reanalysis(conn, campaign).await?;
                Ok((tally, count_of(completed.n), stale))
            })
            .await?;
        Ok(Some(TalliedInput {
            pending_reanalysis: stale,
            pending: completed.saturating_sub(tally.all_analyzed),
            campaign: overview.campaign,
            survey: overview.survey,
            counts: overview.counts,
            tally,
        }))
    }

    async fn result_phrases(&self, campaign: CampaignId, wanted: &[(Vec<u8>, Vec<u8>)]) -> Result<Vec<StoredPhrase>> {
        let mut conn = self.read_conn().await?;
        let rows: Vec<PhraseRow> = sql_query(
            "SELECT p.key_digest, p.label_digest, p.phrase_sealed
             FROM unnest($2::bytea[], $3::bytea[]) AS w(key_digest, label_digest)
             JOIN result_phrases p
               ON p.campaign_id = $1 AND p.key_digest = w.key_digest AND p.label_digest = w.label_digest",
        )
        .bind::<SqlUuid, _>(campaign.0)
        .bind::<Array<Bytea>, _>(wanted.iter().map(|(k, _)| k.as_slice()).collect::<Vec<_>>())
        .bind::<Array<Bytea>, _>(wanted.iter().map(|(_, l)| l.as_slice()).collect::<Vec<_>>())
        .cached()
        .load(&mut conn)
        .await
        .map_err(from_diesel)?;
        Ok(rows
            .into_iter()
            .map(|r| StoredPhrase { key_digest: r.key_digest, label_digest: r.label_digest, sealed: r.phrase_sealed })
            .collect())
    }
}

// Results maintained as sessions are analyzed (docs/results-storage.md).

#[derive(QueryableByName)]
struct SegmentRow {
    #[diesel(sql_type = Jsonb)]
    context: Value,
    #[diesel(sql_type = Array<Text>)]
    tags: Vec<String>,
    #[diesel(sql_type = Nullable<SqlUuid>)]
    device_id: Option<Uuid>,
}

#[derive(QueryableByName)]
struct CountsRow {
    #[diesel(sql_type = Array<Text>)]
    metrics: Vec<String>,
    #[diesel(sql_type = Array<Text>)]
    questions: Vec<String>,
    #[diesel(sql_type = Array<BigInt>)]
    vals: Vec<i64>,
    #[diesel(sql_type = Array<BigInt>)]
    ns: Vec<i64>,
}

#[derive(QueryableByName)]
struct ShareRow {
    #[diesel(sql_type = Text)]
    scope: String,
    #[diesel(sql_type = Bytea)]
    key_digest: Vec<u8>,
    #[diesel(sql_type = Bytea)]
    label_digest: Vec<u8>,
    #[diesel(sql_type = BigInt)]
    mentions: i64,
    #[diesel(sql_type = BigInt)]
    score_sum: i64,
    #[diesel(sql_type = BigInt)]
    scores: i64,
}

#[derive(QueryableByName)]
struct CountRow {
    #[diesel(sql_type = Text)]
    metric: String,
    #[diesel(sql_type = Text)]
    question_id: String,
    #[diesel(sql_type = BigInt)]
    value: i64,
    #[diesel(sql_type = BigInt)]
    n: i64,
}

#[derive(QueryableByName)]
struct ThemeRow {
    #[diesel(sql_type = Text)]
    scope: String,
    #[diesel(sql_type = Bytea)]
    key_digest: Vec<u8>,
    #[diesel(sql_type = BigInt)]
    sessions: i64,
    #[diesel(sql_type = BigInt)]
    score_sum: i64,
    #[diesel(sql_type = BigInt)]
    scores: i64,
    #[diesel(sql_type = Bytea)]
    label_digest: Vec<u8>,
    #[diesel(sql_type = BigInt)]
    mentions: i64,
}

#[derive(QueryableByName)]
struct QuoteCandidateRow {
    #[diesel(sql_type = Text)]
    question_id: String,
    #[diesel(sql_type = SqlUuid)]
    session_id: Uuid,
    #[diesel(sql_type = Nullable<Double>)]
    score: Option<f64>,
    #[diesel(sql_type = Bool)]
    scored: bool,
    #[diesel(sql_type = Bytea)]
    text_sealed: Vec<u8>,
}

#[derive(QueryableByName)]
struct PhraseRow {
    #[diesel(sql_type = Bytea)]
    key_digest: Vec<u8>,
    #[diesel(sql_type = Bytea)]
    label_digest: Vec<u8>,
    #[diesel(sql_type = Bytea)]
    phrase_sealed: Vec<u8>,
}

fn count_of(n: i64) -> u64 {
    u64::try_from(n).unwrap_or(0)
}

fn limit_of(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

// The partial index `result_themes_shown` (migration 2026-11-23-000008) is on `sessions >= 2`; the
// unfiltered themes query repeats that literal so the index applies.
const _: () = assert!(MIN_THEME_SESSIONS == 2, "result_themes_shown indexes themes from two sessions on");

/// Adds `counts` (negated when `sign` is -1) to the campaign's counters.
async fn add_counts(
    conn: &mut AsyncPgConnection,
    campaign: CampaignId,
    counts: &[TallyCount],
    sign: i64,
) -> diesel::QueryResult<()> {
    if counts.is_empty() {
        return Ok(());
    }
    sql_query(
        "INSERT INTO result_counts (campaign_id, metric, question_id, value, n)
         SELECT $1, e.metric, e.question_id, e.value, e.n
         FROM unnest($2::text[], $3::text[], $4::bigint[], $5::bigint[]) AS e(metric, question_id, value, n)
         ON CONFLICT (campaign_id, metric, question_id, value) DO UPDATE SET n = result_counts.n + excluded.n",
    )
    .bind::<SqlUuid, _>(campaign.0)
    .bind::<Array<Text>, _>(counts.iter().map(|c| c.metric.code()).collect::<Vec<_>>())
    .bind::<Array<Text>, _>(counts.iter().map(|c| c.question_id.as_str()).collect::<Vec<_>>())
    .bind::<Array<BigInt>, _>(counts.iter().map(|c| c.value).collect::<Vec<_>>())
    .bind::<Array<BigInt>, _>(counts.iter().map(|c| c.n * sign).collect::<Vec<_>>())
    .cached()
    .execute(conn)
    .await?;
    Ok(())
}

/// Adds one session's theme shares (negated when `sign` is -1) to the campaign's themes.
async fn add_themes(
    conn: &mut AsyncPgConnection,
    campaign: CampaignId,
    shares: &[ThemeShare],
    sign: i64,
) -> diesel::QueryResult<()> {
    if shares.is_empty() {
        return Ok(());
    }
    // One session adds one to the sessions of each (scope, key) it mentions.
    let mut keys: std::collections::BTreeMap<(&str, &[u8]), (i64, i64)> = std::collections::BTreeMap::new();
    for share in shares {
        let entry = keys.entry((share.scope.as_str(), share.key_digest.as_slice())).or_default();
        entry.0 += share.score_sum;
        entry.1 += i64::try_from(share.scores).unwrap_or(i64::MAX);
    }
    sql_query(
        "INSERT INTO result_themes (campaign_id, scope, key_digest, sessions, score_sum, scores)
         SELECT $1, e.scope, e.key_digest, $5, e.score_sum, e.scores
         FROM unnest($2::text[], $3::bytea[], $4::bigint[], $6::bigint[]) AS e(scope, key_digest, score_sum, scores)
         ON CONFLICT (campaign_id, scope, key_digest) DO UPDATE SET sessions = result_themes.sessions + excluded.sessions,
            score_sum = result_themes.score_sum + excluded.score_sum, scores = result_themes.scores + excluded.scores",
    )
    .bind::<SqlUuid, _>(campaign.0)
    .bind::<Array<Text>, _>(keys.keys().map(|(scope, _)| *scope).collect::<Vec<_>>())
    .bind::<Array<Bytea>, _>(keys.keys().map(|(_, key)| *key).collect::<Vec<_>>())
    .bind::<Array<BigInt>, _>(keys.values().map(|(sum, _)| sum * sign).collect::<Vec<_>>())
    .bind::<BigInt, _>(sign)
    .bind::<Array<BigInt>, _>(keys.values().map(|(_, n)| n * sign).collect::<Vec<_>>())
    .cached()
    .execute(conn)
    .await?;
    sql_query(
        "INSERT INTO result_theme_labels (campaign_id, scope, key_digest, label_digest, mentions)
         SELECT $1, e.scope, e.key_digest, e.label_digest, e.mentions
         FROM unnest($2::text[], $3::bytea[], $4::bytea[], $5::bigint[]) AS e(scope, key_digest, label_digest, mentions)
         ON CONFLICT (campaign_id, scope, key_digest, label_digest)
         DO UPDATE SET mentions = result_theme_labels.mentions + excluded.mentions",
    )
    .bind::<SqlUuid, _>(campaign.0)
    .bind::<Array<Text>, _>(shares.iter().map(|s| s.scope.as_str()).collect::<Vec<_>>())
    .bind::<Array<Bytea>, _>(shares.iter().map(|s| s.key_digest.as_slice()).collect::<Vec<_>>())
    .bind::<Array<Bytea>, _>(shares.iter().map(|s| s.label_digest.as_slice()).collect::<Vec<_>>())
    .bind::<Array<BigInt>, _>(
        shares.iter().map(|s| i64::try_from(s.mentions).unwrap_or(i64::MAX) * sign).collect::<Vec<_>>(),
    )
    .cached()
    .execute(conn)
    .await?;
    Ok(())
}

/// Replaces the session's tally (if it had one) with `tally` under the final `verdict`, and its
/// campaign's sums by the difference. The caller holds the campaign's lock.
async fn replace_tally(
    conn: &mut AsyncPgConnection,
    campaign: CampaignId,
    session: SessionId,
    verdict: Option<Rejection>,
    tally: &SessionTally,
) -> std::result::Result<(), TxError> {
    let earlier: Option<CountsRow> =
        sql_query("DELETE FROM result_sessions WHERE session_id = $1 RETURNING metrics, questions, vals, ns")
            .bind::<SqlUuid, _>(session.0)
            .cached()
            .get_result(conn)
            .await
            .optional()?;
    if let Some(row) = earlier {
        let counts = row
            .metrics
            .iter()
            .zip(row.questions)
            .zip(row.vals.iter().zip(row.ns))
            .map(|((metric, question_id), (value, n))| {
                Ok(TallyCount {
                    metric: Metric::parse(metric).ok_or_else(|| corrupt("metric"))?,
                    question_id,
                    value: *value,
                    n,
                })
            })
            .collect::<Result<Vec<_>>>()
            .map_err(TxError::Domain)?;
        add_counts(conn, campaign, &counts, -1).await?;
    }
    let shares: Vec<ShareRow> = sql_query(
        "DELETE FROM result_theme_shares WHERE session_id = $1
         RETURNING scope, key_digest, label_digest, mentions, score_sum, scores",
    )
    .bind::<SqlUuid, _>(session.0)
    .cached()
    .load(conn)
    .await?;
    let shares: Vec<ThemeShare> = shares
        .into_iter()
        .map(|r| ThemeShare {
            scope: r.scope,
            key_digest: r.key_digest,
            label_digest: r.label_digest,
            mentions: count_of(r.mentions),
            score_sum: r.score_sum,
            scores: count_of(r.scores),
        })
        .collect();
    add_themes(conn, campaign, &shares, -1).await?;
    sql_query("DELETE FROM result_quotes WHERE session_id = $1")
        .bind::<SqlUuid, _>(session.0)
        .cached()
        .execute(conn)
        .await?;

    let segment: SegmentRow = sql_query("SELECT context, tags, device_id FROM sessions WHERE id = $1")
        .bind::<SqlUuid, _>(session.0)
        .cached()
        .get_result(conn)
        .await?;
    let context = match segment.context {
        Value::Object(map) => map,
        _ => serde_json::Map::new(),
    };
    let labels = SegmentLabels::of_session(&context, segment.tags);
    let counts = tally.counts(verdict);
    let attributes: serde_json::Map<String, Value> =
        labels.attributes.into_iter().map(|(name, text)| (name, Value::String(text))).collect();
    sql_query(
        "INSERT INTO result_sessions (session_id, campaign_id, accepted, platform, app_version, device_id, tags,
            attributes, metrics, questions, vals, ns)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
    )
    .bind::<SqlUuid, _>(session.0)
    .bind::<SqlUuid, _>(campaign.0)
    .bind::<Bool, _>(verdict.is_none())
    .bind::<Nullable<Text>, _>(labels.platform)
    .bind::<Nullable<Text>, _>(labels.app_version)
    .bind::<Nullable<SqlUuid>, _>(segment.device_id)
    .bind::<Array<Text>, _>(labels.tags)
    .bind::<Jsonb, _>(Value::Object(attributes))
    .bind::<Array<Text>, _>(counts.iter().map(|c| c.metric.code()).collect::<Vec<_>>())
    .bind::<Array<Text>, _>(counts.iter().map(|c| c.question_id.as_str()).collect::<Vec<_>>())
    .bind::<Array<BigInt>, _>(counts.iter().map(|c| c.value).collect::<Vec<_>>())
    .bind::<Array<BigInt>, _>(counts.iter().map(|c| c.n).collect::<Vec<_>>())
    .cached()
    .execute(conn)
    .await?;
    add_counts(conn, campaign, &counts, 1).await?;
    if verdict.is_some() {
        return Ok(());
    }

    let shares = tally.themes();
    if !shares.is_empty() {
        sql_query(
            "INSERT INTO result_theme_shares
                (session_id, campaign_id, scope, key_digest, label_digest, mentions, score_sum, scores)
             SELECT $1, $2, e.* FROM unnest($3::text[], $4::bytea[], $5::bytea[], $6::bigint[], $7::bigint[],
                $8::bigint[]) AS e",
        )
        .bind::<SqlUuid, _>(session.0)
        .bind::<SqlUuid, _>(campaign.0)
        .bind::<Array<Text>, _>(shares.iter().map(|s| s.scope.as_str()).collect::<Vec<_>>())
        .bind::<Array<Bytea>, _>(shares.iter().map(|s| s.key_digest.as_slice()).collect::<Vec<_>>())
        .bind::<Array<Bytea>, _>(shares.iter().map(|s| s.label_digest.as_slice()).collect::<Vec<_>>())
        .bind::<Array<BigInt>, _>(shares.iter().map(|s| i64::try_from(s.mentions).unwrap_or(0)).collect::<Vec<_>>())
        .bind::<Array<BigInt>, _>(shares.iter().map(|s| s.score_sum).collect::<Vec<_>>())
        .bind::<Array<BigInt>, _>(shares.iter().map(|s| i64::try_from(s.scores).unwrap_or(0)).collect::<Vec<_>>())
        .cached()
        .execute(conn)
        .await?;
        add_themes(conn, campaign, &shares, 1).await?;
        let phrases: Vec<_> = tally.answers.iter().flat_map(|a| a.phrases.iter()).collect();
        sql_query(
            "INSERT INTO result_phrases (campaign_id, key_digest, label_digest, phrase_sealed)
             SELECT $1, e.* FROM unnest($2::bytea[], $3::bytea[], $4::bytea[]) AS e
             ON CONFLICT DO NOTHING",
        )
        .bind::<SqlUuid, _>(campaign.0)
        .bind::<Array<Bytea>, _>(phrases.iter().map(|p| p.key_digest.as_slice()).collect::<Vec<_>>())
        .bind::<Array<Bytea>, _>(phrases.iter().map(|p| p.label_digest.as_slice()).collect::<Vec<_>>())
        .bind::<Array<Bytea>, _>(phrases.iter().map(|p| p.phrase_sealed.as_slice()).collect::<Vec<_>>())
        .cached()
        .execute(conn)
        .await?;
    }
    let quotes: Vec<_> = tally.answers.iter().filter_map(|a| a.quote.as_ref().map(|q| (a, q))).collect();
    if !quotes.is_empty() {
        sql_query(
            "INSERT INTO result_quotes (session_id, question_id, campaign_id, score, len, text_sealed)
             SELECT $1, e.question_id, $2, e.score, e.len, e.text_sealed
             FROM unnest($3::text[], $4::float8[], $5::int[], $6::bytea[]) AS e(question_id, score, len, text_sealed)",
        )
        .bind::<SqlUuid, _>(session.0)
        .bind::<SqlUuid, _>(campaign.0)
        .bind::<Array<Text>, _>(quotes.iter().map(|(a, _)| a.question_id.as_str()).collect::<Vec<_>>())
        .bind::<Array<Nullable<Double>>, _>(quotes.iter().map(|(a, _)| a.score).collect::<Vec<_>>())
        .bind::<Array<Integer>, _>(
            quotes.iter().map(|(_, q)| i32::try_from(q.len).unwrap_or(i32::MAX)).collect::<Vec<_>>(),
        )
        .bind::<Array<Bytea>, _>(quotes.iter().map(|(_, q)| q.sealed.as_slice()).collect::<Vec<_>>())
        .cached()
        .execute(conn)
        .await?;
    }
    Ok(())
}

/// Whether result session `r` is in the group of a filter: `$2` platform (ASCII lower case), `$3`
/// app version, `$4` tags, `$5` attributes (names to the texts compared). Without a launch label,
/// a session's platform and app version are its device's as they are now.
macro_rules! selected {
    () => {
        "($2::text IS NULL OR COALESCE(r.platform,
              (SELECT d.platform FROM app_devices d WHERE d.id = r.device_id)) = $2)
         AND ($3::text IS NULL OR COALESCE(r.app_version,
              (SELECT d.app_version FROM app_devices d WHERE d.id = r.device_id)) = $3)
         AND r.tags @> $4::text[] AND r.attributes @> $5::jsonb"
    };
}

/// Whether segment `s` (migration `000019_result_segments`) is in the group of a filter: the same
/// conditions as [`selected`], on the labels every session of the segment was launched with.
macro_rules! segment_selected {
    () => {
        "($2::text IS NULL OR s.platform = $2) AND ($3::text IS NULL OR s.app_version = $3)
         AND s.tags @> $4::text[] AND s.attributes @> $5::jsonb"
    };
}

/// The sessions of campaign `$1` in no segment, because their platform or app version is their
/// device's, that a filter selects (see [`selected`]).
macro_rules! unsegmented {
    () => {
        concat!(
            "r.campaign_id = $1 AND r.device_id IS NOT NULL AND (r.platform IS NULL OR r.app_version IS NULL) AND ",
            selected!()
        )
    };
}

/// The sessions of campaign `$1` a filter selects (see [`selected`]).
macro_rules! filtered_sessions {
    () => {
        concat!(
            "SELECT r.session_id, r.accepted, r.metrics, r.questions, r.vals, r.ns FROM result_sessions r
             WHERE r.campaign_id = $1 AND ",
            selected!()
        )
    };
}

/// Whether quote `q`'s session is in the group of a filter (see [`selected`]). A scalar
/// subquery rather than `EXISTS`, which the planner would turn into a join over the whole group:
/// this one is checked per quote as the walk in pick order reaches it.
macro_rules! member {
    () => {
        concat!("(SELECT r.accepted AND ", selected!(), " FROM result_sessions r WHERE r.session_id = q.session_id)")
    };
}

/// The quote candidates of question `qs.question_id` of campaign `$1` whose row passes `$keep`:
/// the first `$n` (`$longest` for the longest) in each pick order
/// (`pulse_domain::results::models::QUOTE_CANDIDATES`) with their ties, walked through the
/// indexes on `result_quotes` in that order.
macro_rules! pick_orders {
    ($keep:expr, $n:literal, $longest:literal) => {
        concat!(
            "(SELECT q.question_id, q.session_id, q.score, q.text_sealed FROM result_quotes q
              WHERE q.campaign_id = $1 AND q.question_id = qs.question_id AND ",
            $keep,
            "
              ORDER BY COALESCE(q.score, 0) DESC, q.len DESC FETCH FIRST (",
            $n,
            ") ROWS WITH TIES)
             UNION
             (SELECT q.question_id, q.session_id, q.score, q.text_sealed FROM result_quotes q
              WHERE q.campaign_id = $1 AND q.question_id = qs.question_id AND ",
            $keep,
            "
              ORDER BY COALESCE(q.score, 0), q.len FETCH FIRST (",
            $n,
            ") ROWS WITH TIES)
             UNION
             (SELECT q.question_id, q.session_id, q.score, q.text_sealed FROM result_quotes q
              WHERE q.campaign_id = $1 AND q.question_id = qs.question_id AND ",
            $keep,
            "
              ORDER BY abs(COALESCE(q.score, 0)), COALESCE(q.score, 0) DESC, q.len DESC
              FETCH FIRST (",
            $n,
            ") ROWS WITH TIES)
             UNION
             (SELECT q.question_id, q.session_id, q.score, q.text_sealed FROM result_quotes q
              WHERE q.campaign_id = $1 AND q.question_id = qs.question_id AND ",
            $keep,
            "
              ORDER BY q.len DESC, COALESCE(q.score, 0) DESC FETCH FIRST (",
            $longest,
            ") ROWS WITH TIES)"
        )
    };
}

/// Binds campaign `$1` and a filter's `$2` to `$5` (see [`selected`]) to a query.
macro_rules! bind_filter {
    ($query:expr, $campaign:expr, $binds:expr) => {
        $query
            .bind::<SqlUuid, _>($campaign.0)
            .bind::<Nullable<Text>, _>(&$binds.platform)
            .bind::<Nullable<Text>, _>(&$binds.version)
            .bind::<Array<Text>, _>(&$binds.tags)
            .bind::<Jsonb, _>(&$binds.attributes)
    };
}

/// The sessions of campaign `$1` in no slice of dimension `$2` (`platform` or `appVersion`, when
/// `$4`) because they have no such label, whose device's value now is `$3`.
macro_rules! device_labelled {
    () => {
        "$4 AND r.campaign_id = $1 AND r.device_id IS NOT NULL AND (r.platform IS NULL OR r.app_version IS NULL)
         AND CASE WHEN $2 = 'platform'
             THEN r.platform IS NULL AND (SELECT d.platform FROM app_devices d WHERE d.id = r.device_id) = $3
             ELSE r.app_version IS NULL AND (SELECT d.app_version FROM app_devices d WHERE d.id = r.device_id) = $3
             END"
    };
}

/// A filter's values as bound to [`selected`].
struct FilterBinds {
    platform: Option<String>,
    version: Option<String>,
    tags: Vec<String>,
    attributes: Value,
}

fn filter_binds(filter: &ResultsFilter) -> FilterBinds {
    let attributes: serde_json::Map<String, Value> =
        filter.attributes.iter().map(|(name, value)| (name.clone(), Value::String(value.clone()))).collect();
    FilterBinds {
        platform: filter.platform_folded(),
        version: filter.app_version.clone(),
        tags: filter.tags.clone(),
        attributes: Value::Object(attributes),
    }
}

/// The slice (migration `000017_result_slices`) that holds a filter's group when it has a single
/// condition.
struct Slice {
    dimension: String,
    value: String,
    /// Whether sessions without this label, counted by their device's, may match too.
    device_labelled: bool,
}

impl Slice {
    fn of(filter: &ResultsFilter) -> Option<Self> {
        let conditions = usize::from(filter.platform.is_some())
            + usize::from(filter.app_version.is_some())
            + filter.tags.len()
            + filter.attributes.len();
        if conditions != 1 {
            return None;
        }
        let slice = |dimension: String, value: &str, device_labelled: bool| Slice {
            dimension,
            value: value.to_owned(),
            device_labelled,
        };
        if let Some(platform) = filter.platform_folded() {
            return Some(slice("platform".into(), &platform, true));
        }
        if let Some(version) = &filter.app_version {
            return Some(slice("appVersion".into(), version, true));
        }
        if let Some(tag) = filter.tags.as_slice().first() {
            return Some(slice("tag".into(), tag, false));
        }
        filter.attributes.iter().next().map(|(name, value)| slice(format!("attribute:{name}"), value, false))
    }
}

/// Whether a group's quote candidates are cheaper found by walking the campaign's quotes in pick
/// order (about `QUOTE_CANDIDATES` x campaign / group rows read per order) than by ranking every
/// quote of the group (linear in the group): when the group's square outgrows 32 x the campaign.
fn walk_quote_orders(group_accepted: u64, campaign_accepted: u64) -> bool {
    group_accepted.saturating_mul(group_accepted) >= campaign_accepted.saturating_mul(32)
}

fn themes_of(rows: Vec<ThemeRow>) -> Vec<ThemeTotal> {
    let mut themes: Vec<ThemeTotal> = Vec::new();
    for row in rows {
        let same = themes.last().is_some_and(|t| t.scope == row.scope && t.key_digest == row.key_digest);
        if !same {
            themes.push(ThemeTotal {
                scope: row.scope,
                key_digest: row.key_digest,
                sessions: count_of(row.sessions),
                score_sum: row.score_sum,
                scores: count_of(row.scores),
                labels: Vec::new(),
            });
        }
        if let Some(theme) = themes.last_mut() {
            theme.labels.push((row.label_digest, count_of(row.mentions)));
        }
    }
    themes
}

fn counts_of(rows: Vec<CountRow>) -> Result<Vec<TallyCount>> {
    rows.into_iter()
        .map(|r| {
            Ok(TallyCount {
                metric: Metric::parse(&r.metric).ok_or_else(|| corrupt("metric"))?,
                question_id: r.question_id,
                value: r.value,
                n: r.n,
            })
        })
        .collect()
}

fn quotes_of(rows: Vec<QuoteCandidateRow>, tally: &mut GroupTally) {
    for row in rows {
        if row.scored {
            tally.scored_quotes.insert(row.question_id.clone());
        }
        tally.quotes.push(QuoteRow {
            question_id: row.question_id,
            session: SessionId(row.session_id),
            score: row.score,
            sealed: row.text_sealed,
        });
    }
}

impl PgStore {
    /// The campaign's maintained sums: no work grows with its sessions.
    async fn campaign_tally(
        conn: &mut AsyncPgConnection,
        campaign: CampaignId,
        text_questions: &[String],
        with_quotes: bool,
    ) -> Result<GroupTally> {
        let counts: Vec<CountRow> =
            sql_query("SELECT metric, question_id, value, n FROM result_counts WHERE campaign_id = $1 AND n <> 0")
                .bind::<SqlUuid, _>(campaign.0)
                .cached()
                .load(conn)
                .await
                .map_err(from_diesel)?;
        let themes: Vec<ThemeRow> = sql_query(
            "SELECT t.scope, t.key_digest, t.sessions, t.score_sum, t.scores, l.label_digest, l.mentions
             FROM result_themes t
             JOIN result_theme_labels l
               ON l.campaign_id = t.campaign_id AND l.scope = t.scope AND l.key_digest = t.key_digest
             WHERE t.campaign_id = $1 AND t.sessions >= 2 AND t.sessions >= $2 AND l.mentions > 0 -- 2: the index
             ORDER BY t.scope, t.key_digest",
        )
        .bind::<SqlUuid, _>(campaign.0)
        .bind::<BigInt, _>(i64::try_from(MIN_THEME_SESSIONS).unwrap_or(i64::MAX))
        .cached()
        .load(conn)
        .await
        .map_err(from_diesel)?;
        let counts = counts_of(counts)?;
        let campaign_count = |metric: Metric| counts.iter().filter(|c| c.metric == metric).map(|c| count_of(c.n)).sum();
        let (all_accepted, all_analyzed) = (campaign_count(Metric::Accepted), campaign_count(Metric::Analyzed));
        let mut tally =
            GroupTally { all_accepted, all_analyzed, counts, themes: themes_of(themes), ..GroupTally::default() };
        if with_quotes && !text_questions.is_empty() {
            let quotes: Vec<QuoteCandidateRow> = sql_query(concat!(
                "SELECT x.question_id, x.session_id, x.score, x.text_sealed,
                        EXISTS (SELECT 1 FROM result_quotes s WHERE s.campaign_id = $1
                                AND s.question_id = qs.question_id AND s.score IS NOT NULL) AS scored
                 FROM unnest($2::text[]) AS qs(question_id), LATERAL (",
                pick_orders!("true", "$3", "$4"),
                ") x"
            ))
            .bind::<SqlUuid, _>(campaign.0)
            .bind::<Array<Text>, _>(text_questions)
            .bind::<BigInt, _>(limit_of(QUOTE_CANDIDATES))
            .bind::<BigInt, _>(limit_of(LONGEST_QUOTE_CANDIDATES))
            .cached()
            .load(conn)
            .await
            .map_err(from_diesel)?;
            quotes_of(quotes, &mut tally);
        }
        Ok(tally)
    }

    /// The sums of the sessions `filter` selects: from the slice of a single condition's value,
    /// else from the segments whose labels meet every condition; plus, either way, the selected
    /// sessions whose platform or app version is their device's, grouped from their tallies.
    async fn filtered_tally(
        conn: &mut AsyncPgConnection,
        campaign: CampaignId,
        filter: &ResultsFilter,
        text_questions: &[String],
        with_quotes: bool,
    ) -> Result<GroupTally> {
        let binds = filter_binds(filter);
        let (counts, themes) = match Slice::of(filter) {
            Some(slice) => {
                (Self::slice_counts(conn, campaign, &slice).await?, Self::slice_themes(conn, campaign, &slice).await?)
            }
            None => (
                Self::segment_counts(conn, campaign, &binds).await?,
                Self::segment_themes(conn, campaign, &binds).await?,
            ),
        };
        let whole: Vec<CountRow> = sql_query(
            "SELECT metric, question_id, value, n FROM result_counts
             WHERE campaign_id = $1 AND metric = ANY($2::text[]) AND question_id = '' AND value = 0",
        )
        .bind::<SqlUuid, _>(campaign.0)
        .bind::<Array<Text>, _>(vec![Metric::Accepted.code(), Metric::Analyzed.code()])
        .cached()
        .load(conn)
        .await
        .map_err(from_diesel)?;
        let whole = |metric: Metric| {
            let code = metric.code();
            whole.iter().filter(|c| c.metric == code).map(|c| count_of(c.n)).sum::<u64>()
        };
        let mut tally = GroupTally {
            counts: counts_of(counts)?,
            all_accepted: whole(Metric::Accepted),
            all_analyzed: whole(Metric::Analyzed),
            themes: themes_of(themes),
            ..GroupTally::default()
        };
        if with_quotes && !text_questions.is_empty() {
            let accepted: u64 =
                tally.counts.iter().filter(|c| c.metric == Metric::Accepted).map(|c| count_of(c.n)).sum();
            let quotes = if walk_quote_orders(accepted, tally.all_accepted) {
                Self::member_quotes(conn, campaign, &binds, text_questions).await?
            } else {
                Self::group_quotes(conn, campaign, &binds, text_questions).await?
            };
            quotes_of(quotes, &mut tally);
        }
        Ok(tally)
    }

    /// A slice's counters, and those of its device-labelled sessions that match.
    async fn slice_counts(conn: &mut AsyncPgConnection, campaign: CampaignId, slice: &Slice) -> Result<Vec<CountRow>> {
        sql_query(concat!(
            "SELECT metric, question_id, value, sum(n)::bigint AS n FROM (
               SELECT c.metric, c.question_id, c.value, c.n FROM result_slice_counts c
               WHERE c.campaign_id = $1 AND c.dimension = $2 AND c.dimension_value = $3
               UNION ALL
               SELECT e.metric, e.question_id, e.value, e.n
               FROM result_sessions r, unnest(r.metrics, r.questions, r.vals, r.ns) AS e(metric, question_id, value, n)
               WHERE ",
            device_labelled!(),
            ") x GROUP BY metric, question_id, value HAVING sum(n) <> 0"
        ))
        .bind::<SqlUuid, _>(campaign.0)
        .bind::<Text, _>(slice.dimension.as_str())
        .bind::<Text, _>(slice.value.as_str())
        .bind::<Bool, _>(slice.device_labelled)
        .cached()
        .load(conn)
        .await
        .map_err(from_diesel)
    }

    /// A slice's themes, and those of its device-labelled sessions that match.
    async fn slice_themes(conn: &mut AsyncPgConnection, campaign: CampaignId, slice: &Slice) -> Result<Vec<ThemeRow>> {
        sql_query(concat!(
            "WITH d AS (
               SELECT t.session_id, t.scope, t.key_digest, t.label_digest, t.mentions, t.score_sum, t.scores
               FROM result_sessions r JOIN result_theme_shares t ON t.session_id = r.session_id
               WHERE r.accepted AND ",
            device_labelled!(),
            "),
             k AS (SELECT scope, key_digest, sum(sessions)::bigint AS sessions, sum(score_sum)::bigint AS score_sum,
                          sum(scores)::bigint AS scores
                   FROM (SELECT scope, key_digest, sessions, score_sum, scores FROM result_slice_themes
                         WHERE campaign_id = $1 AND dimension = $2 AND dimension_value = $3
                         UNION ALL
                         SELECT scope, key_digest, count(DISTINCT session_id), sum(score_sum), sum(scores)
                         FROM d GROUP BY scope, key_digest) x
                   GROUP BY scope, key_digest HAVING sum(sessions) >= $5),
             l AS (SELECT scope, key_digest, label_digest, sum(mentions)::bigint AS mentions
                   FROM (SELECT scope, key_digest, label_digest, mentions FROM result_slice_theme_labels
                         WHERE campaign_id = $1 AND dimension = $2 AND dimension_value = $3
                         UNION ALL
                         SELECT scope, key_digest, label_digest, mentions FROM d) y
                   GROUP BY scope, key_digest, label_digest HAVING sum(mentions) > 0)
             SELECT k.scope, k.key_digest, k.sessions, k.score_sum, k.scores, l.label_digest, l.mentions
             FROM k JOIN l ON l.scope = k.scope AND l.key_digest = k.key_digest
             ORDER BY k.scope, k.key_digest"
        ))
        .bind::<SqlUuid, _>(campaign.0)
        .bind::<Text, _>(slice.dimension.as_str())
        .bind::<Text, _>(slice.value.as_str())
        .bind::<Bool, _>(slice.device_labelled)
        .bind::<BigInt, _>(i64::try_from(MIN_THEME_SESSIONS).unwrap_or(i64::MAX))
        .cached()
        .load(conn)
        .await
        .map_err(from_diesel)
    }

    /// The counters of the segments the filter selects, and those of its device-labelled sessions
    /// that match.
    async fn segment_counts(
        conn: &mut AsyncPgConnection,
        campaign: CampaignId,
        binds: &FilterBinds,
    ) -> Result<Vec<CountRow>> {
        const QUERY: &str = concat!(
            "SELECT metric, question_id, value, sum(n)::bigint AS n FROM (
               SELECT c.metric, c.question_id, c.value, c.n
               FROM result_segments s JOIN result_segment_counts c ON c.segment_id = s.id
               WHERE s.campaign_id = $1 AND ",
            segment_selected!(),
            "
               UNION ALL
               SELECT e.metric, e.question_id, e.value, e.n
               FROM result_sessions r, unnest(r.metrics, r.questions, r.vals, r.ns) AS e(metric, question_id, value, n)
               WHERE ",
            unsegmented!(),
            ") x GROUP BY metric, question_id, value HAVING sum(n) <> 0"
        );
        bind_filter!(sql_query(QUERY), campaign, binds).cached().load(conn).await.map_err(from_diesel)
    }

    /// The themes of the segments the filter selects, and those of its device-labelled sessions
    /// that match.
    async fn segment_themes(
        conn: &mut AsyncPgConnection,
        campaign: CampaignId,
        binds: &FilterBinds,
    ) -> Result<Vec<ThemeRow>> {
        const QUERY: &str = concat!(
            "WITH g AS (SELECT s.id FROM result_segments s WHERE s.campaign_id = $1 AND ",
            segment_selected!(),
            "),
             d AS (
               SELECT t.session_id, t.scope, t.key_digest, t.label_digest, t.mentions, t.score_sum, t.scores
               FROM result_sessions r JOIN result_theme_shares t ON t.session_id = r.session_id
               WHERE r.accepted AND ",
            unsegmented!(),
            "),
             k AS (SELECT scope, key_digest, sum(sessions)::bigint AS sessions, sum(score_sum)::bigint AS score_sum,
                          sum(scores)::bigint AS scores
                   FROM (SELECT t.scope, t.key_digest, t.sessions, t.score_sum, t.scores
                         FROM g JOIN result_segment_themes t ON t.segment_id = g.id
                         UNION ALL
                         SELECT scope, key_digest, count(DISTINCT session_id), sum(score_sum), sum(scores)
                         FROM d GROUP BY scope, key_digest) x
                   GROUP BY scope, key_digest HAVING sum(sessions) >= $6),
             l AS (SELECT scope, key_digest, label_digest, sum(mentions)::bigint AS mentions
                   FROM (SELECT l.scope, l.key_digest, l.label_digest, l.mentions
                         FROM g JOIN result_segment_theme_labels l ON l.segment_id = g.id
                         UNION ALL
                         SELECT scope, key_digest, label_digest, mentions FROM d) y
                   GROUP BY scope, key_digest, label_digest HAVING sum(mentions) > 0)
             SELECT k.scope, k.key_digest, k.sessions, k.score_sum, k.scores, l.label_digest, l.mentions
             FROM k JOIN l ON l.scope = k.scope AND l.key_digest = k.key_digest
             ORDER BY k.scope, k.key_digest"
        );
        bind_filter!(sql_query(QUERY), campaign, binds)
            .bind::<BigInt, _>(i64::try_from(MIN_THEME_SESSIONS).unwrap_or(i64::MAX))
            .cached()
            .load(conn)
            .await
            .map_err(from_diesel)
    }

    /// Quote candidates ranked among every session the filter selects: linear in the group, for
    /// groups too small for [`Self::member_quotes`].
    async fn group_quotes(
        conn: &mut AsyncPgConnection,
        campaign: CampaignId,
        binds: &FilterBinds,
        text_questions: &[String],
    ) -> Result<Vec<QuoteCandidateRow>> {
        const QUERY: &str = concat!(
            "WITH g AS (",
            filtered_sessions!(),
            "),
             c AS (SELECT q.question_id, q.session_id, q.score, COALESCE(q.score, 0) AS s, q.len
                   FROM result_quotes q JOIN g ON g.session_id = q.session_id
                   WHERE q.campaign_id = $1 AND g.accepted AND q.question_id = ANY($6::text[])),
             r AS (SELECT c.*,
                     rank() OVER (PARTITION BY question_id ORDER BY s DESC, len DESC) AS top,
                     rank() OVER (PARTITION BY question_id ORDER BY s, len) AS bottom,
                     rank() OVER (PARTITION BY question_id ORDER BY abs(s), s DESC, len DESC) AS neutral,
                     rank() OVER (PARTITION BY question_id ORDER BY len DESC, s DESC) AS longest,
                     bool_or(score IS NOT NULL) OVER (PARTITION BY question_id) AS scored
                   FROM c)
             SELECT r.question_id, r.session_id, r.score, r.scored, q.text_sealed
             FROM r JOIN result_quotes q ON q.session_id = r.session_id AND q.question_id = r.question_id
             WHERE r.top <= $7 OR r.bottom <= $7 OR r.neutral <= $7 OR r.longest <= $8"
        );
        Self::filtered_quote_candidates(conn, QUERY, campaign, binds, text_questions).await
    }

    /// Runs one of the two quote candidate queries of a filtered group: the filter is `$1` to `$5`,
    /// the text questions `$6`, the candidates per pick order `$7` and the longest's `$8`.
    async fn filtered_quote_candidates(
        conn: &mut AsyncPgConnection,
        query: &'static str,
        campaign: CampaignId,
        binds: &FilterBinds,
        text_questions: &[String],
    ) -> Result<Vec<QuoteCandidateRow>> {
        bind_filter!(sql_query(query), campaign, binds)
            .bind::<Array<Text>, _>(text_questions)
            .bind::<BigInt, _>(limit_of(QUOTE_CANDIDATES))
            .bind::<BigInt, _>(limit_of(LONGEST_QUOTE_CANDIDATES))
            .cached()
            .load(conn)
            .await
            .map_err(from_diesel)
    }

    /// Quote candidates found by walking the campaign's quotes in each pick order and keeping the
    /// group's: a walk reads about as many quotes as the campaign holds per group member.
    async fn member_quotes(
        conn: &mut AsyncPgConnection,
        campaign: CampaignId,
        binds: &FilterBinds,
        text_questions: &[String],
    ) -> Result<Vec<QuoteCandidateRow>> {
        const QUERY: &str = concat!(
            "WITH qs AS MATERIALIZED (
               SELECT w.question_id, COALESCE((SELECT true FROM result_quotes q WHERE q.campaign_id = $1
                   AND q.question_id = w.question_id AND q.score IS NOT NULL AND ",
            member!(),
            " LIMIT 1), false) AS scored
               FROM unnest($6::text[]) AS w(question_id))
             SELECT x.question_id, x.session_id, x.score, x.text_sealed, qs.scored
             FROM qs, LATERAL (",
            pick_orders!(member!(), "$7", "$8"),
            ") x"
        );
        Self::filtered_quote_candidates(conn, QUERY, campaign, binds, text_questions).await
    }
}

#[cfg(test)]
mod tests {
    use pulse_testing::contract::World;
    use pulse_testing::contract::results::{FILTERS, analyze_all, quoting_campaign, respond_all};

    use super::*;
    use crate::test_db::TestDatabase;
    use crate::{PoolSettings, connect};

    fn candidates(rows: Vec<QuoteCandidateRow>) -> Vec<(String, Uuid, bool)> {
        let mut found: Vec<_> = rows.into_iter().map(|r| (r.question_id, r.session_id, r.scored)).collect();
        found.sort();
        found
    }

    /// The two ways of finding a filtered group's quote candidates (`walk_quote_orders` picks one
    /// by the group's size, and the contract suite's small campaigns only ever rank) find the same
    /// candidates for every filter the suite reads.
    #[tokio::test]
    async fn walking_the_pick_orders_finds_the_candidates_ranking_the_group_finds() {
        let database = TestDatabase::create().await;
        let store = connect(database.url(), &PoolSettings { max_size: 4, ..PoolSettings::default() }).expect("a pool");
        let w = World::new(store);
        let (p, campaign) = quoting_campaign(&w).await;
        respond_all(&w, &p, &campaign).await;
        analyze_all(&w, "1").await;
        let mut conn = AsyncPgConnection::establish(database.url()).await.expect("a connection");
        let questions = vec!["q2".to_owned(), "q3".to_owned()];
        let mut found_any = false;
        for filter in FILTERS {
            let params: Vec<(String, String)> =
                filter.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
            let filter = ResultsFilter::parse(&params).expect("a filter").unwrap_or_default();
            let binds = filter_binds(&filter);
            let id = campaign.campaign.id;
            let walked = candidates(PgStore::member_quotes(&mut conn, id, &binds, &questions).await.expect("walked"));
            let ranked = candidates(PgStore::group_quotes(&mut conn, id, &binds, &questions).await.expect("ranked"));
            assert_eq!(walked, ranked, "{filter:?}");
            found_any |= !walked.is_empty();
        }
        assert!(found_any, "the filters' groups have quotes to compare");
    }
}
