//! What a call's turns record (`outreach_calls`), beside the message that placed the call.

use diesel::prelude::*;
use diesel::result::Error as DieselError;
use diesel::sql_types::{Bytea, Nullable, Text, Uuid as SqlUuid};
use diesel::{QueryableByName, sql_query, upsert::excluded};
use diesel_async::{AsyncConnection as _, RunQueryDsl};
use pulse_domain::ids::{CampaignId, MessageId, RespondentId, SessionId, WorkspaceId};
use pulse_domain::outreach::models::{CallContext, CallOutcome, CallUpdate};
use pulse_domain::{Error, Result};
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
            session: row.session_id.map(SessionId).zip(row.session_token_sealed),
            outcome,
        })
    })
    .transpose()
}

pub(super) async fn record_call(store: &PgStore, update: &CallUpdate) -> Result<()> {
    let mut conn = store.conn().await?;
    conn.transaction::<_, DieselError, _>(async |conn| {
        let (session_id, token) = update.session.as_ref().map(|(id, sealed)| (id.0, sealed.as_slice())).unzip();
        let outcome = update.outcome.map(CallOutcome::as_str);
        // The first outcome stays: a status report that races the last turn changes nothing.
        let ended: Option<Option<String>> = outreach_calls::table
            .find(update.message_id.0)
            .select(outreach_calls::outcome)
            .for_update()
            .first(conn)
            .await
            .optional()?;
        if matches!(ended, Some(Some(_))) {
            return Ok(());
        }
        diesel::insert_into(outreach_calls::table)
            .values((
                outreach_calls::message_id.eq(update.message_id.0),
                outreach_calls::provider_call_id.eq(&update.provider_call_id),
                outreach_calls::session_id.eq(session_id),
                outreach_calls::session_token_sealed.eq(token),
                outreach_calls::outcome.eq(outcome),
                outreach_calls::created_at.eq(update.at),
                outreach_calls::updated_at.eq(update.at),
            ))
            .on_conflict(outreach_calls::message_id)
            .do_update()
            .set((
                outreach_calls::provider_call_id
                    .eq(coalesce(outreach_calls::provider_call_id, excluded(outreach_calls::provider_call_id))),
                outreach_calls::session_id
                    .eq(coalesce(outreach_calls::session_id, excluded(outreach_calls::session_id))),
                outreach_calls::session_token_sealed
                    .eq(coalesce(outreach_calls::session_token_sealed, excluded(outreach_calls::session_token_sealed))),
                outreach_calls::outcome.eq(coalesce(outreach_calls::outcome, excluded(outreach_calls::outcome))),
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
