//! Erasures in memory, as PostgreSQL does them (the record itself is not kept: nothing reads it).

use pulse_domain::apps::models::Identity;
use pulse_domain::audit::models::AuditEntry;
use pulse_domain::erasure::models::ErasureRecord;
use pulse_domain::erasure::ports::ErasureRepository;
use pulse_domain::error::Result;
use pulse_domain::ids::{AppUserId, CampaignId, DeviceId};
use pulse_domain::outreach::models::{MessageStatus, Suppression};
use pulse_domain::sessions::models::SessionStatus;

use super::MemoryStore;

impl ErasureRepository for MemoryStore {
    async fn erase_app_user(&self, user: AppUserId, record: &ErasureRecord, audit: &AuditEntry) -> Result<bool> {
        let mut state = self.state();
        if state.app_users.get(&user).is_none_or(|u| u.workspace_id != record.workspace_id) {
            return Ok(false);
        }
        state.app_users.remove(&user);
        for device in state.devices.iter_mut().filter(|d| d.user_id == Some(user)) {
            device.user_id = None;
            device.identity = Identity::Anonymous;
        }
        for session in state.sessions.values_mut() {
            if let Some(attribution) = session.session.attribution.as_mut().filter(|a| a.user_id == Some(user)) {
                attribution.user_id = None;
            }
        }
        state.audit(audit);
        Ok(true)
    }

    async fn erase_device(&self, device: DeviceId, record: &ErasureRecord, audit: &AuditEntry) -> Result<bool> {
        let mut state = self.state();
        let Some(at) = state.devices.iter().position(|d| d.id == device && d.workspace_id == record.workspace_id)
        else {
            return Ok(false);
        };
        let erased = state.devices.remove(at);
        state.installs.retain(|i| i.device_id != device);
        for session in state.sessions.values_mut() {
            if session.session.attribution.is_some_and(|a| a.device_id == device) {
                session.session.attribution = None;
            }
        }
        if let Some(user) = erased.user_id
            && state.app_users.get(&user).is_some_and(|u| !u.has_external_id)
            && !state.devices.iter().any(|d| d.user_id == Some(user))
        {
            state.app_users.remove(&user);
        }
        state.audit(audit);
        Ok(true)
    }

    async fn erase_respondent(
        &self,
        campaign: CampaignId,
        ref_digest: &[u8],
        record: &ErasureRecord,
        audit: &AuditEntry,
    ) -> Result<bool> {
        let mut state = self.state();
        if state.campaigns.get(&campaign).is_none_or(|c| c.workspace_id != record.workspace_id) {
            return Ok(false);
        }
        let Some(at) = state.respondents.iter().position(|r| {
            r.campaign_id == campaign && r.reference.as_ref().is_some_and(|(digest, _)| digest == ref_digest)
        }) else {
            return Ok(false);
        };
        let id = state.respondents[at].id;
        let responded = state
            .sessions
            .values()
            .any(|s| s.session.respondent_id == Some(id) && s.status == SessionStatus::Completed);
        let row = &mut state.respondents[at];
        row.reference = None;
        row.name_sealed = None;
        row.email_sealed = None;
        row.phone_sealed = None;
        row.time_zone_sealed = None;
        row.invitation_sealed = None;
        row.responded = responded;
        state.launch_links.retain(|_, link| link.respondent_id != Some(id));
        for session in state.sessions.values_mut().filter(|s| s.session.respondent_id == Some(id)) {
            session.session.respondent_id = None;
        }
        let messages: Vec<_> = state.messages.iter().filter(|m| m.respondent_id == id).map(|m| m.id).collect();
        for call in state.calls.iter_mut().filter(|c| messages.contains(&c.message_id)) {
            call.provider_call_id = None;
            call.session = None;
        }
        for recording in state.recordings.iter_mut().filter(|r| messages.contains(&r.message_id)) {
            recording.delete_after = recording.delete_after.min(record.erased_at);
            recording.next_attempt_at = recording.next_attempt_at.min(record.erased_at);
        }
        for message in state.messages.iter_mut().filter(|m| m.respondent_id == id) {
            message.address_digest = None;
            message.provider_message_id = None;
            message.claim = None;
            if message.status == MessageStatus::Queued {
                message.status = MessageStatus::Suppressed;
                message.reason = Some(Suppression::Erased.as_str().to_owned());
            }
        }
        state.audit(audit);
        Ok(true)
    }
}
