//! `POST /campaigns/{id}/respondents`.

use actix_web::http::StatusCode;
use actix_web::web::{Bytes, Data, Path};
use actix_web::{HttpRequest, HttpResponse};
use pulse_domain::Error;
use pulse_domain::campaigns::models::{AudienceRowInput, MAX_ROWS_PER_CALL};
use pulse_domain::quota::models::QuotaFamily;
use pulse_domain::tenancy::models::Scope;

use super::campaign_id;
use super::json::{AudienceRequest, AudienceResponse, to_value};
use crate::channel::{Admitted, admit};
use crate::error::{ApiError, ErrorBody};
use crate::request::{Reply, idempotent, no_store, parse_json, workspace_header};
use crate::state::{AppState, Platform};

/// Attach respondents by the partner's own reference. Every row is checked first: one bad row
/// refuses the call (naming `rows[i].field`) and nothing is stored.
#[utoipa::path(
    post, path = "/api/v1/channel/campaigns/{id}/respondents", operation_id = "attachRespondents", tag = "campaigns",
    security(("apiKey" = []), ("bearer" = [])),
    params(("id" = Uuid, Path), ("X-SVC-Workspace" = Option<Uuid>, Header), ("Idempotency-Key" = Option<String>, Header)),
    request_body = AudienceRequest,
    responses(
        (status = 200, description = "One outcome per input row, with its invitation link", body = AudienceResponse),
        (status = 400, description = "VALIDATION_FAILED naming `rows[i].field`, or more than 1000 rows; WORKSPACE_REQUIRED", body = ErrorBody),
        (status = 401, description = "UNAUTHENTICATED", body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSION (channel:audience) or NO_ORG", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: unknown campaign or another workspace's", body = ErrorBody),
        (status = 409, description = "CONFLICT: Idempotency-Key reused with another body or in flight", body = ErrorBody),
        (status = 413, description = "PAYLOAD_TOO_LARGE: over 1 MiB", body = ErrorBody),
        (status = 429, description = "RATE_LIMITED: hourly `audience` quota", body = ErrorBody),
    )
)]
pub async fn attach_respondents<P: Platform>(
    state: Data<AppState<P>>,
    req: HttpRequest,
    id: Path<String>,
    body: Bytes,
) -> Result<HttpResponse, ApiError> {
    let Admitted { principal, subject, rate } = admit(&state, &req, &[Scope::AUDIENCE], QuotaFamily::Audience).await?;
    let id = campaign_id(&id)?;
    let request: AudienceRequest = parse_json(&req, &body)?;
    // Refused before an `Idempotency-Key` is claimed for it; the domain holds the same cap.
    if request.rows.len() > MAX_ROWS_PER_CALL {
        return Err(ApiError(Error::validation("rows", format!("at most {MAX_ROWS_PER_CALL} rows per call"))));
    }
    let canonical = to_value(&request)?;
    let workspace = workspace_header(&req).map(str::to_owned);
    let rows: Vec<AudienceRowInput> = request.rows.into_iter().map(AudienceRowInput::from).collect();
    idempotent(&state, &req, &subject, &canonical, rate, || async {
        let attached = state.campaigns.attach_audience(&principal, workspace.as_deref(), id, rows).await?;
        let body = to_value(&AudienceResponse::from(attached))?;
        Ok(Reply { status: StatusCode::OK, replay_body: body.clone(), body })
    })
    .await
    // The invitation links are each respondent's credential: no cache keeps them.
    .map(no_store)
}
