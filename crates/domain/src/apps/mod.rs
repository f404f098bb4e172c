//! App install identity: register, heartbeats, devices, installs and attribution.

pub mod models;
pub mod ports;
pub mod service;
