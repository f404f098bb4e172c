//! The Pulse domain: one folder per aggregate, each with the same three rooms: `models` (what the
//! thing is and its rules), `ports` (what it needs from the world) and `service` (what callers ask
//! of it). Cross-cutting ports and types live in [`shared`].
//!
//! This crate knows no web framework, no database and no async runtime. Adapters implement the
//! ports in other crates; `pulse-testing` holds in-memory ones and the contract suite that holds
//! every adapter to the ports' promises.

pub mod analysis;
pub mod apps;
pub mod audit;
pub mod campaigns;
pub mod challenges;
pub mod erasure;
pub mod error;
pub mod exports;
pub mod idempotency;
pub mod ids;
pub mod outreach;
pub mod quota;
pub mod results;
pub mod sessions;
pub mod shared;
pub mod studio;
pub mod tenancy;
pub mod webhooks;

pub use error::{Error, ErrorCode, RateLimitState, Refusal, Result};
