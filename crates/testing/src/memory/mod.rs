//! In-memory adapters of every repository port, one file per aggregate over one shared state, for
//! domain tests here and in other teams' crates. They keep the contracts of the ports (constraints,
//! atomicity; the contract suite checks them) but nothing survives the process.

mod analysis;
mod apps;
mod audit;
mod campaigns;
mod erasure;
mod exports;
mod idempotency;
mod outreach;
mod quota;
mod results;
mod sessions;
mod tenancy;
mod webhooks;

use pulse_domain::analysis::models::{Rejection, StepResult, Verdict};
use pulse_domain::apps::models::{Activity, AppFacts, DeviceStatus, Identity};
use pulse_domain::campaigns::models::{Campaign, CampaignCounts, CampaignOverview, LaunchKey, LaunchLink, Survey};
use pulse_domain::error::{Error, Result};
use pulse_domain::exports::models::{ExportRecord, ExportStatus};
use pulse_domain::ids::ExportId;
use pulse_domain::ids::{
    AppInstallId, AppUserId, BusinessId, CampaignId, DeviceId, EventId, LaunchLinkId, RespondentId, SessionId,
    SurveyId, WebhookId, WorkspaceId,
};
use pulse_domain::outreach::models::MessageStatus;
use pulse_domain::quota::models::QuotaFamily;
use pulse_domain::results::models::SessionTally;
use pulse_domain::sessions::models::{NewSession, Progress, SessionRecord, SessionStatus, StoredAnswer};
use pulse_domain::shared::health::{Backlog, Backlogs, HealthCheck, PoolState, QueueDepth};
use pulse_domain::tenancy::models::{ApiKeyRecord, Business, Workspace};
use pulse_domain::webhooks::models::{DeliveryStatus, DeliveryView, EventType, NewEvent, PreviousSecret, Subscription};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use time::OffsetDateTime;
use uuid::Uuid;

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
    /// Each campaign's place in the campaign list.
    campaign_positions: HashMap<CampaignId, i64>,
    respondents: Vec<RespondentRow>,
    launch_keys: Vec<LaunchKey>,
    launch_links: HashMap<LaunchLinkId, LaunchLink>,
    /// `(campaign, jti)` of partner tokens that started a session, with the token's expiry.
    spent_tokens: HashMap<(CampaignId, String), OffsetDateTime>,
    spent_challenges: HashMap<Vec<u8>, OffsetDateTime>,
    sessions: HashMap<SessionId, SessionRow>,
    devices: Vec<DeviceRow>,
    installs: Vec<InstallRow>,
    app_users: HashMap<AppUserId, AppUserRow>,
    /// The last list position handed to a campaign, a device, an install or a delivery.
    last_position: i64,
    webhooks: Vec<WebhookRow>,
    events: HashMap<EventId, NewEvent>,
    deliveries: Vec<DeliveryRow>,
    analysis_jobs: HashMap<SessionId, AnalysisJobRow>,
    /// The analyzer in charge and the start it was announced with.
    analyzer_in_charge: Option<(String, OffsetDateTime)>,
    analyses: HashMap<SessionId, AnalysisRow>,
    /// Each analyzed session's tally under its final verdict.
    tallies: HashMap<SessionId, (Option<Rejection>, SessionTally)>,
    /// Campaigns' sealed phrases by key and label digests.
    result_phrases: HashMap<(CampaignId, Vec<u8>, Vec<u8>), Vec<u8>>,
    exports: HashMap<ExportId, ExportRow>,
    /// Fetches per download link and hour.
    link_fetches: HashMap<(Uuid, OffsetDateTime), u32>,
    /// When each export worker last beat.
    export_workers: HashMap<Uuid, OffsetDateTime>,
    export_files: HashMap<ExportId, Vec<u8>>,
    messages: Vec<outreach::MessageRow>,
    opt_outs: Vec<outreach::OptOutRow>,
    calls: Vec<outreach::CallRow>,
    recordings: Vec<outreach::RecordingRow>,
    /// The audit trail, in the order written, each entry with its list position.
    audit: Vec<audit::AuditRow>,
}

#[derive(Clone, Debug)]
struct ExportRow {
    record: ExportRecord,
    claim: Option<Uuid>,
    lease_until: Option<OffsetDateTime>,
}

#[derive(Clone, Debug)]
struct AnalysisJobRow {
    campaign: CampaignId,
    /// `None` once done.
    due_at: Option<OffsetDateTime>,
    claim: Option<Uuid>,
    attempts: u32,
    /// The analyzer that read the session's text, once analyzed (`None` when it had none).
    analyzed_with: Option<String>,
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
    previous_secret: Option<PreviousSecret>,
    dead_in_a_row: u32,
}

