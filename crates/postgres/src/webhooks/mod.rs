//! Webhook endpoints, the event outbox and deliveries. Events are written by the transaction of
//! their fact (`outbox`); workers claim due deliveries with `FOR UPDATE SKIP LOCKED` under a
//! lease, so replicas never claim the same one and a dead worker's claim runs out; attempts are
//! recorded in groups by `attempts`.
//!
//! A writer that locks several rows locks deliveries in the order of their position, then
//! endpoints in the order of their id: redeliveries, the purge, attempts and an endpoint's
//! deletion then never wait for one another in a cycle. Attempts lock endpoints `FOR NO KEY
//! UPDATE`, which leaves alone the key locks a transaction writing an event takes on every
//! endpoint it queues a delivery for, in no set order.

pub(crate) mod attempts;
mod deliveries;
pub(crate) mod outbox;

use diesel::pg::Pg;
use diesel::sql_types::{Array, BigInt, Bool, Bytea, Jsonb, Nullable, Text, Timestamptz, Uuid as SqlUuid};
use diesel::{
    BoolExpressionMethods as _, ExpressionMethods as _, IntoSql as _, NullableExpressionMethods as _,
    OptionalExtension as _, QueryDsl as _, Queryable, QueryableByName, Selectable, SelectableHelper as _, sql_query,
};
use diesel_async::{AsyncConnection as _, RunQueryDsl};
use pulse_domain::audit::models::AuditEntry;
use pulse_domain::ids::{DeliveryId, WebhookId, WorkspaceId};
use pulse_domain::shared::paging::PageRequest;
use pulse_domain::webhooks::models::{
    AttemptRecord, Claim, ClaimedDelivery, DeliveryStatus, DeliveryView, EventType, NewEvent, NewSubscription,
    RedeliveryRange, SecretRotation, Subscription, SubscriptionChanges,
};
use pulse_domain::webhooks::ports::WebhookRepository;
use pulse_domain::{Error, ErrorCode, Result};
use serde_json::Value;
use time::OffsetDateTime;
use uuid::Uuid;

use crate::audit::write_audit;
use crate::error::from_diesel;
use crate::rows::IdRow;
use crate::schema::{webhook_deliveries, webhook_events, webhook_subscriptions, workspaces};
use crate::statement::Cached as _;
use crate::store::{PgStore, TxError};
use crate::webhooks::attempts::AttemptRecords;
use crate::webhooks::deliveries::*;
use crate::webhooks::outbox::event_type;

const SUBSCRIPTION_COLUMNS: &str =
    "id, workspace_id, url, description, event_types, is_active, disabled_at, disabled_reason, created_at";

/// Read by the DSL, and by name from the raw update's `RETURNING` ([`SUBSCRIPTION_COLUMNS`]).
#[derive(Queryable, QueryableByName, Selectable)]
#[diesel(table_name = webhook_subscriptions, check_for_backend(Pg))]
struct SubscriptionRow {
    id: Uuid,
    workspace_id: Uuid,
    url: String,
    description: Option<String>,
    event_types: Vec<String>,
    is_active: bool,
    disabled_at: Option<OffsetDateTime>,
    disabled_reason: Option<String>,
    created_at: OffsetDateTime,
}

impl SubscriptionRow {
    fn into_domain(self) -> Result<Subscription> {
        Ok(Subscription {
            id: WebhookId(self.id),
            workspace_id: WorkspaceId(self.workspace_id),
            url: self.url,
            description: self.description,
            event_types: self.event_types.iter().map(|t| event_type(t)).collect::<Result<_>>()?,
            is_active: self.is_active,
            disabled_at: self.disabled_at,
            disabled_reason: self.disabled_reason,
            created_at: self.created_at,
        })
    }
}

fn type_names(types: &[EventType]) -> Vec<&'static str> {
    types.iter().map(|t| t.as_str()).collect()
}

