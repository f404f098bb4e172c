//! Webhooks: partners' endpoints, the events the service emits and their signed, at-least-once
//! delivery.
//!
//! Events are written in the same transaction as their fact (a transactional outbox), together
//! with one delivery per subscribed endpoint. Workers claim due deliveries under a lease, post them
//! signed, and record each attempt; a worker that dies between sending and recording leaves the
//! delivery to be claimed again when its lease ends, so an event may arrive twice but never not at
//! all.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use futures_util::future::join_all;
use secrecy::SecretString;
use serde_json::{Map, Value, json};
use time::{Duration, OffsetDateTime};
use url::Url;

use crate::apps::Identity;
use crate::clock::Clock;
use crate::error::{Error, ErrorCode, Result};
use crate::ids::{
    AppInstallId, AppUserId, CampaignId, DeliveryId, DeviceId, EventId, SessionId, WebhookId, WorkspaceId,
};
use crate::paging::{Cursors, Page, PageKey};
use crate::ports::{Crypto, WebhookRepository, WebhookTransport};
use crate::session::Progress;
use crate::tenancy::{Principal, Scope};

/// Endpoints one workspace may hold.
pub const MAX_SUBSCRIPTIONS: usize = 20;
pub const MAX_URL_CHARS: usize = 2048;
pub const MAX_DESCRIPTION_CHARS: usize = 500;
/// Signing secrets read `whsec_` and 43 base62 characters (about 256 bits).
pub const SECRET_PREFIX: &str = "whsec_";
const SECRET_RANDOM_CHARS: usize = 43;
/// Consecutive DEAD deliveries that disable an endpoint.
pub const DISABLE_AFTER_DEAD: u32 = 5;
/// Deliveries one worker claims per round.
pub const CLAIM_BATCH: u32 = 32;
/// How long events and their delivery trail are kept once nothing is left to attempt.
pub const EVENT_RETENTION: Duration = Duration::days(30);

/// The kinds of event the service emits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EventType {
    RespondentAcknowledged,
    FeedbackReceived,
    FeedbackAnalyzed,
    /// Sent by `simulate` to one endpoint only, whatever it subscribed to.
    WebhookTest,
}

impl EventType {
    /// What a subscription may name.
    pub const SUBSCRIBABLE: [EventType; 3] =
        [EventType::RespondentAcknowledged, EventType::FeedbackReceived, EventType::FeedbackAnalyzed];

    pub const fn as_str(self) -> &'static str {
        match self {
            EventType::RespondentAcknowledged => "respondent.acknowledged",
            EventType::FeedbackReceived => "feedback.received",
            EventType::FeedbackAnalyzed => "feedback.analyzed",
            EventType::WebhookTest => "webhook.test",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        [EventType::WebhookTest].into_iter().chain(Self::SUBSCRIBABLE).find(|t| t.as_str() == text)
    }
}

/// Where a delivery stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DeliveryStatus {
    /// Not attempted yet.
    Pending,
    Delivered,
    /// Attempted and failed; another attempt is scheduled.
    Failed,
    /// Failed on its last attempt; never tried again.
    Dead,
}

impl DeliveryStatus {
    pub const ALL: [DeliveryStatus; 4] =
        [DeliveryStatus::Pending, DeliveryStatus::Delivered, DeliveryStatus::Failed, DeliveryStatus::Dead];

    pub const fn as_str(self) -> &'static str {
        match self {
            DeliveryStatus::Pending => "PENDING",
            DeliveryStatus::Delivered => "DELIVERED",
            DeliveryStatus::Failed => "FAILED",
            DeliveryStatus::Dead => "DEAD",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.as_str() == text)
    }
}

/// A webhook URL that passed the checks needing no network: absolute, `https` (or `http` when
/// private targets are allowed), a host, no user info, no fragment. Whether its host resolves to
/// public addresses is the transport's check, at registration and again at every send.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WebhookUrl(Url);

impl WebhookUrl {
    /// # Errors
    /// `ValidationFailed` naming `url`.
    pub fn parse(text: &str, allow_private: bool) -> Result<Self> {
        let invalid = |problem: &str| Error::validation("url", problem);
        if text.chars().count() > MAX_URL_CHARS {
            return Err(invalid(&format!("must be at most {MAX_URL_CHARS} characters")));
        }
        let url = Url::parse(text).map_err(|_| invalid("is not an absolute URL"))?;
        match url.scheme() {
            "https" => {}
            "http" if allow_private => {}
            _ => return Err(invalid("must be an https:// URL")),
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(invalid("must not carry a user name or password; authenticate deliveries by their signature"));
        }
        if url.fragment().is_some() {
            return Err(invalid("must not carry a #fragment: it is never sent"));
        }
        if url.host().is_none() {
            return Err(invalid("must name a host"));
        }
        Ok(Self(url))
    }

