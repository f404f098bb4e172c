//! PostgreSQL adapters of the Pulse ports. All SQL of the service lives in this crate, in one
//! module per aggregate of the domain, each with its port implementations and group writers; the
//! store, the pools, batching and the row helpers they share sit beneath them
//! (docs/architecture.md).

mod analysis;
mod apps;
mod audit;
mod batch;
mod campaigns;
mod connection;
mod erasure;
mod error;
mod exports;
mod health;
mod idempotency;
pub mod local;
mod migrate;
mod outreach;
mod pool;
mod quota;
mod results;
mod rows;
mod schema;
mod sessions;
mod statement;
mod store;
mod tenancy;
#[cfg(feature = "test-db")]
pub mod test_db;
mod webhooks;

pub use connection::DatabaseTarget;
pub use migrate::{MIGRATIONS, pending_migrations, run_migrations};
pub use pool::{PoolSettings, check_connection, connect, connect_with_reads};
pub use store::PgStore;
