//! The event outbox: events are written by the transaction of their fact ([`emit_events`]), each
//! with a delivery to every endpoint of its workspace that subscribed to it.

use diesel::sql_query;
use diesel::sql_types::{Jsonb, Text, Timestamptz, Uuid as SqlUuid};
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use pulse_domain::webhooks::models::{EventType, NewEvent, aggregate};
use pulse_domain::{Error, Result};
use serde_json::Value;

use crate::rows::{self};
use crate::statement::Cached as _;

pub(crate) fn corrupt(what: &str) -> Error {
    rows::corrupt("webhook", what)
}

pub(crate) fn event_type(text: &str) -> Result<EventType> {
    EventType::parse(text).ok_or_else(|| corrupt("event type"))
}

/// Every aggregate an event is written with (sessions, webhook tests, exports, outreach): a row
/// this does not know fails the whole claim, and with it every delivery waiting behind it.
pub(crate) fn aggregate(text: &str) -> Result<&'static str> {
    aggregate::ALL.into_iter().find(|a| *a == text).ok_or_else(|| corrupt("aggregate"))
}

/// Writes each event to the outbox with a delivery to every active endpoint of its workspace that
/// subscribed to its type (or to every type), in the caller's transaction.
pub(crate) async fn emit_events(conn: &mut AsyncPgConnection, events: &[NewEvent]) -> diesel::QueryResult<()> {
    for event in events {
        sql_query(
            "WITH event AS (
                INSERT INTO webhook_events (id, workspace_id, event_type, aggregate, aggregate_id, payload, occurred_at)
                VALUES ($1, $2, $3, $4, $5, $6, $7)
                RETURNING id, workspace_id, event_type, occurred_at
            )
            INSERT INTO webhook_deliveries (id, subscription_id, event_id, status, next_attempt_at)
            SELECT gen_random_uuid(), s.id, e.id, 'PENDING', e.occurred_at
            FROM event e JOIN webhook_subscriptions s ON s.workspace_id = e.workspace_id
            WHERE s.is_active AND (cardinality(s.event_types) = 0 OR e.event_type = ANY (s.event_types))",
        )
        .bind::<SqlUuid, _>(event.id.0)
        .bind::<SqlUuid, _>(event.workspace_id.0)
        .bind::<Text, _>(event.event_type.as_str())
        .bind::<Text, _>(event.aggregate)
        .bind::<SqlUuid, _>(event.aggregate_id)
        .bind::<Jsonb, _>(Value::Object(event.payload.clone()))
        .bind::<Timestamptz, _>(event.occurred_at)
        .cached()
        .execute(conn)
        .await?;
    }
    Ok(())
}
