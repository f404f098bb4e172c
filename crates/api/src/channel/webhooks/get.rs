//! `GET CH/webhooks/{id}`.

use actix_web::http::StatusCode;
use actix_web::web::{Data, Path};
use actix_web::{HttpRequest, HttpResponse};

use super::json::SubscriptionBody;
use super::{admitted, webhook_id};
use crate::channel::Admitted;
use crate::error::{ApiError, ErrorBody};
use crate::request::{json_response, workspace_header};
use crate::state::{AppState, Platform};

/// One endpoint, never its secret.
#[utoipa::path(
    get, path = "/api/v1/channel/webhooks/{id}", operation_id = "getWebhook", tag = "webhooks",
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
