//! What partners and the Studio ask of campaigns.

mod launch_keys;
mod lifecycle;
mod provisioning;

pub use launch_keys::*;
pub use provisioning::*;
