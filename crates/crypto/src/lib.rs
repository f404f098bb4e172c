//! Crypto adapters: keys derived from the master key, keyed digests, PII encryption and Studio JWTs.

mod master_key;
mod studio;

pub use master_key::{MasterKey, MasterKeyError, RingCrypto};
pub use studio::{JwtStudioTokens, STUDIO_AUDIENCE};
