//! The Pulse domain: tenancy, workspaces, idempotency and quotas, behind ports.
//!
//! This crate knows no web framework, no database and no async runtime. Adapters implement the
//! traits in [`ports`]; the `memory` module (feature `memory`) holds in-memory ones for tests.

pub mod analysis;
pub mod api_key;
pub mod apps;
pub mod audience;
pub mod campaign;
pub mod clock;
pub mod error;
pub mod hex;
pub mod idempotency;
pub mod ids;
pub mod launch;
pub mod launch_keys;
#[cfg(any(test, feature = "memory"))]
pub mod memory;
pub mod paging;
pub mod ports;
pub mod provisioning;
pub mod quota;
pub mod respondents;
pub mod results;
pub mod services;
pub mod session;
pub mod studio;
pub mod survey;
pub mod tenancy;
pub mod webhooks;

pub use error::{Error, ErrorCode, RateLimitState, Refusal, Result};

#[cfg(test)]
mod service_tests;
