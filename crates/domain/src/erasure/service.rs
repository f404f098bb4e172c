//! The partner's erasure routes: an app user by `externalId`, a device, an audience respondent by
//! `externalRef`.

use crate::apps::service::app_user_id;
use crate::audit::models::{AuditAction, AuditEntry};
use crate::campaigns::models::ref_digest_input;
use crate::campaigns::ports::CampaignRepository;
use crate::erasure::models::{ErasureRecord, parse_external_id, parse_external_ref};
use crate::erasure::ports::ErasureRepository;
use crate::error::{Error, Result};
use crate::ids::{CampaignId, DeviceId, ErasureId, WorkspaceId};
use crate::shared::clock::Clock;
use crate::shared::crypto::{Crypto, DigestPurpose};
use crate::tenancy::models::{Principal, Scope};

pub struct Erasures<R, C, K> {
    repo: R,
    crypto: C,
    clock: K,
}

impl<R, C, K> Erasures<R, C, K>
where
    R: ErasureRepository + CampaignRepository,
    C: Crypto,
    K: Clock,
{
    pub fn new(repo: R, crypto: C, clock: K) -> Self {
        Self { repo, crypto, clock }
    }

    /// Erases the person the workspace's apps named by `external_id`. `true` when there was one;
    /// `false` for a person unknown or erased already, which look alike.
    ///
    /// # Errors
    /// `InsufficientPermission` without `channel:audience`; workspace resolution errors;
    /// `ValidationFailed` naming `externalId`; port errors.
    pub async fn erase_app_user(
        &self,
        principal: &Principal,
        workspace_header: Option<&str>,
        external_id: &str,
    ) -> Result<bool> {
        let workspace = self.workspace(principal, workspace_header)?;
        let external_id = parse_external_id(external_id)?;
        let user = app_user_id(&self.crypto, workspace, &external_id);
        let record = self.record(workspace);
        // Named by the erasure's id: the person's own is derived from its `externalId`, and would
        // name whoever the app registers with that `externalId` next.
        let audit = AuditEntry::by_key(principal, workspace, AuditAction::AppUserErased, record.id, record.erased_at);
        self.repo.erase_app_user(user, &record, &audit).await
    }

    /// Erases a device of the workspace. `true` when there was one; `false` for a device unknown,
    /// erased already or another workspace's, which look alike.
    ///
    /// # Errors
    /// `InsufficientPermission` without `channel:audience`; workspace resolution errors; port
    /// errors.
    pub async fn erase_device(
        &self,
        principal: &Principal,
        workspace_header: Option<&str>,
        device: DeviceId,
    ) -> Result<bool> {
        let workspace = self.workspace(principal, workspace_header)?;
        let record = self.record(workspace);
        let audit = AuditEntry::by_key(principal, workspace, AuditAction::DeviceErased, device, record.erased_at);
        self.repo.erase_device(device, &record, &audit).await
    }

    /// Erases the respondent of a campaign the partner attached as `external_ref`. `true` when
    /// there was one; `false` for a reference unknown or erased already, which look alike.
    ///
    /// # Errors
    /// `InsufficientPermission` without `channel:audience`; workspace resolution errors;
    /// `ValidationFailed` naming `externalRef`; `NotFound` for a campaign unknown or another
    /// workspace's; port errors.
    pub async fn erase_respondent(
        &self,
        principal: &Principal,
        workspace_header: Option<&str>,
        campaign: CampaignId,
        external_ref: &str,
    ) -> Result<bool> {
        let workspace = self.workspace(principal, workspace_header)?;
        let external_ref = parse_external_ref(external_ref)?;
        if self.repo.campaign_overview(workspace, campaign).await?.is_none() {
            return Err(Error::not_found("campaign"));
        }
        let digest = self.crypto.keyed_digest(DigestPurpose::RespondentRef, &ref_digest_input(campaign, &external_ref));
        let record = self.record(workspace);
        // Named by the erasure's id: the respondent's own is known only once the store finds it.
        let audit =
            AuditEntry::by_key(principal, workspace, AuditAction::RespondentErased, record.id, record.erased_at);
        self.repo.erase_respondent(campaign, &digest, &record, &audit).await
    }

    fn workspace(&self, principal: &Principal, workspace_header: Option<&str>) -> Result<WorkspaceId> {
        principal.require_scope(Scope::AUDIENCE)?;
        principal.resolve_workspace(workspace_header)
    }

    fn record(&self, workspace: WorkspaceId) -> ErasureRecord {
        ErasureRecord { id: ErasureId::new_random(), workspace_id: workspace, erased_at: self.clock.now() }
    }
}
