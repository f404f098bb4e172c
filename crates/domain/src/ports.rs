//! The ports: what the domain needs from the outside world. Adapters live in other crates (and
//! in-memory ones in [`crate::memory`]).

use std::future::Future;

use time::OffsetDateTime;
use uuid::Uuid;

use crate::analysis::{AnalysisJob, AnalysisRecord, Rejection, SessionInput};
use crate::apps::{
    AppUserRecord, Attribution, AttributionKey, BeatOutcome, DeviceBeat, DeviceRecord, DeviceRegistration,
    DeviceStatus, DeviceView, InstallBeat, InstallView,
};
use crate::audience::{NewRespondent, UpsertedRespondent};
use crate::campaign::{Campaign, CampaignOverview};
use crate::error::Result;
use crate::ids::{
    ApiKeyId, AppUserId, BusinessId, CampaignId, DeviceId, LaunchKeyId, LaunchLinkId, SessionId, SurveyId, WebhookId,
    WorkspaceId,
};
use crate::launch::{LaunchKey, LaunchLink};
use crate::paging::PageRequest;
use crate::quota::QuotaFamily;
use crate::results::ResultsInput;
use crate::session::{NewSession, Progress, SessionRecord, Spend, StoredAnswer};
use crate::survey::Survey;
use crate::tenancy::{ApiKeyRecord, Business, NewApiKey, NewWorkspace, Workspace, WorkspaceCreation};
use crate::webhooks::{
    AttemptRecord, Claim, ClaimedDelivery, Completion, DeliveryView, NewEvent, NewSubscription, OutboundRequest,
    PostOutcome, Subscription, SubscriptionChanges, WebhookUrl,
};

/// What a keyed digest is for: each purpose is keyed separately, so a digest made for one can
/// never be replayed as another.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DigestPurpose {
    ApiKey,
    IdempotencyFingerprint,
    /// `/s/<code>/<nonce>` link nonces, looked up by digest.
    LinkNonce,
    /// Respondent session tokens.
    SessionToken,
    /// Partners' user references (`externalUserRef`, a token's `uid`): kept only as this digest.
    ExternalUser,
    /// App refresh tokens.
    RefreshToken,
    /// `vendorDeviceId`s, looked up by digest.
    VendorDevice,
    /// App users' ids, derived from the workspace and the partner's `externalId`.
    AppUser,
    /// The MAC of list cursors.
    Cursor,
    /// What an analyzer read (language and text), so a re-run knows an unchanged answer.
    AnalysisInput,
}

impl DigestPurpose {
    pub const fn label(self) -> &'static str {
        match self {
            DigestPurpose::ApiKey => "pulse/api-key-digest/v1",
            DigestPurpose::IdempotencyFingerprint => "pulse/idempotency-fingerprint/v1",
            DigestPurpose::LinkNonce => "pulse/link-nonce/v1",
            DigestPurpose::SessionToken => "pulse/session-token/v1",
            DigestPurpose::ExternalUser => "pulse/external-user/v1",
            DigestPurpose::RefreshToken => "pulse/refresh-token/v1",
            DigestPurpose::VendorDevice => "pulse/vendor-device/v1",
            DigestPurpose::AppUser => "pulse/app-user/v1",
            DigestPurpose::Cursor => "pulse/cursor/v1",
            DigestPurpose::AnalysisInput => "pulse/analysis-input/v1",
        }
    }
}

