//! The request and response bodies of the identity routes, and their conversions to and from
//! the domain.

use pulse_domain::tenancy::models::{Whoami, Workspace, WorkspaceInput, WorkspaceType};
use pulse_domain::tenancy::service::WorkspaceList;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa::ToSchema;
use uuid::Uuid;

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
    /// The IANA time zone quiet hours follow for a person whose own zone is not known; `null`
    /// is UTC.
    #[schema(example = "Europe/Paris")]
    pub time_zone: Option<String>,
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
            time_zone: w.details.time_zone.as_ref().map(|z| z.as_str().to_owned()),
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

impl From<WorkspaceList> for WorkspaceListBody {
    fn from(list: WorkspaceList) -> Self {
        let workspaces: Vec<WorkspaceSummary> = list.workspaces.iter().map(WorkspaceSummary::from).collect();
        Self { total: workspaces.len(), workspaces, default_workspace_id: list.default_workspace_id.map(|id| id.0) }
    }
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
    /// An IANA time zone name: quiet hours follow it for a person of this workspace whose own
    /// zone is not known (docs/outreach.md, "Quiet hours"). Unset is UTC. Part of the
    /// workspace's details: creating it again with another zone is `409`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(max_length = 64, example = "Europe/Paris")]
    pub time_zone: Option<String>,
}

impl From<CreateWorkspaceRequest> for WorkspaceInput {
    fn from(r: CreateWorkspaceRequest) -> Self {
        Self {
            external_ref: r.external_ref,
            name: r.name,
            kind: r.kind.map(WorkspaceType::from),
            team: r.team,
            location: r.location,
            time_zone: r.time_zone,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct CreateWorkspaceResponse {
    pub workspace: WorkspaceSummary,
    /// False when the workspace already existed (or on an idempotent replay).
    pub created: bool,
}
