//! Respondent sessions, started in groups (see `batch`): every start gathered spends its link or
//! token, then the sessions are inserted with one multi-row statement, all in one transaction. A
//! group with nothing to spend or count (an open campaign's visitors) is one statement in all.

use diesel::prelude::*;
use diesel::result::Error as DieselError;
use diesel::sql_query;
use diesel::sql_types::{Array, Bytea, Integer, Jsonb, Nullable, Text, Timestamptz, Uuid as SqlUuid};
use diesel_async::pooled_connection::deadpool::Pool;
use diesel_async::{AsyncConnection as _, AsyncPgConnection, RunQueryDsl};
use pulse_domain::Result;
use pulse_domain::apps::models::Attribution;
use pulse_domain::campaigns::models::CampaignStatus;
use pulse_domain::sessions::models::{NewSession, SessionStatus, Spend};
use pulse_domain::shared::hex;
use time::OffsetDateTime;
use uuid::Uuid;

use crate::apps::statements::count_feedback;
use crate::batch::{Flush, GroupCommit, SMALL_ROWS};
use crate::campaigns::state::{CampaignState, campaign_states, stopped};
use crate::error::{from_diesel, from_pool};
use crate::schema::{launch_keys, launch_links, sessions, spent_challenges, spent_launch_tokens};
use crate::statement::Cached as _;

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
    /// Its solved challenge was spent first.
    ChallengeUsed,
    /// It had no token and its campaign requires signed launches by now.
    SignatureRequired,
    /// Its campaign was paused or closed since the copy the start was checked on.
    NotCollecting(CampaignStatus),
}

/// Writes groups of session starts.
pub(crate) struct SessionStarts {
    pool: Pool<AsyncPgConnection>,
}

/// The group writer, on `pool`.
pub(crate) fn writer(pool: Pool<AsyncPgConnection>) -> GroupCommit<SessionStarts> {
    GroupCommit::new(SessionStarts { pool }, SMALL_ROWS)
}

impl Flush for SessionStarts {
    type Item = (NewSession, Spend);
    type Output = StartWritten;

