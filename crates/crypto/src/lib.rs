//! Crypto adapters: keys derived from the master key, keyed digests, PII encryption, Studio JWTs
//! and proof-of-work challenges.

mod altcha;
mod launch;
mod master_key;
mod studio;

pub use launch::JwtLaunchTokens;
pub use master_key::{MasterKey, MasterKeyError, RingCrypto};
pub use studio::{JwtStudioTokens, STUDIO_AUDIENCE};