impl WebhookRepository for PgStore {
    async fn insert_subscription(
        &self,
        new: &NewSubscription,
        max_per_workspace: usize,
        audit: &AuditEntry,
    ) -> Result<()> {
        let s = &new.subscription;
        let max = i64::try_from(max_per_workspace).unwrap_or(i64::MAX);
        let mut conn = self.conn().await?;
        conn.transaction::<_, TxError, _>(async |conn| {
            // Serialises creations in the workspace, so the limit holds under concurrency.
            workspaces::table.find(s.workspace_id.0).select(workspaces::id).for_no_key_update().execute(conn).await?;
            let held: i64 = webhook_subscriptions::table
                .filter(webhook_subscriptions::workspace_id.eq(s.workspace_id.0))
                .count()
                .get_result(conn)
                .await?;
            if held >= max {
                return Err(TxError::Domain(Error::refused(
                    ErrorCode::Conflict,
                    format!("a workspace holds at most {max_per_workspace} webhook endpoints; delete one first"),
                )));
            }
            diesel::insert_into(webhook_subscriptions::table)
                .values((
                    webhook_subscriptions::id.eq(s.id.0),
                    webhook_subscriptions::workspace_id.eq(s.workspace_id.0),
                    webhook_subscriptions::url.eq(&s.url),
                    webhook_subscriptions::description.eq(s.description.as_deref()),
                    webhook_subscriptions::event_types.eq(type_names(&s.event_types)),
                    webhook_subscriptions::secret_sealed.eq(new.secret_sealed.as_slice()),
                    webhook_subscriptions::is_active.eq(s.is_active),
                    webhook_subscriptions::created_at.eq(s.created_at),
                    webhook_subscriptions::updated_at.eq(s.created_at),
                ))
                .execute(conn)
                .await?;
            write_audit(conn, audit).await?;
            Ok(())
        })
        .await
        .map_err(Error::from)
    }

    async fn list_subscriptions(&self, workspace: WorkspaceId) -> Result<Vec<Subscription>> {
        let rows: Vec<SubscriptionRow> = webhook_subscriptions::table
            .filter(webhook_subscriptions::workspace_id.eq(workspace.0))
            .order((webhook_subscriptions::created_at, webhook_subscriptions::id))
            .select(SubscriptionRow::as_select())
            .load(&mut self.conn().await?)
            .await
            .map_err(from_diesel)?;
        rows.into_iter().map(SubscriptionRow::into_domain).collect()
    }

    async fn find_subscription(&self, workspace: WorkspaceId, id: WebhookId) -> Result<Option<Subscription>> {
        let row: Option<SubscriptionRow> = webhook_subscriptions::table
            .filter(webhook_subscriptions::id.eq(id.0))
            .filter(webhook_subscriptions::workspace_id.eq(workspace.0))
            .select(SubscriptionRow::as_select())
            .get_result(&mut self.conn().await?)
            .await
            .optional()
            .map_err(from_diesel)?;
        row.map(SubscriptionRow::into_domain).transpose()
    }

    async fn update_subscription(
        &self,
        workspace: WorkspaceId,
        id: WebhookId,
        changes: &SubscriptionChanges,
        at: OffsetDateTime,
        audit: &AuditEntry,
    ) -> Result<Option<Subscription>> {
        let statement = format!(
            "UPDATE webhook_subscriptions SET
                url = COALESCE($3, url),
                description = CASE WHEN $4 THEN $5 ELSE description END,
                event_types = COALESCE($6, event_types),
                is_active = COALESCE($7, is_active),
                disabled_at = CASE WHEN $7 IS TRUE THEN NULL ELSE disabled_at END,
                disabled_reason = CASE WHEN $7 IS TRUE THEN NULL ELSE disabled_reason END,
                dead_in_a_row = CASE WHEN $7 IS TRUE THEN 0 ELSE dead_in_a_row END,
                updated_at = $8
            WHERE id = $1 AND workspace_id = $2
            RETURNING {SUBSCRIPTION_COLUMNS}"
        );
        let mut conn = self.conn().await?;
        let row = conn
            .transaction::<_, TxError, _>(async |conn| {
                let rows: Vec<SubscriptionRow> = sql_query(statement.as_str())
                    .bind::<SqlUuid, _>(id.0)
                    .bind::<SqlUuid, _>(workspace.0)
                    .bind::<Nullable<Text>, _>(changes.url.as_deref())
                    .bind::<Bool, _>(changes.description.is_some())
                    .bind::<Nullable<Text>, _>(changes.description.clone().flatten())
                    .bind::<Nullable<Array<Text>>, _>(changes.event_types.as_deref().map(type_names))
                    .bind::<Nullable<Bool>, _>(changes.is_active)
                    .bind::<Timestamptz, _>(at)
                    .cached()
                    .load(conn)
                    .await?;
                let row = rows.into_iter().next();
                if row.is_some() {
                    write_audit(conn, audit).await?;
                }
                Ok(row)
            })
            .await
            .map_err(Error::from)?;
        row.map(SubscriptionRow::into_domain).transpose()
    }

