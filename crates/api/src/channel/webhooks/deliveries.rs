//! `GET CH/webhooks/{id}/deliveries`: the delivery trail.

use actix_web::http::StatusCode;
use actix_web::web::{Data, Path, Query};
use actix_web::{HttpRequest, HttpResponse};

use super::json::DeliveryPage;
use super::{admitted, webhook_id};
use crate::channel::Admitted;
use crate::channel::devices::json::PageQuery;
use crate::error::{ApiError, ErrorBody};
use crate::request::{json_response, workspace_header};
use crate::state::{AppState, Platform};

/// The endpoint's deliveries, newest first, each with its attempts.
#[utoipa::path(
    get, path = "/api/v1/channel/webhooks/{id}/deliveries", operation_id = "listWebhookDeliveries", tag = "webhooks",
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
    Ok(json_response(StatusCode::OK, &DeliveryPage::from(page), rate))
}