    pub fn as_url(&self) -> &Url {
        &self.0
    }

    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }
}

/// Why an address may not receive webhooks, or `None` for a public unicast address. IPv6 forms
/// that embed an IPv4 address (mapped, compatible, NAT64, 6to4) are judged by that address.
pub fn address_refusal(address: IpAddr) -> Option<&'static str> {
    match address {
        IpAddr::V4(v4) => ipv4_refusal(v4),
        IpAddr::V6(v6) => ipv6_refusal(v6),
    }
}

fn ipv4_refusal(ip: Ipv4Addr) -> Option<&'static str> {
    let [a, b, c, _] = ip.octets();
    Some(match (a, b, c) {
        (0, _, _) => "unspecified (0.0.0.0/8)",
        (127, _, _) => "loopback",
        (10, _, _) | (172, 16..=31, _) | (192, 168, _) => "private",
        (100, 64..=127, _) => "carrier-grade NAT",
        (169, 254, _) => "link-local",
        (192, 0, 2) | (198, 51, 100) | (203, 0, 113) => "documentation",
        (192, 0, 0) => "IETF protocol assignments",
        (192, 88, 99) => "6to4 relay anycast",
        (198, 18..=19, _) => "benchmarking",
        (224..=239, _, _) => "multicast",
        (240..=255, _, _) => "reserved or broadcast",
        _ => return None,
    })
}

fn ipv6_refusal(ip: Ipv6Addr) -> Option<&'static str> {
    let segments = ip.segments();
    if ip.is_unspecified() {
        return Some("unspecified (::)");
    }
    if ip.is_loopback() {
        return Some("loopback");
    }
    if let Some(v4) = ip.to_ipv4_mapped() {
        return ipv4_refusal(v4).map(|_| "IPv4-mapped non-public address");
    }
    let embedded_v4 = |hi: u16, lo: u16| Ipv4Addr::from((u32::from(hi) << 16) | u32::from(lo));
    Some(match segments {
        // IPv4-compatible (deprecated) and NAT64 (well-known and local-use): judged by the address
        // they carry.
        [0, 0, 0, 0, 0, 0, hi, lo] | [0x64, 0xff9b, 0, 0, 0, 0, hi, lo] | [0x64, 0xff9b, 1, _, _, _, hi, lo] => {
            return ipv4_refusal(embedded_v4(hi, lo)).map(|_| "IPv6 form of a non-public IPv4 address");
        }
        [0x2002, hi, lo, ..] => return ipv4_refusal(embedded_v4(hi, lo)).map(|_| "6to4 form of a non-public address"),
        [s, ..] if s & 0xff00 == 0xff00 => "multicast",
        [s, ..] if s & 0xfe00 == 0xfc00 => "private (unique local)",
        [s, ..] if s & 0xffc0 == 0xfe80 => "link-local",
        [s, ..] if s & 0xffc0 == 0xfec0 => "site-local",
        [0x2001, 0x0db8, ..] => "documentation",
        [0x3fff, s, ..] if s & 0xf000 == 0 => "documentation",
        [0x0100, 0, 0, 0, ..] => "discard-only",
        [0x2001, 0, ..] => "Teredo",
        [0x2001, s, ..] if s < 0x0200 => "IETF protocol assignments",
        _ => return None,
    })
}

/// A subscription as partners see it (never its secret).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Subscription {
    pub id: WebhookId,
    pub workspace_id: WorkspaceId,
    pub url: String,
    pub description: Option<String>,
    /// Empty: every event.
    pub event_types: Vec<EventType>,
    pub is_active: bool,
    pub disabled_at: Option<OffsetDateTime>,
    pub disabled_reason: Option<String>,
    pub created_at: OffsetDateTime,
}

/// A subscription to store, with its sealed secret.
#[derive(Clone, Debug)]
pub struct NewSubscription {
    pub subscription: Subscription,
    pub secret_sealed: Vec<u8>,
}

/// A subscription's changes, as validated.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SubscriptionChanges {
    pub url: Option<String>,
    pub description: Option<Option<String>>,
    pub event_types: Option<Vec<EventType>>,
    /// `true` also clears `disabledAt` and `disabledReason` and the run of DEAD deliveries.
    pub is_active: Option<bool>,
}

/// `POST CH/webhooks` as sent.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SubscriptionInput {
    pub url: Option<String>,
    pub description: Option<String>,
    pub event_types: Option<Vec<String>>,
}

