//! Where the trail is kept. Entries are written by the ports of the actions they record, in the
//! same transaction; this port reads and prunes them, and writes those of actions that change
//! nothing else.

use std::future::Future;

use time::OffsetDateTime;

use crate::audit::models::{AuditEntry, AuditEvent, AuditQuery};
use crate::error::Result;
use crate::ids::WorkspaceId;
use crate::shared::paging::PageRequest;

pub trait AuditTrail: Send + Sync + 'static {
    /// Writes an entry on its own.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn record_audit(&self, entry: &AuditEntry) -> impl Future<Output = Result<()>> + Send;

    /// The workspace's entries and its business's business-wide ones that `query` selects, in
    /// the order they were written, after the page's key.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn list_audit_events(
        &self,
        workspace: WorkspaceId,
        query: &AuditQuery,
        page: &PageRequest,
    ) -> impl Future<Output = Result<Vec<AuditEvent>>> + Send;

    /// Deletes entries written before `before`; returns how many.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn purge_audit_events(&self, before: OffsetDateTime) -> impl Future<Output = Result<u64>> + Send;
}
