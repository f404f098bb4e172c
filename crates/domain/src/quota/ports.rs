//! The counter every replica shares.

use crate::error::Result;
use crate::quota::models::QuotaFamily;
use std::future::Future;
use time::OffsetDateTime;

/// Counters of fixed quota windows, shared by every replica.
pub trait QuotaCounter: Send + Sync + 'static {
    /// Adds one to the counter of `(subject, family, window_start)` atomically and returns the new count.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn hit(
        &self,
        subject: &str,
        family: QuotaFamily,
        window_start: OffsetDateTime,
    ) -> impl Future<Output = Result<u32>> + Send;

    /// The counter of `(subject, family, window_start)` as it stands, 0 when nothing was counted.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn count(
        &self,
        subject: &str,
        family: QuotaFamily,
        window_start: OffsetDateTime,
    ) -> impl Future<Output = Result<u32>> + Send;

    /// Deletes windows that started before `before`; returns how many.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn purge_quota_windows(&self, before: OffsetDateTime) -> impl Future<Output = Result<u64>> + Send;
}
