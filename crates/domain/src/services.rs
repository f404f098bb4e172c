//! Services that partners and operators call. Each is generic over its ports.

use secrecy::SecretString;
use time::Duration;

use crate::api_key::{PREFIX_LEN, SECRET_RANDOM_LEN, WellFormedKey};
use crate::clock::Clock;
use crate::error::{Error, ErrorCode, Result};
use crate::ids::{ApiKeyId, BusinessId, ServiceAccountId, WorkspaceId};
use crate::ports::{Crypto, DigestPurpose, TenancyRepository};
use crate::tenancy::{
    ApiKeyRecord, Business, NewApiKey, NewWorkspace, Principal, Scope, Workspace, WorkspaceCreation, WorkspaceDetails,
    WorkspaceInput, slug_for,
};

/// The workspaces a key reaches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorkspaceList {
    pub workspaces: Vec<Workspace>,
    pub default_workspace_id: Option<WorkspaceId>,
}

/// Authentication of API keys and the workspace routes of the channel.
pub struct Tenancy<R, C, K> {
    repo: R,
    crypto: C,
    clock: K,
    workspaces_per_business: u32,
}

impl<R: TenancyRepository, C: Crypto, K: Clock> Tenancy<R, C, K> {
    pub fn new(repo: R, crypto: C, clock: K, workspaces_per_business: u32) -> Self {
        Self { repo, crypto, clock, workspaces_per_business }
    }

    /// Turns the presented key text into a principal.
    ///
    /// # Errors
    /// `Unauthenticated` when no key was sent, or it is malformed, unknown, wrong, revoked or expired.
    pub async fn authenticate(&self, presented: Option<&str>) -> Result<Principal> {
        let presented = presented.ok_or_else(|| unauthenticated("no API key was sent"))?;
        let key = WellFormedKey::parse(presented).ok_or_else(|| unauthenticated("the API key is not valid"))?;
        let record = self
            .repo
            .find_api_key(key.prefix())
            .await?
            .filter(|r| self.crypto.verify_keyed_digest(DigestPurpose::ApiKey, key.expose_bytes(), &r.digest))
            .ok_or_else(|| unauthenticated("the API key is not valid"))?;
        let now = self.clock.now();
        if record.revoked_at.is_some_and(|at| at <= now) {
            return Err(unauthenticated("the API key was revoked"));
        }
        if record.expires_at.is_some_and(|at| at <= now) {
            return Err(unauthenticated("the API key has expired"));
        }
        Ok(Principal {
            key_id: record.id,
            key_prefix: record.prefix,
            service_account_id: record.service_account_id,
            business_id: record.business_id,
            scopes: record.scopes,
            workspace_allowlist: record.workspace_allowlist,
        })
    }

    /// # Errors
    /// `NoOrg` for a key without a business; port errors.
    pub async fn list_workspaces(&self, principal: &Principal) -> Result<WorkspaceList> {
        let business = principal.require_business()?;
        let workspaces = self.repo.list_workspaces(business, &principal.workspace_allowlist).await?;
        Ok(WorkspaceList { workspaces, default_workspace_id: principal.default_workspace() })
    }

    /// Creates the workspace for `details.external_ref`, or finds the one that exists; `true` when
    /// it was created by this call.
    ///
    /// # Errors
    /// `InsufficientPermission` without `channel:workspaces`; `NoOrg`; `ValidationFailed` naming
    /// the field that breaks its rule; `RefConflict` when the
    /// reference exists with other details; `RateLimited` at the business workspace limit.
    pub async fn create_workspace(&self, principal: &Principal, input: &WorkspaceInput) -> Result<(Workspace, bool)> {
        principal.require_scope(Scope::WORKSPACES)?;
        let business_id = principal.require_business()?;
        let details = WorkspaceDetails::parse(input)?;
        let id = WorkspaceId::new_random();
        let new =
            NewWorkspace { id, business_id, slug: slug_for(&details.name, id), details, created_at: self.clock.now() };
        match self.repo.create_workspace(principal.key_id, &new, self.workspaces_per_business).await? {
            WorkspaceCreation::Created(workspace) => Ok((workspace, true)),
            WorkspaceCreation::Existing(workspace) if workspace.details == new.details => Ok((workspace, false)),
            WorkspaceCreation::Existing(_) => Err(Error::refused(
                ErrorCode::RefConflict,
                "a workspace with this externalRef already exists with different details",
            )),
        }
    }
}

