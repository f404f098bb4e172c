//! Analysis of finished sessions: quality rules, sentiment and key phrases.

pub mod models;
pub mod ports;
pub mod service;
