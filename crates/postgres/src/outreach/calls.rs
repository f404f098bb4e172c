//! What a call's turns record (`outreach_calls`), beside the message that placed the call.

use diesel::prelude::*;
use diesel::result::Error as DieselError;
use diesel::sql_types::{Bool, Bytea, Nullable, SmallInt, Text, Uuid as SqlUuid};
use diesel::{QueryableByName, sql_query};
use diesel_async::{AsyncConnection as _, RunQueryDsl};
use pulse_domain::campaigns::models::{DeliveryChannel, Register};
use pulse_domain::ids::{CampaignId, MessageId, RespondentId, SessionId, WorkspaceId};
use pulse_domain::outreach::models::{CallContext, CallOutcome, CallUpdate, MessageStatus};
use pulse_domain::{Error, Result};
use time::OffsetDateTime;
use uuid::Uuid;

use super::RecipientColumns;
use crate::error::from_diesel;
use crate::schema::{outreach_calls, outreach_messages};
use crate::statement::{Cached as _, coalesce};
use crate::store::PgStore;
use crate::webhooks::outbox::emit_events;

/// A TELEPHONY message with its campaign, workspace, respondent and call.
const CALL: &str = include_str!("call.sql");

#[derive(QueryableByName)]
struct CallRow {
    #[diesel(sql_type = SqlUuid)]
    id: Uuid,
    #[diesel(sql_type = Nullable<Text>)]
    provider_message_id: Option<String>,
    #[diesel(sql_type = SqlUuid)]
    workspace_id: Uuid,
    #[diesel(sql_type = Text)]
    workspace_name: String,
    #[diesel(sql_type = SqlUuid)]
    campaign_id: Uuid,
    #[diesel(sql_type = Text)]
    campaign_code: String,
    #[diesel(sql_type = Text)]
    campaign_name: String,
    #[diesel(sql_type = SqlUuid)]
    respondent_id: Uuid,
    #[diesel(embed)]
    recipient: RecipientColumns,
    #[diesel(sql_type = Nullable<SqlUuid>)]
    session_id: Option<Uuid>,
    #[diesel(sql_type = Nullable<Bytea>)]
    session_token_sealed: Option<Vec<u8>>,
    #[diesel(sql_type = Nullable<Text>)]
    outcome: Option<String>,
    #[diesel(sql_type = Nullable<SmallInt>)]
    audio_retention_days: Option<i16>,
    #[diesel(sql_type = Text)]
    language: String,
    #[diesel(sql_type = Text)]
    register: String,
    #[diesel(sql_type = Bool)]
    finished: bool,
}

pub(super) async fn calls_under_way(store: &PgStore, workspace: WorkspaceId, since: OffsetDateTime) -> Result<u64> {
    let under_way: i64 = outreach_messages::table
        .left_join(outreach_calls::table)
        .filter(outreach_messages::workspace_id.eq(workspace.0))
        .filter(outreach_messages::channel.eq(DeliveryChannel::Telephony.as_str()))
        .filter(outreach_messages::status.eq(MessageStatus::Sent.as_str()))
        .filter(outreach_messages::sent_at.ge(since))
        .filter(outreach_calls::outcome.is_null())
        .count()
        .get_result(&mut store.conn().await?)
        .await
        .map_err(from_diesel)?;
    Ok(u64::try_from(under_way).unwrap_or(0))
}

pub(super) async fn call(store: &PgStore, message: MessageId) -> Result<Option<CallContext>> {
    let row: Option<CallRow> = sql_query(CALL)
        .bind::<SqlUuid, _>(message.0)
        .cached()
        .get_result(&mut store.conn().await?)
        .await
        .optional()
        .map_err(from_diesel)?;
    row.map(|row| {
        let outcome = match row.outcome.as_deref() {
            None => None,
            Some(text) => {
                Some(CallOutcome::parse(text).ok_or_else(|| Error::internal("a call has an unknown outcome"))?)
            }
        };
        Ok(CallContext {
            message_id: MessageId(row.id),
            workspace_id: WorkspaceId(row.workspace_id),
            workspace_name: row.workspace_name,
            campaign_id: CampaignId(row.campaign_id),
            campaign_code: row.campaign_code,
            campaign_name: row.campaign_name,
            recipient: row.recipient.into_domain(RespondentId(row.respondent_id)),
            placed_call_id: row.provider_message_id,
            session: row.session_id.map(SessionId).zip(row.session_token_sealed),
            outcome,
            audio_retention_days: row.audio_retention_days.and_then(|days| u8::try_from(days).ok()),
            language: row.language,
            register: Register::parse(&row.register)
                .ok_or_else(|| Error::internal("a survey has an unknown register"))?,
            finished: row.finished,
        })
    })
    .transpose()
}

pub(super) async fn record_call(store: &PgStore, update: &CallUpdate) -> Result<()> {
    let mut conn = store.conn().await?;
    conn.transaction::<_, DieselError, _>(async |conn| {
        // The row first, so that two first turns racing each other wait on its lock below.
        diesel::insert_into(outreach_calls::table)
            .values((
                outreach_calls::message_id.eq(update.message_id.0),
                outreach_calls::created_at.eq(update.at),
                outreach_calls::updated_at.eq(update.at),
            ))
            .on_conflict_do_nothing()
            .execute(conn)
            .await?;
        let (session_held, ended): (Option<Uuid>, Option<String>) = outreach_calls::table
            .find(update.message_id.0)
            .select((outreach_calls::session_id, outreach_calls::outcome))
            .for_update()
            .first(conn)
            .await?;
        // The first outcome stays: a status report that races the last turn changes nothing.
        if ended.is_some() {
            return Ok(());
        }
        let held = outreach_calls::table.find(update.message_id.0);
        if let (None, Some((session, sealed))) = (session_held, &update.session) {
            diesel::update(held)
                .set((outreach_calls::session_id.eq(session.0), outreach_calls::session_token_sealed.eq(sealed)))
                .execute(conn)
                .await?;
        }
        diesel::update(held)
            .set((
                outreach_calls::provider_call_id
                    .eq(coalesce(outreach_calls::provider_call_id, update.provider_call_id.as_deref())),
                outreach_calls::outcome.eq(update.outcome.map(CallOutcome::as_str)),
                outreach_calls::updated_at.eq(update.at),
            ))
            .execute(conn)
            .await?;
        if let Some(reason) = update.outcome.and_then(CallOutcome::not_reached) {
            diesel::update(outreach_messages::table.find(update.message_id.0))
                .set(outreach_messages::reason.eq(reason))
                .execute(conn)
                .await?;
        }
        if let Some(event) = &update.acknowledged {
            emit_events(conn, std::slice::from_ref(event)).await?;
        }
        Ok(())
    })
    .await
    .map_err(from_diesel)
}
