//! Webhook endpoints, events, signed deliveries and their retries.

pub mod models;
pub mod ports;
pub mod service;
