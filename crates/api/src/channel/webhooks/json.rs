//! The request and response bodies of the webhook routes, and their conversions to and from the
//! domain.

use pulse_domain::shared::paging::Page;
use pulse_domain::webhooks::models::{
    AttemptView, DeliveryView, RedeliveryInput, RedeliveryView, Subscription, SubscriptionInput, SubscriptionPatch,
};
use serde::{Deserialize, Deserializer, Serialize};
use time::OffsetDateTime;
use utoipa::ToSchema;
use uuid::Uuid;

/// A partner's endpoint. Never carries its secret.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SubscriptionBody {
    pub id: Uuid,
    #[schema(format = "uri")]
    pub url: String,
    pub description: Option<String>,
    /// Empty: every event of the workspace.
    #[schema(example = json!(["feedback.received"]))]
    pub event_types: Vec<&'static str>,
    /// False when paused by the partner or disabled after five DEAD deliveries in a row.
    pub is_active: bool,
    #[serde(with = "time::serde::rfc3339::option")]
    pub disabled_at: Option<OffsetDateTime>,
    pub disabled_reason: Option<String>,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
}

impl From<Subscription> for SubscriptionBody {
    fn from(s: Subscription) -> Self {
        Self {
            id: s.id.0,
            url: s.url,
            description: s.description,
            event_types: s.event_types.iter().map(|t| t.as_str()).collect(),
            is_active: s.is_active,
            disabled_at: s.disabled_at,
            disabled_reason: s.disabled_reason,
            created_at: s.created_at,
        }
    }
}

/// The 201 answer of a create: the only time the secret is shown.
// No `Debug`: the body holds the secret.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreatedSubscriptionBody {
    pub subscription: SubscriptionBody,
    /// `whsec_…`: the HMAC-SHA256 key is the UTF-8 bytes of this whole string. Shown once.
    pub secret: String,
}

/// The optional body of `rotate-secret`.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RotateSecretRequest {
    /// Seconds the replaced secret goes on signing deliveries next to the new one, from 0 (it
    /// stops at once) to 604800 (7 days); default 86400.
    #[schema(minimum = 0, maximum = 604800, default = 86400)]
    #[serde(default)]
    pub grace_seconds: Option<i64>,
}

/// The 200 answer of `rotate-secret`: the only time the new secret is shown.
// No `Debug`: the body holds the secret.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RotatedSecretBody {
    /// The new `whsec_…` secret, in the format of create's. Shown once.
    pub secret: String,
    /// Until when deliveries are signed with the replaced secret too; null when `graceSeconds` was 0.
    #[serde(with = "time::serde::rfc3339::option")]
    pub previous_secret_expires_at: Option<OffsetDateTime>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SubscriptionListBody {
    /// Oldest first; at most 20.
    pub items: Vec<SubscriptionBody>,
}

