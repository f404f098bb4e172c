//! `GET /orgs`.

use actix_web::http::StatusCode;
use actix_web::web::Data;
use actix_web::{HttpRequest, HttpResponse};
use pulse_domain::quota::models::QuotaFamily;

use super::json::WorkspaceListBody;
use crate::channel::{authenticate, key_subject};
use crate::error::{ApiError, ErrorBody};
use crate::request::json_response;
use crate::state::{AppState, Platform};

/// The workspaces this key reaches.
#[utoipa::path(
    get, path = "/api/v1/channel/orgs", operation_id = "listOrgs", tag = "identity",
    security(("apiKey" = []), ("bearer" = [])),
    responses(
        (status = 200, description = "Workspaces the key reaches, oldest first", body = WorkspaceListBody),
        (status = 401, description = "UNAUTHENTICATED", body = ErrorBody),
        (status = 403, description = "NO_ORG: the key has no business", body = ErrorBody),
        (status = 429, description = "RATE_LIMITED: hourly `workspace_read` quota used up", body = ErrorBody),
    )
)]
pub async fn list_orgs<P: Platform>(state: Data<AppState<P>>, req: HttpRequest) -> Result<HttpResponse, ApiError> {
    let principal = authenticate(&state, &req).await?;
    principal.require_business()?;
    let rate = state.quotas.hit(&key_subject(&principal), QuotaFamily::WorkspaceRead).await?;
    let list = state.tenancy.list_workspaces(&principal).await?;
    Ok(json_response(StatusCode::OK, &WorkspaceListBody::from(list), rate))
}