fn unauthenticated(why: &str) -> Error {
    Error::refused(ErrorCode::Unauthenticated, why)
}

/// A key as handed to the operator, once.
#[derive(Debug)]
pub struct IssuedKey {
    pub key: SecretString,
    pub prefix: String,
    pub service_account_id: ServiceAccountId,
}

/// What an operator asks for when creating a key.
#[derive(Clone, Debug, Default)]
pub struct KeyRequest {
    pub business_id: Option<BusinessId>,
    pub scopes: Vec<String>,
    pub workspaces: Vec<WorkspaceId>,
    pub expires_in: Option<Duration>,
}

/// Operator commands.
pub struct Admin<R, C, K> {
    repo: R,
    crypto: C,
    clock: K,
}

impl<R: TenancyRepository, C: Crypto, K: Clock> Admin<R, C, K> {
    pub fn new(repo: R, crypto: C, clock: K) -> Self {
        Self { repo, crypto, clock }
    }

    /// # Errors
    /// `ValidationFailed` for an empty or over-long name; port errors.
    pub async fn create_business(&self, name: &str) -> Result<Business> {
        let count = name.chars().count();
        if name.trim().is_empty() || count > 200 {
            return Err(Error::validation("name", "must be 1 to 200 characters"));
        }
        let business = Business { id: BusinessId::new_random(), name: name.to_owned(), created_at: self.clock.now() };
        self.repo.create_business(&business).await?;
        Ok(business)
    }

    /// Mints a key for a new service account. The key text is returned here and never again.
    ///
    /// # Errors
    /// `ValidationFailed` for bad scopes, a workspace without a business, or a non-positive
    /// lifetime; `NotFound` for an unknown business or a workspace outside it; port errors.
    pub async fn create_key(&self, request: KeyRequest) -> Result<IssuedKey> {
        let mut scopes = request.scopes.iter().map(|s| Scope::parse(s)).collect::<Result<Vec<_>>>()?;
        scopes.sort();
        scopes.dedup();
        if scopes.is_empty() {
            return Err(Error::validation("scopes", "name at least one scope"));
        }
        if request.expires_in.is_some_and(|d| d <= Duration::ZERO) {
            return Err(Error::validation("expires-in", "must be a positive number of seconds"));
        }
        match request.business_id {
            Some(business) if !self.repo.business_exists(business).await? => {
                return Err(Error::not_found("business"));
            }
            None if !request.workspaces.is_empty() => {
                return Err(Error::validation("workspace", "a key without a business reaches no workspace"));
            }
            _ => {}
        }
        let now = self.clock.now();
        let service_account_id = ServiceAccountId::new_random();
        // A prefix collision is astronomically rare, but the prefix is the look-up key: draw again.
        for _ in 0..3 {
            let key = WellFormedKey::assemble(
                &self.crypto.random_base62(PREFIX_LEN),
                &self.crypto.random_base62(SECRET_RANDOM_LEN),
            );
            let record = ApiKeyRecord {
                id: ApiKeyId::new_random(),
                prefix: key.prefix().to_owned(),
                digest: self.crypto.keyed_digest(DigestPurpose::ApiKey, key.expose_bytes()),
                service_account_id,
                business_id: request.business_id,
                scopes: scopes.clone(),
                workspace_allowlist: request.workspaces.clone(),
                expires_at: request.expires_in.map(|d| now + d),
                revoked_at: None,
                created_at: now,
            };
            let new = NewApiKey { record, service_account_name: format!("key {}", key.prefix()) };
            match self.repo.insert_api_key(&new).await {
                Ok(()) => {
                    return Ok(IssuedKey {
                        prefix: key.prefix().to_owned(),
                        key: key.into_secret(),
                        service_account_id,
                    });
                }
                Err(e) if e.code() == ErrorCode::Conflict => {}
                Err(e) => return Err(e),
            }
        }
        Err(Error::internal("could not draw a free API key prefix"))
    }

