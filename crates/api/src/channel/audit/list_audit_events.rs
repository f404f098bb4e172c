//! `GET CH/audit-events`.

use actix_web::http::StatusCode;
use actix_web::web::{Data, Query};
use actix_web::{HttpRequest, HttpResponse};
use pulse_domain::audit::service::AuditRead;
use pulse_domain::quota::models::QuotaFamily;
use pulse_domain::tenancy::models::Scope;

use super::json::{AuditEventPage, AuditQuery};
use crate::channel::{Admitted, admit};
use crate::error::{ApiError, ErrorBody};
use crate::request::{json_response, workspace_header};
use crate::state::{AppState, Platform};

/// The workspace's audit trail, in the order written: exports requested and downloaded, erasures,
/// webhook endpoints created, changed, rotated, deleted and redelivered, campaigns launched,
/// paused, resumed and closed, audiences attached, and the operator's approvals and keys.
/// Entries cannot be changed.
#[utoipa::path(
    get, path = "/api/v1/channel/audit-events", operation_id = "listAuditEvents", tag = "audit",
    security(("apiKey" = []), ("bearer" = [])),
    params(("X-SVC-Workspace" = Option<uuid::Uuid>, Header), AuditQuery),
    responses(
        (status = 200, body = AuditEventPage),
        (status = 400, description = "VALIDATION_FAILED: bad `from`, `to`, `kind`, `limit` or `cursor`; WORKSPACE_REQUIRED", body = ErrorBody),
        (status = 401, description = "UNAUTHENTICATED", body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSION (channel:audit) or NO_ORG", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: a workspace the key does not reach", body = ErrorBody),
        (status = 429, description = "RATE_LIMITED: `audit_read`", body = ErrorBody),
    )
)]
pub async fn list_audit_events<P: Platform>(
    state: Data<AppState<P>>,
    req: HttpRequest,
    query: Query<AuditQuery>,
) -> Result<HttpResponse, ApiError> {
    let Admitted { principal, rate, .. } = admit(&state, &req, &[Scope::AUDIT], QuotaFamily::AuditRead).await?;
    let read = AuditRead {
        from: query.from.as_deref(),
        to: query.to.as_deref(),
        kind: query.kind.as_deref(),
        limit: query.limit.as_deref(),
        cursor: query.cursor.as_deref(),
    };
    let page = state.audit.events(&principal, workspace_header(&req), read).await?;
    Ok(json_response(StatusCode::OK, &AuditEventPage::from(page), rate))
}
