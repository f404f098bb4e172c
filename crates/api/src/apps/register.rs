//! `POST /apps/register`: an install of an app against a campaign.

use actix_web::http::StatusCode;
use actix_web::web::{Bytes, Data};
use actix_web::{HttpRequest, HttpResponse};
use pulse_domain::Error;
use pulse_domain::quota::models::QuotaFamily;

use super::json::{RegisterBody, RegisterRequest};
use crate::error::{ApiError, ErrorBody};
use crate::request::{Reply, idempotent, network_subject, no_store, parse_json};
use crate::state::{AppState, Platform};

/// Register an install of an app against a campaign, or register the same device again. A
/// replay of the same `Idempotency-Key` and body answers 200 with the original body, tokens
/// included (use a random UUID as the key).
#[utoipa::path(
    post, path = "/api/v1/apps/register", operation_id = "registerAppInstall", tag = "apps",
    params(("Idempotency-Key" = Option<String>, Header, description = "Replays the same answer for 24 hours (keys are per campaign code)")),
    request_body = RegisterRequest,
    responses(
        (status = 201, description = "Registered", body = RegisterBody),
        (status = 200, description = "Replay of the same Idempotency-Key and body (header `Idempotency-Replayed: true`)", body = RegisterBody),
        (status = 400, description = "VALIDATION_FAILED naming the field", body = ErrorBody),
        (status = 401, description = "USER_HASH_INVALID: userHash did not verify, or a verified person was sent without one", body = ErrorBody),
        (status = 403, description = "INSTALL_BLOCKED: the device is blocked by the workspace", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: unknown campaign code", body = ErrorBody),
        (status = 409, description = "CAMPAIGN_NOT_COLLECTING, or CONFLICT (Idempotency-Key reused with another body or in flight; a concurrent register of the same device)", body = ErrorBody),
        (status = 429, description = "RATE_LIMITED: too many installs from this network this hour (`install`)", body = ErrorBody),
    )
)]
pub async fn register<P: Platform>(
    state: Data<AppState<P>>,
    req: HttpRequest,
    body: Bytes,
) -> Result<HttpResponse, ApiError> {
    let rate = state.quotas.hit(&network_subject(&req, &state.network), QuotaFamily::Install).await?;
    let request: RegisterRequest = parse_json(&req, &body)?;
    // The code names the idempotency scope, so one that names no campaign stops here.
    if !(1..=64).contains(&request.campaign_code.len()) || request.campaign_code.chars().any(char::is_control) {
        return Err(ApiError(Error::not_found("campaign")));
    }
    let canonical = serde_json::to_value(&request).map_err(|e| ApiError(Error::internal(e)))?;
    let scope = format!("register:{}", request.campaign_code);
    let response = idempotent(&state, &req, &scope, &canonical, rate, || async {
        let registration = state.apps.register(request.into()).await?;
        let body = serde_json::to_value(RegisterBody::try_from(registration)?).map_err(Error::internal)?;
        Ok(Reply { status: StatusCode::CREATED, replay_body: body.clone(), body })
    })
    .await?;
    Ok(no_store(response))
}
