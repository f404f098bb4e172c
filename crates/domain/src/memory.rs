//! In-memory adapters of every port, for domain tests here and in other teams' crates. They keep
//! the contracts of the ports (constraints, atomicity) but nothing survives the process, and
//! [`TestCrypto`] is deliberately not secure.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use time::OffsetDateTime;
use uuid::Uuid;

use crate::analysis::{AnalysisJob, AnalysisRecord, Rejection, SessionInput, StepResult, Verdict};
use crate::apps::{
    Activity, AppFacts, AppUserRecord, Attribution, AttributionKey, BeatFacts, BeatOutcome, BeatRecord, DeviceBeat,
    DeviceRecord, DeviceRegistration, DeviceStatus, DeviceView, HeartbeatRate, Identity, InstallBeat, InstallView,
};
use crate::audience::{NewRespondent, RowOutcome, UpsertedRespondent};
use crate::campaign::{AudienceMode, Campaign, CampaignCounts, CampaignOverview, CampaignStatus};
use crate::error::{Error, ErrorCode, Result};
use crate::ids::{
    ApiKeyId, AppInstallId, AppUserId, BusinessId, CampaignId, DeliveryId, DeviceId, EventId, LaunchKeyId,
    LaunchLinkId, RespondentId, SessionId, SurveyId, WebhookId, WorkspaceId,
};
use crate::launch::{LAUNCH_KEY_SLOTS, LaunchContext, LaunchKey, LaunchLink, token_invalid};
use crate::paging::PageRequest;
use crate::ports::{
    AnalysisRepository, AppRepository, CampaignRepository, ClaimRequest, Crypto, DigestPurpose, HealthCheck,
    IdempotencyClaim, IdempotencyStore, LaunchRepository, QuotaCounter, SessionStore, TenancyRepository,
    WebhookRepository, WebhookTransport,
};
use crate::quota::QuotaFamily;
use crate::results::{AnalyzedAnswer, AnalyzedSession, ResultsInput, Segment};
use crate::session::{NewSession, Progress, SessionRecord, SessionStatus, Spend, StoredAnswer, already_completed};
use crate::survey::Survey;
use crate::tenancy::{ApiKeyRecord, Business, NewApiKey, NewWorkspace, Workspace, WorkspaceCreation, WorkspaceStatus};
use crate::webhooks::{
    AttemptRecord, AttemptView, Claim, ClaimedDelivery, Completion, DeliveryStatus, DeliveryView, EventType, NewEvent,
    NewSubscription, OutboundRequest, PostOutcome, SessionFacts, Subscription, SubscriptionChanges, WebhookUrl,
    address_refusal, refused_address,
};

#[derive(Clone, Debug)]
struct IdempotencyRecord {
    token: Uuid,
    fingerprint: Vec<u8>,
    response: Option<(u16, Vec<u8>)>,
    created_at: OffsetDateTime,
    locked_at: OffsetDateTime,
}

#[derive(Debug, Default)]
struct State {
    businesses: HashMap<BusinessId, Business>,
    keys: HashMap<String, ApiKeyRecord>,
    workspaces: Vec<Workspace>,
    idempotency: HashMap<(String, String), IdempotencyRecord>,
    quota_windows: HashMap<(String, QuotaFamily, OffsetDateTime), u32>,
    surveys: HashMap<SurveyId, Survey>,
    campaigns: HashMap<CampaignId, Campaign>,
    respondents: Vec<RespondentRow>,
    launch_keys: Vec<LaunchKey>,
    launch_links: HashMap<LaunchLinkId, LaunchLink>,
    /// `(campaign, jti)` of partner tokens that started a session, with the token's expiry.
    spent_tokens: HashMap<(CampaignId, String), OffsetDateTime>,
    sessions: HashMap<SessionId, SessionRow>,
    devices: Vec<DeviceRow>,
    installs: Vec<InstallRow>,
    app_users: HashMap<AppUserId, AppUserRow>,
    /// The last list position handed to a device, an install or a delivery.
    last_position: i64,
    webhooks: Vec<WebhookRow>,
    events: HashMap<EventId, NewEvent>,
    deliveries: Vec<DeliveryRow>,
    analysis_jobs: HashMap<SessionId, AnalysisJobRow>,
    analyses: HashMap<SessionId, AnalysisRow>,
}

#[derive(Clone, Debug)]
struct AnalysisJobRow {
    campaign: CampaignId,
    /// `None` once done.
    due_at: Option<OffsetDateTime>,
    claim: Option<Uuid>,
    attempts: u32,
}

#[derive(Clone, Debug)]
struct AnalysisRow {
    verdict: Verdict,
    rejection: Option<Rejection>,
    results: Vec<StepResult>,
}

#[derive(Clone, Debug)]
struct WebhookRow {
    subscription: Subscription,
    secret_sealed: Vec<u8>,
    dead_in_a_row: u32,
}

#[derive(Clone, Debug)]
struct DeliveryRow {
    view: DeliveryView,
    subscription: WebhookId,
    claim: Option<Uuid>,
}

#[derive(Clone, Debug)]
struct DeviceRow {
    position: i64,
    id: DeviceId,
    workspace_id: WorkspaceId,
    vendor_digest: Option<Vec<u8>>,
    app: AppFacts,
    status: DeviceStatus,
    refresh_digest: Vec<u8>,
    refresh_expires_at: OffsetDateTime,
    user_id: Option<AppUserId>,
    identity: Identity,
    latest_install: AppInstallId,
    activity: Activity,
    heartbeat_tat: Option<OffsetDateTime>,
}

#[derive(Clone, Debug)]
struct InstallRow {
    position: i64,
    id: AppInstallId,
    campaign_id: CampaignId,
    device_id: DeviceId,
    app: AppFacts,
    activity: Activity,
    heartbeat_tat: Option<OffsetDateTime>,
}

#[derive(Clone, Debug)]
struct AppUserRow {
    workspace_id: WorkspaceId,
    has_external_id: bool,
    email_sealed: Option<Vec<u8>>,
    phone_sealed: Option<Vec<u8>>,
    verified: bool,
}

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

