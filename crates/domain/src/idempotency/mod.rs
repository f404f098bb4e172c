//! `Idempotency-Key` handling: claims, stored responses and replays.

pub mod models;
pub mod ports;
pub mod service;
