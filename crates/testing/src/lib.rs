//! Test support for Pulse, for this workspace and other teams' crates (a dev-dependency only):
//!
//! - [`memory`]: in-memory adapters of every repository port, laid out like `pulse-postgres`;
//! - [`fakes`]: crypto, webhook transport, survey generator, launch tokens and analyzer;
//! - [`contract`]: one suite per port, run against the in-memory adapters here and against
//!   PostgreSQL in `pulse-postgres`, so the two cannot drift apart;
//! - [`layout`]: a crate's imports read from its source, for the layout tests.

pub mod contract;
pub mod fakes;
pub mod layout;
pub mod memory;

pub use memory::MemoryStore;
