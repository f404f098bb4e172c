//! Businesses, service accounts, API keys, principals and workspaces.

mod api_key;
mod key_cache;

pub use api_key::*;
pub use key_cache::*;

use crate::error::{Error, ErrorCode, Result};
use crate::ids::{ApiKeyId, BusinessId, EventId, ServiceAccountId, WorkspaceId};
use crate::shared::time_zone::TimeZoneName;
use crate::webhooks::models::{EventType, NewEvent};
use std::fmt;
use time::OffsetDateTime;

/// A permission carried by an API key, such as `channel:workspaces`. The contract's list is
/// open-ended, so a stored key may carry a scope this version does not know (it grants nothing);
/// new keys carry known scopes only ([`Scope::known`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Scope(String);

impl Scope {
    pub const RESULTS: &'static str = "channel:results";
    pub const WEBHOOKS: &'static str = "channel:webhooks";
    pub const LAUNCH: &'static str = "sessions:launch";
    pub const WORKSPACES: &'static str = "channel:workspaces";
    pub const AUDIENCE: &'static str = "channel:audience";
    pub const PROVISION: &'static str = "channel:provision";
    pub const EXPORT: &'static str = "channel:export";
    pub const TRANSCRIPTS: &'static str = "channel:transcripts";
    pub const AUDIT: &'static str = "channel:audit";

    /// Every scope some route of this version checks, in alphabetical order.
    pub const KNOWN: [&'static str; 9] = [
        Self::AUDIENCE,
        Self::AUDIT,
        Self::EXPORT,
        Self::PROVISION,
        Self::RESULTS,
        Self::TRANSCRIPTS,
        Self::WEBHOOKS,
        Self::WORKSPACES,
        Self::LAUNCH,
    ];

    /// A scope a new key may carry: one of [`Scope::KNOWN`]. A misspelt scope is refused here
    /// rather than issued on a key that fails later with `403`.
    ///
    /// # Errors
    /// `ValidationFailed` naming the scope and listing the known ones.
    pub fn known(text: &str) -> Result<Self> {
        if Self::KNOWN.contains(&text) {
            Ok(Self(text.to_owned()))
        } else {
            Err(Error::validation(
                "scopes",
                format!("`{text}` is not a known scope; known scopes: {}", Self::KNOWN.join(", ")),
            ))
        }
    }

    /// A scope is `<family>:<name>` in lower case, letters, digits and `_` only, at most 64 chars.
    ///
    /// # Errors
    /// `ValidationFailed` for any other shape.
    pub fn parse(text: &str) -> Result<Self> {
        let well_formed = text.len() <= 64
            && text.split_once(':').is_some_and(|(family, name)| {
                let part_ok = |p: &str| {
                    !p.is_empty() && p.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
                };
                part_ok(family) && part_ok(name)
            });
        if well_formed {
            Ok(Self(text.to_owned()))
        } else {
            Err(Error::validation("scopes", format!("`{text}` is not a scope of the form family:name")))
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Business {
    pub id: BusinessId,
    pub name: String,
    pub created_at: OffsetDateTime,
}

/// A key as stored: only the keyed digest of the whole key text, never the key itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApiKeyRecord {
    pub id: ApiKeyId,
    pub prefix: String,
    pub digest: Vec<u8>,
    pub service_account_id: ServiceAccountId,
    pub business_id: Option<BusinessId>,
    pub scopes: Vec<Scope>,
    pub workspace_allowlist: Vec<WorkspaceId>,
    pub expires_at: Option<OffsetDateTime>,
    pub revoked_at: Option<OffsetDateTime>,
    pub created_at: OffsetDateTime,
}

/// A key to store, with the service account created for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewApiKey {
    pub record: ApiKeyRecord,
    pub service_account_name: String,
}

/// An authenticated caller: the key that was presented, as it stood when the request arrived.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Principal {
    pub key_id: ApiKeyId,
    pub key_prefix: String,
    pub service_account_id: ServiceAccountId,
    pub business_id: Option<BusinessId>,
    pub scopes: Vec<Scope>,
    pub workspace_allowlist: Vec<WorkspaceId>,
    /// The network the call came from, truncated as the audit trail keeps it; `None` outside a
    /// request.
    pub network: Option<String>,
}

impl Principal {
    /// # Errors
    /// `InsufficientPermission` naming the scope when the key does not carry it.
    pub fn require_scope(&self, scope: &str) -> Result<()> {
        if self.scopes.iter().any(|s| s.as_str() == scope) {
            Ok(())
        } else {
            Err(Error::refused(ErrorCode::InsufficientPermission, format!("this API key lacks the scope `{scope}`")))
        }
    }

