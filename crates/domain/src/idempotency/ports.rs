//! Where idempotency claims and their stored responses live.

use crate::error::Result;
use crate::idempotency::models::{ClaimRequest, IdempotencyClaim};
use std::future::Future;
use time::OffsetDateTime;
use uuid::Uuid;

/// Where idempotency keys and their stored responses live.
pub trait IdempotencyStore: Send + Sync + 'static {
    /// Claims `(scope, key)` for the request `token`, unless a live record holds it. Records
    /// created before `expired_before`, and in-flight records claimed before `stale_before`
    /// (their request is presumed dead), are taken over.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn claim(&self, request: &ClaimRequest<'_>) -> impl Future<Output = Result<IdempotencyClaim>> + Send;

    /// Stores the response of the request that claimed the key with `token`; does nothing when
    /// another request has taken the claim over since.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn complete(
        &self,
        scope: &str,
        key: &str,
        token: Uuid,
        status: u16,
        sealed_body: &[u8],
    ) -> impl Future<Output = Result<()>> + Send;

    /// Frees a key claimed with `token` whose request was refused or failed, so it may be used
    /// again; does nothing when another request holds the claim now.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn release(&self, scope: &str, key: &str, token: Uuid) -> impl Future<Output = Result<()>> + Send;

    /// Deletes records created before `before`; returns how many.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn purge_idempotency(&self, before: OffsetDateTime) -> impl Future<Output = Result<u64>> + Send;
}
