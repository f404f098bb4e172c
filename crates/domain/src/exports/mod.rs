//! Exports of a campaign's aggregate results as a JSON or PDF file, rendered by a worker and
//! fetched through signed links that die with the key that asked.

pub mod models;
pub mod ports;
pub mod service;
