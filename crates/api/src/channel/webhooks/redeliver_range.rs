//! `POST CH/webhooks/{id}/redeliver`: every FAILED or DEAD delivery of a time range sent again.

use actix_web::http::StatusCode;
use actix_web::web::{Bytes, Data, Path};
use actix_web::{HttpRequest, HttpResponse};
use pulse_domain::quota::models::QuotaFamily;

use super::json::{RedeliverRangeRequest, RedeliveredBody};
use super::{admitted_in, webhook_id};
use crate::channel::Admitted;
use crate::error::{ApiError, ErrorBody};
use crate::request::{json_response, parse_json, workspace_header};
use crate::state::{AppState, Platform};

/// Send again every delivery of this endpoint whose event occurred in `from`..`to` (at most 31
/// days) and whose status is one of `statuses` (FAILED and DEAD by default), as one redelivery
/// each, all at once. A range holding more than 10,000 such deliveries is refused whole.
#[utoipa::path(
    post, path = "/api/v1/channel/webhooks/{id}/redeliver", operation_id = "redeliverWebhookDeliveries",
    tag = "webhooks",
    security(("apiKey" = []), ("bearer" = [])),
    params(("id" = Uuid, Path), ("X-SVC-Workspace" = Option<Uuid>, Header)),
    request_body = RedeliverRangeRequest,
    responses(
        (status = 202, description = "How many deliveries are queued to be sent again", body = RedeliveredBody),
        (status = 400, description = "VALIDATION_FAILED naming `from`, `to` or `statuses[i]`: not RFC 3339, `to` not after `from`, more than 31 days, a status other than FAILED or DEAD, or more than 10,000 deliveries in the range (naming `to`); WORKSPACE_REQUIRED", body = ErrorBody),
        (status = 401, description = "UNAUTHENTICATED", body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSION (channel:webhooks) or NO_ORG", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: unknown endpoint or another workspace's", body = ErrorBody),
        (status = 409, description = "CONFLICT: the endpoint is inactive; re-enable it with PATCH isActive true first", body = ErrorBody),
        (status = 415, description = "UNSUPPORTED_MEDIA_TYPE", body = ErrorBody),
        (status = 429, description = "RATE_LIMITED: `webhook_bulk_redelivery`", body = ErrorBody),
    )
)]
pub async fn redeliver_range<P: Platform>(
    state: Data<AppState<P>>,
    req: HttpRequest,
    path: Path<String>,
    body: Bytes,
) -> Result<HttpResponse, ApiError> {
    let Admitted { principal, rate, .. } = admitted_in(&state, &req, QuotaFamily::WebhookBulkRedelivery).await?;
    let id = webhook_id(&path)?;
    let request: RedeliverRangeRequest = parse_json(&req, &body)?;
    let queued = state.webhooks.redeliver_range(&principal, workspace_header(&req), id, request.into()).await?;
    Ok(json_response(StatusCode::ACCEPTED, &RedeliveredBody { queued }, rate))
}
