//! Devices, installs and app users in memory.
use super::*;
use pulse_domain::apps::models::{
    Activity, AppFacts, AppUserRecord, Attribution, AttributionKey, BeatFacts, BeatOutcome, BeatRecord, DeviceBeat,
    DeviceRecord, DeviceRegistration, DeviceStatus, DeviceView, HeartbeatRate, InstallBeat, InstallView,
};
use pulse_domain::apps::ports::AppRepository;
use pulse_domain::campaigns::models::{CampaignStatus, not_collecting};
use pulse_domain::error::{Error, ErrorCode, Result};
use pulse_domain::ids::{AppInstallId, AppUserId, CampaignId, DeviceId, WorkspaceId};
use pulse_domain::shared::paging::PageRequest;

fn apply_beat_facts(app: &mut AppFacts, facts: &BeatFacts) {
    if let Some(v) = &facts.app_version {
        app.app_version.clone_from(v);
    }
    if facts.os_version.is_some() {
        app.os_version.clone_from(&facts.os_version);
    }
    if facts.locale.is_some() {
        app.locale.clone_from(&facts.locale);
    }
}

impl State {
    fn device_record(&self, device: &DeviceRow) -> DeviceRecord {
        DeviceRecord {
            id: device.id,
            workspace_id: device.workspace_id,
            status: device.status,
            refresh_digest: device.refresh_digest.clone(),
            refresh_expires_at: device.refresh_expires_at,
            user: device.user_id.map(|u| (u, self.app_users.get(&u).is_some_and(|row| row.has_external_id))),
        }
    }

    fn contact(&self, user: Option<AppUserId>) -> (bool, bool) {
        user.and_then(|u| self.app_users.get(&u))
            .map_or((false, false), |u| (u.email_sealed.is_some(), u.phone_sealed.is_some()))
    }
}

impl AppRepository for MemoryStore {
    async fn find_device(&self, workspace: WorkspaceId, id: DeviceId) -> Result<Option<DeviceRecord>> {
        let state = self.state();
        Ok(state.devices.iter().find(|d| d.id == id && d.workspace_id == workspace).map(|d| state.device_record(d)))
    }

    async fn find_device_by_vendor(
        &self,
        workspace: WorkspaceId,
        app_id: &str,
        vendor_digest: &[u8],
    ) -> Result<Option<DeviceRecord>> {
        let state = self.state();
        Ok(state
            .devices
            .iter()
            .find(|d| {
                d.workspace_id == workspace
                    && d.app.app_id == app_id
                    && d.vendor_digest.as_deref() == Some(vendor_digest)
            })
            .map(|d| state.device_record(d)))
    }

    async fn find_app_user(&self, workspace: WorkspaceId, id: AppUserId) -> Result<Option<AppUserRecord>> {
        let state = self.state();
        Ok(state
            .app_users
            .get(&id)
            .filter(|u| u.workspace_id == workspace)
            .map(|u| AppUserRecord { id, verified: u.verified }))
    }