    /// # Errors
    /// `InsufficientPermission` naming every scope when the key carries none of them.
    pub fn require_any_scope(&self, scopes: &[&str]) -> Result<()> {
        if scopes.iter().any(|scope| self.scopes.iter().any(|s| s.as_str() == *scope)) {
            return Ok(());
        }
        let named: Vec<String> = scopes.iter().map(|s| format!("`{s}`")).collect();
        Err(Error::refused(
            ErrorCode::InsufficientPermission,
            format!("this API key lacks the scope {}", named.join(" or ")),
        ))
    }

    /// # Errors
    /// `NoOrg` when the key belongs to no business.
    pub fn require_business(&self) -> Result<BusinessId> {
        self.business_id.ok_or_else(|| {
            Error::refused(ErrorCode::NoOrg, "this API key belongs to no business, so it reaches no workspace")
        })
    }

    /// The workspace the key acts in by default: the only one it reaches, if it reaches exactly one.
    pub fn default_workspace(&self) -> Option<WorkspaceId> {
        match self.workspace_allowlist.as_slice() {
            [only] => Some(*only),
            _ => None,
        }
    }

    /// The workspace a workspace-scoped call acts in, from the `X-SVC-Workspace` header.
    ///
    /// # Errors
    /// `NoOrg` for a key without a business; `ValidationFailed` for a header that is not a uuid;
    /// `NotFound` for a workspace the key does not reach (unknown and foreign alike);
    /// `WorkspaceRequired` when no header was sent and the key reaches several workspaces or none.
    pub fn resolve_workspace(&self, header: Option<&str>) -> Result<WorkspaceId> {
        self.require_business()?;
        match header {
            Some(text) => {
                let id: WorkspaceId = text
                    .trim()
                    .parse()
                    .map_err(|_| Error::validation("X-SVC-Workspace", "must be a workspace id (uuid)"))?;
                if self.workspace_allowlist.contains(&id) { Ok(id) } else { Err(Error::not_found("workspace")) }
            }
            None => self.default_workspace().ok_or_else(|| {
                Error::refused(
                    ErrorCode::WorkspaceRequired,
                    if self.workspace_allowlist.is_empty() {
                        "this API key reaches no workspace: POST /orgs with a new externalRef creates one it \
                         reaches, or an operator can issue a key for an existing workspace (--workspace)"
                    } else {
                        "this API key reaches several workspaces; name one in the X-SVC-Workspace header"
                    },
                )
            }),
        }
    }
}

/// What a partner sees of its own key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Whoami {
    pub service_account_id: ServiceAccountId,
    pub account_id: Option<BusinessId>,
    pub scopes: Vec<Scope>,
    pub key_prefix: String,
    pub workspace_allowlist: Vec<WorkspaceId>,
    pub default_workspace_id: Option<WorkspaceId>,
}

