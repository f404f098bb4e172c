//! `GET CH/exports/{id}`.

use actix_web::http::StatusCode;
use actix_web::web::{Data, Path};
use actix_web::{HttpRequest, HttpResponse};
use pulse_domain::quota::models::QuotaFamily;
use pulse_domain::tenancy::models::Scope;

use super::export_id;
use super::json::ExportBody;
use crate::channel::{Admitted, admit};
use crate::error::{ApiError, ErrorBody};
use crate::request::{json_response, no_store, workspace_header};
use crate::state::{AppState, Platform};

/// An export's status; a `READY` one carries a download link minted for this read.
#[utoipa::path(
    get, path = "/api/v1/channel/exports/{id}", operation_id = "getExport", tag = "exports",
    security(("apiKey" = []), ("bearer" = [])),
    params(("id" = Uuid, Path), ("X-SVC-Workspace" = Option<Uuid>, Header)),
    responses(
        (status = 200, description = "The export (`Cache-Control: no-store`: a READY one carries a link)", body = ExportBody),
        (status = 400, description = "WORKSPACE_REQUIRED", body = ErrorBody),
        (status = 401, description = "UNAUTHENTICATED", body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSION (channel:export) or NO_ORG", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: unknown export or another workspace's", body = ErrorBody),
        (status = 429, description = "RATE_LIMITED: hourly `export` quota", body = ErrorBody),
    )
)]
pub async fn get_export<P: Platform>(
    state: Data<AppState<P>>,
    req: HttpRequest,
    id: Path<String>,
) -> Result<HttpResponse, ApiError> {
    let Admitted { principal, rate, .. } = admit(&state, &req, &[Scope::EXPORT], QuotaFamily::Export).await?;
    let id = export_id(&id)?;
    let (record, link) = state.exports.get(&principal, workspace_header(&req), id).await?;
    Ok(no_store(json_response(StatusCode::OK, &ExportBody::new(record, link), rate)))
}
