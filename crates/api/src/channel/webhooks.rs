//! The webhook routes (scope `channel:webhooks`): endpoints, `simulate` and the delivery trail.
//! They ignore `Idempotency-Key`: a repeated create makes a second endpoint with its own secret.

use actix_web::http::StatusCode;
use actix_web::web::{Bytes, Data, Path, Query};
use actix_web::{HttpRequest, HttpResponse};
use pulse_domain::Error;
use pulse_domain::ids::WebhookId;
use pulse_domain::quota::models::QuotaFamily;
use pulse_domain::tenancy::models::Scope;
use pulse_domain::webhooks::models::{AttemptView, DeliveryView, Subscription, SubscriptionInput, SubscriptionPatch};
use secrecy::ExposeSecret as _;
use serde::{Deserialize, Deserializer, Serialize};
use time::OffsetDateTime;
use utoipa::ToSchema;
use uuid::Uuid;

use super::devices::PageQuery;
use super::{Admitted, admit};
use crate::error::{ApiError, ErrorBody};
use crate::request::{json_response, no_store, parse_json, workspace_header};
use crate::state::{AppState, Platform};

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

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SubscriptionListBody {
    /// Oldest first; at most 20.
    pub items: Vec<SubscriptionBody>,
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
    /// `respondent.acknowledged`, `feedback.received`, `feedback.analyzed`; empty or omitted: all.
    #[serde(default)]
    pub event_types: Option<Vec<String>>,
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

fn webhook_id(text: &str) -> Result<WebhookId, ApiError> {
    text.parse().map_err(|_| ApiError(Error::not_found("webhook")))
}

async fn admitted<P: Platform>(state: &AppState<P>, req: &HttpRequest) -> Result<Admitted, ApiError> {
    admit(state, req, &[Scope::WEBHOOKS], QuotaFamily::Webhook).await
}

/// Register an endpoint. The signing secret is in this answer only; `Idempotency-Key` is ignored.
#[utoipa::path(
    post, path = "/api/v1/channel/webhooks", tag = "webhooks",
    security(("apiKey" = []), ("bearer" = [])),
    params(("X-SVC-Workspace" = Option<Uuid>, Header)),
    request_body = CreateSubscriptionRequest,
    responses(
        (status = 201, body = CreatedSubscriptionBody),
        (status = 400, description = "VALIDATION_FAILED: bad URL, not https, resolving to a non-public address, unknown event type; WORKSPACE_REQUIRED", body = ErrorBody),
        (status = 401, description = "UNAUTHENTICATED", body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSION (channel:webhooks) or NO_ORG", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: a workspace the key does not reach", body = ErrorBody),
        (status = 409, description = "CONFLICT: the workspace holds 20 endpoints", body = ErrorBody),
        (status = 415, description = "UNSUPPORTED_MEDIA_TYPE", body = ErrorBody),
        (status = 429, description = "RATE_LIMITED: `webhook`", body = ErrorBody),
    )
)]
pub async fn create<P: Platform>(
    state: Data<AppState<P>>,
    req: HttpRequest,
    body: Bytes,
) -> Result<HttpResponse, ApiError> {
    let Admitted { principal, rate, .. } = admitted(&state, &req).await?;
    let request: CreateSubscriptionRequest = parse_json(&req, &body)?;
    let input = SubscriptionInput {
        url: Some(request.url),
        description: request.description,
        event_types: request.event_types,
    };
    let (subscription, secret) = state.webhooks.create(&principal, workspace_header(&req), input).await?;
    let body = CreatedSubscriptionBody {
        subscription: SubscriptionBody::from(subscription),
        secret: secret.expose_secret().to_owned(),
    };
    Ok(no_store(json_response(StatusCode::CREATED, &body, rate)))
}