    async fn rotate_secret(
        &self,
        workspace: WorkspaceId,
        id: WebhookId,
        rotation: &SecretRotation,
        audit: &AuditEntry,
    ) -> Result<bool> {
        let mut conn = self.conn().await?;
        conn.transaction::<_, TxError, _>(async |conn| {
            // SET reads the row as it was: the secret being replaced becomes the previous one.
            let rotated = sql_query(
                "UPDATE webhook_subscriptions SET
                    previous_secret_sealed = CASE WHEN $4::timestamptz IS NULL THEN NULL ELSE secret_sealed END,
                    previous_secret_expires_at = $4,
                    secret_sealed = $3,
                    updated_at = $5
                WHERE id = $1 AND workspace_id = $2",
            )
            .bind::<SqlUuid, _>(id.0)
            .bind::<SqlUuid, _>(workspace.0)
            .bind::<Bytea, _>(&rotation.secret_sealed)
            .bind::<Nullable<Timestamptz>, _>(rotation.previous_expires_at)
            .bind::<Timestamptz, _>(rotation.at)
            .cached()
            .execute(conn)
            .await?;
            if rotated > 0 {
                write_audit(conn, audit).await?;
            }
            Ok(rotated > 0)
        })
        .await
        .map_err(Error::from)
    }

    async fn delete_subscription(&self, workspace: WorkspaceId, id: WebhookId, audit: &AuditEntry) -> Result<bool> {
        let mut conn = self.conn().await?;
        conn.transaction::<_, TxError, _>(async |conn| {
            // The cascade would lock the deliveries after the endpoint, in no set order. Only a
            // delivery queued between this statement and the next is left to it.
            sql_query(
                "SELECT 1 FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id
                WHERE s.id = $1 AND s.workspace_id = $2 ORDER BY d.position FOR UPDATE OF d",
            )
            .bind::<SqlUuid, _>(id.0)
            .bind::<SqlUuid, _>(workspace.0)
            .cached()
            .execute(conn)
            .await?;
            let deleted = diesel::delete(
                webhook_subscriptions::table
                    .filter(webhook_subscriptions::id.eq(id.0))
                    .filter(webhook_subscriptions::workspace_id.eq(workspace.0)),
            )
            .execute(conn)
            .await?;
            if deleted > 0 {
                write_audit(conn, audit).await?;
            }
            Ok(deleted > 0)
        })
        .await
        .map_err(Error::from)
    }

