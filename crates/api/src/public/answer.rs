//! `POST /{code}/sessions/{sessionId}/answers`.

use actix_web::http::StatusCode;
use actix_web::web::{Bytes, Data, Path};
use actix_web::{HttpRequest, HttpResponse};
use pulse_domain::quota::models::QuotaFamily;
use pulse_domain::sessions::models::AnswerInput;

use super::json::{AnswersRequest, ProgressBody};
use super::session_id;
use crate::error::{ApiError, ErrorBody};
use crate::request::{bearer_token, json_response, parse_json};
use crate::state::{AppState, Platform};

/// Record answers; answering a question again replaces its answer.
#[utoipa::path(
    post, path = "/api/v1/public/pulse/{code}/sessions/{sessionId}/answers",
    operation_id = "answerQuestions", tag = "public",
    security(("session" = [])),
    params(("code" = String, Path), ("sessionId" = uuid::Uuid, Path)),
    request_body = AnswersRequest,
    responses(
        (status = 200, body = ProgressBody),
        (status = 400, description = "VALIDATION_FAILED naming `answers[i]`", body = ErrorBody),
        (status = 401, description = "UNAUTHENTICATED: missing or wrong session token", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: unknown code, or a session of another campaign", body = ErrorBody),
        (status = 409, description = "CONFLICT: the session is completed", body = ErrorBody),
        (status = 429, description = "RATE_LIMITED: `session_write`", body = ErrorBody),
    )
)]
pub async fn answer<P: Platform>(
    state: Data<AppState<P>>,
    req: HttpRequest,
    path: Path<(String, String)>,
    body: Bytes,
) -> Result<HttpResponse, ApiError> {
    let (code, session) = path.into_inner();
    let session = session_id(&session)?;
    let rate = state.quotas.hit(&format!("session:{session}"), QuotaFamily::SessionWrite).await?;
    let request: AnswersRequest = parse_json(&req, &body)?;
    let answers = request.answers.into_iter().map(AnswerInput::from).collect();
    let progress = state.respondents.answer(&code, session, bearer_token(&req)?, answers).await?;
    Ok(json_response(StatusCode::OK, &ProgressBody::from(progress), rate))
}