/// A respondent as stored: contact details sealed, and the id of its invitation link.
#[derive(Clone, Debug)]
struct RespondentRow {
    id: RespondentId,
    campaign_id: CampaignId,
    external_ref: String,
    name_sealed: Option<Vec<u8>>,
    email_sealed: Option<Vec<u8>>,
    phone_sealed: Option<Vec<u8>>,
    invitation_sealed: Vec<u8>,
    invitation_link: LaunchLinkId,
}

#[derive(Clone, Debug)]
struct SessionRow {
    session: NewSession,
    status: SessionStatus,
    completed_at: Option<OffsetDateTime>,
    /// At most one answer per question id.
    answers: Vec<StoredAnswer>,
    exchanges: u32,
}

impl SessionRow {
    fn answered(&self) -> u32 {
        u32::try_from(self.answers.len()).unwrap_or(u32::MAX)
    }

    fn progress(&self) -> Progress {
        Progress { status: self.status, answered: self.answered(), total: self.session.total_questions }
    }

    fn record(&self) -> SessionRecord {
        SessionRecord {
            id: self.session.id,
            campaign_id: self.session.campaign_id,
            token_digest: self.session.token_digest.clone(),
            language: self.session.language.clone(),
            status: self.status,
            answered: self.answered(),
            total: self.session.total_questions,
            started_at: self.session.started_at,
            completed_at: self.completed_at,
            attribution: self.session.attribution,
        }
    }
}

impl State {
    fn survey_of(&self, campaign: &Campaign) -> Result<Survey> {
        self.surveys
            .get(&campaign.survey_id)
            .cloned()
            .ok_or_else(|| Error::internal(format!("campaign {} has no survey", campaign.id)))
    }

    fn overview(&self, campaign: &Campaign) -> Result<CampaignOverview> {
        let workspace_status = self
            .workspaces
            .iter()
            .find(|w| w.id == campaign.workspace_id)
            .map(|w| w.status)
            .ok_or_else(|| Error::internal(format!("campaign {} has no workspace", campaign.id)))?;
        let respondents = self.respondents.iter().filter(|r| r.campaign_id == campaign.id);
        let sessions = self.sessions.values().filter(|s| s.session.campaign_id == campaign.id);
        let responded = respondents
            .clone()
            .filter(|r| {
                sessions.clone().any(|s| s.session.respondent_id == Some(r.id) && s.status == SessionStatus::Completed)
            })
            .count() as u64;
        let counts = CampaignCounts {
            responded,
            invited: respondents.clone().count() as u64,
            invited_with_email: respondents.clone().filter(|r| r.email_sealed.is_some()).count() as u64,
            invited_with_phone: respondents.filter(|r| r.phone_sealed.is_some()).count() as u64,
            started: sessions.clone().count() as u64,
            completed: sessions.filter(|s| s.status == SessionStatus::Completed).count() as u64,
        };
        Ok(CampaignOverview { campaign: campaign.clone(), survey: self.survey_of(campaign)?, workspace_status, counts })
    }

    fn session_mut(&mut self, id: SessionId) -> Result<&mut SessionRow> {
        self.sessions.get_mut(&id).ok_or_else(|| Error::not_found("session"))
    }
}

/// One store for every repository port. Clones share the same data.
#[derive(Clone, Debug, Default)]
pub struct MemoryStore {
    state: Arc<Mutex<State>>,
}

impl MemoryStore {
    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl TenancyRepository for MemoryStore {
    async fn create_business(&self, business: &Business) -> Result<()> {
        self.state().businesses.insert(business.id, business.clone());
        Ok(())
    }

    async fn business_exists(&self, id: BusinessId) -> Result<bool> {
        Ok(self.state().businesses.contains_key(&id))
    }

    async fn insert_api_key(&self, key: &NewApiKey) -> Result<()> {
        let mut state = self.state();
        if state.keys.contains_key(&key.record.prefix) {
            return Err(Error::refused(ErrorCode::Conflict, "prefix taken"));
        }
        let foreign =
            key.record.workspace_allowlist.iter().any(|id| {
                !state.workspaces.iter().any(|w| w.id == *id && Some(w.business_id) == key.record.business_id)
            });
        if foreign {
            return Err(Error::not_found("workspace"));
        }
        state.keys.insert(key.record.prefix.clone(), key.record.clone());
        Ok(())
    }

    async fn find_api_key(&self, prefix: &str) -> Result<Option<ApiKeyRecord>> {
        Ok(self.state().keys.get(prefix).cloned())
    }

    async fn revoke_api_key(&self, prefix: &str, at: OffsetDateTime) -> Result<bool> {
        Ok(self.state().keys.get_mut(prefix).map(|k| k.revoked_at = Some(at)).is_some())
    }

    async fn create_workspace(
        &self,
        creator: ApiKeyId,
        new: &NewWorkspace,
        max_per_business: u32,
    ) -> Result<WorkspaceCreation> {
        let mut state = self.state();
        if let Some(existing) = state
            .workspaces
            .iter()
            .find(|w| w.business_id == new.business_id && w.details.external_ref == new.details.external_ref)
        {
            return Ok(WorkspaceCreation::Existing(existing.clone()));
        }
        let held = state.workspaces.iter().filter(|w| w.business_id == new.business_id).count();
        if held >= max_per_business as usize {
            return Err(Error::refused(ErrorCode::RateLimited, "business workspace limit reached"));
        }
        let workspace = Workspace {
            id: new.id,
            business_id: new.business_id,
            slug: new.slug.clone(),
            status: WorkspaceStatus::PendingApproval,
            details: new.details.clone(),
            created_at: new.created_at,
        };
        state.workspaces.push(workspace.clone());
        if let Some(key) = state.keys.values_mut().find(|k| k.id == creator) {
            key.workspace_allowlist.push(new.id);
        }
        Ok(WorkspaceCreation::Created(workspace))
    }

    async fn list_workspaces(&self, business: BusinessId, ids: &[WorkspaceId]) -> Result<Vec<Workspace>> {
        Ok(self
            .state()
            .workspaces
            .iter()
            .filter(|w| w.business_id == business && ids.contains(&w.id))
            .cloned()
            .collect())
    }

    async fn approve_workspace(&self, id: WorkspaceId) -> Result<Option<Workspace>> {
        let mut state = self.state();
        Ok(state.workspaces.iter_mut().find(|w| w.id == id).map(|w| {
            w.status = WorkspaceStatus::Active;
            w.clone()
        }))
    }
}

impl IdempotencyStore for MemoryStore {
    async fn claim(&self, request: &ClaimRequest<'_>) -> Result<IdempotencyClaim> {
        let ClaimRequest { scope, key, token, fingerprint, now, expired_before, stale_before } = *request;
        let mut state = self.state();
        let slot = (scope.to_owned(), key.to_owned());
        if let Some(existing) = state.idempotency.get(&slot) {
            let expired = existing.created_at < expired_before;
            let stale = existing.response.is_none() && existing.locked_at < stale_before;
            if !expired && !stale {
                return Ok(match &existing.response {
                    Some((status, body)) => IdempotencyClaim::Completed {
                        fingerprint: existing.fingerprint.clone(),
                        status: *status,
                        sealed_body: body.clone(),
                    },
                    None => IdempotencyClaim::InFlight { fingerprint: existing.fingerprint.clone() },
                });
            }
        }
        let record = IdempotencyRecord {
            token,
            fingerprint: fingerprint.to_vec(),
            response: None,
            created_at: now,
            locked_at: now,
        };
        state.idempotency.insert(slot, record);
        Ok(IdempotencyClaim::Claimed)
    }

