//! Sessions and their answers; starts are written in groups by `starts`.

pub(crate) mod starts;

use diesel::dsl::count_star;
use diesel::prelude::*;
use diesel::upsert::excluded;
use diesel_async::{AsyncConnection as _, RunQueryDsl};
use pulse_domain::apps::models::{Attribution, Identity};
use pulse_domain::campaigns::models::{LanguageTag, not_collecting, signature_required, token_invalid};
use pulse_domain::challenges::models::challenge_required;
use pulse_domain::ids::{AppInstallId, AppUserId, CampaignId, DeviceId, LaunchLinkId, SessionId, WorkspaceId};
use pulse_domain::sessions::models::{
    Completion, NewSession, Progress, SessionRecord, SessionStatus, Spend, StoredAnswer, VisitFacts, already_completed,
};
use pulse_domain::sessions::ports::SessionStore;
use pulse_domain::{Error, Result};
use time::OffsetDateTime;
use uuid::Uuid;

use crate::analysis::queue_analysis;
use crate::error::from_diesel;
use crate::schema::{answers, sessions, workspaces};
use crate::sessions::starts::SessionStarts;
use crate::sessions::starts::StartWritten;
use crate::store::{PgStore, TxError};
use crate::webhooks::outbox::emit_events;

#[derive(Queryable, Selectable)]
#[diesel(table_name = sessions, check_for_backend(diesel::pg::Pg))]
struct SessionRow {
    id: Uuid,
    campaign_id: Uuid,
    token_digest: Vec<u8>,
    language: String,
    status: String,
    answered: i32,
    total: i32,
    started_at: OffsetDateTime,
    completed_at: Option<OffsetDateTime>,
    device_id: Option<Uuid>,
    app_user_id: Option<Uuid>,
    app_install_id: Option<Uuid>,
    identity: Option<String>,
}

impl SessionRow {
    fn into_domain(self) -> Result<SessionRecord> {
        let corrupt = || Error::internal(format!("session {} is malformed", self.id));
        Ok(SessionRecord {
            id: SessionId(self.id),
            campaign_id: CampaignId(self.campaign_id),
            token_digest: self.token_digest,
            language: LanguageTag::parse("language", &self.language).map_err(|_| corrupt())?,
            status: SessionStatus::parse(&self.status).ok_or_else(corrupt)?,
            answered: u32::try_from(self.answered).map_err(|_| corrupt())?,
            total: u32::try_from(self.total).map_err(|_| corrupt())?,
            started_at: self.started_at,
            completed_at: self.completed_at,
            attribution: match (self.device_id, self.identity.as_deref()) {
                (Some(device), Some(identity)) => Some(Attribution {
                    device_id: DeviceId(device),
                    user_id: self.app_user_id.map(AppUserId),
                    identity: Identity::parse(identity).ok_or_else(corrupt)?,
                    install_id: self.app_install_id.map(AppInstallId),
                }),
                _ => None,
            },
        })
    }
}

fn progress(status: &str, answered: i32, total: i32) -> Result<Progress> {
    Ok(Progress {
        status: SessionStatus::parse(status).ok_or_else(|| Error::internal("a session has an unknown status"))?,
        answered: u32::try_from(answered).map_err(Error::internal)?,
        total: u32::try_from(total).map_err(Error::internal)?,
    })
}

impl SessionStore for PgStore {
    async fn start_session(&self, session: &NewSession, spend: &Spend) -> Result<()> {
        match self.writer::<SessionStarts>()?.submit((session.clone(), spend.clone())).await? {
            StartWritten::Started => Ok(()),
            StartWritten::LaunchUsed => Err(token_invalid()),
            StartWritten::ChallengeUsed => Err(challenge_required("the challenge was used already")),
            StartWritten::SignatureRequired => Err(signature_required()),
            StartWritten::NotCollecting(status) => Err(not_collecting(status)),
        }
    }

    async fn visit_facts(
        &self,
        workspace: WorkspaceId,
        campaign: CampaignId,
        spent_link: Option<LaunchLinkId>,
    ) -> Result<VisitFacts> {
        let mut conn = self.conn().await?;
        let asked_by: String = workspaces::table
            .find(workspace.0)
            .select(workspaces::name)
            .first(&mut conn)
            .await
            .optional()
            .map_err(from_diesel)?
            .ok_or_else(|| Error::not_found("workspace"))?;
        let link_answered = match spent_link {
            Some(link) => diesel::select(diesel::dsl::exists(
                sessions::table
                    .filter(sessions::launch_link_id.eq(link.0))
                    .filter(sessions::campaign_id.eq(campaign.0))
                    .filter(sessions::status.eq(SessionStatus::Completed.as_str())),
            ))
            .get_result(&mut conn)
            .await
            .map_err(from_diesel)?,
            None => false,
        };
        Ok(VisitFacts { asked_by, link_answered })
    }