/// `PATCH CH/webhooks/{id}` as sent: `description` may be set to null.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SubscriptionPatch {
    pub url: Option<String>,
    pub description: Option<Option<String>>,
    pub event_types: Option<Vec<String>>,
    pub is_active: Option<bool>,
}

/// An event to write to the outbox, with the fact it reports.
#[derive(Clone, Debug, PartialEq)]
pub struct NewEvent {
    pub id: EventId,
    pub workspace_id: WorkspaceId,
    pub event_type: EventType,
    /// What the event is about, e.g. `conversation`.
    pub aggregate: &'static str,
    pub aggregate_id: uuid::Uuid,
    pub payload: Map<String, Value>,
    pub occurred_at: OffsetDateTime,
}

/// One attempt at a delivery, as recorded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AttemptView {
    pub attempt: u32,
    pub attempted_at: OffsetDateTime,
    pub status_code: Option<u16>,
    pub error: Option<String>,
    pub duration_ms: u32,
}

/// A delivery as partners see it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeliveryView {
    pub id: DeliveryId,
    pub event_id: EventId,
    pub event_type: EventType,
    pub status: DeliveryStatus,
    pub attempts: u32,
    pub next_attempt_at: Option<OffsetDateTime>,
    pub last_status_code: Option<u16>,
    pub last_error: Option<String>,
    pub occurred_at: OffsetDateTime,
    pub delivered_at: Option<OffsetDateTime>,
    /// Oldest first.
    pub history: Vec<AttemptView>,
    pub position: i64,
}

/// A claim on due deliveries: they stay this worker's until `lease_until`, when another may claim
/// them again (the first is presumed dead).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Claim {
    pub token: uuid::Uuid,
    pub now: OffsetDateTime,
    pub lease_until: OffsetDateTime,
    pub limit: u32,
}

/// A claimed delivery with what sending it needs.
#[derive(Clone, Debug, PartialEq)]
pub struct ClaimedDelivery {
    pub id: DeliveryId,
    pub claim_token: uuid::Uuid,
    /// Attempts made before this one.
    pub attempts: u32,
    pub subscription_id: WebhookId,
    pub url: String,
    pub secret_sealed: Vec<u8>,
    pub event: NewEvent,
}

/// The outcome of an attempt, to record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AttemptRecord {
    pub delivery: DeliveryId,
    pub claim_token: uuid::Uuid,
    pub subscription: WebhookId,
    /// This attempt's number, from 1.
    pub attempt: u32,
    pub attempted_at: OffsetDateTime,
    pub status: DeliveryStatus,
    pub next_attempt_at: Option<OffsetDateTime>,
    pub status_code: Option<u16>,
    pub error: Option<String>,
    pub duration_ms: u32,
    /// Recorded on the endpoint when this DEAD delivery is the fifth in a row.
    pub disable_reason: String,
}

/// What one attempt did, for the worker's log: never the URL, the body or the secret.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AttemptSummary {
    pub delivery: DeliveryId,
    pub event_type: EventType,
    pub attempt: u32,
    pub status: DeliveryStatus,
    pub status_code: Option<u16>,
    pub error: Option<String>,
    /// False when the claim had been lost (the lease ran out): another worker records that delivery.
    pub recorded: bool,
}

/// A signed POST, ready for the transport.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutboundRequest {
    pub url: String,
    pub headers: Vec<(&'static str, String)>,
    pub body: Vec<u8>,
}

/// What became of a POST: the status code when the endpoint answered in time, an error otherwise.
/// Errors name what failed (timeout, refused address, closed connection), never the URL or body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PostOutcome {
    pub status_code: Option<u16>,
    pub error: Option<String>,
    pub duration_ms: u32,
}

/// When failed attempts are retried: attempt 1 is immediate, attempt `n + 1` waits `delays[n-1]`
/// after attempt `n` failed, and the delivery is DEAD after `max_attempts` failures.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RetrySchedule {
    delays: Vec<Duration>,
    max_attempts: u32,
}

impl Default for RetrySchedule {
    /// 1 min, 5 min, 30 min, 2 h (and 12 h, used only when the attempt count is raised); 5 attempts.
    fn default() -> Self {
        Self { delays: [60, 300, 1800, 7200, 43200].into_iter().map(Duration::seconds).collect(), max_attempts: 5 }
    }
}

impl RetrySchedule {
    /// # Errors
    /// A description when there are too few delays for the attempts, or no attempt at all.
    pub fn new(delays: Vec<Duration>, max_attempts: u32) -> std::result::Result<Self, String> {
        if max_attempts == 0 {
            return Err("at least one attempt is needed".into());
        }
        if delays.iter().any(|d| d.is_negative()) {
            return Err("delays must not be negative".into());
        }
        if (delays.len() as u64) < u64::from(max_attempts) - 1 {
            return Err(format!("{max_attempts} attempts need at least {} delays", max_attempts - 1));
        }
        Ok(Self { delays, max_attempts })
    }