    async fn complete(&self, scope: &str, key: &str, token: Uuid, status: u16, sealed_body: &[u8]) -> Result<()> {
        if let Some(record) =
            self.state().idempotency.get_mut(&(scope.to_owned(), key.to_owned())).filter(|r| r.token == token)
        {
            record.response = Some((status, sealed_body.to_vec()));
        }
        Ok(())
    }

    async fn release(&self, scope: &str, key: &str, token: Uuid) -> Result<()> {
        let mut state = self.state();
        let slot = (scope.to_owned(), key.to_owned());
        if state.idempotency.get(&slot).is_some_and(|r| r.token == token) {
            state.idempotency.remove(&slot);
        }
        Ok(())
    }

    async fn purge_idempotency(&self, before: OffsetDateTime) -> Result<u64> {
        let mut state = self.state();
        let len = state.idempotency.len();
        state.idempotency.retain(|_, r| r.created_at >= before);
        Ok((len - state.idempotency.len()) as u64)
    }
}

impl QuotaCounter for MemoryStore {
    async fn hit(&self, subject: &str, family: QuotaFamily, window_start: OffsetDateTime) -> Result<u32> {
        let mut state = self.state();
        let count = state.quota_windows.entry((subject.to_owned(), family, window_start)).or_insert(0);
        *count += 1;
        Ok(*count)
    }

    async fn purge_quota_windows(&self, before: OffsetDateTime) -> Result<u64> {
        let mut state = self.state();
        let len = state.quota_windows.len();
        state.quota_windows.retain(|(_, _, start), _| *start >= before);
        Ok((len - state.quota_windows.len()) as u64)
    }
}

impl CampaignRepository for MemoryStore {
    async fn create_campaign(&self, survey: Option<&Survey>, campaign: &Campaign) -> Result<()> {
        let mut state = self.state();
        if state.campaigns.values().any(|c| c.code == campaign.code) {
            return Err(Error::refused(ErrorCode::Conflict, "campaign code taken"));
        }
        // What foreign keys and primary keys enforce in a database: checked before anything is
        // written, so a refused call changes nothing.
        if state.campaigns.contains_key(&campaign.id) {
            return Err(Error::internal(format!("campaign {} exists already", campaign.id)));
        }
        if !state.workspaces.iter().any(|w| w.id == campaign.workspace_id) {
            return Err(Error::internal(format!("workspace {} does not exist", campaign.workspace_id)));
        }
        match survey {
            Some(survey) => {
                if survey.id != campaign.survey_id || survey.workspace_id != campaign.workspace_id {
                    return Err(Error::internal("the new survey does not belong to the campaign"));
                }
                if state.surveys.contains_key(&survey.id) {
                    return Err(Error::internal(format!("survey {} exists already", survey.id)));
                }
            }
            None if !state.surveys.contains_key(&campaign.survey_id) => {
                return Err(Error::internal(format!("survey {} does not exist", campaign.survey_id)));
            }
            None => {}
        }
        if let Some(survey) = survey {
            state.surveys.insert(survey.id, survey.clone());
        }
        state.campaigns.insert(campaign.id, campaign.clone());
        Ok(())
    }

    async fn find_survey(&self, workspace: WorkspaceId, id: SurveyId) -> Result<Option<Survey>> {
        Ok(self.state().surveys.get(&id).filter(|s| s.workspace_id == workspace).cloned())
    }

    async fn campaign_overview(&self, workspace: WorkspaceId, id: CampaignId) -> Result<Option<CampaignOverview>> {
        let state = self.state();
        state.campaigns.get(&id).filter(|c| c.workspace_id == workspace).map(|c| state.overview(c)).transpose()
    }

    async fn find_campaign_by_code(&self, code: &str) -> Result<Option<(Campaign, Survey)>> {
        let state = self.state();
        state.campaigns.values().find(|c| c.code == code).map(|c| Ok((c.clone(), state.survey_of(c)?))).transpose()
    }

    async fn find_campaign_in_business(&self, business: BusinessId, id: CampaignId) -> Result<Option<Campaign>> {
        let state = self.state();
        Ok(state
            .campaigns
            .get(&id)
            .filter(|c| state.workspaces.iter().any(|w| w.id == c.workspace_id && w.business_id == business))
            .cloned())
    }

    async fn activate_campaign(&self, id: CampaignId, at: OffsetDateTime) -> Result<Campaign> {
        let mut state = self.state();
        let campaign = state.campaigns.get_mut(&id).ok_or_else(|| Error::not_found("campaign"))?;
        if campaign.status == CampaignStatus::Draft {
            campaign.status = CampaignStatus::Active;
            campaign.launched_at = Some(at);
        }
        Ok(campaign.clone())
    }

