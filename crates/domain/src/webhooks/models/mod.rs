//! Webhooks: partners' endpoints, the events the service emits and their signed, at-least-once
//! delivery.
//!
//! Events are written in the same transaction as their fact (a transactional outbox), together
//! with one delivery per subscribed endpoint. Workers claim due deliveries under a lease, post them
//! signed, and record each attempt; a worker that dies between sending and recording leaves the
//! delivery to be claimed again when its lease ends, so an event may arrive twice but never not at
//! all.

mod url_rules;

pub use url_rules::*;

use crate::error::{Error, Result};
use crate::ids::{DeliveryId, EventId, WebhookId, WorkspaceId};
use serde_json::{Map, Value, json};
use time::{Duration, OffsetDateTime};

/// Endpoints one workspace may hold.
pub const MAX_SUBSCRIPTIONS: usize = 20;

pub const MAX_URL_CHARS: usize = 2048;

pub const MAX_DESCRIPTION_CHARS: usize = 500;

/// Signing secrets read `whsec_` and 43 base62 characters (about 256 bits).
pub const SECRET_PREFIX: &str = "whsec_";

pub(crate) const SECRET_RANDOM_CHARS: usize = 43;

/// How long a rotated-out secret keeps signing deliveries when the partner does not say.
pub const DEFAULT_ROTATION_GRACE: Duration = Duration::days(1);

/// The longest a rotated-out secret may keep signing: a leaked secret must stop working soon.
pub const MAX_ROTATION_GRACE: Duration = Duration::days(7);

/// Deliveries one bulk redelivery may queue; a range matching more is refused whole.
pub const MAX_BULK_REDELIVERIES: u32 = 10_000;

/// The widest range of event times one bulk redelivery may name.
pub const MAX_REDELIVERY_RANGE: Duration = Duration::days(31);

/// Consecutive DEAD deliveries that disable an endpoint.
pub const DISABLE_AFTER_DEAD: u32 = 5;

/// Deliveries one worker claims at a time. A claim costs about the same for 32 deliveries as for
/// 256 (most of it is finding the due ones), so large claims keep a backlog moving.
pub const CLAIM_BATCH: u32 = 256;

/// Attempts one worker keeps going at once: it claims another batch whenever that leaves it at
/// most this many.
pub const DELIVERIES_IN_FLIGHT: usize = 768;

/// What an event is about, as its envelope's `aggregate` names it.
pub mod aggregate {
    /// A respondent session (`feedback.received`, `feedback.analyzed`).
    pub const CONVERSATION: &str = "conversation";
    /// An attached respondent (`respondent.acknowledged`).
    pub const RESPONDENT: &str = "respondent";
    /// An export (`export.ready`).
    pub const EXPORT: &str = "export";
    /// An endpoint (`webhook.test`).
    pub const WEBHOOK: &str = "webhook";
    /// A workspace (`workspace.approved`).
    pub const WORKSPACE: &str = "workspace";
    /// Every aggregate an event can name; stores read them back against this list.
    pub const ALL: [&str; 5] = [CONVERSATION, RESPONDENT, EXPORT, WEBHOOK, WORKSPACE];
}

/// How long events and their delivery trail are kept once nothing is left to attempt.
pub const EVENT_RETENTION: Duration = Duration::days(30);

/// Events purged at a time: each batch is one short transaction, and a purge can stop between
/// batches.
pub const EVENT_PURGE_BATCH: u32 = 1_000;

/// The kinds of event the service emits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EventType {
    RespondentAcknowledged,
    FeedbackReceived,
    FeedbackAnalyzed,
    /// An export's file is rendered and can be downloaded (additive to the contract).
    ExportReady,
    /// The operator approved the workspace: its campaigns can launch (additive to the contract).
    WorkspaceApproved,
    /// Sent by `simulate` to one endpoint only, whatever it subscribed to.
    WebhookTest,
}

impl EventType {
    /// What a subscription may name.
    pub const SUBSCRIBABLE: [EventType; 5] = [
        EventType::RespondentAcknowledged,
        EventType::FeedbackReceived,
        EventType::FeedbackAnalyzed,
        EventType::ExportReady,
        EventType::WorkspaceApproved,
    ];

    pub const fn as_str(self) -> &'static str {
        match self {
            EventType::RespondentAcknowledged => "respondent.acknowledged",
            EventType::FeedbackReceived => "feedback.received",
            EventType::FeedbackAnalyzed => "feedback.analyzed",
            EventType::ExportReady => "export.ready",
            EventType::WorkspaceApproved => "workspace.approved",
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

/// A new signing secret for an endpoint, and how long the one it replaces keeps signing.
#[derive(Clone, Debug)]
pub struct SecretRotation {
    pub secret_sealed: Vec<u8>,
    /// `None`: the replaced secret stops at once.
    pub previous_expires_at: Option<OffsetDateTime>,
    pub at: OffsetDateTime,
}

/// A rotated-out secret, sealed, and when it stops signing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PreviousSecret {
    pub sealed: Vec<u8>,
    pub expires_at: OffsetDateTime,
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
    /// What the event is about: one of [`aggregate::ALL`].
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

/// A partner's request to send a delivery again, as the trail keeps it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RedeliveryView {
    pub requested_at: OffsetDateTime,
    /// Attempts made before it: the attempts after it count towards a fresh limit.
    pub attempts_before: u32,
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
    /// Oldest first.
    pub redeliveries: Vec<RedeliveryView>,
    pub position: i64,
}

/// `POST CH/webhooks/{id}/redeliver` as sent.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RedeliveryInput {
    pub from: Option<String>,
    pub to: Option<String>,
    pub statuses: Option<Vec<String>>,
}

