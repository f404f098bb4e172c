//! `POST /apps/heartbeat`: keeps a device alive.

use actix_web::http::StatusCode;
use actix_web::web::{Bytes, Data};
use actix_web::{HttpRequest, HttpResponse};

use super::json::{HeartbeatBody, HeartbeatRequest};
use crate::error::{ApiError, ErrorBody};
use crate::request::{json_response, no_store, parse_json};
use crate::state::{AppState, Platform};

/// Keep a device alive: on every app start and every `heartbeatIntervalSecs` while open.
#[utoipa::path(
    post, path = "/api/v1/apps/heartbeat", operation_id = "sendHeartbeat", tag = "apps",
    request_body = HeartbeatRequest,
    responses(
        (status = 200, body = HeartbeatBody),
        (status = 400, description = "VALIDATION_FAILED: neither (or both) of v1 and v2, or a field rule", body = ErrorBody),
        (status = 401, description = "INSTALL_INVALID (v1: install id forged, expired, another campaign's, unknown or blocked) or DEVICE_AUTH_INVALID (v2: unknown device, wrong, expired or replaced refresh token, or blocked); register again", body = ErrorBody),
        (status = 429, description = "RATE_LIMITED: this device (v2) or install (v1) beats more than once every 10 s beyond a burst of 3", body = ErrorBody),
    )
)]
pub async fn heartbeat<P: Platform>(
    state: Data<AppState<P>>,
    req: HttpRequest,
    body: Bytes,
) -> Result<HttpResponse, ApiError> {
    let request: HeartbeatRequest = parse_json(&req, &body)?;
    let beat = state.apps.heartbeat(request.into()).await?;
    Ok(no_store(json_response(StatusCode::OK, &HeartbeatBody::from(beat), None)))
}
