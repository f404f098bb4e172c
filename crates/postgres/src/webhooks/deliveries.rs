//! Deliveries as the routes and the worker read them: the trail of attempts, claims and
//! redeliveries.

use diesel::pg::Pg;
use diesel::sql_types::{Array, BigInt, Bytea, Integer, Jsonb, Nullable, Text, Timestamptz, Uuid as SqlUuid};
use diesel::{
    ExpressionMethods as _, QueryDsl as _, Queryable, QueryableByName, Selectable, SelectableHelper as _, sql_query,
};
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use pulse_domain::Result;
use pulse_domain::ids::{DeliveryId, EventId, WebhookId, WorkspaceId};
use pulse_domain::webhooks::models::{
    AttemptView, ClaimedDelivery, DeliveryStatus, DeliveryView, NewEvent, PreviousSecret, RedeliveryRange,
    RedeliveryView,
};
use serde_json::Value;
use time::OffsetDateTime;
use uuid::Uuid;

use crate::error::from_diesel;
use crate::rows::to_u32;
use crate::schema::{webhook_attempts, webhook_deliveries, webhook_events, webhook_redeliveries};
use crate::statement::Cached as _;
use crate::webhooks::outbox::{aggregate, corrupt, event_type};

#[derive(Queryable, Selectable)]
#[diesel(table_name = webhook_deliveries, check_for_backend(Pg))]
pub(crate) struct DeliveryRow {
    pub(crate) id: Uuid,
    pub(crate) position: i64,
    pub(crate) event_id: Uuid,
    #[diesel(select_expression = webhook_events::event_type)]
    pub(crate) event_type: String,
    pub(crate) status: String,
    pub(crate) attempts: i32,
    pub(crate) next_attempt_at: Option<OffsetDateTime>,
    pub(crate) last_status_code: Option<i32>,
    pub(crate) last_error: Option<String>,
    #[diesel(select_expression = webhook_events::occurred_at)]
    pub(crate) occurred_at: OffsetDateTime,
    pub(crate) delivered_at: Option<OffsetDateTime>,
}

#[derive(Queryable, Selectable)]
#[diesel(table_name = webhook_attempts, check_for_backend(Pg))]
pub(crate) struct AttemptRow {
    pub(crate) delivery_id: Uuid,
    pub(crate) attempt: i32,
    pub(crate) attempted_at: OffsetDateTime,
    pub(crate) status_code: Option<i32>,
    pub(crate) error: Option<String>,
    pub(crate) duration_ms: i32,
}

#[derive(Queryable, Selectable)]
#[diesel(table_name = webhook_redeliveries, check_for_backend(Pg))]
pub(crate) struct RedeliveryRow {
    pub(crate) delivery_id: Uuid,
    pub(crate) attempts_before: i32,
    pub(crate) requested_at: OffsetDateTime,
}

pub(crate) fn status_code(code: Option<i32>) -> Option<u16> {
    code.and_then(|c| u16::try_from(c).ok())
}

/// The deliveries' views, each with its attempts and redeliveries, in the order of `rows`.
pub(crate) async fn with_trail(conn: &mut AsyncPgConnection, rows: Vec<DeliveryRow>) -> Result<Vec<DeliveryView>> {
    let ids: Vec<Uuid> = rows.iter().map(|r| r.id).collect();
    let attempts: Vec<AttemptRow> = webhook_attempts::table
        .filter(webhook_attempts::delivery_id.eq_any(&ids))
        .order((webhook_attempts::delivery_id, webhook_attempts::attempt))
        .select(AttemptRow::as_select())
        .load(conn)
        .await
        .map_err(from_diesel)?;
    let redeliveries: Vec<RedeliveryRow> = webhook_redeliveries::table
        .filter(webhook_redeliveries::delivery_id.eq_any(&ids))
        .order((webhook_redeliveries::delivery_id, webhook_redeliveries::attempts_before))
        .select(RedeliveryRow::as_select())
        .load(conn)
        .await
        .map_err(from_diesel)?;
    rows.into_iter()
        .map(|row| {
            let history = attempts
                .iter()
                .filter(|a| a.delivery_id == row.id)
                .map(|a| AttemptView {
                    attempt: to_u32(a.attempt),
                    attempted_at: a.attempted_at,
                    status_code: status_code(a.status_code),
                    error: a.error.clone(),
                    duration_ms: to_u32(a.duration_ms),
                })
                .collect();
            let redeliveries = redeliveries
                .iter()
                .filter(|r| r.delivery_id == row.id)
                .map(|r| RedeliveryView { requested_at: r.requested_at, attempts_before: to_u32(r.attempts_before) })
                .collect();
            Ok(DeliveryView {
                id: DeliveryId(row.id),
                event_id: EventId(row.event_id),
                event_type: event_type(&row.event_type)?,
                status: DeliveryStatus::parse(&row.status).ok_or_else(|| corrupt("status"))?,
                attempts: to_u32(row.attempts),
                next_attempt_at: row.next_attempt_at,
                last_status_code: status_code(row.last_status_code),
                last_error: row.last_error,
                occurred_at: row.occurred_at,
                delivered_at: row.delivered_at,
                history,
                redeliveries,
                position: row.position,
            })
        })
        .collect()
}

