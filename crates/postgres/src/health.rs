//! What the health and metrics endpoints read: whether the database answers, the pool's state,
//! and the work waiting in each queue.

use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use pulse_domain::shared::health::{Backlog, Backlogs, HealthCheck, PoolState, QueueDepth};
use pulse_domain::{Error, Result};
use time::OffsetDateTime;

use crate::error::{from_diesel, from_pool};
use crate::statement::Cached as _;
use crate::store::PgStore;

#[derive(QueryableByName)]
struct BacklogRow {
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    webhook_due: i64,
    #[diesel(sql_type = diesel::sql_types::Double)]
    webhook_oldest: f64,
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    analysis_due: i64,
    #[diesel(sql_type = diesel::sql_types::Double)]
    analysis_oldest: f64,
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    export_due: i64,
    #[diesel(sql_type = diesel::sql_types::Double)]
    export_oldest: f64,
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    outreach_due: i64,
    #[diesel(sql_type = diesel::sql_types::Double)]
    outreach_oldest: f64,
}

#[derive(QueryableByName)]
struct ReplicaLagRow {
    #[diesel(sql_type = diesel::sql_types::Double)]
    seconds: f64,
}

impl Backlogs for PgStore {
    async fn backlog(&self, now: OffsetDateTime) -> Result<Backlog> {
        // Each queue is read through the partial index its worker claims from, and counts what
        // its worker would claim: a paused or disabled endpoint's deliveries wait, not its test events.
        let row: BacklogRow = diesel::sql_query(
            "SELECT w.due AS webhook_due, w.oldest AS webhook_oldest, a.due AS analysis_due, \
               a.oldest AS analysis_oldest, e.due AS export_due, e.oldest AS export_oldest, \
               o.due AS outreach_due, o.oldest AS outreach_oldest \
             FROM (SELECT count(*) AS due, \
                     COALESCE(EXTRACT(EPOCH FROM $1 - min(d.next_attempt_at))::float8, 0) AS oldest \
                   FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id \
                   WHERE d.status IN ('PENDING', 'FAILED') AND d.next_attempt_at <= $1 AND (s.is_active OR EXISTS ( \
                     SELECT 1 FROM webhook_events e WHERE e.id = d.event_id AND e.event_type = 'webhook.test'))) w, \
                  (SELECT count(*) AS due, COALESCE(EXTRACT(EPOCH FROM $1 - min(due_at))::float8, 0) AS oldest \
                   FROM analysis_jobs WHERE due_at IS NOT NULL AND due_at <= $1) a, \
                  (SELECT count(*) AS due, COALESCE(EXTRACT(EPOCH FROM $1 - min(created_at))::float8, 0) AS oldest \
                   FROM exports WHERE status IN ('QUEUED', 'RUNNING')) e, \
                  (SELECT count(*) AS due, COALESCE(EXTRACT(EPOCH FROM $1 - min(due_at))::float8, 0) AS oldest \
                   FROM outreach_messages WHERE status = 'QUEUED' AND due_at <= $1) o",
        )
        .bind::<diesel::sql_types::Timestamptz, _>(now)
        .cached()
        .get_result(&mut self.conn().await?)
        .await
        .map_err(from_diesel)?;
        let depth =
            |due: i64, oldest: f64| QueueDepth { due: u64::try_from(due).unwrap_or(0), oldest_secs: oldest.max(0.0) };
        Ok(Backlog {
            webhook_deliveries: depth(row.webhook_due, row.webhook_oldest),
            analyses: depth(row.analysis_due, row.analysis_oldest),
            exports: depth(row.export_due, row.export_oldest),
            outreach_messages: depth(row.outreach_due, row.outreach_oldest),
        })
    }

    async fn replica_lag(&self) -> Result<Option<f64>> {
        let Some(reads) = self.reads() else { return Ok(None) };
        // A standby that has replayed all it received is not behind, however old its last
        // transaction; a server not in recovery (the primary named as its own copy) is not either.
        let lag: ReplicaLagRow = diesel::sql_query(
            "SELECT CASE WHEN NOT pg_is_in_recovery() OR pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() THEN 0 \
               ELSE COALESCE(EXTRACT(EPOCH FROM now() - pg_last_xact_replay_timestamp())::float8, 0) END AS seconds",
        )
        .cached()
        .get_result(&mut reads.get().await.map_err(from_pool)?)
        .await
        .map_err(from_diesel)?;
        Ok(Some(lag.seconds.max(0.0)))
    }

    fn pool_state(&self) -> PoolState {
        let status = self.pool().status();
        PoolState {
            size: status.size as u64,
            in_use: status.size.saturating_sub(status.available) as u64,
            waiting: status.waiting as u64,
        }
    }
}

impl HealthCheck for PgStore {
    async fn ping(&self) -> Result<()> {
        diesel::select(1_i32.into_sql::<diesel::sql_types::Integer>())
            .execute(&mut self.conn().await?)
            .await
            .map_err(|e| Error::Unavailable(format!("database: {e}")))?;
        Ok(())
    }
}
