//! Where app devices, installs and users live.
use crate::apps::models::{
    AppUserRecord, Attribution, AttributionKey, BeatOutcome, DeviceBeat, DeviceRecord, DeviceRegistration,
    DeviceStatus, DeviceView, InstallBeat, InstallView,
};
use crate::error::Result;
use crate::ids::{AppUserId, CampaignId, DeviceId, WorkspaceId};
use crate::shared::paging::PageRequest;
use std::future::Future;

/// App devices, their installs and the people apps name.
pub trait AppRepository: Send + Sync + 'static {
    /// A device of the workspace.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn find_device(
        &self,
        workspace: WorkspaceId,
        id: DeviceId,
    ) -> impl Future<Output = Result<Option<DeviceRecord>>> + Send;

    /// The device of the workspace's app with this vendor-id digest.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn find_device_by_vendor(
        &self,
        workspace: WorkspaceId,
        app_id: &str,
        vendor_digest: &[u8],
    ) -> impl Future<Output = Result<Option<DeviceRecord>>> + Send;

    /// A person of the workspace.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn find_app_user(
        &self,
        workspace: WorkspaceId,
        id: AppUserId,
    ) -> impl Future<Output = Result<Option<AppUserRecord>>> + Send;

    /// Stores a register in one transaction: the person (a verified one stays verified; contact
    /// details not sent are kept), the device with its new refresh digest, and its install for the
    /// campaign; the device's latest install becomes this one. A register after
    /// [`crate::apps::models::APP_SESSION_GAP`] without a sign of life starts an app session. Returns the
    /// install's id.
    ///
    /// # Errors
    /// `Conflict` when the device no longer holds `replaces_refresh_digest`, or when a new device's
    /// vendor id is taken by a device of the same app and workspace (stored before, or by a
    /// concurrent register): nothing of the register is stored, so it can be written again as a
    /// register of that device; `InstallBlocked` when the device was blocked meanwhile;
    /// `CampaignNotCollecting` when the campaign is no longer `ACTIVE` when the register is written
    /// (nothing of it is stored); `Internal`/`Unavailable` otherwise.
    fn save_registration(
        &self,
        registration: &DeviceRegistration,
    ) -> impl Future<Output = Result<crate::ids::AppInstallId>> + Send;

    /// A v2 heartbeat in one statement: matches an active device holding this refresh digest,
    /// unexpired; admits it at [`crate::apps::models::HEARTBEAT_RATE`] (see
    /// [`crate::apps::models::HeartbeatRate::admit`]); counts it on the device and its latest install,
    /// with app sessions as at register; extends the refresh token.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn beat_device(&self, beat: &DeviceBeat) -> impl Future<Output = Result<BeatOutcome>> + Send;

    /// A v1 heartbeat in one statement: matches the install of this campaign whose device is
    /// active, admits and counts it as [`AppRepository::beat_device`] does (the rate is kept per
    /// install).
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn beat_install(&self, beat: &InstallBeat) -> impl Future<Output = Result<BeatOutcome>> + Send;

    /// The active device a respondent session of `campaign` names, with its person and its
    /// install for the campaign; `None` for an unknown or blocked device, or another workspace's.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn attribution(
        &self,
        workspace: WorkspaceId,
        campaign: CampaignId,
        key: AttributionKey,
    ) -> impl Future<Output = Result<Option<Attribution>>> + Send;

    /// Up to `page.limit + 1` devices of the workspace after `page.after`, by position.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn list_devices(
        &self,
        workspace: WorkspaceId,
        app_id: Option<&str>,
        page: &PageRequest,
    ) -> impl Future<Output = Result<Vec<DeviceView>>> + Send;

    /// Up to `page.limit + 1` installs of the campaign after `page.after`, by position.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn list_installs(
        &self,
        campaign: CampaignId,
        page: &PageRequest,
    ) -> impl Future<Output = Result<Vec<InstallView>>> + Send;

    /// Sets a device's status; `false` when there is no such device.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn set_device_status(&self, id: DeviceId, status: DeviceStatus) -> impl Future<Output = Result<bool>> + Send;
}
