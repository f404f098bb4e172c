//! The `pulse` binary's library: configuration, wiring, workers and the operator CLI.

pub mod cli;
pub mod platform;
pub mod settings;
pub mod startup;
pub mod telemetry;
pub mod workers;