    /// # Errors
    /// `NotFound` for an unknown prefix; port errors.
    pub async fn revoke_key(&self, prefix: &str) -> Result<()> {
        if self.repo.revoke_api_key(prefix, self.clock.now()).await? {
            Ok(())
        } else {
            Err(Error::not_found("API key"))
        }
    }

    /// # Errors
    /// `NotFound` for an unknown workspace; port errors.
    pub async fn approve_workspace(&self, id: WorkspaceId) -> Result<Workspace> {
        self.repo.approve_workspace(id).await?.ok_or_else(|| Error::not_found("workspace"))
    }
}

#[cfg(test)]
mod tests {
    use futures_executor::block_on;
    use secrecy::ExposeSecret;
    use time::macros::datetime;

    use super::*;
    use crate::clock::SettableClock;
    use crate::memory::{MemoryStore, TestCrypto};
    use crate::tenancy::WorkspaceStatus;

    struct World {
        admin: Admin<MemoryStore, TestCrypto, SettableClock>,
        tenancy: Tenancy<MemoryStore, TestCrypto, SettableClock>,
        clock: SettableClock,
    }

    fn world() -> World {
        let store = MemoryStore::default();
        let crypto = TestCrypto::default();
        let clock = SettableClock::new(datetime!(2026-01-01 10:00 UTC));
        World {
            admin: Admin::new(store.clone(), crypto.clone(), clock.clone()),
            tenancy: Tenancy::new(store, crypto, clock.clone(), 3),
            clock,
        }
    }

    fn key(w: &World, business: Option<BusinessId>, scopes: &[&str], expires_in: Option<Duration>) -> IssuedKey {
        let request = KeyRequest {
            business_id: business,
            scopes: scopes.iter().map(|s| (*s).to_owned()).collect(),
            workspaces: vec![],
            expires_in,
        };
        block_on(w.admin.create_key(request)).expect("key")
    }

    fn details(r: &str, name: &str) -> WorkspaceInput {
        WorkspaceInput { external_ref: r.into(), name: name.into(), ..WorkspaceInput::default() }
    }

    #[test]
    fn keys_authenticate_until_revoked_or_expired() {
        let w = world();
        let business = block_on(w.admin.create_business("Acme")).expect("business");
        let issued = key(&w, Some(business.id), &["channel:workspaces"], Some(Duration::HOUR));
        let principal = block_on(w.tenancy.authenticate(Some(issued.key.expose_secret()))).expect("valid");
        assert_eq!(principal.business_id, Some(business.id));
        assert_eq!(principal.key_prefix, issued.prefix);

        w.clock.advance(Duration::HOUR);
        let expired = block_on(w.tenancy.authenticate(Some(issued.key.expose_secret()))).expect_err("expired");
        assert!(expired.to_string().contains("expired"));

        let other = key(&w, Some(business.id), &["channel:results"], None);
        block_on(w.admin.revoke_key(&other.prefix)).expect("revoked");
        let revoked = block_on(w.tenancy.authenticate(Some(other.key.expose_secret()))).expect_err("revoked");
        assert!(revoked.to_string().contains("revoked"));
        assert_eq!(block_on(w.admin.revoke_key("nope")).expect_err("unknown").code(), ErrorCode::NotFound);
    }

    #[test]
    fn a_wrong_secret_with_a_real_prefix_is_refused() {
        let w = world();
        let issued = key(&w, None, &["channel:results"], None);
        let forged = WellFormedKey::assemble(&issued.prefix, &"x".repeat(SECRET_RANDOM_LEN));
        let err = block_on(w.tenancy.authenticate(Some(forged.secret().expose_secret()))).expect_err("forged");
        assert_eq!(err.code(), ErrorCode::Unauthenticated);
        assert_eq!(block_on(w.tenancy.authenticate(None)).expect_err("none").code(), ErrorCode::Unauthenticated);
    }

