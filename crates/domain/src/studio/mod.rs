//! Studio sessions: their claims, tokens and permissions.

pub mod models;
pub mod ports;
pub mod service;
