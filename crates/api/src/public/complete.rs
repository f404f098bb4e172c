//! `POST /{code}/sessions/{sessionId}/complete`.

use actix_web::http::StatusCode;
use actix_web::web::{Data, Path};
use actix_web::{HttpRequest, HttpResponse};
use pulse_domain::quota::models::QuotaFamily;

use super::json::CompletedBody;
use super::session_id;
use crate::error::{ApiError, ErrorBody};
use crate::request::{bearer_token, json_response};
use crate::state::{AppState, Platform};

/// Complete the session; calling again answers the same. A completed session is immutable.
#[utoipa::path(
    post, path = "/api/v1/public/pulse/{code}/sessions/{sessionId}/complete",
    operation_id = "completeSession", tag = "public",
    security(("session" = [])),
    params(("code" = String, Path), ("sessionId" = uuid::Uuid, Path)),
    responses(
        (status = 200, body = CompletedBody),
        (status = 401, description = "UNAUTHENTICATED: missing or wrong session token", body = ErrorBody),
        (status = 404, description = "NOT_FOUND", body = ErrorBody),
        (status = 429, description = "RATE_LIMITED: `session_write`", body = ErrorBody),
    )
)]
pub async fn complete<P: Platform>(
    state: Data<AppState<P>>,
    req: HttpRequest,
    path: Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (code, session) = path.into_inner();
    let session = session_id(&session)?;
    let rate = state.quotas.hit(&format!("session:{session}"), QuotaFamily::SessionWrite).await?;
    let progress = state.respondents.complete(&code, session, bearer_token(&req)?).await?;
    Ok(json_response(StatusCode::OK, &CompletedBody::from(progress), rate))
}
