//! Surveys, campaigns, audiences, launch links and launch keys.

pub mod models;
pub mod ports;
pub mod service;
