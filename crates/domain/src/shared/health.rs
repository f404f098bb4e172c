//! The health port, for readiness probes.

use crate::error::Result;
use std::future::Future;

/// Whether the store answers at all (for readiness probes).
pub trait HealthCheck: Send + Sync + 'static {
    /// # Errors
    /// `Unavailable` when the store cannot be reached.
    fn ping(&self) -> impl Future<Output = Result<()>> + Send;
}