/// Randomness, keyed digests and authenticated encryption.
pub trait Crypto: Send + Sync + 'static {
    /// `len` characters of `[0-9A-Za-z]` from a cryptographically secure generator.
    fn random_base62(&self, len: usize) -> String;

    /// A keyed digest (HMAC-SHA256 in production) of `input` for `purpose`.
    fn keyed_digest(&self, purpose: DigestPurpose, input: &[u8]) -> Vec<u8>;

    /// Whether `expected` is the keyed digest of `input`, compared in constant time.
    fn verify_keyed_digest(&self, purpose: DigestPurpose, input: &[u8], expected: &[u8]) -> bool;

    /// Encrypts `plaintext`, binding `context` (the row it belongs to) as associated data.
    fn seal(&self, context: &[u8], plaintext: &[u8]) -> Vec<u8>;

    /// Decrypts what [`Crypto::seal`] produced for the same `context`.
    ///
    /// # Errors
    /// `Internal` when the data was altered, belongs to another context or was sealed under a key
    /// this process does not hold.
    fn open(&self, context: &[u8], sealed: &[u8]) -> Result<Vec<u8>>;

    /// The plain SHA-256 of `data` (for published fingerprints, never for secrets at rest).
    fn sha256(&self, data: &[u8]) -> [u8; 32];

    /// Whether `expected` is HMAC-SHA256 of `data` under `key` (a partner's secret), compared in
    /// constant time.
    fn verify_hmac_sha256(&self, key: &[u8], data: &[u8], expected: &[u8]) -> bool;

    /// HMAC-SHA256 of `data` under `key` (a webhook signing secret).
    fn hmac_sha256(&self, key: &[u8], data: &[u8]) -> [u8; 32];
}

/// Businesses, service accounts, API keys and workspaces.
pub trait TenancyRepository: Send + Sync + 'static {
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn create_business(&self, business: &Business) -> impl Future<Output = Result<()>> + Send;

    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn business_exists(&self, id: BusinessId) -> impl Future<Output = Result<bool>> + Send;

    /// Stores a key with a new service account and its allowlist.
    ///
    /// # Errors
    /// `Conflict` when the prefix is already taken (the caller draws another); `NotFound` when an
    /// allowlisted workspace does not belong to the key's business; `Internal`/`Unavailable` otherwise.
    fn insert_api_key(&self, key: &NewApiKey) -> impl Future<Output = Result<()>> + Send;

    /// The key with this public prefix, with its allowlist.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn find_api_key(&self, prefix: &str) -> impl Future<Output = Result<Option<ApiKeyRecord>>> + Send;

    /// Marks the key revoked at `at`; `false` when no such key exists.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn revoke_api_key(&self, prefix: &str, at: OffsetDateTime) -> impl Future<Output = Result<bool>> + Send;

    /// Creates the workspace and adds it to the creating key's allowlist in one transaction, or
    /// returns the workspace that already has this external reference in the business.
    ///
    /// # Errors
    /// `RateLimited` when the business already holds `max_per_business` workspaces;
    /// `Internal`/`Unavailable` otherwise.
    fn create_workspace(
        &self,
        creator: ApiKeyId,
        workspace: &NewWorkspace,
        max_per_business: u32,
    ) -> impl Future<Output = Result<WorkspaceCreation>> + Send;

    /// The business's workspaces among `ids`, oldest first.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn list_workspaces(
        &self,
        business: BusinessId,
        ids: &[WorkspaceId],
    ) -> impl Future<Output = Result<Vec<Workspace>>> + Send;

    /// Sets the workspace `ACTIVE`; `None` when it does not exist.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn approve_workspace(&self, id: WorkspaceId) -> impl Future<Output = Result<Option<Workspace>>> + Send;
}

/// The outcome of claiming an idempotency key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IdempotencyClaim {
    /// This request owns the key now and must complete or release it.
    Claimed,
    /// Another request with this key finished; its response is stored.
    Completed { fingerprint: Vec<u8>, status: u16, sealed_body: Vec<u8> },
    /// Another request with this key is still running.
    InFlight { fingerprint: Vec<u8> },
}

/// A request to claim an idempotency key.
#[derive(Clone, Copy, Debug)]
pub struct ClaimRequest<'a> {
    pub scope: &'a str,
    pub key: &'a str,
    /// Names the claiming request: only it may complete or release the claim.
    pub token: Uuid,
    pub fingerprint: &'a [u8],
    pub now: OffsetDateTime,
    /// Records created before this are expired and taken over.
    pub expired_before: OffsetDateTime,
    /// In-flight records claimed before this are presumed dead and taken over.
    pub stale_before: OffsetDateTime,
}

