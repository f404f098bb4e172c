//! `POST CH/webhooks/{id}/rotate-secret`: a new signing secret, with the old one kept for a grace.

use actix_web::http::StatusCode;
use actix_web::web::{Bytes, Data, Path};
use actix_web::{HttpRequest, HttpResponse};
use secrecy::ExposeSecret as _;

use super::json::{RotateSecretRequest, RotatedSecretBody};
use super::{admitted, webhook_id};
use crate::channel::Admitted;
use crate::error::{ApiError, ErrorBody};
use crate::request::{json_response, no_store, parse_json, workspace_header};
use crate::state::{AppState, Platform};

/// Give the endpoint a new signing secret, shown in this answer only. Until
/// `previousSecretExpiresAt` every delivery is signed with the replaced secret and the new one (two
/// `v1` values), so a receiver can switch without refusing a delivery. The body is optional.
#[utoipa::path(
    post, path = "/api/v1/channel/webhooks/{id}/rotate-secret", operation_id = "rotateWebhookSecret", tag = "webhooks",
    security(("apiKey" = []), ("bearer" = [])),
    params(("id" = Uuid, Path), ("X-SVC-Workspace" = Option<Uuid>, Header)),
    request_body(content = Option<RotateSecretRequest>, description = "Optional; without it the grace is 86400 seconds"),
    responses(
        (status = 200, description = "The new secret, shown once (`Cache-Control: no-store`)", body = RotatedSecretBody),
        (status = 400, description = "VALIDATION_FAILED naming `graceSeconds`; WORKSPACE_REQUIRED", body = ErrorBody),
        (status = 401, description = "UNAUTHENTICATED", body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSION (channel:webhooks) or NO_ORG", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: unknown endpoint or another workspace's", body = ErrorBody),
        (status = 415, description = "UNSUPPORTED_MEDIA_TYPE: a body not sent as JSON", body = ErrorBody),
        (status = 429, description = "RATE_LIMITED: `webhook`", body = ErrorBody),
    )
)]
pub async fn rotate_secret<P: Platform>(
    state: Data<AppState<P>>,
    req: HttpRequest,
    path: Path<String>,
    body: Bytes,
) -> Result<HttpResponse, ApiError> {
    let Admitted { principal, rate, .. } = admitted(&state, &req).await?;
    let id = webhook_id(&path)?;
    // The body is optional: no body at all, or JSON `null`, takes the default grace.
    let given = body.trim_ascii();
    let request: RotateSecretRequest =
        if given.is_empty() || given == b"null" { RotateSecretRequest::default() } else { parse_json(&req, &body)? };
    let (secret, previous_secret_expires_at) =
        state.webhooks.rotate_secret(&principal, workspace_header(&req), id, request.grace_seconds).await?;
    let body = RotatedSecretBody { secret: secret.expose_secret().to_owned(), previous_secret_expires_at };
    Ok(no_store(json_response(StatusCode::OK, &body, rate)))
}
