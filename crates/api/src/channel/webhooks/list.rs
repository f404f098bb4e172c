//! `GET CH/webhooks`.

use actix_web::http::StatusCode;
use actix_web::web::Data;
use actix_web::{HttpRequest, HttpResponse};

use super::admitted;
use super::json::SubscriptionListBody;
use crate::channel::Admitted;
use crate::error::{ApiError, ErrorBody};
use crate::request::{json_response, workspace_header};
use crate::state::{AppState, Platform};

/// The workspace's endpoints, never their secrets.
#[utoipa::path(
    get, path = "/api/v1/channel/webhooks", operation_id = "listWebhooks", tag = "webhooks",
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
    Ok(json_response(StatusCode::OK, &SubscriptionListBody::from(items), rate))
}
