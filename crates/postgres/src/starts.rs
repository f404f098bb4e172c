//! Respondent sessions, started in groups (see `batch`): every start gathered spends its link or
//! token, then the sessions are inserted with one multi-row statement, all in one transaction.

use diesel::prelude::*;
use diesel::result::Error as DieselError;
use diesel_async::pooled_connection::deadpool::Pool;
use diesel_async::{AsyncConnection as _, AsyncPgConnection, RunQueryDsl};
use pulse_domain::Result;
use pulse_domain::apps::models::Attribution;
use pulse_domain::campaigns::models::CampaignStatus;
use pulse_domain::sessions::models::{NewSession, SessionStatus, Spend};
use time::OffsetDateTime;
use uuid::Uuid;

use crate::apps::count_feedback;
use crate::batch::Flush;
use crate::error::{from_diesel, from_pool};
use crate::schema::{campaigns, launch_keys, launch_links, sessions, spent_launch_tokens};

#[derive(Insertable)]
#[diesel(table_name = sessions, check_for_backend(diesel::pg::Pg))]
struct SessionInsert {
    id: Uuid,
    campaign_id: Uuid,
    token_digest: Vec<u8>,
    language: String,
    respondent_id: Option<Uuid>,
    launch_link_id: Option<Uuid>,
    launch_key_id: Option<Uuid>,
    external_user_digest: Option<Vec<u8>>,
    tags: Vec<String>,
    context: serde_json::Value,
    status: &'static str,
    total: i32,
    started_at: OffsetDateTime,
    device_id: Option<Uuid>,
    app_user_id: Option<Uuid>,
    app_install_id: Option<Uuid>,
    identity: Option<&'static str>,
}

impl SessionInsert {
    fn of(session: NewSession) -> Self {
        let attribution = session.attribution;
        Self {
            id: session.id.0,
            campaign_id: session.campaign_id.0,
            token_digest: session.token_digest,
            language: session.language.as_str().to_owned(),
            respondent_id: session.respondent_id.map(|r| r.0),
            launch_link_id: session.launch_link_id.map(|l| l.0),
            launch_key_id: session.launch_key_id.map(|k| k.0),
            external_user_digest: session.external_user_digest,
            tags: session.tags,
            context: serde_json::Value::Object(session.context),
            status: SessionStatus::Started.as_str(),
            total: i32::try_from(session.total_questions).unwrap_or(i32::MAX),
            started_at: session.started_at,
            device_id: attribution.map(|a| a.device_id.0),
            app_user_id: attribution.and_then(|a| a.user_id).map(|u| u.0),
            app_install_id: attribution.and_then(|a| a.install_id).map(|i| i.0),
            identity: attribution.map(|a| a.identity.as_str()),
        }
    }
}

/// What became of one start of a group.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum StartWritten {
    Started,
    /// Its link or token was spent first, or its launch key revoked since it was checked.
    LaunchUsed,
    /// It had no token and its campaign requires signed launches by now.
    SignatureRequired,
    /// Its campaign was paused or closed since the copy the start was checked on.
    NotCollecting(CampaignStatus),
}

/// Writes groups of session starts.
pub(crate) struct SessionStarts {
    pool: Pool<AsyncPgConnection>,
}

impl SessionStarts {
    pub(crate) fn new(pool: Pool<AsyncPgConnection>) -> Self {
        Self { pool }
    }
}

impl Flush for SessionStarts {
    type Item = (NewSession, Spend);
    type Output = StartWritten;

