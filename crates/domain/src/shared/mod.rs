//! Cross-cutting pieces every aggregate may use: the crypto and clock ports, paging, hex, health,
//! copies of recently read rows, time zone names.

pub mod clock;
pub mod crypto;
pub mod health;
pub mod hex;
pub mod paging;
pub mod recent;
pub mod time_zone;
