//! `DELETE CH/webhooks/{id}`.

use actix_web::web::{Data, Path};
use actix_web::{HttpRequest, HttpResponse};

use super::{admitted, webhook_id};
use crate::channel::Admitted;
use crate::error::{ApiError, ErrorBody};
use crate::request::workspace_header;
use crate::state::{AppState, Platform};

/// Delete an endpoint and its delivery trail.
#[utoipa::path(
    delete, path = "/api/v1/channel/webhooks/{id}", operation_id = "deleteWebhook", tag = "webhooks",
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