    async fn flush(&self, starts: &[(NewSession, Spend)]) -> Result<Vec<StartWritten>> {
        let mut conn = self.pool.get().await.map_err(from_pool)?;
        // Links and tokens are spent, and app rows counted, in one order in every group, so two
        // groups that touch the same rows never wait for each other in a circle.
        let mut order: Vec<usize> = (0..starts.len()).collect();
        order.sort_by_key(|i| spend_order(&starts[*i].1));
        let written = conn
            .transaction::<_, DieselError, _>(async |conn| {
                let campaigns = campaign_states(conn, starts).await?;
                let mut written = vec![StartWritten::LaunchUsed; starts.len()];
                for index in &order {
                    let (session, spend) = &starts[*index];
                    let state = campaigns.iter().find(|c| c.id == session.campaign_id.0);
                    let status = state.and_then(|c| CampaignStatus::parse(&c.status));
                    written[*index] = if status != Some(CampaignStatus::Active) {
                        StartWritten::NotCollecting(status.unwrap_or(CampaignStatus::Closed))
                    } else if *spend == Spend::Nothing && state.is_some_and(|c| c.require_signed) {
                        StartWritten::SignatureRequired
                    } else if spend_for(conn, session, spend).await? {
                        StartWritten::Started
                    } else {
                        StartWritten::LaunchUsed
                    };
                }
                let started = |i: &usize| written[*i] == StartWritten::Started;
                let mut attributions: Vec<Attribution> =
                    (0..starts.len()).filter(started).filter_map(|i| starts[i].0.attribution).collect();
                let rows: Vec<SessionInsert> =
                    (0..starts.len()).filter(started).map(|i| SessionInsert::of(starts[i].0.clone())).collect();
                if !rows.is_empty() {
                    diesel::insert_into(sessions::table).values(&rows).execute(conn).await?;
                }
                attributions.sort_by_key(|a| a.device_id.0);
                for attribution in &attributions {
                    count_feedback(conn, attribution).await?;
                }
                Ok(written)
            })
            .await
            .map_err(from_diesel)?;
        Ok(written)
    }
}

#[derive(Queryable)]
struct CampaignState {
    id: Uuid,
    status: String,
    require_signed: bool,
}

/// The status and signing rule of the group's campaigns as they are now: the service decided on a
/// copy of each campaign that may predate a pause, a close or `requireSigned`. A start written
/// after a pause or close has committed finds the campaign so.
async fn campaign_states(
    conn: &mut AsyncPgConnection,
    starts: &[(NewSession, Spend)],
) -> Result<Vec<CampaignState>, DieselError> {
    let mut ids: Vec<Uuid> = starts.iter().map(|(s, _)| s.campaign_id.0).collect();
    ids.sort_unstable();
    ids.dedup();
    campaigns::table
        .filter(campaigns::id.eq_any(ids))
        .select((campaigns::id, campaigns::status, campaigns::require_signed))
        .load(conn)
        .await
}

fn spend_order(spend: &Spend) -> (u8, Uuid, String) {
    match spend {
        Spend::Nothing => (0, Uuid::nil(), String::new()),
        Spend::Link(id) => (1, id.0, String::new()),
        Spend::Token { key_id, jti, .. } => (2, key_id.0, jti.clone()),
    }
}

/// Uses up what the start presented; `false` when it was already used, expired or revoked.
async fn spend_for(conn: &mut AsyncPgConnection, session: &NewSession, spend: &Spend) -> Result<bool, DieselError> {
    match spend {
        Spend::Nothing => Ok(true),
        Spend::Link(id) => {
            // The row lock makes a concurrent start wait here, then find the link spent.
            let spent = diesel::update(
                launch_links::table
                    .filter(launch_links::id.eq(id.0))
                    .filter(launch_links::campaign_id.eq(session.campaign_id.0))
                    .filter(launch_links::spent_at.is_null())
                    .filter(launch_links::expires_at.is_null().or(launch_links::expires_at.gt(session.started_at))),
            )
            .set(launch_links::spent_at.eq(session.started_at))
            .execute(conn)
            .await?;
            Ok(spent == 1)
        }
        Spend::Token { key_id, jti, expires_at } => {
            let spent = diesel::insert_into(spent_launch_tokens::table)
                .values((
                    spent_launch_tokens::campaign_id.eq(session.campaign_id.0),
                    spent_launch_tokens::jti.eq(jti),
                    spent_launch_tokens::launch_key_id.eq(key_id.0),
                    spent_launch_tokens::expires_at.eq(expires_at),
                    spent_launch_tokens::spent_at.eq(session.started_at),
                ))
                .on_conflict_do_nothing()
                .execute(conn)
                .await?;
            if spent != 1 {
                return Ok(false);
            }
            // A key revoked since the token was checked no longer starts anything.
            let live = diesel::update(launch_keys::table.find(key_id.0).filter(launch_keys::revoked_at.is_null()))
                .set(launch_keys::last_used_at.eq(session.started_at))
                .execute(conn)
                .await?;
            Ok(live == 1)
        }
    }
}
