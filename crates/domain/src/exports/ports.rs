//! What exports need from the world: where records and files are kept, how a document becomes a
//! file, and whether a worker is there to render it.

use std::future::Future;

use time::OffsetDateTime;
use uuid::Uuid;

use crate::audit::models::AuditEntry;
use crate::error::Result;
use crate::exports::models::{ExportDocument, ExportFailure, ExportFormat, ExportJob, ExportRecord, FinishedExport};
use crate::ids::{ExportId, WorkspaceId};

/// Export records, their claims by workers, and per-link fetch counts, shared by every replica.
pub trait ExportRepository: Send + Sync + 'static {
    /// Writes the record and `audit`, its request's entry, in one transaction.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn insert_export(&self, record: &ExportRecord, audit: &AuditEntry) -> impl Future<Output = Result<()>> + Send;

    /// The export of the workspace; `None` for an unknown one or another workspace's.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn find_export(
        &self,
        workspace: WorkspaceId,
        id: ExportId,
    ) -> impl Future<Output = Result<Option<ExportRecord>>> + Send;

    /// The export, whatever its workspace (for a download link, which names no workspace).
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn find_export_by_id(&self, id: ExportId) -> impl Future<Output = Result<Option<ExportRecord>>> + Send;

    /// Claims up to `limit` exports that are QUEUED, or RUNNING under a lease that ended before
    /// `now`: each becomes RUNNING under a fresh claim token until `lease_until`, one attempt more,
    /// `started_at` set on the first. Concurrent claims never return the same export.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn claim_exports(
        &self,
        now: OffsetDateTime,
        lease_until: OffsetDateTime,
        limit: u32,
    ) -> impl Future<Output = Result<Vec<ExportJob>>> + Send;

    /// Marks the export READY with its file's size and SHA-256, kept until `expires_at`, and writes
    /// its `export.ready` event in the same transaction; `false`, changing nothing, when
    /// `claim_token` no longer holds it.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn finish_export(&self, finished: &FinishedExport) -> impl Future<Output = Result<bool>> + Send;

    /// Gives a failed attempt back: QUEUED again when `failure` is `None`, else FAILED at `at`
    /// with it; `false`, changing nothing, when `claim_token` no longer holds the export.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn fail_export(
        &self,
        id: ExportId,
        claim_token: Uuid,
        at: OffsetDateTime,
        failure: Option<&ExportFailure>,
    ) -> impl Future<Output = Result<bool>> + Send;

    /// Marks READY exports whose retention ended by `now` EXPIRED and returns their ids, so their
    /// files can be deleted.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn expire_exports(&self, now: OffsetDateTime) -> impl Future<Output = Result<Vec<ExportId>>> + Send;

    /// Adds one to the fetches of download link `link` in the hour starting `window_start` and
    /// returns the new count.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn count_fetch(&self, link: Uuid, window_start: OffsetDateTime) -> impl Future<Output = Result<u32>> + Send;

    /// Forgets fetch counts of hours that started before `before`; returns how many.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn purge_fetch_counts(&self, before: OffsetDateTime) -> impl Future<Output = Result<u64>> + Send;
}

/// Where rendered files are kept, readable by every replica.
pub trait ExportStore: Send + Sync + 'static {
    /// Stores (or replaces) the file of export `id`.
    ///
    /// # Errors
    /// `Unavailable` when the store cannot be reached; `Internal` otherwise.
    fn put(&self, id: ExportId, bytes: Vec<u8>) -> impl Future<Output = Result<()>> + Send;

    /// The file of export `id`; `None` when there is none.
    ///
    /// # Errors
    /// As [`ExportStore::put`].
    fn get(&self, id: ExportId) -> impl Future<Output = Result<Option<Vec<u8>>>> + Send;

    /// Deletes the file of export `id`; deleting a missing file is no error.
    ///
    /// # Errors
    /// As [`ExportStore::put`].
    fn delete(&self, id: ExportId) -> impl Future<Output = Result<()>> + Send;
}

/// Turns a document into a file.
pub trait ExportRenderer: Send + Sync + 'static {
    /// Whether files of `format` can be made here now (a PDF renderer that cannot start says no).
    fn can_render(&self, format: ExportFormat) -> bool;

    /// # Errors
    /// `Internal` when the document cannot be rendered.
    fn render(&self, document: &ExportDocument, format: ExportFormat) -> impl Future<Output = Result<Vec<u8>>> + Send;
}

/// Which export workers are alive: each beats while it runs, and a request for an export is
/// refused while none has beaten lately.
pub trait WorkerPresence: Send + Sync + 'static {
    /// Records that export worker `worker` was alive at `at`.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn export_worker_beat(&self, worker: Uuid, at: OffsetDateTime) -> impl Future<Output = Result<()>> + Send;

    /// Whether any export worker beat at or after `since`.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn export_worker_alive(&self, since: OffsetDateTime) -> impl Future<Output = Result<bool>> + Send;
}