    #[test]
    fn creating_a_workspace_widens_only_the_creating_key() {
        let w = world();
        let business = block_on(w.admin.create_business("Acme")).expect("business");
        let creator = key(&w, Some(business.id), &["channel:workspaces"], None);
        let bystander = key(&w, Some(business.id), &["channel:workspaces"], None);
        let p = block_on(w.tenancy.authenticate(Some(creator.key.expose_secret()))).expect("p");
        let (ws, created) = block_on(w.tenancy.create_workspace(&p, &details("client-1", "Client"))).expect("created");
        assert!(created);
        assert_eq!(ws.status, WorkspaceStatus::PendingApproval);

        let p = block_on(w.tenancy.authenticate(Some(creator.key.expose_secret()))).expect("p");
        assert_eq!(p.workspace_allowlist, vec![ws.id]);
        let list = block_on(w.tenancy.list_workspaces(&p)).expect("list");
        assert_eq!(list.default_workspace_id, Some(ws.id));

        let b = block_on(w.tenancy.authenticate(Some(bystander.key.expose_secret()))).expect("b");
        assert!(b.workspace_allowlist.is_empty());
        let (same, created) = block_on(w.tenancy.create_workspace(&b, &details("client-1", "Client"))).expect("same");
        assert!(!created);
        assert_eq!(same.id, ws.id);
        let b = block_on(w.tenancy.authenticate(Some(bystander.key.expose_secret()))).expect("b");
        assert!(b.workspace_allowlist.is_empty(), "other keys are not widened");
    }

    #[test]
    fn same_ref_with_other_details_conflicts_and_the_business_limit_holds() {
        let w = world();
        let business = block_on(w.admin.create_business("Acme")).expect("business");
        let issued = key(&w, Some(business.id), &["channel:workspaces"], None);
        let p = block_on(w.tenancy.authenticate(Some(issued.key.expose_secret()))).expect("p");
        block_on(w.tenancy.create_workspace(&p, &details("r1", "One"))).expect("one");
        let conflict = block_on(w.tenancy.create_workspace(&p, &details("r1", "Renamed"))).expect_err("conflict");
        assert_eq!(conflict.code(), ErrorCode::RefConflict);
        block_on(w.tenancy.create_workspace(&p, &details("r2", "Two"))).expect("two");
        block_on(w.tenancy.create_workspace(&p, &details("r3", "Three"))).expect("three");
        let full = block_on(w.tenancy.create_workspace(&p, &details("r4", "Four"))).expect_err("limit");
        assert_eq!(full.code(), ErrorCode::RateLimited);
    }

    #[test]
    fn workspace_routes_need_scope_and_business() {
        let w = world();
        let business = block_on(w.admin.create_business("Acme")).expect("business");
        let reader = key(&w, Some(business.id), &["channel:results"], None);
        let p = block_on(w.tenancy.authenticate(Some(reader.key.expose_secret()))).expect("p");
        let err = block_on(w.tenancy.create_workspace(&p, &details("r", "n"))).expect_err("scope");
        assert_eq!(err.code(), ErrorCode::InsufficientPermission);

        let orphan = key(&w, None, &["channel:workspaces"], None);
        let p = block_on(w.tenancy.authenticate(Some(orphan.key.expose_secret()))).expect("p");
        assert_eq!(
            block_on(w.tenancy.create_workspace(&p, &details("r", "n"))).expect_err("no org").code(),
            ErrorCode::NoOrg
        );
        assert_eq!(block_on(w.tenancy.list_workspaces(&p)).expect_err("no org").code(), ErrorCode::NoOrg);
    }

    #[test]
    fn key_requests_are_validated() {
        let w = world();
        let bad_scope = KeyRequest { scopes: vec!["Channel".into()], ..KeyRequest::default() };
        assert_eq!(block_on(w.admin.create_key(bad_scope)).expect_err("scope").code(), ErrorCode::ValidationFailed);
        let unknown = KeyRequest {
            business_id: Some(BusinessId::new_random()),
            scopes: vec!["channel:results".into()],
            ..KeyRequest::default()
        };
        assert_eq!(block_on(w.admin.create_key(unknown)).expect_err("business").code(), ErrorCode::NotFound);
        let orphan_ws = KeyRequest {
            scopes: vec!["channel:results".into()],
            workspaces: vec![WorkspaceId::new_random()],
            ..KeyRequest::default()
        };
        assert_eq!(block_on(w.admin.create_key(orphan_ws)).expect_err("ws").code(), ErrorCode::ValidationFailed);
    }
}