/// Where idempotency keys and their stored responses live.
pub trait IdempotencyStore: Send + Sync + 'static {
    /// Claims `(scope, key)` for the request `token`, unless a live record holds it. Records
    /// created before `expired_before`, and in-flight records claimed before `stale_before`
    /// (their request is presumed dead), are taken over.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn claim(&self, request: &ClaimRequest<'_>) -> impl Future<Output = Result<IdempotencyClaim>> + Send;

    /// Stores the response of the request that claimed the key with `token`; does nothing when
    /// another request has taken the claim over since.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn complete(
        &self,
        scope: &str,
        key: &str,
        token: Uuid,
        status: u16,
        sealed_body: &[u8],
    ) -> impl Future<Output = Result<()>> + Send;

    /// Frees a key claimed with `token` whose request was refused or failed, so it may be used
    /// again; does nothing when another request holds the claim now.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn release(&self, scope: &str, key: &str, token: Uuid) -> impl Future<Output = Result<()>> + Send;

    /// Deletes records created before `before`; returns how many.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn purge_idempotency(&self, before: OffsetDateTime) -> impl Future<Output = Result<u64>> + Send;
}

/// Counters of fixed quota windows, shared by every replica.
pub trait QuotaCounter: Send + Sync + 'static {
    /// Adds one to the counter of `(subject, family, window_start)` atomically and returns the new count.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn hit(
        &self,
        subject: &str,
        family: QuotaFamily,
        window_start: OffsetDateTime,
    ) -> impl Future<Output = Result<u32>> + Send;

    /// Deletes windows that started before `before`; returns how many.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn purge_quota_windows(&self, before: OffsetDateTime) -> impl Future<Output = Result<u64>> + Send;
}

/// Whether the store answers at all (for readiness probes).
pub trait HealthCheck: Send + Sync + 'static {
    /// # Errors
    /// `Unavailable` when the store cannot be reached.
    fn ping(&self) -> impl Future<Output = Result<()>> + Send;
}

impl<C: Crypto> Crypto for std::sync::Arc<C> {
    fn random_base62(&self, len: usize) -> String {
        (**self).random_base62(len)
    }

    fn keyed_digest(&self, purpose: DigestPurpose, input: &[u8]) -> Vec<u8> {
        (**self).keyed_digest(purpose, input)
    }

    fn verify_keyed_digest(&self, purpose: DigestPurpose, input: &[u8], expected: &[u8]) -> bool {
        (**self).verify_keyed_digest(purpose, input, expected)
    }

    fn seal(&self, context: &[u8], plaintext: &[u8]) -> Vec<u8> {
        (**self).seal(context, plaintext)
    }

    fn open(&self, context: &[u8], sealed: &[u8]) -> Result<Vec<u8>> {
        (**self).open(context, sealed)
    }

    fn sha256(&self, data: &[u8]) -> [u8; 32] {
        (**self).sha256(data)
    }

    fn verify_hmac_sha256(&self, key: &[u8], data: &[u8], expected: &[u8]) -> bool {
        (**self).verify_hmac_sha256(key, data, expected)
    }

    fn hmac_sha256(&self, key: &[u8], data: &[u8]) -> [u8; 32] {
        (**self).hmac_sha256(key, data)
    }
}

