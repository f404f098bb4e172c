//! `GET CH/campaigns/{id}/results`.

use actix_web::http::StatusCode;
use actix_web::web::{Data, Path, Query};
use actix_web::{HttpRequest, HttpResponse};
use pulse_domain::quota::models::QuotaFamily;
use pulse_domain::results::models::ResultsFilter;
use pulse_domain::tenancy::models::Scope;

use super::json::{ResultsBody, ResultsQuery};
use crate::channel::campaigns::campaign_id;
use crate::channel::{Admitted, admit};
use crate::error::{ApiError, ErrorBody};
use crate::request::{json_response, workspace_header};
use crate::state::{AppState, Platform};

/// Aggregate results of a campaign, optionally for the sessions one launch context selects.
#[utoipa::path(
    get, path = "/api/v1/channel/campaigns/{id}/results", operation_id = "getCampaignResults", tag = "campaigns",
    security(("apiKey" = []), ("bearer" = [])),
    params(("id" = Uuid, Path), ("X-SVC-Workspace" = Option<Uuid>, Header), ResultsQuery),
    responses(
        (status = 200, body = ResultsBody),
        (status = 400, description = "VALIDATION_FAILED naming an unknown or malformed filter; WORKSPACE_REQUIRED", body = ErrorBody),
        (status = 401, description = "UNAUTHENTICATED", body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSION (channel:results) or NO_ORG", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: unknown campaign or another workspace's", body = ErrorBody),
        (status = 429, description = "RATE_LIMITED: hourly `campaign_read` quota", body = ErrorBody),
    )
)]
pub async fn get_results<P: Platform>(
    state: Data<AppState<P>>,
    req: HttpRequest,
    id: Path<String>,
    query: Query<Vec<(String, String)>>,
) -> Result<HttpResponse, ApiError> {
    let Admitted { principal, rate, .. } = admit(&state, &req, &[Scope::RESULTS], QuotaFamily::CampaignRead).await?;
    let id = campaign_id(&id)?;
    let filter = ResultsFilter::parse(&query)?;
    let results = state.results.results(&principal, workspace_header(&req), id, filter).await?;
    Ok(json_response(StatusCode::OK, &ResultsBody::from(results), rate))
}