    async fn flush(&self, starts: &[(NewSession, Spend)]) -> Result<Vec<StartWritten>> {
        let mut conn = self.pool.get().await.map_err(from_pool)?;
        if starts.iter().all(|(session, spend)| plain(session, spend)) {
            return start_plain(&mut conn, starts).await.map_err(from_diesel);
        }
        // Links and tokens are spent, and app rows counted, in one order in every group, so two
        // groups that touch the same rows never wait for each other in a circle.
        let mut order: Vec<usize> = (0..starts.len()).collect();
        order.sort_by_key(|i| spend_order(&starts[*i].1));
        let written = conn
            .transaction::<_, DieselError, _>(async |conn| {
                let campaigns = campaign_states(conn, starts.iter().map(|(s, _)| s.campaign_id.0)).await?;
                let mut written = vec![StartWritten::LaunchUsed; starts.len()];
                for index in &order {
                    let (session, spend) = &starts[*index];
                    written[*index] = if let Some(refused) = refusal(&campaigns, session, spend) {
                        refused
                    } else if spend_for(conn, session, spend).await? {
                        StartWritten::Started
                    } else if let Spend::Challenge(_) = spend {
                        StartWritten::ChallengeUsed
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

/// Why a start cannot be written whatever it spends, by its campaign's state now.
fn refusal(campaigns: &[CampaignState], session: &NewSession, spend: &Spend) -> Option<StartWritten> {
    if let Some(status) = stopped(campaigns, session.campaign_id.0) {
        Some(StartWritten::NotCollecting(status))
    } else if spend.is_unsigned() && campaigns.iter().any(|c| c.id == session.campaign_id.0 && c.require_signed) {
        Some(StartWritten::SignatureRequired)
    } else {
        None
    }
}

/// A start that spends nothing, counts on no app row and carries no tags (an open campaign's
/// visitor): a group of only these is written by one statement.
fn plain(session: &NewSession, spend: &Spend) -> bool {
    *spend == Spend::Nothing && session.attribution.is_none() && session.tags.is_empty()
}

/// Writes a group of [`plain`] starts with one statement, its own transaction: it reads the
/// campaigns' states and inserts the sessions of those that still collect without signing, and
/// the same states decide each start's outcome here.
async fn start_plain(
    conn: &mut AsyncPgConnection,
    starts: &[(NewSession, Spend)],
) -> Result<Vec<StartWritten>, DieselError> {
    let rows: Vec<SessionInsert> = starts.iter().map(|(session, _)| SessionInsert::of(session.clone())).collect();
    let campaigns: Vec<CampaignState> = sql_query(concat!(
        "WITH states AS (SELECT id, status, require_signed FROM campaigns WHERE id = ANY($2::uuid[])), ",
        "started AS (INSERT INTO sessions (id, campaign_id, token_digest, language, respondent_id, ",
        "launch_link_id, launch_key_id, external_user_digest, tags, context, status, total, started_at) ",
        "SELECT t.id, t.campaign_id, t.token_digest, t.language, t.respondent_id, t.launch_link_id, ",
        "t.launch_key_id, t.external_user_digest, '{}', t.context, $12, t.total, t.started_at ",
        "FROM unnest($1::uuid[], $2::uuid[], $3::bytea[], $4::text[], $5::uuid[], $6::uuid[], $7::uuid[], ",
        "$8::bytea[], $9::jsonb[], $10::int4[], $11::timestamptz[]) AS t(id, campaign_id, token_digest, ",
        "language, respondent_id, launch_link_id, launch_key_id, external_user_digest, context, total, ",
        "started_at) JOIN states ON states.id = t.campaign_id ",
        "WHERE states.status = $13 AND NOT states.require_signed) ",
        "SELECT id, status, require_signed FROM states"
    ))
    .bind::<Array<SqlUuid>, _>(rows.iter().map(|r| r.id).collect::<Vec<_>>())
    .bind::<Array<SqlUuid>, _>(rows.iter().map(|r| r.campaign_id).collect::<Vec<_>>())
    .bind::<Array<Bytea>, _>(rows.iter().map(|r| r.token_digest.as_slice()).collect::<Vec<_>>())
    .bind::<Array<Text>, _>(rows.iter().map(|r| r.language.as_str()).collect::<Vec<_>>())
    .bind::<Array<Nullable<SqlUuid>>, _>(rows.iter().map(|r| r.respondent_id).collect::<Vec<_>>())
    .bind::<Array<Nullable<SqlUuid>>, _>(rows.iter().map(|r| r.launch_link_id).collect::<Vec<_>>())
    .bind::<Array<Nullable<SqlUuid>>, _>(rows.iter().map(|r| r.launch_key_id).collect::<Vec<_>>())
    .bind::<Array<Nullable<Bytea>>, _>(rows.iter().map(|r| r.external_user_digest.as_deref()).collect::<Vec<_>>())
    .bind::<Array<Jsonb>, _>(rows.iter().map(|r| &r.context).collect::<Vec<_>>())
    .bind::<Array<Integer>, _>(rows.iter().map(|r| r.total).collect::<Vec<_>>())
    .bind::<Array<Timestamptz>, _>(rows.iter().map(|r| r.started_at).collect::<Vec<_>>())
    .bind::<Text, _>(SessionStatus::Started.as_str())
    .bind::<Text, _>(CampaignStatus::Active.as_str())
    .cached()
    .load(conn)
    .await?;
    Ok(starts
        .iter()
        .map(|(session, spend)| refusal(&campaigns, session, spend).unwrap_or(StartWritten::Started))
        .collect())
}

fn spend_order(spend: &Spend) -> (u8, Uuid, String) {
    match spend {
        Spend::Nothing => (0, Uuid::nil(), String::new()),
        Spend::Link(id) => (1, id.0, String::new()),
        Spend::Token { key_id, jti, .. } => (2, key_id.0, jti.clone()),
        Spend::Challenge(spent) => (3, Uuid::nil(), hex::encode(&spent.fingerprint)),
    }
}

/// Uses up what the start presented; `false` when it was already used, expired or revoked.
async fn spend_for(conn: &mut AsyncPgConnection, session: &NewSession, spend: &Spend) -> Result<bool, DieselError> {
    match spend {
        Spend::Nothing => Ok(true),
        Spend::Challenge(spent) => {
            let spent = diesel::insert_into(spent_challenges::table)
                .values((
                    spent_challenges::fingerprint.eq(&spent.fingerprint),
                    spent_challenges::expires_at.eq(spent.expires_at),
                ))
                .on_conflict_do_nothing()
                .execute(conn)
                .await?;
            Ok(spent == 1)
        }
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
