//! `POST CH/campaigns/{id}/respondents/erase`.

use actix_web::http::StatusCode;
use actix_web::web::{Bytes, Data, Path};
use actix_web::{HttpRequest, HttpResponse};
use pulse_domain::quota::models::QuotaFamily;
use pulse_domain::tenancy::models::Scope;
use serde::Deserialize;
use utoipa::ToSchema;

use super::json::ErasureResponse;
use crate::channel::campaigns::campaign_id;
use crate::channel::{Admitted, admit};
use crate::error::{ApiError, ErrorBody};
use crate::request::{json_response, parse_json, workspace_header};
use crate::state::{AppState, Platform};

// No `Debug`: it carries the person's reference.
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EraseRespondentRequest {
    /// The `externalRef` the respondent was attached with.
    #[schema(min_length = 1, max_length = 200, pattern = r"^[^\x00-\x1F\x7F-\x9F]*$")]
    pub external_ref: String,
}

/// Erase an audience respondent of the campaign: reference, contact details and invitation
/// destroyed, a tombstone keeping the campaign's counts, sessions kept without it
/// (docs/erasure.md). Erasing again answers the same.
#[utoipa::path(
    post, path = "/api/v1/channel/campaigns/{id}/respondents/erase", operation_id = "eraseRespondent", tag = "erasure",
    security(("apiKey" = []), ("bearer" = [])),
    params(("id" = Uuid, Path), ("X-SVC-Workspace" = Option<Uuid>, Header)),
    request_body = EraseRespondentRequest,
    responses(
        (status = 200, description = "Erased now (`erased: true`), or nobody to erase (`false`)", body = ErasureResponse),
        (status = 400, description = "VALIDATION_FAILED naming `externalRef`; WORKSPACE_REQUIRED", body = ErrorBody),
        (status = 401, description = "UNAUTHENTICATED", body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSION (channel:audience) or NO_ORG", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: unknown campaign or another workspace's", body = ErrorBody),
        (status = 413, description = "PAYLOAD_TOO_LARGE", body = ErrorBody),
        (status = 415, description = "UNSUPPORTED_MEDIA_TYPE", body = ErrorBody),
        (status = 429, description = "RATE_LIMITED: `audience`", body = ErrorBody),
    )
)]
pub async fn erase_respondent<P: Platform>(
    state: Data<AppState<P>>,
    req: HttpRequest,
    id: Path<String>,
    body: Bytes,
) -> Result<HttpResponse, ApiError> {
    let Admitted { principal, rate, .. } = admit(&state, &req, &[Scope::AUDIENCE], QuotaFamily::Audience).await?;
    let id = campaign_id(&id)?;
    let request: EraseRespondentRequest = parse_json(&req, &body)?;
    let erased = state.erasures.erase_respondent(&principal, workspace_header(&req), id, &request.external_ref).await?;
    Ok(json_response(StatusCode::OK, &ErasureResponse { erased }, rate))
}
