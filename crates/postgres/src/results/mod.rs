//! What results read: the campaign's funnel and its analyzed sessions, or the tallies kept as
//! sessions are analyzed (`maintain`), read whole or by filter (`read`).

mod filters;
mod groups;
pub(crate) mod maintain;
mod read;
pub(crate) mod rows;
mod trend;

use diesel::dsl::{case_when, exists, not};
use diesel::prelude::*;
use diesel::sql_query;
use diesel::sql_types::{Array, Bool, Bytea, Uuid as SqlUuid};
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use pulse_domain::Result;
use pulse_domain::campaigns::ports::CampaignRepository;
use pulse_domain::ids::{CampaignId, SessionId, WorkspaceId};
use pulse_domain::results::models::{
    AnalyzedAnswer, AnalyzedSession, Dimension, GroupSize, ResultsFilter, ResultsInput, Segment, StoredPhrase,
    TalliedInput, TrendInput,
};
use serde_json::Value;
use uuid::Uuid;

use crate::error::from_diesel;
use crate::results::rows::{AnalyzedRow, AnswerRow, PhraseRow, StepRow, rejection};
use crate::rows::RowCount;
use crate::rows::count_of;
use crate::schema::{
    analysis_jobs, analyzer_in_charge, answer_analyses, answers, app_devices, session_analyses, sessions,
};
use crate::statement::Cached as _;
use crate::store::{PgStore, TxError};
use pulse_domain::results::ports::ResultsRepository;
use pulse_domain::shared::time_zone::ZoneOffsets;

/// The campaign's analyses that [`AnalysisRepository::claim_reanalyses`] would take for the
/// analyzer in charge (none when none was announced). The analyzer in charge is a scalar subquery,
/// not a join, so the ranges search the index on `(campaign_id, analyzed_with)`: a campaign with
/// nothing left to read again costs a few index probes.
async fn pending_reanalysis(conn: &mut AsyncPgConnection, campaign: CampaignId) -> QueryResult<u64> {
    let in_charge = || analyzer_in_charge::table.select(analyzer_in_charge::analyzed_with).single_value();
    let stale: i64 = analysis_jobs::table
        .filter(analysis_jobs::campaign_id.eq(campaign.0))
        .filter(analysis_jobs::due_at.is_null())
        .filter(exists(analyzer_in_charge::table.select(analyzer_in_charge::singleton)))
        .filter(
            analysis_jobs::analyzed_with
                .is_null()
                .or(analysis_jobs::analyzed_with.gt("").and(analysis_jobs::analyzed_with.lt(in_charge())))
                .or(analysis_jobs::analyzed_with.gt(in_charge())),
        )
        .count()
        .get_result(conn)
        .await?;
    Ok(count_of(stale))
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
        let pending: i64 = sessions::table
            .filter(sessions::campaign_id.eq(campaign.0))
            .filter(sessions::status.eq("COMPLETED"))
            .filter(not(exists(session_analyses::table.filter(session_analyses::session_id.eq(sessions::id)))))
            .count()
            .get_result(&mut conn)
            .await
            .map_err(from_diesel)?;
        let analyzed: Vec<AnalyzedRow> = session_analyses::table
            .inner_join(sessions::table.left_join(app_devices::table))
            .filter(session_analyses::campaign_id.eq(campaign.0))
            .order(session_analyses::session_id)
            .select((
                session_analyses::session_id,
                session_analyses::rejection,
                session_analyses::duration_secs,
                session_analyses::coverage,
                sessions::context,
                sessions::tags,
                sessions::language,
                app_devices::platform.nullable(),
                app_devices::app_version.nullable(),
            ))
            .load(&mut conn)
            .await
            .map_err(from_diesel)?;
        let answers: Vec<AnswerRow> = answers::table
            .inner_join(session_analyses::table.on(session_analyses::session_id.eq(answers::session_id)))
            .filter(session_analyses::campaign_id.eq(campaign.0))
            .select((
                answers::session_id,
                answers::question_id,
                answers::rating,
                case_when(with_texts.into_sql::<Bool>(), answers::text_sealed),
                answers::word_count,
                answers::answered_at,
            ))
            .load(&mut conn)
            .await
            .map_err(from_diesel)?;
        let steps: Vec<StepRow> = answer_analyses::table
            .inner_join(session_analyses::table.on(session_analyses::session_id.eq(answer_analyses::session_id)))
            .filter(session_analyses::campaign_id.eq(campaign.0))
            .select(StepRow::as_select())
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
                    Some(row.language.as_str()),
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
            pending: u64::try_from(pending).unwrap_or(0),
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

    async fn result_groups(
        &self,
        workspace: WorkspaceId,
        campaign: CampaignId,
        by: &Dimension,
        filter: Option<&ResultsFilter>,
    ) -> Result<Vec<GroupSize>> {
        self.group_sizes(workspace, campaign, by, filter).await
    }

    async fn trend_days(
        &self,
        workspace: WorkspaceId,
        campaign: CampaignId,
        filter: Option<&ResultsFilter>,
        offsets: &ZoneOffsets,
    ) -> Result<Option<TrendInput>> {
        self.trend_input(workspace, campaign, filter, offsets).await
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
