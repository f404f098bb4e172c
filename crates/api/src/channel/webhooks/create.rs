//! `POST CH/webhooks`: the signing secret is in this answer only.

use actix_web::http::StatusCode;
use actix_web::web::{Bytes, Data};
use actix_web::{HttpRequest, HttpResponse};
use secrecy::ExposeSecret as _;

use super::admitted;
use super::json::{CreateSubscriptionRequest, CreatedSubscriptionBody, SubscriptionBody};
use crate::channel::Admitted;
use crate::error::{ApiError, ErrorBody};
use crate::request::{json_response, no_store, parse_json, workspace_header};
use crate::state::{AppState, Platform};

/// Register an endpoint. The signing secret is in this answer only; `Idempotency-Key` is ignored.
#[utoipa::path(
    post, path = "/api/v1/channel/webhooks", operation_id = "createWebhook", tag = "webhooks",
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
    let (subscription, secret) = state.webhooks.create(&principal, workspace_header(&req), request.into()).await?;
    let body = CreatedSubscriptionBody {
        subscription: SubscriptionBody::from(subscription),
        secret: secret.expose_secret().to_owned(),
    };
    Ok(no_store(json_response(StatusCode::CREATED, &body, rate)))
}