/// The workspace's endpoints, never their secrets.
#[utoipa::path(
    get, path = "/api/v1/channel/webhooks", tag = "webhooks",
    security(("apiKey" = []), ("bearer" = [])),
    params(("X-SVC-Workspace" = Option<Uuid>, Header)),
    responses(
        (status = 200, body = SubscriptionListBody),
        (status = 400, description = "WORKSPACE_REQUIRED", body = ErrorBody),
        (status = 401, description = "UNAUTHENTICATED", body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSION (channel:webhooks) or NO_ORG", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: a workspace the key does not reach", body = ErrorBody),
        (status = 429, description = "RATE_LIMITED: `webhook`", body = ErrorBody),
    )
)]
pub async fn list<P: Platform>(state: Data<AppState<P>>, req: HttpRequest) -> Result<HttpResponse, ApiError> {
    let Admitted { principal, rate, .. } = admitted(&state, &req).await?;
    let items = state.webhooks.list(&principal, workspace_header(&req)).await?;
    let body = SubscriptionListBody { items: items.into_iter().map(SubscriptionBody::from).collect() };
    Ok(json_response(StatusCode::OK, &body, rate))
}

/// One endpoint, never its secret.
#[utoipa::path(
    get, path = "/api/v1/channel/webhooks/{id}", tag = "webhooks",
    security(("apiKey" = []), ("bearer" = [])),
    params(("id" = Uuid, Path), ("X-SVC-Workspace" = Option<Uuid>, Header)),
    responses(
        (status = 200, body = SubscriptionBody),
        (status = 400, description = "WORKSPACE_REQUIRED", body = ErrorBody),
        (status = 401, description = "UNAUTHENTICATED", body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSION (channel:webhooks) or NO_ORG", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: unknown endpoint or another workspace's", body = ErrorBody),
        (status = 429, description = "RATE_LIMITED: `webhook`", body = ErrorBody),
    )
)]
pub async fn get<P: Platform>(
    state: Data<AppState<P>>,
    req: HttpRequest,
    path: Path<String>,
) -> Result<HttpResponse, ApiError> {
    let Admitted { principal, rate, .. } = admitted(&state, &req).await?;
    let subscription = state.webhooks.get(&principal, workspace_header(&req), webhook_id(&path)?).await?;
    Ok(json_response(StatusCode::OK, &SubscriptionBody::from(subscription), rate))
}

/// Change an endpoint; `isActive: true` re-enables a disabled one.
#[utoipa::path(
    patch, path = "/api/v1/channel/webhooks/{id}", tag = "webhooks",
    security(("apiKey" = []), ("bearer" = [])),
    params(("id" = Uuid, Path), ("X-SVC-Workspace" = Option<Uuid>, Header)),
    request_body = UpdateSubscriptionRequest,
    responses(
        (status = 200, body = SubscriptionBody),
        (status = 400, description = "VALIDATION_FAILED: as at create; WORKSPACE_REQUIRED", body = ErrorBody),
        (status = 401, description = "UNAUTHENTICATED", body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSION (channel:webhooks) or NO_ORG", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: unknown endpoint or another workspace's", body = ErrorBody),
        (status = 415, description = "UNSUPPORTED_MEDIA_TYPE", body = ErrorBody),
        (status = 429, description = "RATE_LIMITED: `webhook`", body = ErrorBody),
    )
)]
pub async fn update<P: Platform>(
    state: Data<AppState<P>>,
    req: HttpRequest,
    path: Path<String>,
    body: Bytes,
) -> Result<HttpResponse, ApiError> {
    let Admitted { principal, rate, .. } = admitted(&state, &req).await?;
    let id = webhook_id(&path)?;
    let request: UpdateSubscriptionRequest = parse_json(&req, &body)?;
    let patch = SubscriptionPatch {
        url: request.url,
        description: request.description,
        event_types: request.event_types,
        is_active: request.is_active,
    };
    let subscription = state.webhooks.update(&principal, workspace_header(&req), id, patch).await?;
    Ok(json_response(StatusCode::OK, &SubscriptionBody::from(subscription), rate))
}

