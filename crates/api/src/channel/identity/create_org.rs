//! `POST /orgs`.

use actix_web::http::StatusCode;
use actix_web::web::{Bytes, Data};
use actix_web::{HttpRequest, HttpResponse};
use pulse_domain::Error;
use pulse_domain::quota::models::QuotaFamily;
use pulse_domain::tenancy::models::{Scope, WorkspaceInput};

use super::json::{CreateWorkspaceRequest, CreateWorkspaceResponse, WorkspaceSummary};
use crate::channel::{Admitted, admit};
use crate::error::{ApiError, ErrorBody};
use crate::request::{Reply, idempotent, parse_json};
use crate::state::{AppState, Platform};

/// Create a workspace for one of the partner's clients, keyed by the partner's own reference.
///
/// The calling key reaches the new workspace at once; no other key changes. Sending the same
/// `externalRef` with the same details again answers 200 with `created: false`.
#[utoipa::path(
    post, path = "/api/v1/channel/orgs", operation_id = "createOrg", tag = "identity",
    security(("apiKey" = []), ("bearer" = [])),
    params(("Idempotency-Key" = Option<String>, Header, description = "Makes the POST replay-safe for 24 hours (max 255 chars)")),
    request_body = CreateWorkspaceRequest,
    responses(
        (status = 201, description = "Created", body = CreateWorkspaceResponse),
        (status = 200, description = "Already existed with the same details, or an idempotent replay (`Idempotency-Replayed: true`); `created` is false", body = CreateWorkspaceResponse),
        (status = 400, description = "VALIDATION_FAILED: the description names the field", body = ErrorBody),
        (status = 401, description = "UNAUTHENTICATED", body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSION (channel:workspaces) or NO_ORG", body = ErrorBody),
        (status = 409, description = "REF_CONFLICT: the ref exists with different details; CONFLICT: Idempotency-Key reused with another body or still in flight", body = ErrorBody),
        (status = 413, description = "PAYLOAD_TOO_LARGE", body = ErrorBody),
        (status = 415, description = "UNSUPPORTED_MEDIA_TYPE", body = ErrorBody),
        (status = 429, description = "RATE_LIMITED: hourly `workspace_create` quota, or the business's workspace limit", body = ErrorBody),
    )
)]
pub async fn create_org<P: Platform>(
    state: Data<AppState<P>>,
    req: HttpRequest,
    body: Bytes,
) -> Result<HttpResponse, ApiError> {
    let Admitted { principal, subject, rate } =
        admit(&state, &req, &[Scope::WORKSPACES], QuotaFamily::WorkspaceCreate).await?;
    let request: CreateWorkspaceRequest = parse_json(&req, &body)?;
    let canonical = serde_json::to_value(&request).map_err(|e| ApiError(Error::internal(e)))?;
    let input = WorkspaceInput::from(request);
    idempotent(&state, &req, &subject, &canonical, rate, || async {
        let (workspace, created) = state.tenancy.create_workspace(&principal, &input).await?;
        let summary = serde_json::to_value(WorkspaceSummary::from(&workspace)).map_err(Error::internal)?;
        Ok(Reply {
            status: if created { StatusCode::CREATED } else { StatusCode::OK },
            body: serde_json::json!({ "workspace": summary, "created": created }),
            replay_body: serde_json::json!({ "workspace": summary, "created": false }),
        })
    })
    .await
}
