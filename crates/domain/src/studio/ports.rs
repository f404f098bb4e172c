//! Studio session tokens.

use crate::error::Result;
use crate::studio::models::StudioClaims;
use std::future::Future;

/// Signs and verifies Studio tokens.
pub trait StudioTokens: Send + Sync + 'static {
    /// # Errors
    /// `Internal` when signing fails.
    fn issue(&self, claims: &StudioClaims) -> impl Future<Output = Result<String>> + Send;

    /// The claims of a token this service signed for the Studio audience; `None` for any other
    /// token. Expiry is the caller's to check, against its clock.
    fn verify(&self, token: &str) -> Option<StudioClaims>;
}