    pub fn max_attempts(&self) -> u32 {
        self.max_attempts
    }

    /// The wait before the next attempt after `failed` attempts, or `None` when the delivery is DEAD.
    pub fn after_failures(&self, failed: u32) -> Option<Duration> {
        if failed >= self.max_attempts {
            return None;
        }
        self.delays.get(usize::try_from(failed).ok()?.checked_sub(1)?).copied()
    }
}

fn rfc3339(at: OffsetDateTime) -> Result<String> {
    at.format(&time::format_description::well_known::Rfc3339).map_err(Error::internal)
}

/// The `X-SVC-Signature` value: `t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<body>">`, keyed with the
/// UTF-8 bytes of the secret as shown to the partner.
pub fn signature_header(crypto: &impl Crypto, secret: &[u8], at: OffsetDateTime, body: &[u8]) -> String {
    let t = at.unix_timestamp();
    let mut signed = format!("{t}.").into_bytes();
    signed.extend_from_slice(body);
    format!("t={t},v1={}", crate::hex::encode(&crypto.hmac_sha256(secret, &signed)))
}

/// The JSON envelope partners receive.
///
/// # Errors
/// `Internal` when the time cannot be formatted.
pub fn envelope(event: &NewEvent) -> Result<Vec<u8>> {
    let body = json!({
        "id": event.id,
        "type": event.event_type.as_str(),
        "aggregate": event.aggregate,
        "aggregateId": event.aggregate_id,
        "orgId": event.workspace_id,
        "occurredAt": rfc3339(event.occurred_at)?,
        "payload": event.payload,
    });
    serde_json::to_vec(&body).map_err(Error::internal)
}

/// The associated data sealing an endpoint's secret: a secret moved to another row does not open.
pub fn secret_seal_context(id: WebhookId) -> Vec<u8> {
    format!("webhook-secret/{id}").into_bytes()
}

/// What a finished respondent session tells partners: ids and counts, never a word said.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionFacts {
    pub session: SessionId,
    pub campaign: CampaignId,
    pub workspace: WorkspaceId,
    /// The campaign's public code.
    pub public_ref: String,
    pub app_install_id: Option<AppInstallId>,
    /// Set only when the app proved the device with its token.
    pub device_id: Option<DeviceId>,
    /// Set only when the app proved the person with a valid `userHash`.
    pub user_id: Option<AppUserId>,
}

impl SessionFacts {
    /// The proven parts of a session's attribution.
    pub fn proven(
        device_id: Option<DeviceId>,
        user_id: Option<AppUserId>,
        identity: Option<Identity>,
    ) -> (Option<DeviceId>, Option<AppUserId>) {
        (device_id, user_id.filter(|_| identity == Some(Identity::Verified)))
    }

    fn common(&self) -> Map<String, Value> {
        let mut payload = Map::new();
        payload.insert("conversationId".into(), json!(self.session));
        payload.insert("campaignId".into(), json!(self.campaign));
        payload.insert("publicRef".into(), json!(self.public_ref));
        payload.insert("appInstallId".into(), json!(self.app_install_id));
        payload.insert("deviceId".into(), json!(self.device_id));
        payload.insert("userId".into(), json!(self.user_id));
        payload
    }

    /// `feedback.analyzed`: counts of the analysis, never a finding.
    pub fn analyzed_event(&self, id: EventId, counts: AnalyzedCounts, at: OffsetDateTime) -> NewEvent {
        let mut payload = self.common();
        payload.insert("answers".into(), json!(counts.answers));
        payload.insert("exchanges".into(), json!(counts.exchanges));
        payload.insert("analyzersRun".into(), json!(counts.run));
        payload.insert("analyzersReused".into(), json!(counts.reused));
        self.event(id, EventType::FeedbackAnalyzed, payload, at)
    }

    fn event(&self, id: EventId, event_type: EventType, payload: Map<String, Value>, at: OffsetDateTime) -> NewEvent {
        NewEvent {
            id,
            workspace_id: self.workspace,
            event_type,
            aggregate: "conversation",
            aggregate_id: self.session.0,
            payload,
            occurred_at: at,
        }
    }
}

/// The counts `feedback.analyzed` carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AnalyzedCounts {
    /// Questions answered.
    pub answers: u32,
    /// Answer writes made.
    pub exchanges: u32,
    /// Analyzer runs made by this analysis.
    pub run: u32,
    /// Analyzer results reused from an earlier run of unchanged input and version.
    pub reused: u32,
}

