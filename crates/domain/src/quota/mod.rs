//! Hourly quotas per key, network, install or session.

pub mod models;
pub mod ports;
pub mod service;
