//! `PUT /campaigns/{campaignId}/launch-access`: the campaign's signing setting.

use actix_web::http::StatusCode;
use actix_web::web::{Bytes, Data, Path};
use actix_web::{HttpRequest, HttpResponse};
use pulse_domain::quota::models::QuotaFamily;
use pulse_domain::studio::models::PERMISSION_BUILD;

use super::json::LaunchAccessBody;
use crate::channel::campaigns::campaign_id;
use crate::error::{ApiError, ErrorBody};
use crate::request::{json_response, parse_json};
use crate::state::{AppState, Platform};
use crate::studio::{authenticate, user_subject};

/// Require (or stop requiring) signed launches for the campaign's public starts.
#[utoipa::path(
    put, path = "/api/v1/campaigns/{campaignId}/launch-access", operation_id = "setLaunchAccess", tag = "studio",
    security(("studio" = [])),
    params(("campaignId" = Uuid, Path)),
    request_body = LaunchAccessBody,
    responses(
        (status = 200, description = "The setting now in force", body = LaunchAccessBody),
        (status = 400, description = "VALIDATION_FAILED: requireSigned missing or not a boolean", body = ErrorBody),
        (status = 401, description = "UNAUTHENTICATED", body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSION (campaign:build)", body = ErrorBody),
        (status = 404, description = "NOT_FOUND", body = ErrorBody),
        (status = 429, description = "RATE_LIMITED: hourly `studio` quota", body = ErrorBody),
    )
)]
pub async fn set_access<P: Platform>(
    state: Data<AppState<P>>,
    req: HttpRequest,
    path: Path<String>,
    body: Bytes,
) -> Result<HttpResponse, ApiError> {
    let session = authenticate(&state, &req)?;
    session.require_permission(PERMISSION_BUILD)?;
    let rate = state.quotas.hit(&user_subject(&session), QuotaFamily::Studio).await?;
    let campaign = campaign_id(&path)?;
    let request: LaunchAccessBody = parse_json(&req, &body)?;
    let require_signed = state.launch_keys.set_require_signed(&session, campaign, request.require_signed).await?;
    Ok(json_response(StatusCode::OK, &LaunchAccessBody { require_signed }, rate))
}