    async fn completed_sessions(&self, campaign: CampaignId) -> Result<u64> {
        let completed: i64 = sessions::table
            .filter(sessions::campaign_id.eq(campaign.0))
            .filter(sessions::status.eq(SessionStatus::Completed.as_str()))
            .count()
            .get_result(&mut self.conn().await?)
            .await
            .map_err(from_diesel)?;
        Ok(u64::try_from(completed).unwrap_or(0))
    }

    async fn find_session(&self, campaign: CampaignId, id: SessionId) -> Result<Option<SessionRecord>> {
        let row: Option<SessionRow> = sessions::table
            .filter(sessions::id.eq(id.0))
            .filter(sessions::campaign_id.eq(campaign.0))
            .select(SessionRow::as_select())
            .first(&mut self.conn().await?)
            .await
            .optional()
            .map_err(from_diesel)?;
        row.map(SessionRow::into_domain).transpose()
    }

    async fn record_answers(&self, session: SessionId, stored: &[StoredAnswer]) -> Result<Progress> {
        let mut conn = self.conn().await?;
        let progress = conn
            .transaction::<_, TxError, _>(async |conn| {
                let status: String =
                    sessions::table.find(session.0).select(sessions::status).for_update().first(conn).await?;
                if status == SessionStatus::Completed.as_str() {
                    return Err(TxError::Domain(already_completed()));
                }
                let rows: Vec<_> = stored
                    .iter()
                    .map(|a| {
                        (
                            answers::session_id.eq(session.0),
                            answers::question_id.eq(&a.question_id),
                            answers::rating.eq(a.rating),
                            answers::text_sealed.eq(&a.text_sealed),
                            answers::word_count.eq(i32::try_from(a.word_count).unwrap_or(i32::MAX)),
                            answers::answered_at.eq(a.answered_at),
                        )
                    })
                    .collect();
                diesel::insert_into(answers::table)
                    .values(rows)
                    .on_conflict((answers::session_id, answers::question_id))
                    .do_update()
                    .set((
                        answers::rating.eq(excluded(answers::rating)),
                        answers::text_sealed.eq(excluded(answers::text_sealed)),
                        answers::word_count.eq(excluded(answers::word_count)),
                        answers::answered_at.eq(excluded(answers::answered_at)),
                    ))
                    .execute(conn)
                    .await?;
                let answered: i64 =
                    answers::table.filter(answers::session_id.eq(session.0)).select(count_star()).first(conn).await?;
                let written = i32::try_from(stored.len()).unwrap_or(i32::MAX);
                let (status, answered, total): (String, i32, i32) = diesel::update(sessions::table.find(session.0))
                    .set((
                        sessions::answered.eq(i32::try_from(answered).unwrap_or(i32::MAX)),
                        sessions::exchanges.eq(sessions::exchanges + written),
                    ))
                    .returning((sessions::status, sessions::answered, sessions::total))
                    .get_result(conn)
                    .await?;
                progress(&status, answered, total).map_err(TxError::Domain)
            })
            .await?;
        Ok(progress)
    }

    async fn complete_session(&self, completion: &Completion) -> Result<Progress> {
        let session = completion.facts.session;
        let mut conn = self.conn().await?;
        conn.transaction::<_, TxError, _>(async |conn| {
            let completed: Option<(String, i32, i32)> = diesel::update(
                sessions::table.find(session.0).filter(sessions::status.eq(SessionStatus::Started.as_str())),
            )
            .set((sessions::status.eq(SessionStatus::Completed.as_str()), sessions::completed_at.eq(completion.at)))
            .returning((sessions::status, sessions::answered, sessions::total))
            .get_result(conn)
            .await
            .optional()?;
            if let Some((status, answered, total)) = completed {
                let progress = progress(&status, answered, total).map_err(TxError::Domain)?;
                // The outbox: the fact and its events commit together or not at all, and the
                // analysis is queued by the same transaction.
                emit_events(conn, &completion.events(&progress)).await?;
                queue_analysis(conn, completion).await?;
                return Ok(progress);
            }
            let (status, answered, total): (String, i32, i32) = sessions::table
                .find(session.0)
                .select((sessions::status, sessions::answered, sessions::total))
                .first(conn)
                .await
                .optional()?
                .ok_or_else(|| TxError::Domain(Error::not_found("session")))?;
            progress(&status, answered, total).map_err(TxError::Domain)
        })
        .await
        .map_err(Error::from)
    }
}