    async fn queue_test_event(
        &self,
        workspace: WorkspaceId,
        id: WebhookId,
        event: &NewEvent,
    ) -> Result<Option<DeliveryView>> {
        let rows: Vec<PositionRow> = sql_query(
            "WITH target AS (
                SELECT id FROM webhook_subscriptions WHERE id = $1 AND workspace_id = $2
            ), event AS (
                INSERT INTO webhook_events (id, workspace_id, event_type, aggregate, aggregate_id, payload, occurred_at)
                SELECT $3, $2, $4, $5, $6, $7, $8 FROM target
                RETURNING id
            )
            INSERT INTO webhook_deliveries (id, subscription_id, event_id, status, next_attempt_at)
            SELECT gen_random_uuid(), target.id, event.id, 'PENDING', $8 FROM target, event
            RETURNING id, position",
        )
        .bind::<SqlUuid, _>(id.0)
        .bind::<SqlUuid, _>(workspace.0)
        .bind::<SqlUuid, _>(event.id.0)
        .bind::<Text, _>(event.event_type.as_str())
        .bind::<Text, _>(event.aggregate)
        .bind::<SqlUuid, _>(event.aggregate_id)
        .bind::<Jsonb, _>(Value::Object(event.payload.clone()))
        .bind::<Timestamptz, _>(event.occurred_at)
        .cached()
        .load(&mut self.conn().await?)
        .await
        .map_err(from_diesel)?;
        Ok(rows.into_iter().next().map(|row| DeliveryView {
            id: DeliveryId(row.id),
            event_id: event.id,
            event_type: event.event_type,
            status: DeliveryStatus::Pending,
            attempts: 0,
            next_attempt_at: Some(event.occurred_at),
            last_status_code: None,
            last_error: None,
            occurred_at: event.occurred_at,
            delivered_at: None,
            history: vec![],
            redeliveries: vec![],
            position: row.position,
        }))
    }

    async fn list_deliveries(&self, subscription: WebhookId, page: &PageRequest) -> Result<Vec<DeliveryView>> {
        let mut conn = self.read_conn().await?;
        let before = page.after.map(|k| k.position);
        let rows: Vec<DeliveryRow> = webhook_deliveries::table
            .inner_join(webhook_events::table)
            .filter(webhook_deliveries::subscription_id.eq(subscription.0))
            .filter(
                before.into_sql::<Nullable<BigInt>>().is_null().or(webhook_deliveries::position.nullable().lt(before)),
            )
            .order(webhook_deliveries::position.desc())
            .limit(i64::from(page.limit) + 1)
            .select(DeliveryRow::as_select())
            .load(&mut conn)
            .await
            .map_err(from_diesel)?;
        with_trail(&mut conn, rows).await
    }

    async fn redeliver(
        &self,
        subscription: WebhookId,
        delivery: DeliveryId,
        at: OffsetDateTime,
        audit: &AuditEntry,
    ) -> Result<Option<DeliveryView>> {
        let mut conn = self.conn().await?;
        // Read back before the commit: once it commits, a worker may claim the delivery, and the
        // answer would show the worker's lease instead of the redelivery.
        conn.transaction::<_, TxError, _>(async |conn| {
            if requeue(conn, subscription, Some(delivery), None, at, 1).await.map_err(TxError::Domain)? == 0 {
                return Ok(None);
            }
            write_audit(conn, audit).await?;
            let rows: Vec<DeliveryRow> = webhook_deliveries::table
                .inner_join(webhook_events::table)
                .filter(webhook_deliveries::id.eq(delivery.0))
                .select(DeliveryRow::as_select())
                .load(conn)
                .await?;
            Ok(with_trail(conn, rows).await.map_err(TxError::Domain)?.pop())
        })
        .await
        .map_err(Error::from)
    }

    async fn redeliver_range(
        &self,
        subscription: WebhookId,
        range: &RedeliveryRange,
        at: OffsetDateTime,
        max: u32,
        audit: &AuditEntry,
    ) -> Result<Option<u64>> {
        let mut conn = self.conn().await?;
        conn.transaction::<_, TxError, _>(async |conn| {
            let matched = requeue(conn, subscription, None, Some(range), at, max).await.map_err(TxError::Domain)?;
            // Above the cap the requeue changed nothing, and with none matched there was nothing
            // to send again: neither is a redelivery to record.
            let requeued = u64::try_from(matched).ok().filter(|n| *n <= u64::from(max));
            if requeued.is_some_and(|n| n > 0) {
                write_audit(conn, audit).await?;
            }
            Ok(requeued)
        })
        .await
        .map_err(Error::from)
    }

    async fn claim_deliveries(&self, claim: &Claim) -> Result<Vec<ClaimedDelivery>> {
        // Moving `next_attempt_at` to the lease's end is the claim: a concurrent claimer skips the
        // locked rows, and once this commits they are no longer due.
        let rows: Vec<ClaimedRow> = sql_query(
            "WITH due AS (
                SELECT d.id FROM webhook_deliveries d
                JOIN webhook_subscriptions s ON s.id = d.subscription_id
                JOIN webhook_events e ON e.id = d.event_id
                WHERE d.status IN ('PENDING', 'FAILED') AND d.next_attempt_at <= $1
                    AND (s.is_active OR e.event_type = 'webhook.test')
                ORDER BY d.next_attempt_at
                LIMIT $2
                FOR UPDATE OF d SKIP LOCKED
            )
            UPDATE webhook_deliveries d SET next_attempt_at = $3, claim_token = $4
            FROM due, webhook_subscriptions s, webhook_events e
            WHERE d.id = due.id AND s.id = d.subscription_id AND e.id = d.event_id
            RETURNING d.id, d.attempts, d.attempts_before_redelivery, s.id AS subscription_id, s.url, s.secret_sealed,
                CASE WHEN s.previous_secret_expires_at > $1 THEN s.previous_secret_sealed END AS previous_secret_sealed,
                CASE WHEN s.previous_secret_expires_at > $1 THEN s.previous_secret_expires_at END
                    AS previous_secret_expires_at,
                e.id AS event_id,
                e.workspace_id, e.event_type, e.aggregate, e.aggregate_id, e.payload, e.occurred_at",
        )
        .bind::<Timestamptz, _>(claim.now)
        .bind::<BigInt, _>(i64::from(claim.limit))
        .bind::<Timestamptz, _>(claim.lease_until)
        .bind::<SqlUuid, _>(claim.token)
        .cached()
        .load(&mut self.conn().await?)
        .await
        .map_err(from_diesel)?;
        rows.into_iter().map(|row| row.into_domain(claim.token)).collect()
    }

    async fn record_attempt(&self, attempt: &AttemptRecord) -> Result<bool> {
        // Written with the attempts other sends finished meanwhile (`attempts`).
        self.writer::<AttemptRecords>()?.submit(attempt.clone()).await
    }

    /// A redelivery turns a finished delivery back into a pending one without touching its event,
    /// so deciding from one snapshot could delete an event whose delivery was requeued just after
    /// it, and the delivery with it. The purge locks its events (other replicas' purges skip
    /// them), then every delivery of theirs, which waits for a redelivery under way to commit; the
    /// delete then checks again in a snapshot taken after those locks.
    async fn purge_webhook_events(&self, before: OffsetDateTime, max: u32) -> Result<u64> {
        let mut conn = self.conn().await?;
        conn.transaction::<_, TxError, _>(async |conn| {
            let taken: Vec<IdRow> = sql_query(
                "SELECT e.id FROM webhook_events e
                WHERE e.occurred_at < $1 AND NOT EXISTS (
                    SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id AND d.status IN ('PENDING', 'FAILED')
                )
                ORDER BY e.occurred_at
                LIMIT $2
                FOR UPDATE OF e SKIP LOCKED",
            )
            .bind::<Timestamptz, _>(before)
            .bind::<BigInt, _>(i64::from(max))
            .cached()
            .load(conn)
            .await?;
            let ids: Vec<Uuid> = taken.into_iter().map(|row| row.id).collect();
            if ids.is_empty() {
                return Ok(0);
            }
            // In the order of their position, as a redelivery locks them, so neither waits for the
            // other in a cycle.
            webhook_deliveries::table
                .filter(webhook_deliveries::event_id.eq_any(&ids))
                .order(webhook_deliveries::position)
                .select(webhook_deliveries::id)
                .for_update()
                .execute(conn)
                .await?;
            let deleted = sql_query(
                "DELETE FROM webhook_events e WHERE e.id = ANY ($1) AND NOT EXISTS (
                    SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id AND d.status IN ('PENDING', 'FAILED')
                )",
            )
            .bind::<Array<SqlUuid>, _>(&ids)
            .cached()
            .execute(conn)
            .await?;
            Ok(deleted as u64)
        })
        .await
        .map_err(Error::from)
    }
}

