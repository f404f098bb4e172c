//! `GET /campaigns/{id}`.

use actix_web::http::StatusCode;
use actix_web::web::{Data, Path};
use actix_web::{HttpRequest, HttpResponse};
use pulse_domain::quota::models::QuotaFamily;
use pulse_domain::tenancy::models::Scope;

use super::campaign_id;
use super::json::CampaignBody;
use crate::channel::{Admitted, admit};
use crate::error::{ApiError, ErrorBody};
use crate::request::{json_response, workspace_header};
use crate::state::{AppState, Platform};

/// A campaign's status, readiness (with the list of blockers), counts and survey.
#[utoipa::path(
    get, path = "/api/v1/channel/campaigns/{id}", operation_id = "getCampaign", tag = "campaigns",
    security(("apiKey" = []), ("bearer" = [])),
    params(("id" = Uuid, Path), ("X-SVC-Workspace" = Option<Uuid>, Header)),
    responses(
        (status = 200, body = CampaignBody),
        (status = 400, description = "WORKSPACE_REQUIRED", body = ErrorBody),
        (status = 401, description = "UNAUTHENTICATED", body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSION (channel:provision or channel:results) or NO_ORG", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: unknown campaign or another workspace's", body = ErrorBody),
        (status = 429, description = "RATE_LIMITED: hourly `campaign_read` quota", body = ErrorBody),
    )
)]
pub async fn get_campaign<P: Platform>(
    state: Data<AppState<P>>,
    req: HttpRequest,
    id: Path<String>,
) -> Result<HttpResponse, ApiError> {
    let Admitted { principal, rate, .. } =
        admit(&state, &req, &[Scope::PROVISION, Scope::RESULTS], QuotaFamily::CampaignRead).await?;
    let id = campaign_id(&id)?;
    let view = state.campaigns.get(&principal, workspace_header(&req), id).await?;
    let body = CampaignBody::new(
        view.overview,
        &view.messages,
        state.campaigns.survey_url(),
        state.campaigns.message_channels(),
    );
    Ok(json_response(StatusCode::OK, &body, rate))
}
