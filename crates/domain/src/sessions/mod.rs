//! Respondent sessions: access, start, answers, completion and the facts a completion announces.

pub mod models;
pub mod ports;
pub mod service;
