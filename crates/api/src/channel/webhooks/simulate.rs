//! `POST CH/webhooks/{id}/simulate`: a `webhook.test` event for one endpoint.

use actix_web::http::StatusCode;
use actix_web::web::{Data, Path};
use actix_web::{HttpRequest, HttpResponse};

use super::json::DeliveryBody;
use super::{admitted, webhook_id};
use crate::channel::Admitted;
use crate::error::{ApiError, ErrorBody};
use crate::request::{json_response, workspace_header};
use crate::state::{AppState, Platform};

/// Queue a `webhook.test` event for this endpoint only, signed and retried like real events; it
/// is sent even to an inactive endpoint, so a fix can be tried before re-enabling.
#[utoipa::path(
    post, path = "/api/v1/channel/webhooks/{id}/simulate", operation_id = "simulateWebhook", tag = "webhooks",
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
