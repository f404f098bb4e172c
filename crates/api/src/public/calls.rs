//! `POST /api/v1/public/calls/{messageId}/{step}`, `…/status` and `…/recording`: where the voice
//! provider asks what to say at each step of a call (TELEPHONY), reports how the call ended, and
//! reports a recording of a spoken answer. Every request must carry the provider's signature of
//! its URL and form.

use actix_web::http::header::{self, HeaderValue};
use actix_web::web::{Bytes, Data, Path};
use actix_web::{HttpRequest, HttpResponse};
use pulse_domain::Error;
use pulse_domain::ids::MessageId;

use crate::error::{ApiError, ErrorBody, log_failure};
use crate::state::{AppState, Platform};

use super::signed;

fn message_id(text: &str) -> Result<MessageId, ApiError> {
    text.parse().map_err(|_| ApiError(Error::not_found("call")))
}

/// One step of a call: the provider's form (`CallSid`, `AnsweredBy`, `Digits`, `SpeechResult`, …),
/// answered with what to say next, as TwiML.
#[utoipa::path(
    post, path = "/api/v1/public/calls/{messageId}/{step}", operation_id = "callTurn", tag = "public",
    request_body(content = String, content_type = "application/x-www-form-urlencoded", description = "The voice provider's form: `CallSid`, `AnsweredBy`, `Digits`, `SpeechResult` and its other fields"),
    params(
        ("messageId" = uuid::Uuid, Path, description = "The call's message, as the URL given to the provider names it"),
        ("step" = String, Path, description = "`answered`, `consent`, `q0`, `q0-again`, …: the step the provider's request is for"),
        ("X-Twilio-Signature" = String, Header, description = "The provider's signature of the URL and the form"),
    ),
    responses(
        (status = 200, description = "What to say next, in the provider's markup (TwiML); when Pulse cannot go on (a fault on its side), an apology in the call's language and the line hung up", content_type = "text/xml", body = String),
        (status = 401, description = "UNAUTHENTICATED: not signed by the provider", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: no such call or step", body = ErrorBody),
        (status = 413, description = "PAYLOAD_TOO_LARGE", body = ErrorBody),
    )
)]
pub async fn turn<P: Platform>(
    state: Data<AppState<P>>,
    req: HttpRequest,
    path: Path<(String, String)>,
    body: Bytes,
) -> Result<HttpResponse, ApiError> {
    let (message, step) = path.into_inner();
    let message = message_id(&message)?;
    let (params, url, signature) = signed(&req, state.outreach.base_url(), &body);
    let reply =
        state.outreach.call_turn(&state.respondents, message, &step, &url, &params, signature.as_deref()).await?;
    if let Some(failure) = &reply.failure {
        log_failure(failure);
    }
    Ok(HttpResponse::Ok()
        .insert_header((header::CONTENT_TYPE, HeaderValue::from_static("text/xml; charset=utf-8")))
        .body(reply.markup))
}

/// The provider's report that a call ended (`CallStatus`: `completed`, `busy`, `no-answer`,
/// `failed`, `canceled`).
#[utoipa::path(
    post, path = "/api/v1/public/calls/{messageId}/status", operation_id = "callEnded", tag = "public",
    request_body(content = String, content_type = "application/x-www-form-urlencoded", description = "The voice provider's form: `CallSid`, `CallStatus` and its other fields"),
    params(
        ("messageId" = uuid::Uuid, Path, description = "The call's message"),
        ("X-Twilio-Signature" = String, Header, description = "The provider's signature of the URL and the form"),
    ),
    responses(
        (status = 204, description = "Recorded: a call nobody took counts as not reached; a survey left half-way is completed with what it has"),
        (status = 401, description = "UNAUTHENTICATED: not signed by the provider", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: no such call", body = ErrorBody),
        (status = 413, description = "PAYLOAD_TOO_LARGE", body = ErrorBody),
    )
)]
pub async fn ended<P: Platform>(
    state: Data<AppState<P>>,
    req: HttpRequest,
    path: Path<String>,
    body: Bytes,
) -> Result<HttpResponse, ApiError> {
    let message = message_id(&path.into_inner())?;
    let (params, url, signature) = signed(&req, state.outreach.base_url(), &body);
    state.outreach.call_ended(&state.respondents, message, &url, &params, signature.as_deref()).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// The provider's report of a recording of a spoken answer (`RecordingSid`, `RecordingStatus`):
/// its reference is kept sealed until it is deleted at the provider.
#[utoipa::path(
    post, path = "/api/v1/public/calls/{messageId}/recording", operation_id = "callRecorded", tag = "public",
    request_body(content = String, content_type = "application/x-www-form-urlencoded", description = "The voice provider's form: `CallSid`, `RecordingSid`, `RecordingStatus` and its other fields"),
    params(
        ("messageId" = uuid::Uuid, Path, description = "The call's message"),
        ("X-Twilio-Signature" = String, Header, description = "The provider's signature of the URL and the form"),
    ),
    responses(
        (status = 204, description = "Kept until the campaign's `audioRetentionDays` pass (or its respondent is erased), then deleted at the provider"),
        (status = 401, description = "UNAUTHENTICATED: not signed by the provider", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: no such call", body = ErrorBody),
        (status = 413, description = "PAYLOAD_TOO_LARGE", body = ErrorBody),
    )
)]
pub async fn recorded<P: Platform>(
    state: Data<AppState<P>>,
    req: HttpRequest,
    path: Path<String>,
    body: Bytes,
) -> Result<HttpResponse, ApiError> {
    let message = message_id(&path.into_inner())?;
    let (params, url, signature) = signed(&req, state.outreach.base_url(), &body);
    state.outreach.call_recorded(message, &url, &params, signature.as_deref()).await?;
    Ok(HttpResponse::NoContent().finish())
}
