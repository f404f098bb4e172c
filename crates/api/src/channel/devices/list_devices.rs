//! `GET CH/devices`.

use actix_web::http::StatusCode;
use actix_web::web::{Data, Query};
use actix_web::{HttpRequest, HttpResponse};
use pulse_domain::quota::models::QuotaFamily;
use pulse_domain::tenancy::models::Scope;

use super::json::{DevicePage, DeviceQuery};
use crate::channel::{Admitted, admit};
use crate::error::{ApiError, ErrorBody};
use crate::request::{json_response, workspace_header};
use crate::state::{AppState, Platform};

/// The workspace's app devices, oldest first; items added while paging appear on later pages.
#[utoipa::path(
    get, path = "/api/v1/channel/devices", operation_id = "listDevices", tag = "devices",
    security(("apiKey" = []), ("bearer" = [])),
    params(("X-SVC-Workspace" = Option<uuid::Uuid>, Header), DeviceQuery),
    responses(
        (status = 200, body = DevicePage),
        (status = 400, description = "VALIDATION_FAILED: bad `limit` or `cursor`; WORKSPACE_REQUIRED", body = ErrorBody),
        (status = 401, description = "UNAUTHENTICATED", body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSION (channel:results) or NO_ORG", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: a workspace the key does not reach", body = ErrorBody),
        (status = 429, description = "RATE_LIMITED: `device_read`", body = ErrorBody),
    )
)]
pub async fn list_devices<P: Platform>(
    state: Data<AppState<P>>,
    req: HttpRequest,
    query: Query<DeviceQuery>,
) -> Result<HttpResponse, ApiError> {
    let Admitted { principal, rate, .. } = admit(&state, &req, &[Scope::RESULTS], QuotaFamily::DeviceRead).await?;
    let page = state
        .apps
        .devices(
            &principal,
            workspace_header(&req),
            query.app_id.as_deref(),
            query.limit.as_deref(),
            query.cursor.as_deref(),
        )
        .await?;
    Ok(json_response(StatusCode::OK, &DevicePage::from(page), rate))
}