impl From<&Principal> for Whoami {
    fn from(p: &Principal) -> Self {
        Self {
            service_account_id: p.service_account_id,
            account_id: p.business_id,
            scopes: p.scopes.clone(),
            key_prefix: p.key_prefix.clone(),
            workspace_allowlist: p.workspace_allowlist.clone(),
            default_workspace_id: p.default_workspace(),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WorkspaceStatus {
    PendingApproval,
    Active,
    Suspended,
}

impl WorkspaceStatus {
    pub const fn as_str(self) -> &'static str {
        match self {
            WorkspaceStatus::PendingApproval => "PENDING_APPROVAL",
            WorkspaceStatus::Active => "ACTIVE",
            WorkspaceStatus::Suspended => "SUSPENDED",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        [WorkspaceStatus::PendingApproval, WorkspaceStatus::Active, WorkspaceStatus::Suspended]
            .into_iter()
            .find(|s| s.as_str() == text)
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum WorkspaceType {
    Individual,
    #[default]
    Company,
    Partnership,
    Government,
    Educational,
    Other,
}

impl WorkspaceType {
    pub const ALL: [WorkspaceType; 6] = [
        WorkspaceType::Individual,
        WorkspaceType::Company,
        WorkspaceType::Partnership,
        WorkspaceType::Government,
        WorkspaceType::Educational,
        WorkspaceType::Other,
    ];

    pub const fn as_str(self) -> &'static str {
        match self {
            WorkspaceType::Individual => "INDIVIDUAL",
            WorkspaceType::Company => "COMPANY",
            WorkspaceType::Partnership => "PARTNERSHIP",
            WorkspaceType::Government => "GOVERNMENT",
            WorkspaceType::Educational => "EDUCATIONAL",
            WorkspaceType::Other => "OTHER",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.as_str() == text)
    }
}

/// Text of 1 to `MAX` characters (Unicode scalar values), without control characters.
fn bounded_text(field: &str, text: &str, min: usize, max: usize) -> Result<String> {
    let count = text.chars().count();
    if count < min || count > max {
        return Err(Error::validation(field, format!("must be {min} to {max} characters long")));
    }
    if text.chars().any(char::is_control) {
        return Err(Error::validation(field, "must not contain control characters"));
    }
    Ok(text.to_owned())
}

/// A workspace as a partner asked for it, before validation.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WorkspaceInput {
    pub external_ref: String,
    pub name: String,
    pub kind: Option<WorkspaceType>,
    pub team: Option<String>,
    pub location: Option<String>,
    pub time_zone: Option<String>,
}

/// The validated details of a workspace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorkspaceDetails {
    pub external_ref: String,
    pub name: String,
    pub kind: WorkspaceType,
    pub team: Option<String>,
    pub location: Option<String>,
    /// Where the client's people mostly are: quiet hours follow it for a person whose own zone
    /// is not known; `None` is UTC.
    pub time_zone: Option<TimeZoneName>,
}

impl WorkspaceDetails {
    /// # Errors
    /// `ValidationFailed` naming the first field that breaks its rule.
    pub fn parse(input: &WorkspaceInput) -> Result<Self> {
        Ok(Self {
            external_ref: bounded_text("externalRef", &input.external_ref, 1, 200)?,
            name: bounded_text("name", &input.name, 1, 120)?,
            kind: input.kind.unwrap_or_default(),
            team: input.team.as_deref().map(|t| bounded_text("team", t, 0, 120)).transpose()?,
            location: input.location.as_deref().map(|l| bounded_text("location", l, 0, 120)).transpose()?,
            time_zone: input.time_zone.as_deref().map(|z| TimeZoneName::parse("timeZone", z)).transpose()?,
        })
    }
}

/// A workspace to create in a business.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewWorkspace {
    pub id: WorkspaceId,
    pub business_id: BusinessId,
    pub slug: String,
    pub details: WorkspaceDetails,
    pub created_at: OffsetDateTime,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Workspace {
    pub id: WorkspaceId,
    pub business_id: BusinessId,
    pub slug: String,
    pub status: WorkspaceStatus,
    pub details: WorkspaceDetails,
    pub created_at: OffsetDateTime,
}

/// What the repository did with a workspace creation request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WorkspaceCreation {
    Created(Workspace),
    /// A workspace with the same external reference already existed; nothing changed.
    Existing(Workspace),
}

/// A URL-safe slug: the name in lower-case ASCII words joined by `-`, then 12 hex digits of the
/// random id (48 bits), so two clients of the same name in one business do not collide.
pub fn slug_for(name: &str, id: WorkspaceId) -> String {
    let mut words = String::new();
    for c in name.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_alphanumeric() {
            words.push(c);
        } else if !words.is_empty() && !words.ends_with('-') {
            words.push('-');
        }
        if words.len() >= 48 {
            break;
        }
    }
    let words = words.trim_end_matches('-');
    let suffix: String = id.0.simple().to_string().chars().take(12).collect();
    if words.is_empty() { format!("ws-{suffix}") } else { format!("{words}-{suffix}") }
}

