//! `GET /whoami`, `GET /orgs`, `POST /orgs`.

use actix_web::http::StatusCode;
use actix_web::web::{Bytes, Data};
use actix_web::{HttpRequest, HttpResponse};
use pulse_domain::Error;
use pulse_domain::quota::models::QuotaFamily;
use pulse_domain::tenancy::models::{Scope, Whoami, Workspace, WorkspaceInput, WorkspaceType};
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa::ToSchema;
use uuid::Uuid;

use super::{Admitted, admit, authenticate, key_subject};
use crate::error::{ApiError, ErrorBody};
use crate::request::{Reply, idempotent, json_response, parse_json};
use crate::state::{AppState, Platform};

/// The key that made the call.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WhoamiBody {
    pub service_account_id: Uuid,
    /// The business the key belongs to; null for a key without one.
    pub account_id: Option<Uuid>,
    pub scopes: Vec<String>,
    /// The public part of the key, safe to log and show.
    pub key_prefix: String,
    /// The workspaces this key reaches.
    pub workspace_allowlist: Vec<Uuid>,
    /// The workspace calls act in without `X-SVC-Workspace`: set when the key reaches exactly one.
    pub default_workspace_id: Option<Uuid>,
    /// Deprecated: the same as `defaultWorkspaceId`.
    #[schema(deprecated)]
    pub org_id: Option<Uuid>,
}

impl From<Whoami> for WhoamiBody {
    fn from(w: Whoami) -> Self {
        let default = w.default_workspace_id.map(|id| id.0);
        Self {
            service_account_id: w.service_account_id.0,
            account_id: w.account_id.map(|b| b.0),
            scopes: w.scopes.iter().map(|s| s.as_str().to_owned()).collect(),
            key_prefix: w.key_prefix,
            workspace_allowlist: w.workspace_allowlist.iter().map(|id| id.0).collect(),
            default_workspace_id: default,
            org_id: default,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WorkspaceSummary {
    pub id: Uuid,
    pub name: String,
    pub slug: String,
    /// `PENDING_APPROVAL` on creation, `ACTIVE` once approved, or `SUSPENDED`.
    #[schema(example = "PENDING_APPROVAL")]
    pub status: String,
    /// The partner's own id of the workspace.
    pub external_ref: Option<String>,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
}

impl From<&Workspace> for WorkspaceSummary {
    fn from(w: &Workspace) -> Self {
        Self {
            id: w.id.0,
            name: w.details.name.clone(),
            slug: w.slug.clone(),
            status: w.status.as_str().to_owned(),
            external_ref: Some(w.details.external_ref.clone()),
            created_at: w.created_at,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WorkspaceListBody {
    pub workspaces: Vec<WorkspaceSummary>,
    pub total: usize,
    pub default_workspace_id: Option<Uuid>,
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum WorkspaceTypeDto {
    Individual,
    Company,
    Partnership,
    Government,
    Educational,
    Other,
}

impl From<WorkspaceTypeDto> for WorkspaceType {
    fn from(t: WorkspaceTypeDto) -> Self {
        match t {
            WorkspaceTypeDto::Individual => WorkspaceType::Individual,
            WorkspaceTypeDto::Company => WorkspaceType::Company,
            WorkspaceTypeDto::Partnership => WorkspaceType::Partnership,
            WorkspaceTypeDto::Government => WorkspaceType::Government,
            WorkspaceTypeDto::Educational => WorkspaceType::Educational,
            WorkspaceTypeDto::Other => WorkspaceType::Other,
        }
    }
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CreateWorkspaceRequest {
    /// The partner's own id for the client; the same ref always means the same workspace.
    #[schema(min_length = 1, max_length = 200)]
    pub external_ref: String,
    #[schema(min_length = 1, max_length = 120)]
    pub name: String,
    /// Defaults to COMPANY.
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<WorkspaceTypeDto>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(max_length = 120)]
    pub team: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(max_length = 120)]
    pub location: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct CreateWorkspaceResponse {
    pub workspace: WorkspaceSummary,
    /// False when the workspace already existed (or on an idempotent replay).
    pub created: bool,
}

/// Who am I: the calling key, its business, scopes and workspaces.
#[utoipa::path(
    get, path = "/api/v1/channel/whoami", tag = "identity",
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

/// The workspaces this key reaches.
#[utoipa::path(
    get, path = "/api/v1/channel/orgs", tag = "identity",
    security(("apiKey" = []), ("bearer" = [])),
    responses(
        (status = 200, description = "Workspaces the key reaches, oldest first", body = WorkspaceListBody),
        (status = 401, description = "UNAUTHENTICATED", body = ErrorBody),
        (status = 403, description = "NO_ORG: the key has no business", body = ErrorBody),
        (status = 429, description = "RATE_LIMITED: hourly `workspace_read` quota used up", body = ErrorBody),
    )
)]
pub async fn list_orgs<P: Platform>(state: Data<AppState<P>>, req: HttpRequest) -> Result<HttpResponse, ApiError> {
    let principal = authenticate(&state, &req).await?;
    principal.require_business()?;
    let rate = state.quotas.hit(&key_subject(&principal), QuotaFamily::WorkspaceRead).await?;
    let list = state.tenancy.list_workspaces(&principal).await?;
    let workspaces: Vec<WorkspaceSummary> = list.workspaces.iter().map(WorkspaceSummary::from).collect();
    let body = WorkspaceListBody {
        total: workspaces.len(),
        workspaces,
        default_workspace_id: list.default_workspace_id.map(|id| id.0),
    };
    Ok(json_response(StatusCode::OK, &body, rate))
}

/// Create a workspace for one of the partner's clients, keyed by the partner's own reference.
///
/// The calling key reaches the new workspace at once; no other key changes. Sending the same
/// `externalRef` with the same details again answers 200 with `created: false`.
#[utoipa::path(
    post, path = "/api/v1/channel/orgs", tag = "identity",
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
    let input = WorkspaceInput {
        external_ref: request.external_ref,
        name: request.name,
        kind: request.kind.map(WorkspaceType::from),
        team: request.team,
        location: request.location,
    };
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
