//! PostgreSQL adapters of the Pulse ports. All SQL of the service lives in this crate.

mod analysis;
mod apps;
mod batch;
mod campaign_terms;
mod campaigns;
mod erasure;
mod error;
mod exports;
mod heartbeats;
mod links;
pub mod local;
mod migrate;
mod outreach;
mod pool;
mod registrations;
mod rows;
mod schema;
mod starts;
mod statement;
mod store;
#[cfg(feature = "test-db")]
pub mod test_db;
mod webhooks;
mod webhooks_attempts;

pub use migrate::{MIGRATIONS, pending_migrations, run_migrations};
pub use pool::{PoolSettings, connect, connect_with_reads};
pub use store::PgStore;
