//! Aggregate results with the anonymity floor, filters and quotes.

pub mod models;
pub mod ports;
pub mod service;