/// The deliveries of an endpoint a bulk redelivery names: of events that occurred in
/// `from..to`, in one of `statuses`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RedeliveryRange {
    pub from: OffsetDateTime,
    pub to: OffsetDateTime,
    pub statuses: Vec<DeliveryStatus>,
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
    /// Attempts made before the latest redelivery: the attempt limit counts from there.
    pub attempts_before_redelivery: u32,
    pub subscription_id: WebhookId,
    pub url: String,
    pub secret_sealed: Vec<u8>,
    /// The secret rotated out, while it may still be within its grace.
    pub previous_secret: Option<PreviousSecret>,
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

pub(crate) fn rfc3339(at: OffsetDateTime) -> Result<String> {
    at.format(&time::format_description::well_known::Rfc3339).map_err(Error::internal)
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
        "payload": event.payload});
    serde_json::to_vec(&body).map_err(Error::internal)
}

/// The associated data sealing an endpoint's secret: a secret moved to another row does not open.
pub fn secret_seal_context(id: WebhookId) -> Vec<u8> {
    format!("webhook-secret/{id}").into_bytes()
}

pub(crate) fn description(text: Option<String>) -> Result<Option<String>> {
    match text {
        Some(t) if t.chars().count() > MAX_DESCRIPTION_CHARS => {
            Err(Error::validation("description", format!("must be at most {MAX_DESCRIPTION_CHARS} characters")))
        }
        // PostgreSQL cannot store NUL; tabs and line breaks are the only control characters kept.
        Some(t) if t.chars().any(|c| c.is_control() && !matches!(c, '\t' | '\n' | '\r')) => {
            Err(Error::validation("description", "must not contain control characters other than tabs and line breaks"))
        }
        other => Ok(other),
    }
}

/// Reads a bulk redelivery's range: RFC 3339 times with `from` before `to`, at most
/// [`MAX_REDELIVERY_RANGE`] apart, and FAILED or DEAD (both when none are named).
pub(crate) fn redelivery_range(input: RedeliveryInput) -> Result<RedeliveryRange> {
    let time = |field: &str, text: Option<String>| {
        let text = text.ok_or_else(|| Error::validation(field, "is required"))?;
        OffsetDateTime::parse(&text, &time::format_description::well_known::Rfc3339)
            .map_err(|_| Error::validation(field, "must be an RFC 3339 date-time, such as 2026-03-02T10:00:00Z"))
    };
    let (from, to) = (time("from", input.from)?, time("to", input.to)?);
    if from >= to {
        return Err(Error::validation("to", "must be later than `from`"));
    }
    if to - from > MAX_REDELIVERY_RANGE {
        let days = MAX_REDELIVERY_RANGE.whole_days();
        return Err(Error::validation("to", format!("must be at most {days} days after `from`")));
    }
    let mut statuses = Vec::new();
    for (index, name) in input.statuses.unwrap_or_default().into_iter().enumerate() {
        match DeliveryStatus::parse(&name) {
            Some(status @ (DeliveryStatus::Failed | DeliveryStatus::Dead)) if !statuses.contains(&status) => {
                statuses.push(status);
            }
            Some(DeliveryStatus::Failed | DeliveryStatus::Dead) => {}
            // The refusal names the position, never the text sent (docs/errors.md).
            _ => return Err(Error::validation(&format!("statuses[{index}]"), "must be FAILED or DEAD")),
        }
    }
    if statuses.is_empty() {
        statuses = vec![DeliveryStatus::Failed, DeliveryStatus::Dead];
    }
    Ok(RedeliveryRange { from, to, statuses })
}

pub(crate) fn event_types(names: Vec<String>) -> Result<Vec<EventType>> {
    let mut types = Vec::new();
    for (index, name) in names.into_iter().enumerate() {
        let subscribable = || EventType::SUBSCRIBABLE.map(EventType::as_str).join(", ");
        let event_type = match EventType::parse(&name) {
            Some(EventType::WebhookTest) => {
                let problem = format!("webhook.test is sent by simulate only; subscribable: {}", subscribable());
                return Err(Error::validation("eventTypes", problem));
            }
            Some(known) => known,
            None => {
                // The refusal names the position, never the text sent (docs/errors.md).
                let problem = format!("is not an event type; subscribable: {}", subscribable());
                return Err(Error::validation(&format!("eventTypes[{index}]"), problem));
            }
        };
        if !types.contains(&event_type) {
            types.push(event_type);
        }
    }
    Ok(types)
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
