//! `GET /campaigns`.

use actix_web::http::StatusCode;
use actix_web::web::{Data, Query};
use actix_web::{HttpRequest, HttpResponse};
use pulse_domain::quota::models::QuotaFamily;
use pulse_domain::tenancy::models::Scope;

use super::json::{CampaignListQuery, CampaignPage};
use crate::channel::{Admitted, admit};
use crate::error::{ApiError, ErrorBody};
use crate::request::{json_response, workspace_header};
use crate::state::{AppState, Platform};

/// The workspace's campaigns, oldest first, optionally of one status; campaigns created while a
/// partner pages appear on later pages.
#[utoipa::path(
    get, path = "/api/v1/channel/campaigns", operation_id = "listCampaigns", tag = "campaigns",
    security(("apiKey" = []), ("bearer" = [])),
    params(("X-SVC-Workspace" = Option<uuid::Uuid>, Header), CampaignListQuery),
    responses(
        (status = 200, body = CampaignPage),
        (status = 400, description = "VALIDATION_FAILED: bad `status`, `limit` or `cursor` (a cursor of another list, including the same list with another `status`); WORKSPACE_REQUIRED", body = ErrorBody),
        (status = 401, description = "UNAUTHENTICATED", body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSION (channel:provision or channel:results) or NO_ORG", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: a workspace the key does not reach", body = ErrorBody),
        (status = 429, description = "RATE_LIMITED: hourly `campaign_read` quota", body = ErrorBody),
    )
)]
pub async fn list_campaigns<P: Platform>(
    state: Data<AppState<P>>,
    req: HttpRequest,
    query: Query<CampaignListQuery>,
) -> Result<HttpResponse, ApiError> {
    let Admitted { principal, rate, .. } =
        admit(&state, &req, &[Scope::PROVISION, Scope::RESULTS], QuotaFamily::CampaignRead).await?;
    let page = state
        .campaigns
        .list(
            &principal,
            workspace_header(&req),
            query.status.as_deref(),
            query.limit.as_deref(),
            query.cursor.as_deref(),
        )
        .await?;
    Ok(json_response(StatusCode::OK, &CampaignPage::new(page, state.campaigns.survey_url()), rate))
}