    async fn upsert_respondents(
        &self,
        campaign: CampaignId,
        rows: &[NewRespondent],
    ) -> Result<Vec<UpsertedRespondent>> {
        let mut state = self.state();
        if !state.campaigns.contains_key(&campaign) {
            return Err(Error::internal(format!("campaign {campaign} does not exist")));
        }
        let mut upserted = Vec::with_capacity(rows.len());
        for row in rows {
            let existing =
                state.respondents.iter().position(|r| r.campaign_id == campaign && r.external_ref == row.external_ref);
            if let Some(index) = existing {
                let stored = &mut state.respondents[index];
                stored.name_sealed.clone_from(&row.name_sealed);
                stored.email_sealed.clone_from(&row.email_sealed);
                stored.phone_sealed.clone_from(&row.phone_sealed);
                let stored = stored.clone();
                let responded =
                    state.sessions.values().any(|s| s.session.launch_link_id == Some(stored.invitation_link));
                upserted.push(UpsertedRespondent {
                    id: stored.id,
                    outcome: RowOutcome::Updated,
                    invitation_sealed: stored.invitation_sealed,
                    responded,
                });
            } else {
                let link = LaunchLink {
                    id: LaunchLinkId::new_random(),
                    campaign_id: campaign,
                    nonce_digest: Some(row.invitation_digest.clone()),
                    respondent_id: Some(row.id),
                    language: None,
                    external_user_digest: None,
                    context: LaunchContext::default(),
                    expires_at: None,
                    spent_at: None,
                    created_at: row.at,
                };
                state.respondents.push(RespondentRow {
                    id: row.id,
                    campaign_id: campaign,
                    external_ref: row.external_ref.clone(),
                    name_sealed: row.name_sealed.clone(),
                    email_sealed: row.email_sealed.clone(),
                    phone_sealed: row.phone_sealed.clone(),
                    invitation_sealed: row.invitation_sealed.clone(),
                    invitation_link: link.id,
                });
                state.launch_links.insert(link.id, link);
                upserted.push(UpsertedRespondent {
                    id: row.id,
                    outcome: RowOutcome::Created,
                    invitation_sealed: row.invitation_sealed.clone(),
                    responded: false,
                });
            }
        }
        if let Some(c) = state.campaigns.get_mut(&campaign)
            && c.status == CampaignStatus::Draft
            && !rows.is_empty()
        {
            c.audience = AudienceMode::Closed;
        }
        Ok(upserted)
    }
}

impl LaunchRepository for MemoryStore {
    async fn active_launch_keys(&self, campaign: CampaignId) -> Result<Vec<LaunchKey>> {
        let mut keys: Vec<LaunchKey> = self
            .state()
            .launch_keys
            .iter()
            .filter(|k| k.campaign_id == campaign && k.revoked_at.is_none())
            .cloned()
            .collect();
        keys.sort_by_key(|k| k.slot);
        Ok(keys)
    }

    async fn find_launch_key(&self, campaign: CampaignId, id: LaunchKeyId) -> Result<Option<LaunchKey>> {
        Ok(self
            .state()
            .launch_keys
            .iter()
            .find(|k| k.id == id && k.campaign_id == campaign && k.revoked_at.is_none())
            .cloned())
    }

    async fn insert_launch_key(&self, key: &LaunchKey) -> Result<LaunchKey> {
        let mut state = self.state();
        if !state.campaigns.contains_key(&key.campaign_id) {
            return Err(Error::internal(format!("campaign {} does not exist", key.campaign_id)));
        }
        if state.launch_keys.iter().any(|k| k.id == key.id) {
            return Err(Error::internal(format!("launch key {} exists already", key.id)));
        }
        let taken = |slot: u8| {
            state
                .launch_keys
                .iter()
                .any(|k| k.campaign_id == key.campaign_id && k.revoked_at.is_none() && k.slot == slot)
        };
        let Some(slot) = (1..=LAUNCH_KEY_SLOTS).find(|s| !taken(*s)) else {
            return Err(Error::refused(
                ErrorCode::LaunchKeySlotsFull,
                "every launch-key slot holds an active key; revoke one first",
            ));
        };
        let stored = LaunchKey { slot, ..key.clone() };
        state.launch_keys.push(stored.clone());
        Ok(stored)
    }

    async fn revoke_launch_key(&self, campaign: CampaignId, id: LaunchKeyId, at: OffsetDateTime) -> Result<bool> {
        Ok(self
            .state()
            .launch_keys
            .iter_mut()
            .find(|k| k.id == id && k.campaign_id == campaign && k.revoked_at.is_none())
            .map(|k| k.revoked_at = Some(at))
            .is_some())
    }

    async fn set_require_signed(&self, campaign: CampaignId, required: bool) -> Result<()> {
        if let Some(c) = self.state().campaigns.get_mut(&campaign) {
            c.require_signed = required;
        }
        Ok(())
    }

    async fn insert_launch_link(&self, link: &LaunchLink) -> Result<()> {
        let mut state = self.state();
        if !state.campaigns.contains_key(&link.campaign_id) {
            return Err(Error::internal(format!("campaign {} does not exist", link.campaign_id)));
        }
        if state.launch_links.contains_key(&link.id) {
            return Err(Error::internal(format!("launch link {} exists already", link.id)));
        }
        state.launch_links.insert(link.id, link.clone());
        Ok(())
    }

    async fn find_launch_link(&self, campaign: CampaignId, id: LaunchLinkId) -> Result<Option<LaunchLink>> {
        Ok(self.state().launch_links.get(&id).filter(|l| l.campaign_id == campaign).cloned())
    }

    async fn find_link_by_nonce(&self, campaign: CampaignId, nonce_digest: &[u8]) -> Result<Option<LaunchLink>> {
        Ok(self
            .state()
            .launch_links
            .values()
            .find(|l| l.campaign_id == campaign && l.nonce_digest.as_deref() == Some(nonce_digest))
            .cloned())
    }

    async fn token_spent(&self, campaign: CampaignId, jti: &str) -> Result<bool> {
        Ok(self.state().spent_tokens.contains_key(&(campaign, jti.to_owned())))
    }

