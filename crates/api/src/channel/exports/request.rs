//! `POST CH/campaigns/{id}/exports`.

use actix_web::http::StatusCode;
use actix_web::web::{Bytes, Data, Path};
use actix_web::{HttpRequest, HttpResponse};
use pulse_domain::Error;
use pulse_domain::exports::models::ExportRequest;
use pulse_domain::quota::models::QuotaFamily;
use pulse_domain::tenancy::models::Scope;

use super::json::{ExportBody, ExportRequestBody};
use crate::channel::campaigns::campaign_id;
use crate::channel::{Admitted, admit};
use crate::error::{ApiError, ErrorBody};
use crate::request::{Reply, idempotent, parse_json, workspace_header};
use crate::state::{AppState, Platform};

/// Queue an export of a campaign's aggregate results; poll `GET /exports/{id}` until it is `READY`.
#[utoipa::path(
    post, path = "/api/v1/channel/campaigns/{id}/exports", operation_id = "requestExport", tag = "exports",
    security(("apiKey" = []), ("bearer" = [])),
    params(
        ("id" = Uuid, Path),
        ("X-SVC-Workspace" = Option<Uuid>, Header, description = "Required when the key reaches more than one workspace"),
        ("Idempotency-Key" = Option<String>, Header, description = "Makes the POST replay-safe for 24 hours"),
    ),
    request_body = ExportRequestBody,
    responses(
        (status = 202, description = "Queued", body = ExportBody),
        (status = 200, description = "Idempotent replay (`Idempotency-Replayed: true`): the record as it was queued", body = ExportBody),
        (status = 400, description = "VALIDATION_FAILED naming the field (an unknown format or property, or transcripts asked for a PDF); WORKSPACE_REQUIRED", body = ErrorBody),
        (status = 401, description = "UNAUTHENTICATED", body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSION (channel:export; channel:transcripts for `includeTranscripts`) or NO_ORG", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: unknown campaign or another workspace's", body = ErrorBody),
        (status = 409, description = "CONFLICT: Idempotency-Key reused with another body or in flight", body = ErrorBody),
        (status = 415, description = "UNSUPPORTED_MEDIA_TYPE: the body is not JSON", body = ErrorBody),
        (status = 429, description = "RATE_LIMITED: hourly `export` quota", body = ErrorBody),
        (status = 503, description = "EXPORT_UNAVAILABLE: no export worker is running, or this format cannot be rendered now", body = ErrorBody),
    )
)]
pub async fn request_export<P: Platform>(
    state: Data<AppState<P>>,
    req: HttpRequest,
    id: Path<String>,
    body: Bytes,
) -> Result<HttpResponse, ApiError> {
    let Admitted { principal, subject, rate } = admit(&state, &req, &[Scope::EXPORT], QuotaFamily::Export).await?;
    let campaign = campaign_id(&id)?;
    let request: ExportRequestBody = parse_json(&req, &body)?;
    let canonical = serde_json::to_value(&request).map_err(Error::internal)?;
    let request = ExportRequest::try_from(request)?;
    let workspace = workspace_header(&req).map(str::to_owned);
    idempotent(&state, &req, &subject, &canonical, rate, || async {
        let record = state.exports.request(&principal, workspace.as_deref(), campaign, request).await?;
        let body = serde_json::to_value(ExportBody::new(record, None)).map_err(Error::internal)?;
        Ok(Reply { status: StatusCode::ACCEPTED, body: body.clone(), replay_body: body })
    })
    .await
}
