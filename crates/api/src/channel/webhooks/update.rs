//! `PATCH CH/webhooks/{id}`.

use actix_web::http::StatusCode;
use actix_web::web::{Bytes, Data, Path};
use actix_web::{HttpRequest, HttpResponse};

use super::json::{SubscriptionBody, UpdateSubscriptionRequest};
use super::{admitted, webhook_id};
use crate::channel::Admitted;
use crate::error::{ApiError, ErrorBody};
use crate::request::{json_response, parse_json, workspace_header};
use crate::state::{AppState, Platform};

/// Change an endpoint; `isActive: true` re-enables a disabled one.
#[utoipa::path(
    patch, path = "/api/v1/channel/webhooks/{id}", operation_id = "updateWebhook", tag = "webhooks",
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
    let subscription = state.webhooks.update(&principal, workspace_header(&req), id, request.into()).await?;
    Ok(json_response(StatusCode::OK, &SubscriptionBody::from(subscription), rate))
}