/// Surveys, campaigns and their audiences.
pub trait CampaignRepository: Send + Sync + 'static {
    /// Publishes `survey` (when it is new) and creates the campaign, in one transaction.
    ///
    /// # Errors
    /// `Conflict` when the campaign's public code is taken (the caller draws another);
    /// `Internal`/`Unavailable` otherwise.
    fn create_campaign(&self, survey: Option<&Survey>, campaign: &Campaign) -> impl Future<Output = Result<()>> + Send;

    /// A survey of the workspace; `None` for an unknown one or another workspace's.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn find_survey(&self, workspace: WorkspaceId, id: SurveyId) -> impl Future<Output = Result<Option<Survey>>> + Send;

    /// A campaign of the workspace with its survey, workspace status and counts.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn campaign_overview(
        &self,
        workspace: WorkspaceId,
        id: CampaignId,
    ) -> impl Future<Output = Result<Option<CampaignOverview>>> + Send;

    /// The campaign with this public code, with its survey.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn find_campaign_by_code(&self, code: &str) -> impl Future<Output = Result<Option<(Campaign, Survey)>>> + Send;

    /// A campaign in any workspace of the business (Studio routes).
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn find_campaign_in_business(
        &self,
        business: BusinessId,
        id: CampaignId,
    ) -> impl Future<Output = Result<Option<Campaign>>> + Send;

    /// Sets a draft campaign `ACTIVE` at `at` (an active one stays as it is) and returns it.
    ///
    /// # Errors
    /// `NotFound` for an unknown campaign; `Internal`/`Unavailable` otherwise.
    fn activate_campaign(&self, id: CampaignId, at: OffsetDateTime) -> impl Future<Output = Result<Campaign>> + Send;

    /// Creates or updates the respondents by external reference in one transaction; a new
    /// respondent gets its invitation link, an existing one keeps its own. Attaching respondents
    /// to a draft campaign makes it closed-list.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn upsert_respondents(
        &self,
        campaign: CampaignId,
        rows: &[NewRespondent],
    ) -> impl Future<Output = Result<Vec<UpsertedRespondent>>> + Send;
}

/// Launch keys, minted links and spent tokens.
pub trait LaunchRepository: Send + Sync + 'static {
    /// Keys of the campaign not revoked, by slot.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn active_launch_keys(&self, campaign: CampaignId) -> impl Future<Output = Result<Vec<LaunchKey>>> + Send;

    /// An active key of the campaign.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn find_launch_key(
        &self,
        campaign: CampaignId,
        id: LaunchKeyId,
    ) -> impl Future<Output = Result<Option<LaunchKey>>> + Send;

    /// Stores the key in the lowest free slot (its `slot` field is ignored) and returns it as stored.
    ///
    /// # Errors
    /// `LaunchKeySlotsFull` when every slot holds an active key; `Internal`/`Unavailable` otherwise.
    fn insert_launch_key(&self, key: &LaunchKey) -> impl Future<Output = Result<LaunchKey>> + Send;

    /// Revokes an active key of the campaign at `at`; `false` when there is none with this id.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn revoke_launch_key(
        &self,
        campaign: CampaignId,
        id: LaunchKeyId,
        at: OffsetDateTime,
    ) -> impl Future<Output = Result<bool>> + Send;

    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn set_require_signed(&self, campaign: CampaignId, required: bool) -> impl Future<Output = Result<()>> + Send;

    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn insert_launch_link(&self, link: &LaunchLink) -> impl Future<Output = Result<()>> + Send;

    /// A minted link of the campaign, spent or not.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn find_launch_link(
        &self,
        campaign: CampaignId,
        id: LaunchLinkId,
    ) -> impl Future<Output = Result<Option<LaunchLink>>> + Send;

    /// The `/s/` link of the campaign whose nonce has this keyed digest.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn find_link_by_nonce(
        &self,
        campaign: CampaignId,
        nonce_digest: &[u8],
    ) -> impl Future<Output = Result<Option<LaunchLink>>> + Send;

    /// Whether a partner-signed token with this `jti` already started a session of the campaign.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn token_spent(&self, campaign: CampaignId, jti: &str) -> impl Future<Output = Result<bool>> + Send;

    /// Forgets spent `jti`s whose tokens expired before `before` (they can no longer verify).
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn purge_spent_tokens(&self, before: OffsetDateTime) -> impl Future<Output = Result<u64>> + Send;
}

