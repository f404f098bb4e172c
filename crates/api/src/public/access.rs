//! `GET /{code}/access`: a visit checked before consent.

use actix_web::http::StatusCode;
use actix_web::web::{Data, Path, Query};
use actix_web::{HttpRequest, HttpResponse};
use pulse_domain::quota::models::QuotaFamily;
use pulse_domain::sessions::models::Visit;

use super::json::{AccessBody, AccessQuery};
use crate::error::{ApiError, ErrorBody};
use crate::request::{json_response, network_subject};
use crate::state::{AppState, Platform};

/// Check a visit before consent: whether a signed launch is required, whether the token (or
/// invitation) is valid, and the proof-of-work challenge an open start needs solved, if any.
/// Read-only: a valid token is not used up, and nothing is counted against the campaign.
#[utoipa::path(
    get, path = "/api/v1/public/pulse/{code}/access", operation_id = "checkSessionAccess", tag = "public",
    params(("code" = String, Path, description = "The campaign's public code"), AccessQuery),
    responses(
        (status = 200, body = AccessBody),
        (status = 404, description = "NOT_FOUND: unknown campaign code", body = ErrorBody),
        (status = 429, description = "RATE_LIMITED: too many link checks from this network this hour (`access_check`)", body = ErrorBody),
    )
)]
pub async fn access<P: Platform>(
    state: Data<AppState<P>>,
    req: HttpRequest,
    code: Path<String>,
    query: Query<AccessQuery>,
) -> Result<HttpResponse, ApiError> {
    let network = network_subject(&req, &state.network);
    let rate = state.quotas.hit(&network, QuotaFamily::AccessCheck).await?;
    let access = state.respondents.access(&code, &Visit::from(query.into_inner()), Some(&network)).await?;
    Ok(json_response(StatusCode::OK, &AccessBody::from(access), rate))
}
