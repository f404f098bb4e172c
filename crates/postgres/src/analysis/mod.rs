//! Analysis jobs. A job is queued by the transaction that completes its session
//! ([`queue_analysis`]); workers claim due jobs with `FOR UPDATE SKIP LOCKED` under a lease and
//! record the outcome, with the session's results tally, in one transaction with
//! `feedback.analyzed`.

use diesel::dsl::exists;
use diesel::prelude::*;
use diesel::sql_query;
use diesel::sql_types::{BigInt, Integer, Text, Timestamptz, Uuid as SqlUuid};
use diesel::upsert::excluded;
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
use crate::rows::{self, to_i32, to_u32};
use crate::schema::{
    analysis_jobs, analyzer_in_charge, answer_analyses, answers, campaigns, session_analyses, sessions,
};
use crate::statement::Cached as _;
use crate::store::{PgStore, TxError};
use crate::webhooks::outbox::emit_events;

fn corrupt(what: &str) -> Error {
    rows::corrupt("analysis", what)
}

/// Queues the analysis of a session completed in the caller's transaction, due at once.
pub(crate) async fn queue_analysis(conn: &mut AsyncPgConnection, completion: &Completion) -> diesel::QueryResult<()> {
    diesel::insert_into(analysis_jobs::table)
        .values((
            analysis_jobs::session_id.eq(completion.facts.session.0),
            analysis_jobs::campaign_id.eq(completion.facts.campaign.0),
            analysis_jobs::event_id.eq(completion.received_event.0),
            analysis_jobs::due_at.eq(completion.at),
            analysis_jobs::created_at.eq(completion.at),
        ))
        .on_conflict(analysis_jobs::session_id)
        .do_nothing()
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

#[derive(Queryable)]
struct InputRow {
    campaign_id: Uuid,
    workspace_id: Uuid,
    code: String,
    language: String,
    started_at: OffsetDateTime,
    completed_at: OffsetDateTime,
    answered: i32,
    total: i32,
    exchanges: i32,
    device_id: Option<Uuid>,
    app_user_id: Option<Uuid>,
    app_install_id: Option<Uuid>,
    identity: Option<String>,
    announced: bool,
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
        let found: Option<InputRow> = sessions::table
            .inner_join(campaigns::table)
            .filter(sessions::id.eq(session.0))
            .filter(sessions::status.eq("COMPLETED"))
            .filter(sessions::completed_at.is_not_null())
            .select((
                sessions::campaign_id,
                campaigns::workspace_id,
                campaigns::code,
                sessions::language,
                sessions::started_at,
                sessions::completed_at.assume_not_null(),
                sessions::answered,
                sessions::total,
                sessions::exchanges,
                sessions::device_id,
                sessions::app_user_id,
                sessions::app_install_id,
                sessions::identity,
                exists(session_analyses::table.filter(session_analyses::session_id.eq(sessions::id))),
            ))
            .get_result(&mut conn)
            .await
            .optional()
            .map_err(from_diesel)?;
        let Some(row) = found else { return Ok(None) };
        let answers: Vec<AnswerRow> = answers::table
            .filter(answers::session_id.eq(session.0))
            .order(answers::question_id)
            .select(AnswerRow::as_select())
            .load(&mut conn)
            .await
            .map_err(from_diesel)?;
        let earlier: Vec<StepRow> = answer_analyses::table
            .filter(answer_analyses::session_id.eq(session.0))
            .select(StepRow::as_select())
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
                let held: Option<Uuid> = analysis_jobs::table
                    .filter(analysis_jobs::session_id.eq(record.session.0))
                    .filter(analysis_jobs::claim_token.eq(claim_token))
                    .select(analysis_jobs::session_id)
                    .for_update()
                    .get_result(conn)
                    .await
                    .optional()?;
                if held.is_none() {
                    return Ok(None);
                }
                // The campaign's lock orders concurrent verdicts, so the cap is never exceeded (and
                // its sums are added to in turn); NO KEY leaves sessions' foreign keys unblocked.
                campaigns::table
                    .find(record.campaign.0)
                    .select(campaigns::id)
                    .for_no_key_update()
                    .execute(conn)
                    .await?;
                let mut verdict = record.verdict.rejection;
                if verdict.is_none()
                    && let Some(max) = record.max_responses
                {
                    let accepted: i64 = session_analyses::table
                        .filter(session_analyses::campaign_id.eq(record.campaign.0))
                        .filter(session_analyses::rejection.is_null())
                        .filter(session_analyses::session_id.ne(record.session.0))
                        .count()
                        .get_result(conn)
                        .await?;
                    if accepted >= i64::from(max) {
                        verdict = Some(Rejection::OverCapacity);
                    }
                }
                diesel::insert_into(session_analyses::table)
                    .values((
                        session_analyses::session_id.eq(record.session.0),
                        session_analyses::campaign_id.eq(record.campaign.0),
                        session_analyses::rejection.eq(verdict.map(Rejection::as_str)),
                        session_analyses::duration_secs.eq(to_i32(record.verdict.duration_secs)),
                        session_analyses::coverage.eq(record.verdict.coverage),
                        session_analyses::words.eq(to_i32(record.verdict.words)),
                        session_analyses::analyzed_at.eq(record.analyzed_at),
                    ))
                    .on_conflict(session_analyses::session_id)
                    .do_update()
                    .set((
                        session_analyses::rejection.eq(excluded(session_analyses::rejection)),
                        session_analyses::duration_secs.eq(excluded(session_analyses::duration_secs)),
                        session_analyses::coverage.eq(excluded(session_analyses::coverage)),
                        session_analyses::words.eq(excluded(session_analyses::words)),
                        session_analyses::analyzed_at.eq(excluded(session_analyses::analyzed_at)),
                    ))
                    .execute(conn)
                    .await?;
                diesel::delete(answer_analyses::table.filter(answer_analyses::session_id.eq(record.session.0)))
                    .execute(conn)
                    .await?;
                for result in &record.results {
                    diesel::insert_into(answer_analyses::table)
                        .values((
                            answer_analyses::session_id.eq(record.session.0),
                            answer_analyses::question_id.eq(&result.question_id),
                            answer_analyses::step.eq(result.step.as_str()),
                            answer_analyses::version.eq(&result.version),
                            answer_analyses::input_digest.eq(&result.input_digest),
                            answer_analyses::covered.eq(result.covered),
                            answer_analyses::score.eq(result.score),
                            answer_analyses::phrases_sealed.eq(result.phrases_sealed.as_deref()),
                            answer_analyses::language.eq(result.language.as_ref().map(LanguageTag::as_str)),
                            answer_analyses::other_language.eq(result.other_language),
                        ))
                        .execute(conn)
                        .await?;
                }
                replace_tally(conn, record.campaign, record.session, verdict, tally).await?;
                if let Some(event) = &record.event {
                    emit_events(conn, std::slice::from_ref(event)).await?;
                }
                diesel::update(analysis_jobs::table.find(record.session.0))
                    .set((
                        analysis_jobs::due_at.eq(None::<OffsetDateTime>),
                        analysis_jobs::claim_token.eq(None::<Uuid>),
                        analysis_jobs::tallied.eq(true),
                        analysis_jobs::analyzed_with.eq(record.analyzed_with.as_deref().unwrap_or(NO_TEXT_READ)),
                    ))
                    .execute(conn)
                    .await?;
                Ok(Some(verdict))
            })
            .await?;
        Ok(recorded)
    }

    async fn release_analysis(&self, session: SessionId, claim_token: Uuid, retry_at: OffsetDateTime) -> Result<()> {
        let mut conn = self.conn().await?;
        diesel::update(
            analysis_jobs::table
                .filter(analysis_jobs::session_id.eq(session.0))
                .filter(analysis_jobs::claim_token.eq(claim_token)),
        )
        .set((
            analysis_jobs::due_at.eq(retry_at),
            analysis_jobs::claim_token.eq(None::<Uuid>),
            analysis_jobs::attempts.eq(analysis_jobs::attempts + 1),
        ))
        .execute(&mut conn)
        .await
        .map_err(from_diesel)?;
        Ok(())
    }

    async fn announce_analyzer(&self, analyzed_with: &str, started_at: OffsetDateTime) -> Result<()> {
        // The `WHERE` of `DO UPDATE`; `QueryDsl::filter` does not apply to inserts.
        use diesel::query_dsl::methods::FilterDsl as _;
        let mut conn = self.conn().await?;
        diesel::insert_into(analyzer_in_charge::table)
            .values((
                analyzer_in_charge::analyzed_with.eq(analyzed_with),
                analyzer_in_charge::started_at.eq(started_at),
            ))
            .on_conflict(analyzer_in_charge::singleton)
            .do_update()
            .set((
                analyzer_in_charge::analyzed_with.eq(excluded(analyzer_in_charge::analyzed_with)),
                analyzer_in_charge::started_at.eq(excluded(analyzer_in_charge::started_at)),
            ))
            .filter(analyzer_in_charge::started_at.le(excluded(analyzer_in_charge::started_at)))
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
        let known: Option<Uuid> = campaigns::table
            .find(campaign.0)
            .select(campaigns::id)
            .get_result(&mut conn)
            .await
            .optional()
            .map_err(from_diesel)?;
        if known.is_none() {
            return Ok(None);
        }
        let queued = diesel::update(analysis_jobs::table.filter(analysis_jobs::campaign_id.eq(campaign.0)))
            .set((analysis_jobs::due_at.eq(now), analysis_jobs::claim_token.eq(None::<Uuid>)))
            .execute(&mut conn)
            .await
            .map_err(from_diesel)?;
        Ok(Some(queued as u64))
    }
}
