//! Audit entries: an actor, an action on a target, when, and the network it came from.

use std::net::IpAddr;

use time::{Duration, OffsetDateTime};

use crate::ids::{BusinessId, WorkspaceId};
use crate::tenancy::models::Principal;

/// What was done. Partners filter the trail by these names (`kind`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AuditAction {
    CampaignLaunched,
    CampaignPaused,
    CampaignResumed,
    CampaignClosed,
    AudienceAttached,
    ExportRequested,
    ExportDownloaded,
    RespondentErased,
    AppUserErased,
    DeviceErased,
    WebhookCreated,
    WebhookUpdated,
    WebhookSecretRotated,
    WebhookDeleted,
    WebhookRedelivered,
    WorkspaceApproved,
    KeyCreated,
    KeyRevoked,
}

impl AuditAction {
    pub const ALL: [AuditAction; 18] = [
        AuditAction::CampaignLaunched,
        AuditAction::CampaignPaused,
        AuditAction::CampaignResumed,
        AuditAction::CampaignClosed,
        AuditAction::AudienceAttached,
        AuditAction::ExportRequested,
        AuditAction::ExportDownloaded,
        AuditAction::RespondentErased,
        AuditAction::AppUserErased,
        AuditAction::DeviceErased,
        AuditAction::WebhookCreated,
        AuditAction::WebhookUpdated,
        AuditAction::WebhookSecretRotated,
        AuditAction::WebhookDeleted,
        AuditAction::WebhookRedelivered,
        AuditAction::WorkspaceApproved,
        AuditAction::KeyCreated,
        AuditAction::KeyRevoked,
    ];

    pub const fn as_str(self) -> &'static str {
        match self {
            AuditAction::CampaignLaunched => "campaign.launched",
            AuditAction::CampaignPaused => "campaign.paused",
            AuditAction::CampaignResumed => "campaign.resumed",
            AuditAction::CampaignClosed => "campaign.closed",
            AuditAction::AudienceAttached => "audience.attached",
            AuditAction::ExportRequested => "export.requested",
            AuditAction::ExportDownloaded => "export.downloaded",
            AuditAction::RespondentErased => "respondent.erased",
            AuditAction::AppUserErased => "app_user.erased",
            AuditAction::DeviceErased => "device.erased",
            AuditAction::WebhookCreated => "webhook.created",
            AuditAction::WebhookUpdated => "webhook.updated",
            AuditAction::WebhookSecretRotated => "webhook.secret_rotated",
            AuditAction::WebhookDeleted => "webhook.deleted",
            AuditAction::WebhookRedelivered => "webhook.redelivered",
            AuditAction::WorkspaceApproved => "workspace.approved",
            AuditAction::KeyCreated => "key.created",
            AuditAction::KeyRevoked => "key.revoked",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|a| a.as_str() == text)
    }
}

/// Who did it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AuditActor {
    /// A partner's API key, by its public prefix, from a network truncated to /24 or /48.
    Key { prefix: String, network: Option<String> },
    /// The operator, at the `pulse admin` command line.
    Operator,
}

/// Whose trail an entry is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AuditScope {
    Workspace(WorkspaceId),
    /// Every workspace of the business (its keys, say).
    Business(BusinessId),
}

/// An entry to write, in the same transaction as what it records. It names things by id only:
/// never a person's data or a secret.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AuditEntry {
    pub scope: AuditScope,
    pub actor: AuditActor,
    pub action: AuditAction,
    /// The id (or key prefix) of what was acted on.
    pub target: String,
    pub at: OffsetDateTime,
}

impl AuditEntry {
    /// An entry of the workspace `workspace`, by the key of `principal`.
    pub fn by_key(
        principal: &Principal,
        workspace: WorkspaceId,
        action: AuditAction,
        target: impl ToString,
        at: OffsetDateTime,
    ) -> Self {
        Self {
            scope: AuditScope::Workspace(workspace),
            actor: AuditActor::Key { prefix: principal.key_prefix.clone(), network: principal.network.clone() },
            action,
            target: target.to_string(),
            at,
        }
    }

    /// An entry of `scope` by the operator.
    pub fn by_operator(scope: AuditScope, action: AuditAction, target: impl ToString, at: OffsetDateTime) -> Self {
        Self { scope, actor: AuditActor::Operator, action, target: target.to_string(), at }
    }
}

/// An entry as read back, with its place in the trail.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AuditEvent {
    pub id: uuid::Uuid,
    pub position: i64,
    pub entry: AuditEntry,
}

/// What a reader asks of the trail.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AuditQuery {
    /// From this time, included.
    pub from: Option<OffsetDateTime>,
    /// Up to this time, excluded.
    pub to: Option<OffsetDateTime>,
    /// Only these actions; every action when empty.
    pub kinds: Vec<AuditAction>,
}

/// How long entries are kept unless the operator says otherwise.
pub const DEFAULT_RETENTION: Duration = Duration::days(365);

/// The network an address belongs to, as the trail keeps it: IPv4 to its /24, IPv6 to its /48,
/// so an entry says where a call came from without naming the machine.
pub fn truncated_network(address: IpAddr) -> String {
    match address {
        IpAddr::V4(v4) => {
            let [a, b, c, _] = v4.octets();
            format!("{a}.{b}.{c}.0/24")
        }
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => truncated_network(IpAddr::V4(v4)),
            None => {
                let s = v6.segments();
                format!("{:x}:{:x}:{:x}::/48", s[0], s[1], s[2])
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn networks_are_kept_to_their_24_or_48() {
        assert_eq!(truncated_network("203.0.113.77".parse().expect("ip")), "203.0.113.0/24");
        assert_eq!(truncated_network("2001:db8:1:2:3::9".parse().expect("ip")), "2001:db8:1::/48");
        assert_eq!(truncated_network("::ffff:198.51.100.9".parse().expect("ip")), "198.51.100.0/24");
    }

    #[test]
    fn every_action_reads_back_by_its_name() {
        for action in AuditAction::ALL {
            assert_eq!(AuditAction::parse(action.as_str()), Some(action));
        }
        assert_eq!(AuditAction::parse("campaign.deleted"), None);
    }
}
