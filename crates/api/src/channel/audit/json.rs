//! The query and page of the audit trail.

use pulse_domain::audit::models::{AuditActor, AuditEvent};
use pulse_domain::shared::paging::Page;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa::{IntoParams, ToSchema};

/// Read as text, so a bad value gets the error envelope naming it.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct AuditQuery {
    /// Entries from this time, included (RFC 3339).
    #[param(value_type = Option<String>, format = DateTime)]
    pub from: Option<String>,
    /// Entries before this time (RFC 3339).
    #[param(value_type = Option<String>, format = DateTime)]
    pub to: Option<String>,
    /// Only these actions, comma-separated (`export.requested,respondent.erased`).
    pub kind: Option<String>,
    /// 1 to 200; default 50.
    #[param(value_type = Option<u32>, minimum = 1, maximum = 200)]
    pub limit: Option<String>,
    /// `nextCursor` of the previous page.
    pub cursor: Option<String>,
}

/// Who acted.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AuditActorBody {
    /// `key` (a partner's API key) or `operator` (Pulse's operator, at the command line).
    #[schema(example = "key")]
    pub kind: &'static str,
    /// The key's public prefix; never the key.
    pub key_prefix: Option<String>,
    /// The network the call came from: its IPv4 /24 or IPv6 /48.
    #[schema(example = "203.0.113.0/24")]
    pub network: Option<String>,
}

/// One entry. It names things by id only: never a person's data or a secret.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AuditEventBody {
    pub id: uuid::Uuid,
    /// What was done, such as `export.requested` (docs/audit.md lists them).
    #[schema(example = "campaign.launched")]
    pub kind: &'static str,
    pub actor: AuditActorBody,
    /// The id of what was acted on (a campaign, export, endpoint, workspace, erasure or device),
    /// or a key's prefix.
    pub target_id: String,
    #[serde(with = "time::serde::rfc3339")]
    pub occurred_at: OffsetDateTime,
    /// True for an entry of the whole business (its keys), shown in each of its workspaces.
    pub business_wide: bool,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AuditEventPage {
    /// In the order they were written.
    pub items: Vec<AuditEventBody>,
    pub next_cursor: Option<String>,
}

impl From<Page<AuditEvent>> for AuditEventPage {
    fn from(page: Page<AuditEvent>) -> Self {
        Self {
            items: page
                .items
                .into_iter()
                .map(|event| {
                    let e = event.entry;
                    let actor = match e.actor {
                        AuditActor::Key { prefix, network } => {
                            AuditActorBody { kind: "key", key_prefix: Some(prefix), network }
                        }
                        AuditActor::Operator => AuditActorBody { kind: "operator", key_prefix: None, network: None },
                    };
                    AuditEventBody {
                        id: event.id,
                        kind: e.action.as_str(),
                        actor,
                        target_id: e.target,
                        occurred_at: e.at,
                        business_wide: matches!(e.scope, pulse_domain::audit::models::AuditScope::Business(_)),
                    }
                })
                .collect(),
            next_cursor: page.next_cursor,
        }
    }
}