/// A session's completion and the events it emits, written together by the store.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Completion {
    pub facts: SessionFacts,
    pub at: OffsetDateTime,
    pub received_event: EventId,
    pub acknowledged_event: EventId,
}

impl Completion {
    pub fn new(facts: SessionFacts, at: OffsetDateTime) -> Self {
        Self { facts, at, received_event: EventId::new_random(), acknowledged_event: EventId::new_random() }
    }

    /// `feedback.received` with the counts the store read while completing, and
    /// `respondent.acknowledged`: the completion answer is the thank-you the page shows.
    pub fn events(&self, progress: &Progress) -> [NewEvent; 2] {
        let mut received = self.facts.common();
        received.insert("answered".into(), json!(progress.answered));
        received.insert("total".into(), json!(progress.total));
        let mut acknowledged = self.facts.common();
        acknowledged.insert("channel".into(), json!("web"));
        [
            self.facts.event(self.received_event, EventType::FeedbackReceived, received, self.at),
            self.facts.event(self.acknowledged_event, EventType::RespondentAcknowledged, acknowledged, self.at),
        ]
    }
}

/// The partner routes of webhooks.
pub struct Webhooks<R, C, K, T> {
    repo: R,
    crypto: C,
    clock: K,
    transport: T,
    allow_private: bool,
}

