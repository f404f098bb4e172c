use std::time::Duration;

use diesel_async::AsyncPgConnection;
use diesel_async::pooled_connection::deadpool::Pool;
use diesel_async::pooled_connection::{AsyncDieselConnectionManager, ManagerConfig, RecyclingMethod};

use crate::store::PgStore;

/// How the connection pool behaves; read from configuration by the binary and passed in.
#[derive(Clone, Debug)]
pub struct PoolSettings {
    pub max_size: usize,
    /// How long a request waits for a free connection, or for a new one to be made.
    pub acquire_timeout: Duration,
}

impl Default for PoolSettings {
    fn default() -> Self {
        Self { max_size: 16, acquire_timeout: Duration::from_secs(5) }
    }
}

/// Builds the pool. Connections are made lazily, so this succeeds while the database is down and
/// requests then fail with `Unavailable` until it is back.
///
/// # Errors
/// When the pool cannot be configured.
pub fn connect(database_url: &str, settings: &PoolSettings) -> anyhow::Result<PgStore> {
    // A checkout does not ping the database first: that was a round trip on every request. A
    // connection whose socket closed (a restarted database) or whose transaction broke is still
    // discarded at checkout, and a query that meets a dead server fails as `Unavailable`.
    let mut config = ManagerConfig::default();
    config.recycling_method = RecyclingMethod::Fast;
    let manager = AsyncDieselConnectionManager::<AsyncPgConnection>::new_with_config(database_url, config);
    let pool = Pool::builder(manager)
        .max_size(settings.max_size)
        .wait_timeout(Some(settings.acquire_timeout))
        .create_timeout(Some(settings.acquire_timeout))
        .recycle_timeout(Some(settings.acquire_timeout))
        .runtime(deadpool::Runtime::Tokio1)
        .build()?;
    Ok(PgStore::new(pool))
}
