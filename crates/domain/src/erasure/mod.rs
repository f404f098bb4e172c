//! Erasure (GDPR Article 17): a person's data destroyed on the partner's request, their sessions
//! kept but detached from them, so counts and results stay as they were.

pub mod models;
pub mod ports;
pub mod service;