impl From<Vec<Subscription>> for SubscriptionListBody {
    fn from(items: Vec<Subscription>) -> Self {
        Self { items: items.into_iter().map(SubscriptionBody::from).collect() }
    }
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CreateSubscriptionRequest {
    /// `https://` only, no user name or password, resolving to public addresses only.
    #[schema(format = "uri", max_length = 2048)]
    pub url: String,
    #[schema(max_length = 500)]
    #[serde(default)]
    pub description: Option<String>,
    /// `respondent.acknowledged`, `feedback.received`, `feedback.analyzed`, `export.ready`,
    /// `workspace.approved`; empty or omitted: all.
    #[serde(default)]
    pub event_types: Option<Vec<String>>,
}

impl From<CreateSubscriptionRequest> for SubscriptionInput {
    fn from(r: CreateSubscriptionRequest) -> Self {
        Self { url: Some(r.url), description: r.description, event_types: r.event_types }
    }
}

/// Distinguishes an absent field (`None`) from an explicit null (`Some(None)`).
fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<Option<T>>, D::Error> {
    Option::deserialize(d).map(Some)
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UpdateSubscriptionRequest {
    #[schema(format = "uri", max_length = 2048)]
    #[serde(default)]
    pub url: Option<String>,
    /// A string, or null to clear it.
    #[schema(value_type = Option<String>, max_length = 500)]
    #[serde(default, deserialize_with = "present")]
    pub description: Option<Option<String>>,
    #[serde(default)]
    pub event_types: Option<Vec<String>>,
    /// `true` re-enables a disabled endpoint (clearing `disabledAt` and `disabledReason`).
    #[serde(default)]
    pub is_active: Option<bool>,
}

impl From<UpdateSubscriptionRequest> for SubscriptionPatch {
    fn from(r: UpdateSubscriptionRequest) -> Self {
        Self { url: r.url, description: r.description, event_types: r.event_types, is_active: r.is_active }
    }
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AttemptBody {
    /// From 1.
    pub attempt: u32,
    #[serde(with = "time::serde::rfc3339")]
    pub attempted_at: OffsetDateTime,
    /// The endpoint's answer; null when it gave none in time.
    pub status_code: Option<u16>,
    pub error: Option<String>,
    pub duration_ms: u32,
}

impl From<AttemptView> for AttemptBody {
    fn from(a: AttemptView) -> Self {
        Self {
            attempt: a.attempt,
            attempted_at: a.attempted_at,
            status_code: a.status_code,
            error: a.error,
            duration_ms: a.duration_ms,
        }
    }
}

/// A partner's request to send the delivery again. Never says who asked.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RedeliveryBody {
    #[serde(with = "time::serde::rfc3339")]
    pub requested_at: OffsetDateTime,
    /// Attempts made before it; the attempts after it count towards a fresh limit.
    pub attempts_before: u32,
}

impl From<RedeliveryView> for RedeliveryBody {
    fn from(r: RedeliveryView) -> Self {
        Self { requested_at: r.requested_at, attempts_before: r.attempts_before }
    }
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DeliveryBody {
    pub id: Uuid,
    /// The `X-SVC-Event` header: deduplicate on it.
    pub event_id: Uuid,
    pub event_type: &'static str,
    /// `PENDING`, `DELIVERED`, `FAILED` (a retry is scheduled) or `DEAD`.
    #[schema(example = "DELIVERED")]
    pub status: &'static str,
    pub attempts: u32,
    #[serde(with = "time::serde::rfc3339::option")]
    pub next_attempt_at: Option<OffsetDateTime>,
    pub last_status_code: Option<u16>,
    pub last_error: Option<String>,
    #[serde(with = "time::serde::rfc3339")]
    pub occurred_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339::option")]
    pub delivered_at: Option<OffsetDateTime>,
    /// Every attempt, oldest first.
    pub history: Vec<AttemptBody>,
    /// Every redelivery of a DEAD or DELIVERED delivery, oldest first.
    pub redeliveries: Vec<RedeliveryBody>,
}

impl From<DeliveryView> for DeliveryBody {
    fn from(d: DeliveryView) -> Self {
        Self {
            id: d.id.0,
            event_id: d.event_id.0,
            event_type: d.event_type.as_str(),
            status: d.status.as_str(),
            attempts: d.attempts,
            next_attempt_at: d.next_attempt_at,
            last_status_code: d.last_status_code,
            last_error: d.last_error,
            occurred_at: d.occurred_at,
            delivered_at: d.delivered_at,
            history: d.history.into_iter().map(AttemptBody::from).collect(),
            redeliveries: d.redeliveries.into_iter().map(RedeliveryBody::from).collect(),
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DeliveryPage {
    /// Newest first.
    pub items: Vec<DeliveryBody>,
    /// Pass back as `cursor` until it is null.
    pub next_cursor: Option<String>,
}

impl From<Page<DeliveryView>> for DeliveryPage {
    fn from(page: Page<DeliveryView>) -> Self {
        Self { items: page.items.into_iter().map(DeliveryBody::from).collect(), next_cursor: page.next_cursor }
    }
}

/// The body of a bulk redelivery.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RedeliverRangeRequest {
    /// Deliveries of events that occurred at or after this time.
    #[schema(value_type = String, format = DateTime)]
    pub from: String,
    /// …and before this one: later than `from`, at most 31 days after it.
    #[schema(value_type = String, format = DateTime)]
    pub to: String,
    /// `FAILED`, `DEAD` or both; empty, null or omitted: both.
    #[serde(default)]
    pub statuses: Option<Vec<String>>,
}

impl From<RedeliverRangeRequest> for RedeliveryInput {
    fn from(r: RedeliverRangeRequest) -> Self {
        Self { from: Some(r.from), to: Some(r.to), statuses: r.statuses }
    }
}

/// The 202 answer of a bulk redelivery.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RedeliveredBody {
    /// Deliveries queued to be sent again.
    pub queued: u64,
}