#[derive(Clone, Debug)]
struct DeliveryRow {
    view: DeliveryView,
    subscription: WebhookId,
    claim: Option<Uuid>,
    attempts_before_redelivery: u32,
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

/// A respondent as stored: its reference digested and sealed, contact details sealed, and the id of
/// its invitation link. An erased one keeps its id and campaign only. No reference is ever held in
/// clear here: only databases older than the digests have some.
#[derive(Clone, Debug)]
struct RespondentRow {
    id: RespondentId,
    campaign_id: CampaignId,
    reference: Option<(Vec<u8>, Vec<u8>)>,
    name_sealed: Option<Vec<u8>>,
    email_sealed: Option<Vec<u8>>,
    phone_sealed: Option<Vec<u8>>,
    time_zone_sealed: Option<Vec<u8>>,
    invitation_sealed: Option<Vec<u8>>,
    invitation_link: LaunchLinkId,
    /// Set when an erasure detached a completed session, which counted the respondent as
    /// responded (PostgreSQL keeps that as a column from the start).
    responded: bool,
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
                r.responded
                    || sessions
                        .clone()
                        .any(|s| s.session.respondent_id == Some(r.id) && s.status == SessionStatus::Completed)
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

    /// Claims each of `sessions`' jobs under a fresh token, held until `lease_until`.
    fn claim_jobs(
        &mut self,
        sessions: impl Iterator<Item = SessionId>,
        lease_until: OffsetDateTime,
    ) -> Vec<pulse_domain::analysis::models::AnalysisJob> {
        let mut claimed = Vec::new();
        for session in sessions {
            if let Some(job) = self.analysis_jobs.get_mut(&session) {
                let token = Uuid::new_v4();
                job.claim = Some(token);
                job.due_at = Some(lease_until);
                claimed.push(pulse_domain::analysis::models::AnalysisJob {
                    session,
                    claim_token: token,
                    attempts: job.attempts,
                });
            }
        }
        claimed
    }

    fn pending_reanalysis(&self, campaign: CampaignId) -> u64 {
        self.stale_analyses().filter(|(_, job)| job.campaign == campaign).count() as u64
    }

    /// Done jobs whose text was read by another analyzer than the one in charge.
    fn stale_analyses(&self) -> impl Iterator<Item = (&SessionId, &AnalysisJobRow)> {
        let in_charge = self.analyzer_in_charge.as_ref().map(|(with, _)| with.as_str());
        self.analysis_jobs.iter().filter(move |(id, job)| {
            job.due_at.is_none()
                && self.analyses.contains_key(*id)
                && job.analyzed_with.as_deref().is_some_and(|with| in_charge.is_some_and(|c| c != with))
        })
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

    /// Forgets every session's results tally, as a store holds none for sessions analyzed before
    /// tallies existed (results then count them as pending until their analysis is recorded
    /// again). For tests of that catching up.
    pub fn forget_result_tallies(&self) {
        let mut state = self.state();
        state.tallies.clear();
        state.result_phrases.clear();
    }
}

impl HealthCheck for MemoryStore {
    async fn ping(&self) -> Result<()> {
        Ok(())
    }
}

impl Backlogs for MemoryStore {
    async fn replica_lag(&self) -> Result<Option<f64>> {
        Ok(None)
    }

    async fn backlog(&self, now: OffsetDateTime) -> Result<Backlog> {
        let state = self.state();
        let depth = |since: Vec<OffsetDateTime>| QueueDepth {
            due: since.len() as u64,
            oldest_secs: since.iter().min().map_or(0.0, |oldest| (now - *oldest).as_seconds_f64().max(0.0)),
        };
        // What a worker would claim: a paused or disabled endpoint's deliveries wait, except its
        // test events.
        let claimable = |d: &&DeliveryRow| {
            let active = state.webhooks.iter().any(|w| w.subscription.id == d.subscription && w.subscription.is_active);
            active || state.events.get(&d.view.event_id).is_some_and(|e| e.event_type == EventType::WebhookTest)
        };
        let webhooks = state
            .deliveries
            .iter()
            .filter(|d| matches!(d.view.status, DeliveryStatus::Pending | DeliveryStatus::Failed))
            .filter(claimable)
            .filter_map(|d| d.view.next_attempt_at.filter(|at| *at <= now))
            .collect();
        let analyses = state.analysis_jobs.values().filter_map(|j| j.due_at.filter(|at| *at <= now)).collect();
        let exports = state
            .exports
            .values()
            .filter(|e| matches!(e.record.status, ExportStatus::Queued | ExportStatus::Running))
            .map(|e| e.record.created_at)
            .collect();
        let messages = state
            .messages
            .iter()
            .filter(|m| m.status == MessageStatus::Queued && m.due_at <= now)
            .map(|m| m.due_at)
            .collect();
        Ok(Backlog {
            webhook_deliveries: depth(webhooks),
            analyses: depth(analyses),
            exports: depth(exports),
            outreach_messages: depth(messages),
        })
    }

    /// The memory store holds no connections.
    fn pool_state(&self) -> PoolState {
        PoolState::default()
    }
}
