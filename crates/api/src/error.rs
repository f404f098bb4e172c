//! The error envelope, and the one place where domain errors become HTTP statuses.

use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::ServiceResponse;
use actix_web::http::StatusCode;
use actix_web::http::header::{self, HeaderValue};
use actix_web::middleware::ErrorHandlerResponse;
use actix_web::{HttpResponse, ResponseError};
use pulse_domain::{Error, ErrorCode, RateLimitState};
use serde::Serialize;
use utoipa::ToSchema;

/// Every refusal has this body.
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({"code": "VALIDATION_FAILED", "title": "Invalid request", "description": "`name`: must be 1 to 120 characters long"}))]
pub struct ErrorBody {
    /// A stable class code from the catalog.
    pub code: String,
    /// A short summary of the class; wording may change.
    pub title: String,
    /// What went wrong with this request; wording may change. Never carries a secret or personal data.
    pub description: String,
}

pub const fn status_of(code: ErrorCode) -> StatusCode {
    match code {
        ErrorCode::Unauthenticated
        | ErrorCode::UserHashInvalid
        | ErrorCode::InstallInvalid
        | ErrorCode::DeviceAuthInvalid => StatusCode::UNAUTHORIZED,
        ErrorCode::InsufficientPermission
        | ErrorCode::NoOrg
        | ErrorCode::LaunchSignatureRequired
        | ErrorCode::LaunchTokenInvalid
        | ErrorCode::ChallengeRequired
        | ErrorCode::InstallBlocked => StatusCode::FORBIDDEN,
        ErrorCode::WorkspaceRequired | ErrorCode::ValidationFailed | ErrorCode::NotLaunchReady => {
            StatusCode::BAD_REQUEST
        }
        ErrorCode::NotFound => StatusCode::NOT_FOUND,
        ErrorCode::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
        ErrorCode::UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
        ErrorCode::PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
        ErrorCode::RequestTimeout => StatusCode::REQUEST_TIMEOUT,
        ErrorCode::Conflict
        | ErrorCode::RefConflict
        | ErrorCode::CampaignNotCollecting
        | ErrorCode::LaunchKeySlotsFull => StatusCode::CONFLICT,
        ErrorCode::RateLimited => StatusCode::TOO_MANY_REQUESTS,
        ErrorCode::Internal => StatusCode::INTERNAL_SERVER_ERROR,
        ErrorCode::Unavailable | ErrorCode::ExportUnavailable => StatusCode::SERVICE_UNAVAILABLE,
    }
}

/// A domain error on its way to the client.
#[derive(Debug)]
pub struct ApiError(pub Error);

impl From<Error> for ApiError {
    fn from(e: Error) -> Self {
        ApiError(e)
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl ApiError {
    pub fn refused(code: ErrorCode, description: impl Into<String>) -> Self {
        ApiError(Error::refused(code, description))
    }
}

pub(crate) fn envelope(code: ErrorCode, description: &str) -> HttpResponse {
    HttpResponse::build(status_of(code)).json(ErrorBody {
        code: code.as_str().to_owned(),
        title: code.title().to_owned(),
        description: description.to_owned(),
    })
}

/// Adds the `RateLimit-*` headers of the IETF draft (and `Retry-After` when refused).
pub(crate) fn insert_rate_limit_headers(response: &mut HttpResponse, state: &RateLimitState, refused: bool) {
    let headers = response.headers_mut();
    headers.insert(header::HeaderName::from_static("ratelimit-limit"), HeaderValue::from(state.limit));
    headers.insert(header::HeaderName::from_static("ratelimit-remaining"), HeaderValue::from(state.remaining));
    headers.insert(header::HeaderName::from_static("ratelimit-reset"), HeaderValue::from(state.reset_secs));
    if refused {
        headers.insert(header::RETRY_AFTER, HeaderValue::from(state.reset_secs));
    }
}

/// Logs a failure on the server's side, whether its envelope is sent or something else stands in
/// for it (a call's goodbye); a refusal by its code only.
pub(crate) fn log_failure(error: &Error) {
    match error {
        Error::Refused(refusal) => tracing::info!(code = refusal.code.as_str(), "request refused"),
        Error::Unavailable(cause) => tracing::warn!(%cause, "dependency unavailable"),
        Error::Internal(cause) => tracing::error!(cause = %cause, "internal error"),
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        status_of(self.0.code())
    }

    fn error_response(&self) -> HttpResponse<BoxBody> {
        match &self.0 {
            Error::Refused(refusal) => {
                if refusal.code == ErrorCode::RateLimited {
                    // A limit no window resets (a business's workspace count) carries no state.
                    let family = refusal.rate_limit.map_or(crate::telemetry::WORKSPACE_LIMIT, |s| s.family);
                    metrics::counter!(crate::telemetry::QUOTA_REFUSALS, "family" => family).increment(1);
                }
                let mut response = envelope(refusal.code, &refusal.description);
                if let Some(state) = &refusal.rate_limit {
                    insert_rate_limit_headers(&mut response, state, true);
                } else if refusal.code == ErrorCode::RateLimited {
                    // A limit that no window resets (such as a business's workspace count).
                    response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static("3600"));
                }
                response
            }
            Error::Unavailable(_) => {
                log_failure(&self.0);
                let mut response =
                    envelope(ErrorCode::Unavailable, "a service dependency is unavailable; retry in a few seconds");
                response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static("5"));
                response
            }
            Error::Internal(_) => {
                log_failure(&self.0);
                envelope(
                    ErrorCode::Internal,
                    "an unexpected error occurred; quote the X-Request-Id header when reporting it",
                )
            }
        }
    }
}

/// Turns the framework's own refusals (unknown route, wrong method, oversized body...) into the
/// envelope. Our own errors are JSON already and pass through untouched.
///
/// # Errors
/// Never; the signature is actix's.
pub fn envelope_framework_errors<B: MessageBody + 'static>(
    res: ServiceResponse<B>,
) -> actix_web::Result<ErrorHandlerResponse<B>> {
    let is_json = res
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if is_json {
        return Ok(ErrorHandlerResponse::Response(res.map_into_left_body()));
    }
    let status = res.status();
    let (code, description) = match status {
        StatusCode::NOT_FOUND => (ErrorCode::NotFound, "no route matches this path".to_owned()),
        StatusCode::METHOD_NOT_ALLOWED => {
            (ErrorCode::MethodNotAllowed, format!("{} is not allowed on this route", res.request().method()))
        }
        StatusCode::PAYLOAD_TOO_LARGE => {
            (ErrorCode::PayloadTooLarge, "the request body is larger than this route accepts".to_owned())
        }
        StatusCode::UNSUPPORTED_MEDIA_TYPE => {
            (ErrorCode::UnsupportedMediaType, "send the body as application/json".to_owned())
        }
        s if s.is_client_error() => (ErrorCode::ValidationFailed, "the request could not be read".to_owned()),
        _ => (ErrorCode::Internal, "an unexpected error occurred".to_owned()),
    };
    let mut replacement = envelope(code, &description);
    for (name, value) in res.headers() {
        if name != header::CONTENT_TYPE && name != header::CONTENT_LENGTH {
            replacement.headers_mut().insert(name.clone(), value.clone());
        }
    }
    let (req, _) = res.into_parts();
    Ok(ErrorHandlerResponse::Response(ServiceResponse::new(req, replacement).map_into_right_body()))
}