/// Respondent sessions and their answers.
pub trait SessionStore: Send + Sync + 'static {
    /// Spends what the start used (a link, or a token's `jti`) and creates the session, in one
    /// transaction; a launch key used is marked used at `started_at`.
    ///
    /// # Errors
    /// `LaunchTokenInvalid` when the link or `jti` was spent already (also by a concurrent start);
    /// `Internal`/`Unavailable` otherwise.
    fn start_session(&self, session: &NewSession, spend: &Spend) -> impl Future<Output = Result<()>> + Send;

    /// A session of the campaign.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn find_session(
        &self,
        campaign: CampaignId,
        id: SessionId,
    ) -> impl Future<Output = Result<Option<SessionRecord>>> + Send;

    /// Stores the answers (replacing earlier answers to the same questions) unless the session is
    /// completed, and returns the progress.
    ///
    /// # Errors
    /// `Conflict` when the session is completed; `Internal`/`Unavailable` otherwise.
    fn record_answers(
        &self,
        session: SessionId,
        answers: &[StoredAnswer],
    ) -> impl Future<Output = Result<Progress>> + Send;

    /// Marks the session completed at `completion.at` and, in the same transaction, writes the
    /// events of [`Completion::events`] (with the progress read while completing) and their
    /// deliveries to the workspace's subscribed endpoints. A completed session stays as it was and
    /// emits nothing. Returns the progress.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn complete_session(&self, completion: &Completion) -> impl Future<Output = Result<Progress>> + Send;
}

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
    /// [`crate::apps::APP_SESSION_GAP`] without a sign of life starts an app session. Returns the
    /// install's id.
    ///
    /// # Errors
    /// `Conflict` when the device no longer holds `replaces_refresh_digest`, or a new device's
    /// vendor id was taken meanwhile (a concurrent register won); `InstallBlocked` when the device
    /// was blocked meanwhile; `Internal`/`Unavailable` otherwise.
    fn save_registration(
        &self,
        registration: &DeviceRegistration,
    ) -> impl Future<Output = Result<crate::ids::AppInstallId>> + Send;

    /// A v2 heartbeat in one statement: matches an active device holding this refresh digest,
    /// unexpired; admits it at [`crate::apps::HEARTBEAT_RATE`] (see
    /// [`crate::apps::HeartbeatRate::admit`]); counts it on the device and its latest install,
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

/// Webhook endpoints, the event outbox and deliveries.
pub trait WebhookRepository: Send + Sync + 'static {
    /// Stores an endpoint unless the workspace already holds `max_per_workspace`.
    ///
    /// # Errors
    /// `Conflict` when the workspace is full; `Internal`/`Unavailable` otherwise.
    fn insert_subscription(
        &self,
        subscription: &NewSubscription,
        max_per_workspace: usize,
    ) -> impl Future<Output = Result<()>> + Send;

    /// The workspace's endpoints, oldest first.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn list_subscriptions(&self, workspace: WorkspaceId) -> impl Future<Output = Result<Vec<Subscription>>> + Send;

    /// An endpoint of the workspace.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn find_subscription(
        &self,
        workspace: WorkspaceId,
        id: WebhookId,
    ) -> impl Future<Output = Result<Option<Subscription>>> + Send;

    /// Applies `changes` to an endpoint of the workspace; `None` when there is none with this id.
    /// Setting it active clears `disabled_at`, `disabled_reason` and the run of DEAD deliveries.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn update_subscription(
        &self,
        workspace: WorkspaceId,
        id: WebhookId,
        changes: &SubscriptionChanges,
        at: OffsetDateTime,
    ) -> impl Future<Output = Result<Option<Subscription>>> + Send;

    /// Deletes an endpoint with its deliveries and their attempts; `false` when there is none.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn delete_subscription(&self, workspace: WorkspaceId, id: WebhookId) -> impl Future<Output = Result<bool>> + Send;

    /// Writes `event` and one delivery of it to this endpoint only, due at once, whether the
    /// endpoint is active or not; `None` when the workspace has no such endpoint.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn queue_test_event(
        &self,
        workspace: WorkspaceId,
        id: WebhookId,
        event: &NewEvent,
    ) -> impl Future<Output = Result<Option<DeliveryView>>> + Send;

    /// Up to `page.limit + 1` deliveries of the endpoint before `page.after`, newest first, each
    /// with its attempts.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn list_deliveries(
        &self,
        subscription: WebhookId,
        page: &PageRequest,
    ) -> impl Future<Output = Result<Vec<DeliveryView>>> + Send;

    /// Claims up to `claim.limit` deliveries that are PENDING or FAILED and due at `claim.now`,
    /// of active endpoints (a `webhook.test` whatever the endpoint's state), and not claimed by a
    /// live lease. Concurrent claims never return the same delivery: a claimed one is not due
    /// again until `claim.lease_until`.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn claim_deliveries(&self, claim: &Claim) -> impl Future<Output = Result<Vec<ClaimedDelivery>>> + Send;

    /// Records an attempt made under `attempt.claim_token`, in one transaction: the delivery's new
    /// state, the attempt in its history, and the endpoint's run of DEAD deliveries (reset by a
    /// delivered one; the fifth in a row disables the endpoint with `attempt.disable_reason`).
    /// Returns `false`, recording nothing, when the claim was lost (its lease ran out and another
    /// worker claimed the delivery).
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn record_attempt(&self, attempt: &AttemptRecord) -> impl Future<Output = Result<bool>> + Send;

    /// Deletes events that occurred before `before` and have no delivery left to attempt, with
    /// their deliveries and attempts; returns how many events.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn purge_webhook_events(&self, before: OffsetDateTime) -> impl Future<Output = Result<u64>> + Send;
}

