//! What erasure needs from the world: a store that destroys a person's data in one transaction.
use crate::audit::models::AuditEntry;
use crate::erasure::models::ErasureRecord;
use crate::error::Result;
use crate::ids::{AppUserId, CampaignId, DeviceId};
use std::future::Future;

/// Each method erases one subject of `record.workspace_id` in one transaction and, when there was
/// one, writes `record` with its kind and the subject's id, and the `audit` entry; `false` when
/// there is none (unknown, erased already, or another workspace's), and then nothing is written.
/// What goes and what stays is docs/erasure.md.
pub trait ErasureRepository: Send + Sync + 'static {
    /// The person: its sealed contact details and the person itself go; devices last registered
    /// with it become anonymous; its sessions stay, detached.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn erase_app_user(
        &self,
        user: AppUserId,
        record: &ErasureRecord,
        audit: &AuditEntry,
    ) -> impl Future<Output = Result<bool>> + Send;

    /// The device: it goes with its installs, its refresh and vendor digests and its app facts,
    /// and with its own person (one named by no `externalId`); its sessions stay, detached.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn erase_device(
        &self,
        device: DeviceId,
        record: &ErasureRecord,
        audit: &AuditEntry,
    ) -> impl Future<Output = Result<bool>> + Send;

    /// The respondent of `campaign` (of the record's workspace) holding `ref_digest`: its
    /// reference, contact details and invitation go, and the digests of the addresses its messages
    /// went to; a tombstone keeps its place in the campaign's counts; messages still queued for it
    /// are suppressed; its sessions stay, detached; recordings of its calls at the voice provider
    /// are due for deletion at once.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn erase_respondent(
        &self,
        campaign: CampaignId,
        ref_digest: &[u8],
        record: &ErasureRecord,
        audit: &AuditEntry,
    ) -> impl Future<Output = Result<bool>> + Send;
}
