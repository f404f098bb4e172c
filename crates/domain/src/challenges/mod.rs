//! Proof of work at public start: ALTCHA challenges that slow a script starting sessions of an
//! open campaign, while the page solves them unnoticed.

pub mod models;
pub mod ports;
pub mod service;