impl<R, C, K, T> Webhooks<R, C, K, T>
where
    R: WebhookRepository,
    C: Crypto,
    K: Clock,
    T: WebhookTransport,
{
    /// `allow_private` lets URLs be `http://` (the transport lifts the address check itself).
    pub fn new(repo: R, crypto: C, clock: K, transport: T, allow_private: bool) -> Self {
        Self { repo, crypto, clock, transport, allow_private }
    }

    fn workspace(principal: &Principal, header: Option<&str>) -> Result<WorkspaceId> {
        principal.require_scope(Scope::WEBHOOKS)?;
        principal.resolve_workspace(header)
    }

    async fn checked_url(&self, text: &str) -> Result<WebhookUrl> {
        let url = WebhookUrl::parse(text, self.allow_private)?;
        self.transport.check_target(&url).await?;
        Ok(url)
    }

    /// Registers an endpoint and returns it with its signing secret, shown this once.
    ///
    /// # Errors
    /// `InsufficientPermission` without `channel:webhooks`; workspace resolution errors;
    /// `ValidationFailed` for a bad or non-public `url`, an unknown event type or a long
    /// description; `Conflict` when the workspace holds [`MAX_SUBSCRIPTIONS`]; port errors.
    pub async fn create(
        &self,
        principal: &Principal,
        workspace_header: Option<&str>,
        input: SubscriptionInput,
    ) -> Result<(Subscription, SecretString)> {
        let workspace = Self::workspace(principal, workspace_header)?;
        let description = description(input.description)?;
        let event_types = event_types(input.event_types.unwrap_or_default())?;
        let url = input.url.ok_or_else(|| Error::validation("url", "is required"))?;
        let url = self.checked_url(&url).await?;
        let id = WebhookId::new_random();
        let secret = format!("{SECRET_PREFIX}{}", self.crypto.random_base62(SECRET_RANDOM_CHARS));
        let subscription = Subscription {
            id,
            workspace_id: workspace,
            url: url.as_str().to_owned(),
            description,
            event_types,
            is_active: true,
            disabled_at: None,
            disabled_reason: None,
            created_at: self.clock.now(),
        };
        let new = NewSubscription {
            secret_sealed: self.crypto.seal(&secret_seal_context(id), secret.as_bytes()),
            subscription: subscription.clone(),
        };
        self.repo.insert_subscription(&new, MAX_SUBSCRIPTIONS).await?;
        Ok((subscription, SecretString::from(secret)))
    }

    /// The workspace's endpoints, oldest first.
    ///
    /// # Errors
    /// As [`Webhooks::create`], without the validation.
    pub async fn list(&self, principal: &Principal, workspace_header: Option<&str>) -> Result<Vec<Subscription>> {
        let workspace = Self::workspace(principal, workspace_header)?;
        self.repo.list_subscriptions(workspace).await
    }

    /// # Errors
    /// `NotFound` for an unknown endpoint or another workspace's; as [`Webhooks::list`].
    pub async fn get(
        &self,
        principal: &Principal,
        workspace_header: Option<&str>,
        id: WebhookId,
    ) -> Result<Subscription> {
        let workspace = Self::workspace(principal, workspace_header)?;
        self.repo.find_subscription(workspace, id).await?.ok_or_else(|| Error::not_found("webhook"))
    }

    /// Changes an endpoint; `isActive: true` re-enables a disabled one.
    ///
    /// # Errors
    /// As [`Webhooks::create`] and [`Webhooks::get`].
    pub async fn update(
        &self,
        principal: &Principal,
        workspace_header: Option<&str>,
        id: WebhookId,
        patch: SubscriptionPatch,
    ) -> Result<Subscription> {
        let workspace = Self::workspace(principal, workspace_header)?;
        let description = match patch.description {
            Some(text) => Some(description(text)?),
            None => None,
        };
        let event_types = patch.event_types.map(event_types).transpose()?;
        // An unknown endpoint is 404 before its new URL is resolved.
        self.repo.find_subscription(workspace, id).await?.ok_or_else(|| Error::not_found("webhook"))?;
        let url = match patch.url {
            Some(text) => Some(self.checked_url(&text).await?.as_str().to_owned()),
            None => None,
        };
        let changes = SubscriptionChanges { url, description, event_types, is_active: patch.is_active };
        self.repo
            .update_subscription(workspace, id, &changes, self.clock.now())
            .await?
            .ok_or_else(|| Error::not_found("webhook"))
    }

    /// Deletes an endpoint with its deliveries.
    ///
    /// # Errors
    /// As [`Webhooks::get`].
    pub async fn delete(&self, principal: &Principal, workspace_header: Option<&str>, id: WebhookId) -> Result<()> {
        let workspace = Self::workspace(principal, workspace_header)?;
        if self.repo.delete_subscription(workspace, id).await? { Ok(()) } else { Err(Error::not_found("webhook")) }
    }

    /// Queues a `webhook.test` event for this endpoint only, on the path real events take.
    ///
    /// # Errors
    /// As [`Webhooks::get`].
    pub async fn simulate(
        &self,
        principal: &Principal,
        workspace_header: Option<&str>,
        id: WebhookId,
    ) -> Result<DeliveryView> {
        let workspace = Self::workspace(principal, workspace_header)?;
        let mut payload = Map::new();
        payload.insert("webhookId".into(), json!(id));
        payload.insert("message".into(), json!("A test event sent by simulate; it reports no fact."));
        let event = NewEvent {
            id: EventId::new_random(),
            workspace_id: workspace,
            event_type: EventType::WebhookTest,
            aggregate: "webhook",
            aggregate_id: id.0,
            payload,
            occurred_at: self.clock.now(),
        };
        self.repo.queue_test_event(workspace, id, &event).await?.ok_or_else(|| Error::not_found("webhook"))
    }

    /// Forgets events older than [`EVENT_RETENTION`] whose deliveries are all finished.
    ///
    /// # Errors
    /// Port errors.
    pub async fn purge_old_events(&self) -> Result<u64> {
        self.repo.purge_webhook_events(self.clock.now() - EVENT_RETENTION).await
    }

    /// A page of an endpoint's deliveries, newest first.
    ///
    /// # Errors
    /// As [`Webhooks::get`]; `ValidationFailed` for a bad `limit` or `cursor`.
    pub async fn deliveries(
        &self,
        principal: &Principal,
        workspace_header: Option<&str>,
        id: WebhookId,
        limit: Option<&str>,
        cursor: Option<&str>,
    ) -> Result<Page<DeliveryView>> {
        let workspace = Self::workspace(principal, workspace_header)?;
        self.repo.find_subscription(workspace, id).await?.ok_or_else(|| Error::not_found("webhook"))?;
        let cursors = Cursors::new(&self.crypto, format!("webhook-deliveries/{id}"));
        let request = cursors.request(limit, cursor)?;
        let rows = self.repo.list_deliveries(id, &request).await?;
        Ok(cursors.page(&request, rows, |d| PageKey { position: d.position }))
    }
}

fn description(text: Option<String>) -> Result<Option<String>> {
    match text {
        Some(t) if t.chars().count() > MAX_DESCRIPTION_CHARS => {
            Err(Error::validation("description", format!("must be at most {MAX_DESCRIPTION_CHARS} characters")))
        }
        other => Ok(other),
    }
}

fn event_types(names: Vec<String>) -> Result<Vec<EventType>> {
    let mut types = Vec::new();
    for name in names {
        let subscribable = || EventType::SUBSCRIBABLE.map(EventType::as_str).join(", ");
        let event_type = match EventType::parse(&name) {
            Some(EventType::WebhookTest) => {
                let problem = format!("webhook.test is sent by simulate only; subscribable: {}", subscribable());
                return Err(Error::validation("eventTypes", problem));
            }
            Some(known) => known,
            None => {
                let problem = format!("unknown event type {name:?}; subscribable: {}", subscribable());
                return Err(Error::validation("eventTypes", problem));
            }
        };
        if !types.contains(&event_type) {
            types.push(event_type);
        }
    }
    Ok(types)
}

