use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;

use diesel::ConnectionError;
use diesel_async::pooled_connection::deadpool::Pool;
use diesel_async::pooled_connection::{AsyncDieselConnectionManager, ManagerConfig, RecyclingMethod};
use diesel_async::{AsyncPgConnection, SimpleAsyncConnection as _};

use crate::connection::DatabaseTarget;
use crate::store::{PgStore, Writers};
use crate::{apps, campaigns, sessions, webhooks};

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
/// When the URL is not valid (its TLS settings included) or the pool cannot be configured.
pub fn connect(database_url: &str, settings: &PoolSettings) -> anyhow::Result<PgStore> {
    let primary = pool(DatabaseTarget::parse(database_url)?, settings)?;
    Ok(PgStore::new(primary.clone(), None, writers(&primary)))
}

/// As [`connect`], with a second pool on a read-only copy of the database (a streaming replica)
/// that results and lists read from; everything else, writes included, uses `database_url`.
///
/// # Errors
/// When a URL is not valid (its TLS settings included) or a pool cannot be configured; the
/// message says which.
pub fn connect_with_reads(database_url: &str, read_url: &str, settings: &PoolSettings) -> anyhow::Result<PgStore> {
    let primary = pool(DatabaseTarget::parse(database_url).context("the primary's URL")?, settings)?;
    let reads = pool(DatabaseTarget::parse(read_url).context("the read replica's URL")?, settings)?;
    Ok(PgStore::new(primary.clone(), Some(reads), writers(&primary)))
}

/// Every group writer, each on the primary.
fn writers(primary: &Pool<AsyncPgConnection>) -> Writers {
    Writers::default()
        .with(apps::heartbeats::writer(primary.clone()))
        .with(apps::registrations::writer(primary.clone()))
        .with(campaigns::links::writer(primary.clone()))
        .with(sessions::starts::writer(primary.clone()))
        .with(webhooks::attempts::writer(primary.clone()))
}

fn pool(target: DatabaseTarget, settings: &PoolSettings) -> anyhow::Result<Pool<AsyncPgConnection>> {
    // A checkout does not ping the database first: that was a round trip on every request. A
    // connection whose socket closed (a restarted database) or whose transaction broke is still
    // discarded at checkout, and a query that meets a dead server fails as `Unavailable`.
    let mut config = ManagerConfig::default();
    config.recycling_method = RecyclingMethod::Fast;
    // No JIT compilation: statements are prepared once with generic plans, whose estimates for
    // the results reads on large campaigns pass PostgreSQL's JIT threshold, and compiling then
    // took several times what the query did (docs/performance.md).
    let target = Arc::new(target);
    let shown = target.to_string();
    config.custom_setup = Box::new(move |_shown| {
        let target = Arc::clone(&target);
        Box::pin(async move {
            let mut connection = target.connect().await?;
            connection.batch_execute("SET jit = off").await.map_err(ConnectionError::CouldntSetupConfiguration)?;
            Ok(connection)
        })
    });
    // The manager's URL only reaches the setup above, which connects to the parsed target instead;
    // it is given the target's description so no copy of a password is kept.
    let manager = AsyncDieselConnectionManager::<AsyncPgConnection>::new_with_config(shown, config);
    Ok(Pool::builder(manager)
        .max_size(settings.max_size)
        // The connection returned last is handed out first, so the few a loaded server keeps busy
        // stay on backends whose caches are warm, instead of every idle one taking its turn
        // (docs/performance.md).
        .queue_mode(deadpool::managed::QueueMode::Lifo)
        .wait_timeout(Some(settings.acquire_timeout))
        .create_timeout(Some(settings.acquire_timeout))
        .recycle_timeout(Some(settings.acquire_timeout))
        .runtime(deadpool::Runtime::Tokio1)
        .build()?)
}

/// Opens one connection and closes it, so that a start-up fails on a URL that cannot connect (a
/// certificate not trusted, a server without TLS) rather than every request after it.
///
/// # Errors
/// When the URL is not valid or the connection cannot be made; the message names the cause.
pub async fn check_connection(database_url: &str) -> anyhow::Result<()> {
    DatabaseTarget::parse(database_url)?.connect().await?;
    Ok(())
}
