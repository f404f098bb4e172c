//! `DELETE CH/devices/{deviceId}`.

use actix_web::http::StatusCode;
use actix_web::web::{Data, Path};
use actix_web::{HttpRequest, HttpResponse};
use pulse_domain::Error;
use pulse_domain::quota::models::QuotaFamily;
use pulse_domain::tenancy::models::Scope;

use super::json::ErasureResponse;
use crate::channel::{Admitted, admit};
use crate::error::{ApiError, ErrorBody};
use crate::request::{json_response, workspace_header};
use crate::state::{AppState, Platform};

/// Erase an app device of the workspace: the device, its installs and its own person destroyed,
/// its sessions kept without it (docs/erasure.md). Erasing again answers the same.
#[utoipa::path(
    delete, path = "/api/v1/channel/devices/{deviceId}", operation_id = "eraseDevice", tag = "erasure",
    security(("apiKey" = []), ("bearer" = [])),
    params(("deviceId" = Uuid, Path), ("X-SVC-Workspace" = Option<uuid::Uuid>, Header)),
    responses(
        (status = 200, description = "Erased now (`erased: true`), or no such device here (`false`)", body = ErasureResponse),
        (status = 400, description = "VALIDATION_FAILED: `deviceId` is not a uuid; WORKSPACE_REQUIRED", body = ErrorBody),
        (status = 401, description = "UNAUTHENTICATED", body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSION (channel:audience) or NO_ORG", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: a workspace the key does not reach", body = ErrorBody),
        (status = 429, description = "RATE_LIMITED: `audience`", body = ErrorBody),
    )
)]
pub async fn erase_device<P: Platform>(
    state: Data<AppState<P>>,
    req: HttpRequest,
    path: Path<String>,
) -> Result<HttpResponse, ApiError> {
    let Admitted { principal, rate, .. } = admit(&state, &req, &[Scope::AUDIENCE], QuotaFamily::Audience).await?;
    let device = path.parse().map_err(|_| ApiError(Error::validation("deviceId", "must be a uuid")))?;
    let erased = state.erasures.erase_device(&principal, workspace_header(&req), device).await?;
    Ok(json_response(StatusCode::OK, &ErasureResponse { erased }, rate))
}
