//! `GET /campaigns/{campaignId}/launch-keys`.

use actix_web::http::StatusCode;
use actix_web::web::{Data, Path};
use actix_web::{HttpRequest, HttpResponse};
use pulse_domain::quota::models::QuotaFamily;
use pulse_domain::studio::models::PERMISSION_VIEW;

use super::json::LaunchKeyListBody;
use crate::channel::campaigns::campaign_id;
use crate::error::{ApiError, ErrorBody};
use crate::request::json_response;
use crate::state::{AppState, Platform};
use crate::studio::{authenticate, user_subject};

/// The campaign's active launch keys (never their secrets) and its signing setting.
#[utoipa::path(
    get, path = "/api/v1/campaigns/{campaignId}/launch-keys", operation_id = "listLaunchKeys", tag = "studio",
    security(("studio" = [])),
    params(("campaignId" = Uuid, Path)),
    responses(
        (status = 200, body = LaunchKeyListBody),
        (status = 401, description = "UNAUTHENTICATED: no, invalid or expired Studio token", body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSION (campaign:view)", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: unknown campaign or another business's", body = ErrorBody),
        (status = 429, description = "RATE_LIMITED: hourly `studio` quota", body = ErrorBody),
    )
)]
pub async fn list<P: Platform>(
    state: Data<AppState<P>>,
    req: HttpRequest,
    path: Path<String>,
) -> Result<HttpResponse, ApiError> {
    let session = authenticate(&state, &req)?;
    session.require_permission(PERMISSION_VIEW)?;
    let rate = state.quotas.hit(&user_subject(&session), QuotaFamily::Studio).await?;
    let list = state.launch_keys.list(&session, campaign_id(&path)?).await?;
    Ok(json_response(StatusCode::OK, &LaunchKeyListBody::from(list), rate))
}
