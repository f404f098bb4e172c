//! `GET /campaigns/{campaignId}/app-installs`.

use actix_web::http::StatusCode;
use actix_web::web::{Data, Path, Query};
use actix_web::{HttpRequest, HttpResponse};
use pulse_domain::quota::models::QuotaFamily;
use pulse_domain::studio::models::PERMISSION_VIEW;

use crate::channel::campaigns::campaign_id;
use crate::channel::devices::json::{InstallPage, PageQuery};
use crate::error::{ApiError, ErrorBody};
use crate::request::json_response;
use crate::state::{AppState, Platform};
use crate::studio::{authenticate, user_subject};

/// The campaign's app installs, oldest first (never an email or a phone).
#[utoipa::path(
    get, path = "/api/v1/campaigns/{campaignId}/app-installs", operation_id = "listCampaignAppInstalls", tag = "studio",
    security(("studio" = [])),
    params(("campaignId" = uuid::Uuid, Path), PageQuery),
    responses(
        (status = 200, body = InstallPage),
        (status = 400, description = "VALIDATION_FAILED: bad `limit` or `cursor`", body = ErrorBody),
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
    query: Query<PageQuery>,
) -> Result<HttpResponse, ApiError> {
    let session = authenticate(&state, &req)?;
    session.require_permission(PERMISSION_VIEW)?;
    let rate = state.quotas.hit(&user_subject(&session), QuotaFamily::Studio).await?;
    let page = state
        .apps
        .studio_installs(&session, campaign_id(&path)?, query.limit.as_deref(), query.cursor.as_deref())
        .await?;
    Ok(json_response(StatusCode::OK, &InstallPage::from(page), rate))
}