    async fn save_registration(&self, r: &DeviceRegistration) -> Result<AppInstallId> {
        let mut guard = self.state();
        let state = &mut *guard;
        if let Some(campaign) = state.campaigns.get(&r.campaign_id).filter(|c| c.status != CampaignStatus::Active) {
            return Err(not_collecting(campaign.status));
        }
        let existing = state.devices.iter().position(|d| d.id == r.device_id);
        match (&r.replaces_refresh_digest, existing) {
            (Some(expected), Some(at)) => {
                let device = &state.devices[at];
                if device.status == DeviceStatus::Blocked {
                    return Err(Error::refused(ErrorCode::InstallBlocked, "this device is blocked by the workspace"));
                }
                if &device.refresh_digest != expected {
                    return Err(Error::refused(ErrorCode::Conflict, "a concurrent register of this device won"));
                }
            }
            (None, None) => {
                let taken = r.vendor_digest.is_some()
                    && state.devices.iter().any(|d| {
                        d.workspace_id == r.workspace_id
                            && d.app.app_id == r.app.app_id
                            && d.vendor_digest == r.vendor_digest
                    });
                if taken {
                    return Err(Error::refused(ErrorCode::Conflict, "a concurrent register of this device won"));
                }
            }
            _ => return Err(Error::refused(ErrorCode::Conflict, "the device was removed meanwhile")),
        }
        if let Some(user) = &r.user {
            let row = state.app_users.entry(user.id).or_insert_with(|| AppUserRow {
                workspace_id: r.workspace_id,
                has_external_id: user.has_external_id,
                email_sealed: None,
                phone_sealed: None,
                verified: false,
            });
            row.verified |= user.verified;
            // A verified register replaces contact details; an unverified one only fills gaps.
            if user.email_sealed.is_some() && (user.verified || row.email_sealed.is_none()) {
                row.email_sealed.clone_from(&user.email_sealed);
            }
            if user.phone_sealed.is_some() && (user.verified || row.phone_sealed.is_none()) {
                row.phone_sealed.clone_from(&user.phone_sealed);
            }
        }
        let install_id =
            match state.installs.iter_mut().find(|i| i.campaign_id == r.campaign_id && i.device_id == r.device_id) {
                Some(install) => {
                    install.app = r.app.clone();
                    install.activity.seen(r.now, false);
                    install.id
                }
                None => {
                    state.last_position += 1;
                    let position = state.last_position;
                    state.installs.push(InstallRow {
                        position,
                        id: r.new_install_id,
                        campaign_id: r.campaign_id,
                        device_id: r.device_id,
                        app: r.app.clone(),
                        activity: Activity::new(r.now),
                        heartbeat_tat: None,
                    });
                    r.new_install_id
                }
            };
        let user_id = r.user.as_ref().map(|u| u.id);
        match existing {
            Some(at) => {
                // A vendor id moves to the device that proved itself last.
                if r.vendor_digest.is_some() {
                    for other in state.devices.iter_mut().filter(|d| {
                        d.id != r.device_id
                            && d.workspace_id == r.workspace_id
                            && d.app.app_id == r.app.app_id
                            && d.vendor_digest == r.vendor_digest
                    }) {
                        other.vendor_digest = None;
                    }
                }
                let device = &mut state.devices[at];
                device.app = r.app.clone();
                if r.vendor_digest.is_some() {
                    device.vendor_digest.clone_from(&r.vendor_digest);
                }
                device.refresh_digest.clone_from(&r.refresh_digest);
                device.refresh_expires_at = r.refresh_expires_at;
                device.user_id = user_id;
                device.identity = r.identity;
                device.latest_install = install_id;
                device.activity.seen(r.now, false);
            }
            None => {
                state.last_position += 1;
                let position = state.last_position;
                state.devices.push(DeviceRow {
                    position,
                    id: r.device_id,
                    workspace_id: r.workspace_id,
                    vendor_digest: r.vendor_digest.clone(),
                    app: r.app.clone(),
                    status: DeviceStatus::Active,
                    refresh_digest: r.refresh_digest.clone(),
                    refresh_expires_at: r.refresh_expires_at,
                    user_id,
                    identity: r.identity,
                    latest_install: install_id,
                    activity: Activity::new(r.now),
                    heartbeat_tat: None,
                });
            }
        }
        Ok(install_id)
    }

    async fn beat_device(&self, beat: &DeviceBeat) -> Result<BeatOutcome> {
        let mut state = self.state();
        let Some(device) = state.devices.iter_mut().find(|d| {
            d.id == beat.device_id
                && d.status == DeviceStatus::Active
                && d.refresh_expires_at > beat.now
                && d.refresh_digest == beat.refresh_digest
        }) else {
            return Ok(BeatOutcome::Refused);
        };
        match HeartbeatRate::admit_under(beat.rate, device.heartbeat_tat, beat.now) {
            Err(retry_after) => Ok(BeatOutcome::RateLimited { retry_after }),
            Ok(tat) => {
                device.heartbeat_tat = tat;
                device.activity.seen(beat.now, true);
                apply_beat_facts(&mut device.app, &beat.facts);
                device.refresh_expires_at = beat.refresh_expires_at;
                let (device_id, workspace_id, latest) = (device.id, device.workspace_id, device.latest_install);
                let install = state.installs.iter_mut().find(|i| i.id == latest).map(|install| {
                    install.activity.seen(beat.now, true);
                    apply_beat_facts(&mut install.app, &beat.facts);
                    (install.id, install.campaign_id)
                });
                Ok(BeatOutcome::Beat(BeatRecord {
                    device_id,
                    workspace_id,
                    install,
                    refresh_expires_at: beat.refresh_expires_at,
                }))
            }
        }
    }

