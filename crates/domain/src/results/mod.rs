//! Aggregate results with the anonymity floor, filters and quotes.

pub mod models;
pub mod service;