/// Claims due deliveries and makes their attempts.
pub struct Dispatcher<R, C, K, T> {
    repo: R,
    crypto: C,
    clock: K,
    transport: T,
    schedule: RetrySchedule,
    lease: Duration,
}

impl<R, C, K, T> Dispatcher<R, C, K, T>
where
    R: WebhookRepository,
    C: Crypto,
    K: Clock,
    T: WebhookTransport,
{
    /// `lease` must outlast a send (the transport's timeout) and its recording.
    pub fn new(repo: R, crypto: C, clock: K, transport: T, schedule: RetrySchedule, lease: Duration) -> Self {
        Self { repo, crypto, clock, transport, schedule, lease }
    }

    /// Claims up to `limit` due deliveries for this worker.
    ///
    /// # Errors
    /// Port errors.
    pub async fn claim(&self, limit: u32) -> Result<Vec<ClaimedDelivery>> {
        let now = self.clock.now();
        let claim = Claim { token: uuid::Uuid::new_v4(), now, lease_until: now + self.lease, limit };
        self.repo.claim_deliveries(&claim).await
    }

    /// The signed POST of a claimed delivery, timestamped now.
    ///
    /// # Errors
    /// `Internal` when the secret does not open.
    pub fn request(&self, delivery: &ClaimedDelivery) -> Result<OutboundRequest> {
        let secret = self.crypto.open(&secret_seal_context(delivery.subscription_id), &delivery.secret_sealed)?;
        let body = envelope(&delivery.event)?;
        let signature = signature_header(&self.crypto, &secret, self.clock.now(), &body);
        Ok(OutboundRequest {
            url: delivery.url.clone(),
            headers: vec![
                ("content-type", "application/json".into()),
                ("user-agent", "Pulse-Webhooks/1".into()),
                ("x-svc-signature", signature),
                ("x-svc-event", delivery.event.id.to_string()),
                ("x-svc-event-type", delivery.event.event_type.as_str().into()),
                ("x-svc-delivery", delivery.id.to_string()),
            ],
            body,
        })
    }

    /// Sends a claimed delivery and records the attempt. A secret that does not open is recorded
    /// as a failed attempt, not sent.
    ///
    /// # Errors
    /// Port errors.
    pub async fn attempt(&self, delivery: &ClaimedDelivery) -> Result<AttemptSummary> {
        let outcome = match self.request(delivery) {
            Ok(request) => self.transport.post(&request).await,
            Err(_) => PostOutcome {
                status_code: None,
                error: Some("the endpoint's signing secret could not be read; re-register the endpoint".into()),
                duration_ms: 0,
            },
        };
        let now = self.clock.now();
        let attempt = delivery.attempts + 1;
        let delivered = outcome.status_code.is_some_and(|c| (200..300).contains(&c));
        let (status, next_attempt_at) = if delivered {
            (DeliveryStatus::Delivered, None)
        } else {
            match self.schedule.after_failures(attempt) {
                Some(wait) => (DeliveryStatus::Failed, Some(now + wait)),
                None => (DeliveryStatus::Dead, None),
            }
        };
        let error = match (&outcome.error, outcome.status_code) {
            (Some(e), _) => Some(e.clone()),
            (None, Some(code)) if (300..400).contains(&code) => {
                Some(format!("HTTP {code}: redirects are not followed; point the endpoint at the final URL"))
            }
            (None, Some(code)) if !delivered => Some(format!("HTTP {code}")),
            _ => None,
        };
        let disable_reason = format!(
            "{DISABLE_AFTER_DEAD} deliveries in a row failed every attempt (the last: {}); fix the endpoint and PATCH isActive to true",
            error.as_deref().unwrap_or("no answer")
        );
        let record = AttemptRecord {
            delivery: delivery.id,
            claim_token: delivery.claim_token,
            subscription: delivery.subscription_id,
            attempt,
            attempted_at: now,
            status,
            next_attempt_at,
            status_code: outcome.status_code,
            error,
            duration_ms: outcome.duration_ms,
            disable_reason,
        };
        let recorded = self.repo.record_attempt(&record).await?;
        Ok(AttemptSummary {
            delivery: delivery.id,
            event_type: delivery.event.event_type,
            attempt,
            status,
            status_code: record.status_code,
            error: record.error,
            recorded,
        })
    }

    /// Claims due deliveries and attempts them all at once.
    ///
    /// # Errors
    /// Port errors of the claim; an attempt's failure to record is reported after all have run.
    pub async fn deliver_due(&self, limit: u32) -> Result<Vec<AttemptSummary>> {
        let claimed = self.claim(limit).await?;
        join_all(claimed.iter().map(|d| self.attempt(d))).await.into_iter().collect()
    }
}