    async fn beat_install(&self, beat: &InstallBeat) -> Result<BeatOutcome> {
        let mut guard = self.state();
        let state = &mut *guard;
        let Some(at) = state.installs.iter().position(|i| i.id == beat.install_id && i.campaign_id == beat.campaign_id)
        else {
            return Ok(BeatOutcome::Refused);
        };
        let device_id = state.installs[at].device_id;
        let Some(device) = state.devices.iter_mut().find(|d| d.id == device_id && d.status == DeviceStatus::Active)
        else {
            return Ok(BeatOutcome::Refused);
        };
        match HeartbeatRate::admit_under(beat.rate, state.installs[at].heartbeat_tat, beat.now) {
            Err(retry_after) => Ok(BeatOutcome::RateLimited { retry_after }),
            Ok(tat) => {
                device.activity.seen(beat.now, true);
                apply_beat_facts(&mut device.app, &beat.facts);
                let record = BeatRecord {
                    device_id,
                    workspace_id: device.workspace_id,
                    install: Some((beat.install_id, beat.campaign_id)),
                    refresh_expires_at: device.refresh_expires_at,
                };
                let install = &mut state.installs[at];
                install.heartbeat_tat = tat;
                install.activity.seen(beat.now, true);
                apply_beat_facts(&mut install.app, &beat.facts);
                Ok(BeatOutcome::Beat(record))
            }
        }
    }

    async fn attribution(
        &self,
        workspace: WorkspaceId,
        campaign: CampaignId,
        key: AttributionKey,
    ) -> Result<Option<Attribution>> {
        let state = self.state();
        let device_id = match key {
            AttributionKey::Device(id) => Some(id),
            AttributionKey::Install(id) => {
                state.installs.iter().find(|i| i.id == id && i.campaign_id == campaign).map(|i| i.device_id)
            }
        };
        Ok(device_id
            .and_then(|id| {
                state
                    .devices
                    .iter()
                    .find(|d| d.id == id && d.workspace_id == workspace && d.status == DeviceStatus::Active)
            })
            .map(|d| Attribution {
                device_id: d.id,
                user_id: d.user_id,
                identity: d.identity,
                install_id: state
                    .installs
                    .iter()
                    .find(|i| i.device_id == d.id && i.campaign_id == campaign)
                    .map(|i| i.id),
            }))
    }

    async fn list_devices(
        &self,
        workspace: WorkspaceId,
        app_id: Option<&str>,
        page: &PageRequest,
    ) -> Result<Vec<DeviceView>> {
        let state = self.state();
        let mut rows: Vec<&DeviceRow> = state
            .devices
            .iter()
            .filter(|d| d.workspace_id == workspace && app_id.is_none_or(|a| d.app.app_id == a))
            .filter(|d| page.after.is_none_or(|k| d.position > k.position))
            .collect();
        rows.sort_by_key(|d| d.position);
        rows.truncate(usize::try_from(page.limit).unwrap_or(usize::MAX) + 1);
        Ok(rows
            .into_iter()
            .map(|d| {
                let (has_email, has_phone) = state.contact(d.user_id);
                DeviceView {
                    position: d.position,
                    device_id: d.id,
                    user_id: d.user_id,
                    identity: d.identity,
                    has_email,
                    has_phone,
                    app_id: d.app.app_id.clone(),
                    app_version: d.app.app_version.clone(),
                    platform: d.app.platform,
                    device_model: d.app.device_model.clone(),
                    os_version: d.app.os_version.clone(),
                    locale: d.app.locale.clone(),
                    metadata: d.app.metadata.clone(),
                    status: d.status,
                    activity: d.activity.clone(),
                }
            })
            .collect())
    }

    async fn list_installs(&self, campaign: CampaignId, page: &PageRequest) -> Result<Vec<InstallView>> {
        let state = self.state();
        let mut rows: Vec<&InstallRow> = state
            .installs
            .iter()
            .filter(|i| i.campaign_id == campaign)
            .filter(|i| page.after.is_none_or(|k| i.position > k.position))
            .collect();
        rows.sort_by_key(|i| i.position);
        rows.truncate(usize::try_from(page.limit).unwrap_or(usize::MAX) + 1);
        rows.into_iter()
            .map(|i| {
                let device = state
                    .devices
                    .iter()
                    .find(|d| d.id == i.device_id)
                    .ok_or_else(|| Error::internal(format!("install {} has no device", i.id)))?;
                let (has_email, has_phone) = state.contact(device.user_id);
                Ok(InstallView {
                    position: i.position,
                    id: i.id,
                    campaign_id: i.campaign_id,
                    device_id: i.device_id,
                    user_id: device.user_id,
                    identity: device.identity,
                    has_email,
                    has_phone,
                    app_id: i.app.app_id.clone(),
                    platform: i.app.platform,
                    app_version: i.app.app_version.clone(),
                    device_model: i.app.device_model.clone(),
                    os_version: i.app.os_version.clone(),
                    locale: i.app.locale.clone(),
                    status: device.status,
                    activity: i.activity.clone(),
                })
            })
            .collect()
    }

    async fn set_device_status(&self, id: DeviceId, status: DeviceStatus) -> Result<bool> {
        let mut state = self.state();
        Ok(state.devices.iter_mut().find(|d| d.id == id).map(|d| d.status = status).is_some())
    }
}
