//! `POST /launch`: a single-use respondent link.

use actix_web::http::StatusCode;
use actix_web::web::{Bytes, Data};
use actix_web::{HttpRequest, HttpResponse};
use pulse_domain::quota::models::QuotaFamily;
use pulse_domain::tenancy::models::Scope;

use super::json::{LaunchLinkRequest, LaunchLinkResponse};
use crate::channel::{Admitted, admit};
use crate::error::{ApiError, ErrorBody};
use crate::request::{json_response, no_store, parse_json, workspace_header};
use crate::state::{AppState, Platform};

/// Mint a single-use respondent link that carries the partner's context; it expires in 10
/// minutes. This route ignores `Idempotency-Key`: its answer is a secret link.
#[utoipa::path(
    post, path = "/api/v1/channel/launch", operation_id = "mintLaunchLink", tag = "sessions",
    security(("apiKey" = []), ("bearer" = [])),
    params(("X-SVC-Workspace" = Option<Uuid>, Header)),
    request_body = LaunchLinkRequest,
    responses(
        (status = 201, description = "Minted", body = LaunchLinkResponse),
        (status = 400, description = "VALIDATION_FAILED: oversized or malformed context (attributes over 64 keys or 8 KB, non-primitive values, unknown device key or property); WORKSPACE_REQUIRED", body = ErrorBody),
        (status = 401, description = "UNAUTHENTICATED", body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSION (sessions:launch) or NO_ORG", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: unknown campaign or another workspace's", body = ErrorBody),
        (status = 409, description = "CAMPAIGN_NOT_COLLECTING: the campaign is DRAFT, PAUSED or CLOSED, not ACTIVE", body = ErrorBody),
        (status = 429, description = "RATE_LIMITED: hourly `launch` quota", body = ErrorBody),
    )
)]
pub async fn mint_launch_link<P: Platform>(
    state: Data<AppState<P>>,
    req: HttpRequest,
    body: Bytes,
) -> Result<HttpResponse, ApiError> {
    let Admitted { principal, rate, .. } = admit(&state, &req, &[Scope::LAUNCH], QuotaFamily::Launch).await?;
    let request: LaunchLinkRequest = parse_json(&req, &body)?;
    let minted = state.campaigns.mint_link(&principal, workspace_header(&req), request.into()).await?;
    // The link is a single-use credential: no cache keeps it.
    Ok(no_store(json_response(StatusCode::CREATED, &LaunchLinkResponse::from(minted), rate)))
}
