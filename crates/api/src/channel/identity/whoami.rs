//! `GET /whoami`.

use actix_web::http::StatusCode;
use actix_web::web::Data;
use actix_web::{HttpRequest, HttpResponse};
use pulse_domain::quota::models::QuotaFamily;
use pulse_domain::tenancy::models::Whoami;

use super::json::WhoamiBody;
use crate::channel::{authenticate, key_subject};
use crate::error::{ApiError, ErrorBody};
use crate::request::json_response;
use crate::state::{AppState, Platform};

/// Who am I: the calling key, its business, scopes and workspaces.
#[utoipa::path(
    get, path = "/api/v1/channel/whoami", operation_id = "whoami", tag = "identity",
    security(("apiKey" = []), ("bearer" = [])),
    responses(
        (status = 200, description = "The calling key", body = WhoamiBody),
        (status = 401, description = "UNAUTHENTICATED: no key, or key invalid, revoked or expired", body = ErrorBody),
        (status = 429, description = "RATE_LIMITED: hourly `identity` quota used up", body = ErrorBody),
    )
)]
pub async fn whoami<P: Platform>(state: Data<AppState<P>>, req: HttpRequest) -> Result<HttpResponse, ApiError> {
    let principal = authenticate(&state, &req).await?;
    let rate = state.quotas.hit(&key_subject(&principal), QuotaFamily::Identity).await?;
    Ok(json_response(StatusCode::OK, &WhoamiBody::from(Whoami::from(&principal)), rate))
}