/// `workspace.approved` for the workspace `id`, approved at `at`: its id and new status only.
pub fn approval_event(id: WorkspaceId, at: OffsetDateTime) -> NewEvent {
    let mut payload = serde_json::Map::new();
    payload.insert("workspaceId".into(), serde_json::json!(id));
    payload.insert("status".into(), serde_json::json!(WorkspaceStatus::Active.as_str()));
    NewEvent {
        id: EventId::new_random(),
        workspace_id: id,
        event_type: EventType::WorkspaceApproved,
        aggregate: crate::webhooks::models::aggregate::WORKSPACE,
        aggregate_id: id.0,
        payload,
        occurred_at: at,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn principal(allowlist: Vec<WorkspaceId>, business: bool) -> Principal {
        Principal {
            key_id: ApiKeyId::new_random(),
            key_prefix: "AbCdEf1234".into(),
            service_account_id: ServiceAccountId::new_random(),
            business_id: business.then(BusinessId::new_random),
            scopes: vec![Scope::parse("channel:results").expect("scope")],
            workspace_allowlist: allowlist,
            network: None,
        }
    }

    #[test]
    fn scopes_are_family_colon_name() {
        assert!(Scope::parse("channel:results").is_ok());
        assert!(Scope::parse("sessions:launch").is_ok());
        for bad in ["", "channel", ":x", "x:", "Channel:results", "a:b c", "a:b:c"] {
            assert!(Scope::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn new_keys_carry_known_scopes_only() {
        for known in Scope::KNOWN {
            assert_eq!(Scope::known(known).expect("known").as_str(), known);
        }
        let mut sorted = Scope::KNOWN;
        sorted.sort_unstable();
        assert_eq!(sorted, Scope::KNOWN, "listed in alphabetical order");
        let refused = Scope::known("channel:resluts").expect_err("misspelt");
        assert_eq!(refused.code(), ErrorCode::ValidationFailed);
        let text = refused.to_string();
        assert!(text.contains("`channel:resluts` is not a known scope"), "{text}");
        assert!(Scope::KNOWN.iter().all(|k| text.contains(k)), "{text}");
    }

    #[test]
    fn missing_scope_is_named() {
        let err = principal(vec![], true).require_scope("channel:webhooks").expect_err("refused");
        assert_eq!(err.code(), ErrorCode::InsufficientPermission);
        assert!(err.to_string().contains("channel:webhooks"));
    }

    #[test]
    fn workspace_resolution_follows_the_allowlist() {
        let a = WorkspaceId::new_random();
        let b = WorkspaceId::new_random();
        let one = principal(vec![a], true);
        assert_eq!(one.resolve_workspace(None).expect("default"), a);
        assert_eq!(one.resolve_workspace(Some(&a.to_string())).expect("named"), a);
        assert_eq!(one.resolve_workspace(Some(&b.to_string())).expect_err("foreign").code(), ErrorCode::NotFound);
        assert_eq!(one.resolve_workspace(Some("nope")).expect_err("bad").code(), ErrorCode::ValidationFailed);

        let two = principal(vec![a, b], true);
        assert_eq!(two.resolve_workspace(None).expect_err("ambiguous").code(), ErrorCode::WorkspaceRequired);
        assert_eq!(two.resolve_workspace(Some(&b.to_string())).expect("named"), b);

        let none = principal(vec![], false);
        assert_eq!(none.resolve_workspace(None).expect_err("no org").code(), ErrorCode::NoOrg);
    }

    fn input(external_ref: &str, name: &str) -> WorkspaceInput {
        WorkspaceInput { external_ref: external_ref.into(), name: name.into(), ..WorkspaceInput::default() }
    }

    #[test]
    fn workspace_details_enforce_the_contract_lengths() {
        assert!(WorkspaceDetails::parse(&input("r", "n")).is_ok());
        assert!(WorkspaceDetails::parse(&input("", "n")).is_err());
        assert!(WorkspaceDetails::parse(&input(&"r".repeat(200), &"n".repeat(120))).is_ok());
        assert!(WorkspaceDetails::parse(&input(&"r".repeat(201), "n")).is_err());
        assert!(WorkspaceDetails::parse(&input("r", &"n".repeat(121))).is_err());
        assert!(WorkspaceDetails::parse(&input("r", "line\nbreak")).is_err());
        let team = WorkspaceInput { team: Some("t".repeat(121)), ..input("r", "n") };
        assert!(WorkspaceDetails::parse(&team).is_err());
        let location = WorkspaceInput { location: Some("l".repeat(121)), ..input("r", "n") };
        assert!(WorkspaceDetails::parse(&location).is_err());
        let d = WorkspaceDetails::parse(&input("r", "n")).expect("ok");
        assert_eq!(d.kind, WorkspaceType::Company, "COMPANY is the default type");
        // Lengths are characters, not bytes.
        assert!(WorkspaceDetails::parse(&input("r", &"é".repeat(120))).is_ok());
    }

    #[test]
    fn slugs_are_url_safe_and_distinct() {
        let id = WorkspaceId::new_random();
        let slug = slug_for("Acme Retail — North!", id);
        assert!(slug.starts_with("acme-retail-north-"), "{slug}");
        assert!(slug.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'));
        assert!(slug_for("!!!", id).starts_with("ws-"));
    }
}