#[cfg(test)]
mod tests {
    use diesel_async::{AsyncConnection as _, AsyncPgConnection, SimpleAsyncConnection as _};
    use pulse_domain::audit::models::AuditAction;
    use pulse_domain::shared::clock::Clock as _;
    use pulse_testing::contract::World;
    use pulse_testing::contract::webhooks::{endpoint_with, settle};
    use time::Duration;

    use super::*;
    use crate::test_db::{ONE_ENDPOINT, ONE_WORKSPACE, TestDatabase, until_settled};
    use crate::{PoolSettings, connect};

    #[tokio::test]
    async fn a_redelivery_under_way_is_neither_claimed_nor_purged_with_its_event() {
        let database = TestDatabase::create().await;
        let store = connect(database.url(), &PoolSettings { max_size: 4, ..PoolSettings::default() }).expect("a pool");
        let w = World::new(store.clone());
        let partner = w.partner("Acme").await;
        let endpoint = endpoint_with(&w, &partner, 1).await;
        let claim =
            |now: OffsetDateTime| Claim { token: Uuid::new_v4(), now, lease_until: now + Duration::MINUTE, limit: 5 };
        let now = w.clock.now();
        // The workspace's approval left an event no endpoint heard: out of the way first.
        assert_eq!(store.purge_webhook_events(now + Duration::SECOND, 10).await.expect("purged"), 1);
        let delivery = settle(&w, now, &[Some(DeliveryStatus::Delivered)]).await.pop().expect("the delivery");

        // The redelivery stalls after its requeue, reading the delivery's attempts back.
        let past_retention = now + Duration::days(31);
        let mut holder = AsyncPgConnection::establish(database.url()).await.expect("a connection");
        let mut watcher = AsyncPgConnection::establish(database.url()).await.expect("a connection");
        holder.batch_execute("BEGIN; LOCK TABLE webhook_attempts IN ACCESS EXCLUSIVE MODE").await.expect("locked");
        let action = AuditAction::WebhookRedelivered;
        let audit = AuditEntry::by_key(&partner.principal, partner.workspace, action, endpoint, past_retention);
        let redelivery = tokio::spawn({
            let store = store.clone();
            async move { store.redeliver(endpoint, delivery.id, past_retention, &audit).await }
        });
        until_settled(&mut watcher, 1, || i64::from(redelivery.is_finished())).await;
        let claimed = store.claim_deliveries(&claim(past_retention)).await.expect("claimed");
        assert!(claimed.is_empty(), "a worker claimed a delivery whose redelivery was not yet answered");
        let purge = tokio::spawn({
            let store = store.clone();
            async move { store.purge_webhook_events(past_retention, 10).await }
        });
        until_settled(&mut watcher, 2, || i64::from(redelivery.is_finished()) + i64::from(purge.is_finished())).await;
        holder.batch_execute("COMMIT").await.expect("released");

        let redelivered = redelivery.await.expect("joined").expect("redelivered").expect("found");
        assert_eq!((redelivered.status, redelivered.next_attempt_at), (DeliveryStatus::Pending, Some(past_retention)));
        assert_eq!(purge.await.expect("joined").expect("purged"), 0, "the event of a pending delivery was purged");
        let trail = store.list_deliveries(endpoint, &PageRequest { limit: 5, after: None }).await.expect("listed");
        assert_eq!(trail, [redelivered], "the redelivered delivery is still there, as answered");
    }

