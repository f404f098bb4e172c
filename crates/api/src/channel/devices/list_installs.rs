//! `GET CH/campaigns/{id}/installs`.

use actix_web::http::StatusCode;
use actix_web::web::{Data, Path, Query};
use actix_web::{HttpRequest, HttpResponse};
use pulse_domain::quota::models::QuotaFamily;
use pulse_domain::tenancy::models::Scope;

use super::json::{InstallPage, PageQuery};
use crate::channel::campaigns::campaign_id;
use crate::channel::{Admitted, admit};
use crate::error::{ApiError, ErrorBody};
use crate::request::{json_response, workspace_header};
use crate::state::{AppState, Platform};

/// The campaign's installs, oldest first.
#[utoipa::path(
    get, path = "/api/v1/channel/campaigns/{id}/installs", operation_id = "listCampaignInstalls", tag = "devices",
    security(("apiKey" = []), ("bearer" = [])),
    params(("id" = uuid::Uuid, Path), ("X-SVC-Workspace" = Option<uuid::Uuid>, Header), PageQuery),
    responses(
        (status = 200, body = InstallPage),
        (status = 400, description = "VALIDATION_FAILED: bad `limit` or `cursor`; WORKSPACE_REQUIRED", body = ErrorBody),
        (status = 401, description = "UNAUTHENTICATED", body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSION (channel:results) or NO_ORG", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: unknown campaign or another workspace's", body = ErrorBody),
        (status = 429, description = "RATE_LIMITED: `device_read`", body = ErrorBody),
    )
)]
pub async fn list_installs<P: Platform>(
    state: Data<AppState<P>>,
    req: HttpRequest,
    id: Path<String>,
    query: Query<PageQuery>,
) -> Result<HttpResponse, ApiError> {
    let Admitted { principal, rate, .. } = admit(&state, &req, &[Scope::RESULTS], QuotaFamily::DeviceRead).await?;
    let id = campaign_id(&id)?;
    let page = state
        .apps
        .installs(&principal, workspace_header(&req), id, query.limit.as_deref(), query.cursor.as_deref())
        .await?;
    Ok(json_response(StatusCode::OK, &InstallPage::from(page), rate))
}