/// Delete an endpoint and its delivery trail.
#[utoipa::path(
    delete, path = "/api/v1/channel/webhooks/{id}", tag = "webhooks",
    security(("apiKey" = []), ("bearer" = [])),
    params(("id" = Uuid, Path), ("X-SVC-Workspace" = Option<Uuid>, Header)),
    responses(
        (status = 204, description = "Deleted with its deliveries"),
        (status = 400, description = "WORKSPACE_REQUIRED", body = ErrorBody),
        (status = 401, description = "UNAUTHENTICATED", body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSION (channel:webhooks) or NO_ORG", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: unknown endpoint or another workspace's", body = ErrorBody),
        (status = 429, description = "RATE_LIMITED: `webhook`", body = ErrorBody),
    )
)]
pub async fn delete<P: Platform>(
    state: Data<AppState<P>>,
    req: HttpRequest,
    path: Path<String>,
) -> Result<HttpResponse, ApiError> {
    let Admitted { principal, .. } = admitted(&state, &req).await?;
    state.webhooks.delete(&principal, workspace_header(&req), webhook_id(&path)?).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Queue a `webhook.test` event for this endpoint only, signed and retried like real events; it
/// is sent even to an inactive endpoint, so a fix can be tried before re-enabling.
#[utoipa::path(
    post, path = "/api/v1/channel/webhooks/{id}/simulate", tag = "webhooks",
    security(("apiKey" = []), ("bearer" = [])),
    params(("id" = Uuid, Path), ("X-SVC-Workspace" = Option<Uuid>, Header)),
    responses(
        (status = 201, description = "The queued delivery", body = DeliveryBody),
        (status = 400, description = "WORKSPACE_REQUIRED", body = ErrorBody),
        (status = 401, description = "UNAUTHENTICATED", body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSION (channel:webhooks) or NO_ORG", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: unknown endpoint or another workspace's", body = ErrorBody),
        (status = 429, description = "RATE_LIMITED: `webhook`", body = ErrorBody),
    )
)]
pub async fn simulate<P: Platform>(
    state: Data<AppState<P>>,
    req: HttpRequest,
    path: Path<String>,
) -> Result<HttpResponse, ApiError> {
    let Admitted { principal, rate, .. } = admitted(&state, &req).await?;
    let delivery = state.webhooks.simulate(&principal, workspace_header(&req), webhook_id(&path)?).await?;
    Ok(json_response(StatusCode::CREATED, &DeliveryBody::from(delivery), rate))
}

/// The endpoint's deliveries, newest first, each with its attempts.
#[utoipa::path(
    get, path = "/api/v1/channel/webhooks/{id}/deliveries", tag = "webhooks",
    security(("apiKey" = []), ("bearer" = [])),
    params(("id" = Uuid, Path), ("X-SVC-Workspace" = Option<Uuid>, Header), PageQuery),
    responses(
        (status = 200, body = DeliveryPage),
        (status = 400, description = "VALIDATION_FAILED: bad `limit` or `cursor`; WORKSPACE_REQUIRED", body = ErrorBody),
        (status = 401, description = "UNAUTHENTICATED", body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSION (channel:webhooks) or NO_ORG", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: unknown endpoint or another workspace's", body = ErrorBody),
        (status = 429, description = "RATE_LIMITED: `webhook`", body = ErrorBody),
    )
)]
pub async fn deliveries<P: Platform>(
    state: Data<AppState<P>>,
    req: HttpRequest,
    path: Path<String>,
    query: Query<PageQuery>,
) -> Result<HttpResponse, ApiError> {
    let Admitted { principal, rate, .. } = admitted(&state, &req).await?;
    let id = webhook_id(&path)?;
    let page = state
        .webhooks
        .deliveries(&principal, workspace_header(&req), id, query.limit.as_deref(), query.cursor.as_deref())
        .await?;
    let body =
        DeliveryPage { items: page.items.into_iter().map(DeliveryBody::from).collect(), next_cursor: page.next_cursor };
    Ok(json_response(StatusCode::OK, &body, rate))
}
