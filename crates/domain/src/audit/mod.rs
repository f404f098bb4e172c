//! The audit trail: who did what to a workspace's data, kept apart from the data so erasing it
//! leaves the entry.

pub mod models;
pub mod ports;
pub mod service;
