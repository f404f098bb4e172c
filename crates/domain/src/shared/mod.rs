//! Cross-cutting pieces every aggregate may use: the crypto and clock ports, paging, hex, health.

pub mod clock;
pub mod crypto;
pub mod health;
pub mod hex;
pub mod paging;