/// A webhook refusal of the address check, naming the host and the kind of address.
pub fn refused_address(host: &str, address: IpAddr, why: &str) -> Error {
    Error::refused(
        ErrorCode::ValidationFailed,
        format!("`url`: {host} resolves to {address} ({why}); webhooks go to public addresses only"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_forbidden_range_is_refused_and_public_addresses_pass() {
        for refused in [
            "0.0.0.0",
            "127.0.0.1",
            "127.255.0.9",
            "10.1.2.3",
            "172.16.0.1",
            "172.31.255.255",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "100.127.255.254",
            "224.0.0.1",
            "239.255.255.250",
            "192.0.2.10",
            "198.51.100.7",
            "203.0.113.200",
            "255.255.255.255",
            "198.18.0.1",
            "::",
            "::1",
            "fe80::1",
            "fc00::1",
            "fd12:3456::1",
            "ff02::1",
            "2001:db8::1",
            "::ffff:127.0.0.1",
            "::ffff:10.0.0.1",
            "::ffff:169.254.169.254",
            "64:ff9b::a00:1",
            "2002:c0a8:0101::1",
            "::127.0.0.1",
            "64:ff9b:1::a00:1",
            "3fff::1",
        ] {
            let ip: IpAddr = refused.parse().expect("an address");
            assert!(address_refusal(ip).is_some(), "{refused} should be refused");
        }
        for public in [
            "8.8.8.8",
            "1.1.1.1",
            "172.32.0.1",
            "100.128.0.1",
            "2606:4700::1111",
            "::ffff:8.8.8.8",
            "3ff0::1",
            "64:ff9b::808:808",
        ] {
            let ip: IpAddr = public.parse().expect("an address");
            assert_eq!(address_refusal(ip), None, "{public} is public");
        }
    }

    #[test]
    fn urls_must_be_https_with_a_host_and_no_credentials() {
        assert!(WebhookUrl::parse("https://hooks.example.com/pulse?x=1", false).is_ok());
        for bad in [
            "http://hooks.example.com/",
            "ftp://hooks.example.com/",
            "https://user:pw@hooks.example.com/",
            "https://hooks.example.com/#frag",
            "hooks.example.com/path",
            "",
        ] {
            assert!(WebhookUrl::parse(bad, false).is_err(), "{bad}");
        }
        assert!(WebhookUrl::parse("http://127.0.0.1:9000/", true).is_ok());
        let long = format!("https://example.com/{}", "a".repeat(MAX_URL_CHARS));
        assert!(WebhookUrl::parse(&long, false).is_err());
    }

    #[test]
    fn the_default_schedule_retries_after_one_five_thirty_minutes_and_two_hours_then_dies() {
        let schedule = RetrySchedule::default();
        let waits: Vec<_> = (1..=5).map(|failed| schedule.after_failures(failed)).collect();
        assert_eq!(
            waits,
            vec![
                Some(Duration::minutes(1)),
                Some(Duration::minutes(5)),
                Some(Duration::minutes(30)),
                Some(Duration::hours(2)),
                None
            ]
        );
        let raised = RetrySchedule::new(RetrySchedule::default().delays, 6).expect("valid");
        assert_eq!(raised.after_failures(5), Some(Duration::hours(12)));
        assert_eq!(raised.after_failures(6), None);
        assert!(RetrySchedule::new(vec![Duration::seconds(1)], 3).is_err());
        assert!(RetrySchedule::new(vec![], 0).is_err());
    }

    #[test]
    fn event_types_are_checked_and_deduplicated() {
        let parsed = event_types(vec!["feedback.received".into(), "feedback.received".into()]).expect("valid");
        assert_eq!(parsed, vec![EventType::FeedbackReceived]);
        assert!(event_types(vec!["feedback.deleted".into()]).is_err());
        assert!(event_types(vec!["webhook.test".into()]).is_err());
    }

    #[test]
    fn only_a_verified_person_is_named() {
        let device = Some(DeviceId::new_random());
        let user = Some(AppUserId::new_random());
        assert_eq!(SessionFacts::proven(device, user, Some(Identity::Verified)), (device, user));
        assert_eq!(SessionFacts::proven(device, user, Some(Identity::SelfDeclared)), (device, None));
        assert_eq!(SessionFacts::proven(None, None, None), (None, None));
    }
}