/// How webhooks leave the service: checking where a URL leads and posting to it.
pub trait WebhookTransport: Send + Sync + 'static {
    /// Resolves the URL's host and checks every address it resolves to (see
    /// [`crate::webhooks::address_refusal`]), unless private targets are allowed.
    ///
    /// # Errors
    /// `ValidationFailed` naming `url` when the host does not resolve or any address is refused.
    fn check_target(&self, url: &WebhookUrl) -> impl Future<Output = Result<()>> + Send;

    /// POSTs the request: resolves and checks the host again, connects only to the checked
    /// addresses, follows no redirect, uses no proxy, and gives up after its timeout. Every
    /// failure is an outcome to record, not an error.
    fn post(&self, request: &OutboundRequest) -> impl Future<Output = PostOutcome> + Send;
}

/// The analysis jobs (one per finished session, queued with its `feedback.received` outbox row)
/// and what results are computed from.
pub trait AnalysisRepository: Send + Sync + 'static {
    /// Claims up to `limit` jobs not done and due at `now` (a claimed job is due again at
    /// `lease_until`, should its worker die), each under a fresh claim token. Workers never
    /// claim the same job at once.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn claim_analyses(
        &self,
        now: OffsetDateTime,
        lease_until: OffsetDateTime,
        limit: u32,
    ) -> impl Future<Output = Result<Vec<AnalysisJob>>> + Send;

    /// What the analysis of a finished session reads; `None` when the session is gone.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn analysis_input(&self, session: SessionId) -> impl Future<Output = Result<Option<SessionInput>>> + Send;

    /// In one transaction, while `claim_token` still holds the job: applies the capacity rule
    /// (counting the campaign's accepted sessions under a lock of the campaign), stores the
    /// verdict and the step results (replacing earlier ones), emits the event when there is one,
    /// and marks the job done. Returns the final rejection (`None` = accepted), or `None` at the
    /// outer level when the claim was lost and nothing was written.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn record_analysis(
        &self,
        claim_token: Uuid,
        record: &AnalysisRecord,
    ) -> impl Future<Output = Result<Option<Option<Rejection>>>> + Send;

    /// Gives a failed job back, due again at `retry_at`, one attempt more; a lost claim is a no-op.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn release_analysis(
        &self,
        session: SessionId,
        claim_token: Uuid,
        retry_at: OffsetDateTime,
    ) -> impl Future<Output = Result<()>> + Send;

    /// Makes every job of the campaign due at `now` again; the number queued, or `None` for an
    /// unknown campaign.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn requeue_analyses(
        &self,
        campaign: CampaignId,
        now: OffsetDateTime,
    ) -> impl Future<Output = Result<Option<u64>>> + Send;

    /// The campaign's funnel and its analyzed sessions, with sealed texts only when
    /// `with_texts`; `None` for an unknown campaign or another workspace's.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn results_input(
        &self,
        workspace: WorkspaceId,
        campaign: CampaignId,
        with_texts: bool,
    ) -> impl Future<Output = Result<Option<ResultsInput>>> + Send;
}