    async fn purge_spent_tokens(&self, before: OffsetDateTime) -> Result<u64> {
        let mut state = self.state();
        let len = state.spent_tokens.len();
        state.spent_tokens.retain(|_, expires_at| *expires_at >= before);
        Ok((len - state.spent_tokens.len()) as u64)
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

impl SessionStore for MemoryStore {
    async fn start_session(&self, session: &NewSession, spend: &Spend) -> Result<()> {
        // One lock for the checks and the writes: two concurrent starts cannot both spend.
        let mut state = self.state();
        let campaign = session.campaign_id;
        if !state.campaigns.contains_key(&campaign) {
            return Err(Error::internal(format!("campaign {campaign} does not exist")));
        }
        if state.sessions.contains_key(&session.id) {
            return Err(Error::internal(format!("session {} exists already", session.id)));
        }
        match spend {
            Spend::Nothing => {}
            Spend::Link(id) => {
                let link = state
                    .launch_links
                    .get_mut(id)
                    .filter(|l| l.campaign_id == campaign && l.spent_at.is_none())
                    .ok_or_else(token_invalid)?;
                link.spent_at = Some(session.started_at);
            }
            Spend::Token { key_id, jti, expires_at } => {
                let slot = (campaign, jti.clone());
                if state.spent_tokens.contains_key(&slot) {
                    return Err(token_invalid());
                }
                state.spent_tokens.insert(slot, *expires_at);
                if let Some(key) = state.launch_keys.iter_mut().find(|k| k.id == *key_id && k.campaign_id == campaign) {
                    key.last_used_at = Some(session.started_at);
                }
            }
        }
        if let Some(attribution) = &session.attribution {
            if let Some(device) = state.devices.iter_mut().find(|d| d.id == attribution.device_id) {
                device.activity.feedback_count += 1;
            }
            if let Some(install) = state.installs.iter_mut().find(|i| Some(i.id) == attribution.install_id) {
                install.activity.feedback_count += 1;
            }
        }
        let row = SessionRow {
            session: session.clone(),
            status: SessionStatus::Started,
            completed_at: None,
            answers: vec![],
            exchanges: 0,
        };
        state.sessions.insert(session.id, row);
        Ok(())
    }

    async fn find_session(&self, campaign: CampaignId, id: SessionId) -> Result<Option<SessionRecord>> {
        Ok(self.state().sessions.get(&id).filter(|s| s.session.campaign_id == campaign).map(SessionRow::record))
    }

    async fn record_answers(&self, session: SessionId, answers: &[StoredAnswer]) -> Result<Progress> {
        let mut state = self.state();
        let row = state.session_mut(session)?;
        if row.status == SessionStatus::Completed {
            return Err(already_completed());
        }
        row.exchanges = row.exchanges.saturating_add(u32::try_from(answers.len()).unwrap_or(u32::MAX));
        for answer in answers {
            match row.answers.iter_mut().find(|a| a.question_id == answer.question_id) {
                Some(earlier) => *earlier = answer.clone(),
                None => row.answers.push(answer.clone()),
            }
        }
        Ok(row.progress())
    }

    async fn complete_session(&self, completion: &Completion) -> Result<Progress> {
        let mut state = self.state();
        let row = state.session_mut(completion.facts.session)?;
        if row.status != SessionStatus::Started {
            return Ok(row.progress());
        }
        row.status = SessionStatus::Completed;
        row.completed_at = Some(completion.at);
        let progress = row.progress();
        for event in completion.events(&progress) {
            state.emit(event);
        }
        let job = AnalysisJobRow {
            campaign: completion.facts.campaign,
            due_at: Some(completion.at),
            claim: None,
            attempts: 0,
        };
        state.analysis_jobs.insert(completion.facts.session, job);
        Ok(progress)
    }
}

impl State {
    fn new_delivery(&mut self, subscription: WebhookId, event: &NewEvent) -> DeliveryView {
        self.last_position += 1;
        let view = DeliveryView {
            id: DeliveryId::new_random(),
            event_id: event.id,
            event_type: event.event_type,
            status: DeliveryStatus::Pending,
            attempts: 0,
            next_attempt_at: Some(event.occurred_at),
            last_status_code: None,
            last_error: None,
            occurred_at: event.occurred_at,
            delivered_at: None,
            history: vec![],
            position: self.last_position,
        };
        self.deliveries.push(DeliveryRow { view: view.clone(), subscription, claim: None });
        view
    }

    /// Writes the event and a delivery to every active endpoint of its workspace that wants it.
    fn emit(&mut self, event: NewEvent) {
        let targets: Vec<WebhookId> = self
            .webhooks
            .iter()
            .map(|w| &w.subscription)
            .filter(|s| s.workspace_id == event.workspace_id && s.is_active)
            .filter(|s| s.event_types.is_empty() || s.event_types.contains(&event.event_type))
            .map(|s| s.id)
            .collect();
        for target in targets {
            self.new_delivery(target, &event);
        }
        self.events.insert(event.id, event);
    }
}

impl WebhookRepository for MemoryStore {
    async fn insert_subscription(&self, new: &NewSubscription, max_per_workspace: usize) -> Result<()> {
        let mut state = self.state();
        let workspace = new.subscription.workspace_id;
        if state.webhooks.iter().filter(|w| w.subscription.workspace_id == workspace).count() >= max_per_workspace {
            return Err(Error::refused(
                ErrorCode::Conflict,
                format!("a workspace holds at most {max_per_workspace} webhook endpoints; delete one first"),
            ));
        }
        state.webhooks.push(WebhookRow {
            subscription: new.subscription.clone(),
            secret_sealed: new.secret_sealed.clone(),
            dead_in_a_row: 0,
        });
        Ok(())
    }

    async fn list_subscriptions(&self, workspace: WorkspaceId) -> Result<Vec<Subscription>> {
        Ok(self
            .state()
            .webhooks
            .iter()
            .filter(|w| w.subscription.workspace_id == workspace)
            .map(|w| w.subscription.clone())
            .collect())
    }

    async fn find_subscription(&self, workspace: WorkspaceId, id: WebhookId) -> Result<Option<Subscription>> {
        Ok(self
            .state()
            .webhooks
            .iter()
            .find(|w| w.subscription.id == id && w.subscription.workspace_id == workspace)
            .map(|w| w.subscription.clone()))
    }

    async fn update_subscription(
        &self,
        workspace: WorkspaceId,
        id: WebhookId,
        changes: &SubscriptionChanges,
        _at: OffsetDateTime,
    ) -> Result<Option<Subscription>> {
        let mut state = self.state();
        let Some(row) =
            state.webhooks.iter_mut().find(|w| w.subscription.id == id && w.subscription.workspace_id == workspace)
        else {
            return Ok(None);
        };
        let subscription = &mut row.subscription;
        if let Some(url) = &changes.url {
            subscription.url.clone_from(url);
        }
        if let Some(description) = &changes.description {
            subscription.description.clone_from(description);
        }
        if let Some(types) = &changes.event_types {
            subscription.event_types.clone_from(types);
        }
        match changes.is_active {
            Some(true) => {
                subscription.is_active = true;
                subscription.disabled_at = None;
                subscription.disabled_reason = None;
                row.dead_in_a_row = 0;
            }
            Some(false) => subscription.is_active = false,
            None => {}
        }
        Ok(Some(row.subscription.clone()))
    }

    async fn delete_subscription(&self, workspace: WorkspaceId, id: WebhookId) -> Result<bool> {
        let mut state = self.state();
        let before = state.webhooks.len();
        state.webhooks.retain(|w| !(w.subscription.id == id && w.subscription.workspace_id == workspace));
        if state.webhooks.len() == before {
            return Ok(false);
        }
        state.deliveries.retain(|d| d.subscription != id);
        Ok(true)
    }

    async fn queue_test_event(
        &self,
        workspace: WorkspaceId,
        id: WebhookId,
        event: &NewEvent,
    ) -> Result<Option<DeliveryView>> {
        let mut state = self.state();
        if !state.webhooks.iter().any(|w| w.subscription.id == id && w.subscription.workspace_id == workspace) {
            return Ok(None);
        }
        state.events.insert(event.id, event.clone());
        Ok(Some(state.new_delivery(id, event)))
    }

    async fn list_deliveries(&self, subscription: WebhookId, page: &PageRequest) -> Result<Vec<DeliveryView>> {
        let state = self.state();
        let mut rows: Vec<DeliveryView> = state
            .deliveries
            .iter()
            .filter(|d| d.subscription == subscription)
            .filter(|d| page.after.is_none_or(|after| d.view.position < after.position))
            .map(|d| d.view.clone())
            .collect();
        rows.sort_by_key(|d| std::cmp::Reverse(d.position));
        rows.truncate(usize::try_from(page.limit).unwrap_or(usize::MAX) + 1);
        Ok(rows)
    }

    async fn claim_deliveries(&self, claim: &Claim) -> Result<Vec<ClaimedDelivery>> {
        let mut state = self.state();
        let State { webhooks, events, deliveries, .. } = &mut *state;
        let mut claimed = Vec::new();
        for row in deliveries.iter_mut() {
            if claimed.len() >= usize::try_from(claim.limit).unwrap_or(usize::MAX) {
                break;
            }
            let due = matches!(row.view.status, DeliveryStatus::Pending | DeliveryStatus::Failed)
                && row.view.next_attempt_at.is_some_and(|at| at <= claim.now);
            let Some(webhook) = webhooks.iter().find(|w| w.subscription.id == row.subscription) else { continue };
            let Some(event) = events.get(&row.view.event_id) else { continue };
            if !due || !(webhook.subscription.is_active || event.event_type == EventType::WebhookTest) {
                continue;
            }
            // The lease: not due again until it ends, when the claimer is presumed dead.
            row.view.next_attempt_at = Some(claim.lease_until);
            row.claim = Some(claim.token);
            claimed.push(ClaimedDelivery {
                id: row.view.id,
                claim_token: claim.token,
                attempts: row.view.attempts,
                subscription_id: row.subscription,
                url: webhook.subscription.url.clone(),
                secret_sealed: webhook.secret_sealed.clone(),
                event: event.clone(),
            });
        }
        Ok(claimed)
    }

    async fn record_attempt(&self, attempt: &AttemptRecord) -> Result<bool> {
        let mut state = self.state();
        let Some(row) =
            state.deliveries.iter_mut().find(|d| d.view.id == attempt.delivery && d.claim == Some(attempt.claim_token))
        else {
            return Ok(false);
        };
        row.claim = None;
        let view = &mut row.view;
        view.status = attempt.status;
        view.attempts = attempt.attempt;
        view.next_attempt_at = attempt.next_attempt_at;
        view.last_status_code = attempt.status_code;
        view.last_error.clone_from(&attempt.error);
        if attempt.status == DeliveryStatus::Delivered {
            view.delivered_at = Some(attempt.attempted_at);
        }
        view.history.push(AttemptView {
            attempt: attempt.attempt,
            attempted_at: attempt.attempted_at,
            status_code: attempt.status_code,
            error: attempt.error.clone(),
            duration_ms: attempt.duration_ms,
        });
        let Some(webhook) = state.webhooks.iter_mut().find(|w| w.subscription.id == attempt.subscription) else {
            return Ok(true);
        };
        match attempt.status {
            DeliveryStatus::Delivered => webhook.dead_in_a_row = 0,
            DeliveryStatus::Dead => {
                webhook.dead_in_a_row += 1;
                if webhook.dead_in_a_row >= crate::webhooks::DISABLE_AFTER_DEAD && webhook.subscription.is_active {
                    webhook.subscription.is_active = false;
                    webhook.subscription.disabled_at = Some(attempt.attempted_at);
                    webhook.subscription.disabled_reason = Some(attempt.disable_reason.clone());
                }
            }
            DeliveryStatus::Pending | DeliveryStatus::Failed => {}
        }
        Ok(true)
    }

    async fn purge_webhook_events(&self, before: OffsetDateTime) -> Result<u64> {
        let mut state = self.state();
        let open: std::collections::HashSet<EventId> = state
            .deliveries
            .iter()
            .filter(|d| matches!(d.view.status, DeliveryStatus::Pending | DeliveryStatus::Failed))
            .map(|d| d.view.event_id)
            .collect();
        let purged: Vec<EventId> =
            state.events.values().filter(|e| e.occurred_at < before && !open.contains(&e.id)).map(|e| e.id).collect();
        for id in &purged {
            state.events.remove(id);
        }
        state.deliveries.retain(|d| !purged.contains(&d.view.event_id));
        Ok(purged.len() as u64)
    }
}

/// A transport that sends nothing: it records each request and answers from a script (204 once
/// the script runs out). Its address check refuses IP literals in forbidden ranges and `localhost`.
#[derive(Clone, Debug, Default)]
pub struct RecordingTransport {
    inner: Arc<Mutex<RecordingState>>,
}

#[derive(Debug, Default)]
struct RecordingState {
    script: std::collections::VecDeque<PostOutcome>,
    sent: Vec<OutboundRequest>,
}

impl RecordingTransport {
    /// Answers the next POSTs with these outcomes, in order.
    pub fn answer(&self, outcomes: impl IntoIterator<Item = PostOutcome>) {
        self.lock().script.extend(outcomes);
    }

    /// What was posted so far.
    pub fn sent(&self) -> Vec<OutboundRequest> {
        self.lock().sent.clone()
    }

    fn lock(&self) -> MutexGuard<'_, RecordingState> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl WebhookTransport for RecordingTransport {
    async fn check_target(&self, url: &WebhookUrl) -> Result<()> {
        let refused = |host: &str, ip: std::net::IpAddr| {
            address_refusal(ip).map_or(Ok(()), |why| Err(refused_address(host, ip, why)))
        };
        match url.as_url().host() {
            Some(url::Host::Ipv4(ip)) => refused(&ip.to_string(), ip.into()),
            Some(url::Host::Ipv6(ip)) => refused(&ip.to_string(), ip.into()),
            Some(url::Host::Domain("localhost")) => refused("localhost", std::net::Ipv4Addr::LOCALHOST.into()),
            _ => Ok(()),
        }
    }

    async fn post(&self, request: &OutboundRequest) -> PostOutcome {
        let mut state = self.lock();
        state.sent.push(request.clone());
        state.script.pop_front().unwrap_or(PostOutcome { status_code: Some(204), error: None, duration_ms: 1 })
    }
}

impl HealthCheck for MemoryStore {
    async fn ping(&self) -> Result<()> {
        Ok(())
    }
}

/// A deterministic stand-in for the crypto adapter. NOT secure: its "encryption" only checks the
/// context, its digests are plain FNV hashes, and its [`Crypto::sha256`] is not SHA-256 at all
/// (it is an FNV-based 32-byte value, so fingerprints made with it match no real tool's). Use it
/// in tests, never in a running service.
#[derive(Clone, Debug, Default)]
pub struct TestCrypto {
    counter: Arc<Mutex<u64>>,
}

fn fnv(seed: u64, parts: &[&[u8]]) -> u64 {
    let mut hash = 0xcbf2_9ce4_8422_2325_u64 ^ seed;
    for part in parts {
        for &b in *part {
            hash ^= u64::from(b);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
        hash ^= 0xff;
    }
    hash
}

impl TestCrypto {
    /// The stand-in for HMAC-SHA256 that [`Crypto::verify_hmac_sha256`] checks against here.
    pub fn hmac_sha256(key: &[u8], data: &[u8]) -> [u8; 32] {
        let mut out = [0_u8; 32];
        for (seed, chunk) in (0_u64..).zip(out.chunks_exact_mut(8)) {
            chunk.copy_from_slice(&fnv(seed, &[b"not-hmac", key, data]).to_be_bytes());
        }
        out
    }
}

impl Crypto for TestCrypto {
    fn random_base62(&self, len: usize) -> String {
        const ALPHABET: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
        let mut counter = self.counter.lock().unwrap_or_else(PoisonError::into_inner);
        (0..len)
            .map(|_| {
                *counter += 1;
                char::from(ALPHABET[(fnv(*counter, &[b"random"]) % 62) as usize])
            })
            .collect()
    }

    fn keyed_digest(&self, purpose: DigestPurpose, input: &[u8]) -> Vec<u8> {
        (0..4u64).flat_map(|i| fnv(i, &[purpose.label().as_bytes(), input]).to_be_bytes()).collect()
    }

    fn verify_keyed_digest(&self, purpose: DigestPurpose, input: &[u8], expected: &[u8]) -> bool {
        self.keyed_digest(purpose, input) == expected
    }

    fn seal(&self, context: &[u8], plaintext: &[u8]) -> Vec<u8> {
        let mut out = fnv(0, &[context]).to_be_bytes().to_vec();
        out.extend(plaintext.iter().map(|b| b ^ 0x5a));
        out
    }

    fn open(&self, context: &[u8], sealed: &[u8]) -> Result<Vec<u8>> {
        match sealed.split_at_checked(8) {
            Some((tag, body)) if tag == fnv(0, &[context]).to_be_bytes() => Ok(body.iter().map(|b| b ^ 0x5a).collect()),
            _ => Err(Error::internal("sealed data does not belong to this context")),
        }
    }

    /// NOT SHA-256: a deterministic 32-byte FNV mix of `data` (the domain crate takes no crypto
    /// dependency). Equal inputs give equal outputs, different inputs almost surely different ones.
    fn sha256(&self, data: &[u8]) -> [u8; 32] {
        let mut out = [0_u8; 32];
        for (seed, chunk) in (0_u64..).zip(out.chunks_exact_mut(8)) {
            chunk.copy_from_slice(&fnv(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15), &[b"not-sha256", data]).to_be_bytes());
        }
        out
    }

    fn verify_hmac_sha256(&self, key: &[u8], data: &[u8], expected: &[u8]) -> bool {
        Self::hmac_sha256(key, data).as_slice() == expected
    }

    fn hmac_sha256(&self, key: &[u8], data: &[u8]) -> [u8; 32] {
        Self::hmac_sha256(key, data)
    }
}

impl AnalysisRepository for MemoryStore {
    async fn claim_analyses(
        &self,
        now: OffsetDateTime,
        lease_until: OffsetDateTime,
        limit: u32,
    ) -> Result<Vec<AnalysisJob>> {
        let mut state = self.state();
        let mut due: Vec<(OffsetDateTime, SessionId)> = state
            .analysis_jobs
            .iter()
            .filter_map(|(id, job)| job.due_at.filter(|at| *at <= now).map(|at| (at, *id)))
            .collect();
        due.sort();
        let mut claimed = Vec::new();
        for (_, session) in due.into_iter().take(limit as usize) {
            if let Some(job) = state.analysis_jobs.get_mut(&session) {
                let token = Uuid::new_v4();
                job.claim = Some(token);
                job.due_at = Some(lease_until);
                claimed.push(AnalysisJob { session, claim_token: token, attempts: job.attempts });
            }
        }
        Ok(claimed)
    }

    async fn analysis_input(&self, session: SessionId) -> Result<Option<SessionInput>> {
        let state = self.state();
        let Some(row) = state.sessions.get(&session) else { return Ok(None) };
        let Some(campaign) = state.campaigns.get(&row.session.campaign_id) else { return Ok(None) };
        let (Some(completed_at), SessionStatus::Completed) = (row.completed_at, row.status) else { return Ok(None) };
        let attribution = row.session.attribution;
        let (device_id, user_id) = SessionFacts::proven(
            attribution.map(|a| a.device_id),
            attribution.and_then(|a| a.user_id),
            attribution.map(|a| a.identity),
        );
        Ok(Some(SessionInput {
            facts: SessionFacts {
                session,
                campaign: campaign.id,
                workspace: campaign.workspace_id,
                public_ref: campaign.code.clone(),
                app_install_id: attribution.and_then(|a| a.install_id),
                device_id,
                user_id,
            },
            language: row.session.language.clone(),
            started_at: row.session.started_at,
            completed_at,
            answered: row.answered(),
            total: row.session.total_questions,
            exchanges: row.exchanges,
            answers: row.answers.clone(),
            earlier: state.analyses.get(&session).map(|a| a.results.clone()).unwrap_or_default(),
            announced: state.analyses.contains_key(&session),
        }))
    }

    async fn record_analysis(&self, claim_token: Uuid, record: &AnalysisRecord) -> Result<Option<Option<Rejection>>> {
        let mut state = self.state();
        if state.analysis_jobs.get(&record.session).and_then(|j| j.claim) != Some(claim_token) {
            return Ok(None);
        }
        let accepted_elsewhere = state
            .analyses
            .iter()
            .filter(|(id, a)| **id != record.session && a.rejection.is_none())
            .filter(|(id, _)| state.sessions.get(id).is_some_and(|s| s.session.campaign_id == record.campaign))
            .count() as u64;
        let rejection = record.verdict.rejection.or_else(|| {
            record.max_responses.filter(|max| accepted_elsewhere >= u64::from(*max)).map(|_| Rejection::OverCapacity)
        });
        state.analyses.insert(
            record.session,
            AnalysisRow { verdict: record.verdict, rejection, results: record.results.clone() },
        );
        if let Some(event) = &record.event {
            state.emit(event.clone());
        }
        if let Some(job) = state.analysis_jobs.get_mut(&record.session) {
            job.due_at = None;
            job.claim = None;
        }
        Ok(Some(rejection))
    }

    async fn release_analysis(&self, session: SessionId, claim_token: Uuid, retry_at: OffsetDateTime) -> Result<()> {
        let mut state = self.state();
        if let Some(job) = state.analysis_jobs.get_mut(&session).filter(|j| j.claim == Some(claim_token)) {
            job.claim = None;
            job.due_at = Some(retry_at);
            job.attempts += 1;
        }
        Ok(())
    }

    async fn requeue_analyses(&self, campaign: CampaignId, now: OffsetDateTime) -> Result<Option<u64>> {
        let mut state = self.state();
        if !state.campaigns.contains_key(&campaign) {
            return Ok(None);
        }
        let mut queued = 0;
        for job in state.analysis_jobs.values_mut().filter(|j| j.campaign == campaign) {
            job.due_at = Some(now);
            job.claim = None;
            queued += 1;
        }
        Ok(Some(queued))
    }

    async fn results_input(
        &self,
        workspace: WorkspaceId,
        campaign: CampaignId,
        with_texts: bool,
    ) -> Result<Option<ResultsInput>> {
        let state = self.state();
        let Some(found) = state.campaigns.get(&campaign).filter(|c| c.workspace_id == workspace) else {
            return Ok(None);
        };
        let overview = state.overview(found)?;
        let mut sessions = Vec::new();
        let mut pending = 0;
        for row in state.sessions.values().filter(|s| s.session.campaign_id == campaign) {
            if row.status != SessionStatus::Completed {
                continue;
            }
            let Some(analysis) = state.analyses.get(&row.session.id) else {
                pending += 1;
                continue;
            };
            let device = row
                .session
                .attribution
                .and_then(|a| state.devices.iter().find(|d| d.id == a.device_id))
                .map(|d| &d.app);
            let answers = row
                .answers
                .iter()
                .map(|answer| {
                    let text = if with_texts { answer.text_sealed.clone() } else { None };
                    AnalyzedAnswer::new(answer.question_id.clone(), answer.rating, text, &analysis.results)
                })
                .collect();
            sessions.push(AnalyzedSession {
                session: row.session.id,
                rejection: analysis.rejection,
                duration_secs: analysis.verdict.duration_secs,
                coverage: analysis.verdict.coverage,
                segment: Segment::of_session(
                    &row.session.context,
                    row.session.tags.clone(),
                    device.map(|d| d.platform.as_str()),
                    device.map(|d| d.app_version.as_str()),
                ),
                answers,
            });
        }
        // A stable order, so results do not depend on the map's.
        sessions.sort_by_key(|s| s.session);
        Ok(Some(ResultsInput {
            campaign: overview.campaign,
            survey: overview.survey,
            counts: overview.counts,
            pending,
            sessions,
        }))
    }
}
