//! `POST CH/users/erase`.

use actix_web::http::StatusCode;
use actix_web::web::{Bytes, Data};
use actix_web::{HttpRequest, HttpResponse};
use pulse_domain::quota::models::QuotaFamily;
use pulse_domain::tenancy::models::Scope;
use serde::Deserialize;
use utoipa::ToSchema;

use super::json::ErasureResponse;
use crate::channel::{Admitted, admit};
use crate::error::{ApiError, ErrorBody};
use crate::request::{json_response, parse_json, workspace_header};
use crate::state::{AppState, Platform};

// No `Debug`: it carries the person's reference.
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EraseUserRequest {
    /// The `user.externalId` the apps registered the person with.
    #[schema(min_length = 1, max_length = 128, pattern = r"^(?!\s)(?!.*\s$)[^\x00-\x1F\x7F-\x9F]*$")]
    pub external_id: String,
}

/// Erase an app user of the workspace: contact details and person destroyed, devices named by
/// it left anonymous, sessions kept without it (docs/erasure.md). Erasing again answers the same.
#[utoipa::path(
    post, path = "/api/v1/channel/users/erase", operation_id = "eraseAppUser", tag = "erasure",
    security(("apiKey" = []), ("bearer" = [])),
    params(("X-SVC-Workspace" = Option<uuid::Uuid>, Header)),
    request_body = EraseUserRequest,
    responses(
        (status = 200, description = "Erased now (`erased: true`), or nobody to erase (`false`)", body = ErasureResponse),
        (status = 400, description = "VALIDATION_FAILED naming `externalId`; WORKSPACE_REQUIRED", body = ErrorBody),
        (status = 401, description = "UNAUTHENTICATED", body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSION (channel:audience) or NO_ORG", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: a workspace the key does not reach", body = ErrorBody),
        (status = 413, description = "PAYLOAD_TOO_LARGE", body = ErrorBody),
        (status = 415, description = "UNSUPPORTED_MEDIA_TYPE", body = ErrorBody),
        (status = 429, description = "RATE_LIMITED: `audience`", body = ErrorBody),
    )
)]
pub async fn erase_user<P: Platform>(
    state: Data<AppState<P>>,
    req: HttpRequest,
    body: Bytes,
) -> Result<HttpResponse, ApiError> {
    let Admitted { principal, rate, .. } = admit(&state, &req, &[Scope::AUDIENCE], QuotaFamily::Audience).await?;
    let request: EraseUserRequest = parse_json(&req, &body)?;
    let erased = state.erasures.erase_app_user(&principal, workspace_header(&req), &request.external_id).await?;
    Ok(json_response(StatusCode::OK, &ErasureResponse { erased }, rate))
}