    /// Five events of [`ONE_ENDPOINT`], each with a delivery: `event0` of today, delivered; `event1`
    /// to `event4` 60 days and 1 to 4 hours old, `event1`'s failed and the others delivered.
    const FIVE_EVENTS: &str = "\
        INSERT INTO webhook_events (id, workspace_id, event_type, aggregate, aggregate_id, payload, occurred_at) \
        SELECT md5('event' || i)::uuid, '00000000-0000-0000-0000-00000000000a', 'webhook.test', 'webhook', \
        gen_random_uuid(), '{}', now() - CASE WHEN i = 0 THEN interval '0' ELSE interval '60 days' + i * interval '1 hour' END \
        FROM generate_series(0, 4) AS i; \
        INSERT INTO webhook_deliveries (id, subscription_id, event_id, status, attempts) \
        SELECT gen_random_uuid(), '00000000-0000-0000-0000-0000000000ee', md5('event' || i)::uuid, \
        CASE WHEN i = 1 THEN 'FAILED' ELSE 'DELIVERED' END, 1 FROM generate_series(0, 4) AS i;";

    #[derive(QueryableByName)]
    struct Name {
        #[diesel(sql_type = Text)]
        name: String,
    }

    /// Which of [`FIVE_EVENTS`] are left.
    async fn events_left(conn: &mut AsyncPgConnection) -> Vec<String> {
        let rows: Vec<Name> = sql_query(
            "SELECT 'event' || i AS name FROM generate_series(0, 4) AS i
            WHERE md5('event' || i)::uuid IN (SELECT id FROM webhook_events) ORDER BY i",
        )
        .load(conn)
        .await
        .expect("read");
        rows.into_iter().map(|row| row.name).collect()
    }

    #[tokio::test]
    async fn a_purge_takes_at_most_its_count_of_the_oldest_events_and_leaves_what_it_must_keep() {
        let database = TestDatabase::create().await;
        let store = connect(database.url(), &PoolSettings { max_size: 2, ..PoolSettings::default() }).expect("a pool");
        let mut conn = store.conn().await.expect("a connection");
        conn.batch_execute(ONE_WORKSPACE).await.expect("a workspace");
        conn.batch_execute(ONE_ENDPOINT).await.expect("an endpoint");
        conn.batch_execute(FIVE_EVENTS).await.expect("seeded");
        let month_ago = OffsetDateTime::now_utc() - Duration::days(30);
        assert_eq!(store.purge_webhook_events(month_ago, 2).await.expect("purged"), 2);
        assert_eq!(events_left(&mut conn).await, ["event0", "event1", "event2"], "the two oldest go first");
        assert_eq!(store.purge_webhook_events(month_ago, 2).await.expect("purged"), 1);
        assert_eq!(store.purge_webhook_events(month_ago, 2).await.expect("purged"), 0);
        assert_eq!(events_left(&mut conn).await, ["event0", "event1"], "today's, and the failed delivery's");
        let deliveries: i64 = webhook_deliveries::table.count().get_result(&mut conn).await.expect("counted");
        assert_eq!(deliveries, 2, "the purged events' deliveries went with them");
    }
}
