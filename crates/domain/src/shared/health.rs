//! The health ports: readiness probes, and the backlog and pool the metrics endpoint reports.

use crate::error::Result;
use std::future::Future;

/// Whether the store answers at all (for readiness probes).
pub trait HealthCheck: Send + Sync + 'static {
    /// # Errors
    /// `Unavailable` when the store cannot be reached.
    fn ping(&self) -> impl Future<Output = Result<()>> + Send;
}

/// One background queue as a metrics scrape sees it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct QueueDepth {
    /// Items due now and not done.
    pub due: u64,
    /// How long the oldest due item has waited, in seconds; 0 when none is due.
    pub oldest_secs: f64,
}

/// The background work waiting, per worker: what an operator watches to size the workers.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Backlog {
    pub webhook_deliveries: QueueDepth,
    pub analyses: QueueDepth,
    pub exports: QueueDepth,
    pub outreach_messages: QueueDepth,
}

/// The database connections of this process.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PoolState {
    /// Connections open.
    pub size: u64,
    /// Connections lent to a request or worker now.
    pub in_use: u64,
    /// Callers waiting for a connection.
    pub waiting: u64,
}

/// What the metrics endpoint reads at each scrape.
pub trait Backlogs: Send + Sync + 'static {
    /// The due work of every queue at `now`.
    ///
    /// # Errors
    /// `Unavailable` when the store cannot be reached.
    fn backlog(&self, now: time::OffsetDateTime) -> impl Future<Output = Result<Backlog>> + Send;

    /// The connection pool as it stands.
    fn pool_state(&self) -> PoolState;

    /// How far the read-only copy replays behind the primary, in seconds (0 when it has replayed
    /// all it received); `None` when no copy is configured.
    ///
    /// # Errors
    /// `Unavailable` when the copy cannot be reached.
    fn replica_lag(&self) -> impl Future<Output = Result<Option<f64>>> + Send;
}
