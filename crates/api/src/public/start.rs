//! `POST /{code}/start`: consent, then a session.

use actix_web::http::StatusCode;
use actix_web::web::{Bytes, Data, Path};
use actix_web::{HttpRequest, HttpResponse};
use pulse_domain::Error;
use pulse_domain::quota::models::QuotaFamily;
use pulse_domain::sessions::models::{StartInput, StartOutcome};

use super::json::{NotStartedBody, StartRequest, StartedBody};
use crate::error::{ApiError, ErrorBody};
use crate::request::{Reply, idempotent, json_response, network_subject, no_store, parse_json};
use crate::state::{AppState, Platform};

/// Start a respondent session: consent, then the launch token or invitation is verified and used
/// up together with the session's creation.
#[utoipa::path(
    post, path = "/api/v1/public/pulse/{code}/start", operation_id = "startSession", tag = "public",
    params(("code" = String, Path), ("Idempotency-Key" = Option<String>, Header, description = "Replays the same answer for 24 hours; honoured only with a launchToken or invitation")),
    request_body = StartRequest,
    responses(
        (status = 201, description = "Session created", body = StartedBody),
        (status = 200, description = "Nothing created: consent not given, campaign not open, or an invitation needed", body = NotStartedBody),
        (status = 400, description = "VALIDATION_FAILED: an over-long field or malformed body", body = ErrorBody),
        (status = 403, description = "LAUNCH_SIGNATURE_REQUIRED (signed-only campaign, no token), LAUNCH_TOKEN_INVALID (bad, expired, spent or another campaign's token or link), or CHALLENGE_REQUIRED (an open start that needs a solved challenge came without one, or with one that is wrong, expired, spent or another campaign's)", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: unknown campaign code", body = ErrorBody),
        (status = 429, description = "RATE_LIMITED: too many start attempts from this network (`start_attempt`), or responses paused for the campaign (quality.maxResponses reached)", body = ErrorBody),
    )
)]
pub async fn start<P: Platform>(
    state: Data<AppState<P>>,
    req: HttpRequest,
    code: Path<String>,
    body: Bytes,
) -> Result<HttpResponse, ApiError> {
    let network = network_subject(&req, &state.network);
    let rate = state.quotas.hit(&network, QuotaFamily::StartAttempt).await?;
    let request: StartRequest = parse_json(&req, &body)?;
    let canonical = serde_json::to_value(&request).map_err(|e| ApiError(Error::internal(e)))?;
    let input = StartInput { network: Some(network), ..StartInput::from(request) };
    // A replay returns the session token, so a key is honoured only when the body carries a launch
    // token or invitation: a secret of this respondent's that a stranger cannot repeat.
    let honours_key = input.visit.launch_token.is_some() || input.visit.invitation.is_some();
    let scope = format!("start:{code}");
    let run = || async {
        match state.respondents.start(&code, input).await? {
            StartOutcome::NotStarted(reason) => {
                let body = serde_json::to_value(NotStartedBody::from(reason)).map_err(Error::internal)?;
                Ok(Reply { status: StatusCode::OK, replay_body: body.clone(), body })
            }
            StartOutcome::Started(session) => {
                let body = serde_json::to_value(StartedBody::from(session)).map_err(Error::internal)?;
                Ok(Reply { status: StatusCode::CREATED, replay_body: body.clone(), body })
            }
        }
    };
    // The answer may hold the session token.
    let response = if honours_key {
        idempotent(&state, &req, &scope, &canonical, rate, run).await?
    } else {
        let reply = run().await?;
        json_response(reply.status, &reply.body, rate)
    };
    Ok(no_store(response))
}
