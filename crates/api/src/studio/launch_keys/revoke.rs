//! `DELETE /campaigns/{campaignId}/launch-keys/{keyId}`.

use actix_web::web::{Data, Path};
use actix_web::{HttpRequest, HttpResponse};
use pulse_domain::Error;
use pulse_domain::ids::LaunchKeyId;
use pulse_domain::quota::models::QuotaFamily;
use pulse_domain::studio::models::PERMISSION_BUILD;

use crate::channel::campaigns::campaign_id;
use crate::error::{ApiError, ErrorBody};
use crate::state::{AppState, Platform};
use crate::studio::{authenticate, user_subject};

/// Revoke a launch key; tokens signed with it stop working at once.
#[utoipa::path(
    delete, path = "/api/v1/campaigns/{campaignId}/launch-keys/{keyId}",
    operation_id = "revokeLaunchKey", tag = "studio",
    security(("studio" = [])),
    params(("campaignId" = Uuid, Path), ("keyId" = Uuid, Path)),
    responses(
        (status = 204, description = "Revoked"),
        (status = 401, description = "UNAUTHENTICATED", body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSION (campaign:build)", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: unknown campaign or key, or a key already revoked", body = ErrorBody),
        (status = 429, description = "RATE_LIMITED: hourly `studio` quota", body = ErrorBody),
    )
)]
pub async fn revoke<P: Platform>(
    state: Data<AppState<P>>,
    req: HttpRequest,
    path: Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let session = authenticate(&state, &req)?;
    session.require_permission(PERMISSION_BUILD)?;
    state.quotas.hit(&user_subject(&session), QuotaFamily::Studio).await?;
    let (campaign, key) = path.into_inner();
    let campaign = campaign_id(&campaign)?;
    let key: LaunchKeyId = key.parse().map_err(|_| ApiError(Error::not_found("launch key")))?;
    state.launch_keys.revoke(&session, campaign, key).await?;
    Ok(HttpResponse::NoContent().finish())
}
