//! Businesses, API keys, principals and workspaces.

pub mod models;
pub mod ports;
pub mod service;