#[derive(QueryableByName)]
pub(crate) struct Requeued {
    #[diesel(sql_type = BigInt)]
    pub(crate) matched: i64,
}

/// Sends again, as of `at`, the endpoint's deliveries this names (one delivery, or those of events
/// in a range), in one statement; answers how many matched, and changes nothing when more than
/// `max` do. The matching rows are locked first, in the order of their position as the purge
/// locks them, so the status each is judged by is the one it is written from. A DEAD or DELIVERED
/// delivery becomes PENDING and due at `at`, its attempts so far start the fresh limit, and the
/// request joins its trail. A PENDING or FAILED one is made due at `at` unless a worker holds it:
/// its lease stands, so no second worker sends it meanwhile.
pub(crate) async fn requeue(
    conn: &mut AsyncPgConnection,
    subscription: WebhookId,
    delivery: Option<DeliveryId>,
    range: Option<&RedeliveryRange>,
    at: OffsetDateTime,
    max: u32,
) -> Result<i64> {
    let statuses: Vec<&str> = match range {
        Some(range) => range.statuses.iter().map(|s| s.as_str()).collect(),
        None => DeliveryStatus::ALL.iter().map(|s| s.as_str()).collect(),
    };
    let requeued: Requeued = sql_query(include_str!("requeue.sql"))
        .bind::<SqlUuid, _>(subscription.0)
        .bind::<Nullable<SqlUuid>, _>(delivery.map(|d| d.0))
        .bind::<Nullable<Timestamptz>, _>(range.map(|r| r.from))
        .bind::<Nullable<Timestamptz>, _>(range.map(|r| r.to))
        .bind::<Array<Text>, _>(statuses)
        .bind::<BigInt, _>(i64::from(max))
        .bind::<Timestamptz, _>(at)
        .cached()
        .get_result(conn)
        .await
        .map_err(from_diesel)?;
    Ok(requeued.matched)
}

#[derive(QueryableByName)]
pub(crate) struct ClaimedRow {
    #[diesel(sql_type = SqlUuid)]
    pub(crate) id: Uuid,
    #[diesel(sql_type = Integer)]
    pub(crate) attempts: i32,
    #[diesel(sql_type = Integer)]
    pub(crate) attempts_before_redelivery: i32,
    #[diesel(sql_type = SqlUuid)]
    pub(crate) subscription_id: Uuid,
    #[diesel(sql_type = Text)]
    pub(crate) url: String,
    #[diesel(sql_type = Bytea)]
    pub(crate) secret_sealed: Vec<u8>,
    #[diesel(sql_type = Nullable<Bytea>)]
    pub(crate) previous_secret_sealed: Option<Vec<u8>>,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    pub(crate) previous_secret_expires_at: Option<OffsetDateTime>,
    #[diesel(sql_type = SqlUuid)]
    pub(crate) event_id: Uuid,
    #[diesel(sql_type = SqlUuid)]
    pub(crate) workspace_id: Uuid,
    #[diesel(sql_type = Text)]
    pub(crate) event_type: String,
    #[diesel(sql_type = Text)]
    pub(crate) aggregate: String,
    #[diesel(sql_type = SqlUuid)]
    pub(crate) aggregate_id: Uuid,
    #[diesel(sql_type = Jsonb)]
    pub(crate) payload: Value,
    #[diesel(sql_type = Timestamptz)]
    pub(crate) occurred_at: OffsetDateTime,
}

impl ClaimedRow {
    pub(crate) fn into_domain(self, claim_token: Uuid) -> Result<ClaimedDelivery> {
        let Value::Object(payload) = self.payload else { return Err(corrupt("payload")) };
        Ok(ClaimedDelivery {
            id: DeliveryId(self.id),
            claim_token,
            attempts: to_u32(self.attempts),
            attempts_before_redelivery: to_u32(self.attempts_before_redelivery),
            subscription_id: WebhookId(self.subscription_id),
            url: self.url,
            secret_sealed: self.secret_sealed,
            previous_secret: self
                .previous_secret_sealed
                .zip(self.previous_secret_expires_at)
                .map(|(sealed, expires_at)| PreviousSecret { sealed, expires_at }),
            event: NewEvent {
                id: EventId(self.event_id),
                workspace_id: WorkspaceId(self.workspace_id),
                event_type: event_type(&self.event_type)?,
                aggregate: aggregate(&self.aggregate)?,
                aggregate_id: self.aggregate_id,
                payload,
                occurred_at: self.occurred_at,
            },
        })
    }
}

#[derive(QueryableByName)]
pub(crate) struct PositionRow {
    #[diesel(sql_type = SqlUuid)]
    pub(crate) id: Uuid,
    #[diesel(sql_type = BigInt)]
    pub(crate) position: i64,
}
