//! Services that partners and operators call. Each is generic over its ports.

use crate::audit::models::{AuditAction, AuditEntry, AuditScope};
use crate::error::{Error, ErrorCode, Result};
use crate::ids::{ApiKeyId, BusinessId, ServiceAccountId, WorkspaceId};
use crate::shared::clock::Clock;
use crate::shared::crypto::{Crypto, DigestPurpose};
use crate::tenancy::models::{
    ApiKeyRecord, Business, KeyCache, NewApiKey, NewWorkspace, PREFIX_LEN, Principal, SECRET_RANDOM_LEN, Scope,
    WellFormedKey, Workspace, WorkspaceCreation, WorkspaceDetails, WorkspaceInput, approval_event, key_cache, slug_for,
};
use crate::tenancy::ports::TenancyRepository;
use secrecy::SecretString;
use time::{Duration, OffsetDateTime};

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
    keys: KeyCache,
}

impl<R: TenancyRepository, C: Crypto, K: Clock> Tenancy<R, C, K> {
    pub fn new(repo: R, crypto: C, clock: K, workspaces_per_business: u32) -> Self {
        Self { repo, crypto, clock, workspaces_per_business, keys: key_cache() }
    }

    /// Turns the presented key text into a principal, reading the key from the store. Routes that
    /// show the key's workspaces use this one, so a workspace added on another replica is listed.
    ///
    /// # Errors
    /// `Unauthenticated` when no key was sent, or it is malformed, unknown, wrong, revoked or expired.
    pub async fn authenticate(&self, presented: Option<&str>) -> Result<Principal> {
        let key = well_formed(presented)?;
        let now = self.clock.now();
        let record = self.read_key(&key, now).await?;
        self.principal(&key, record, now)
    }

    /// As [`Self::authenticate`] for a call in the workspace `workspace_header` names (or the key's
    /// only one), from a copy of the key read within [`KEY_CACHE_TTL`](crate::tenancy::models::KEY_CACHE_TTL). A copy that would refuse
    /// that workspace is read again first: it may predate the workspace.
    ///
    /// # Errors
    /// As [`Self::authenticate`].
    pub async fn authenticate_for(&self, presented: Option<&str>, workspace_header: Option<&str>) -> Result<Principal> {
        let key = well_formed(presented)?;
        let now = self.clock.now();
        if let Some(record) = self.keys.get(key.prefix(), now) {
            let principal = self.principal(&key, Some(record), now)?;
            if principal.resolve_workspace(workspace_header).is_ok() {
                return Ok(principal);
            }
        }
        let record = self.read_key(&key, now).await?;
        self.principal(&key, record, now)
    }

    async fn read_key(&self, key: &WellFormedKey, now: OffsetDateTime) -> Result<Option<ApiKeyRecord>> {
        let record = self.repo.find_api_key(key.prefix()).await?;
        if let Some(record) = &record {
            self.keys.put(record.prefix.clone(), record.clone(), now);
        }
        Ok(record)
    }

    fn principal(&self, key: &WellFormedKey, record: Option<ApiKeyRecord>, now: OffsetDateTime) -> Result<Principal> {
        let record = record
            .filter(|r| self.crypto.verify_keyed_digest(DigestPurpose::ApiKey, key.expose_bytes(), &r.digest))
            .ok_or_else(|| unauthenticated("the API key is not valid"))?;
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
            network: None,
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
            WorkspaceCreation::Created(workspace) => {
                // The key reaches one more workspace than its copy says.
                self.keys.forget(&principal.key_prefix);
                Ok((workspace, true))
            }
            WorkspaceCreation::Existing(workspace) if workspace.details == new.details => Ok((workspace, false)),
            WorkspaceCreation::Existing(_) => Err(Error::refused(
                ErrorCode::RefConflict,
                "a workspace with this externalRef already exists with different details",
            )),
        }
    }
}

fn well_formed(presented: Option<&str>) -> Result<WellFormedKey> {
    let presented = presented.ok_or_else(|| unauthenticated("no API key was sent"))?;
    WellFormedKey::parse(presented).ok_or_else(|| unauthenticated("the API key is not valid"))
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
    /// `ValidationFailed` for an unknown scope, a workspace without a business, or a non-positive
    /// lifetime; `NotFound` for an unknown business or a workspace outside it; port errors.
    pub async fn create_key(&self, request: KeyRequest) -> Result<IssuedKey> {
        let mut scopes = request.scopes.iter().map(|s| Scope::known(s)).collect::<Result<Vec<_>>>()?;
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
            let audit = request
                .business_id
                .map(|b| AuditEntry::by_operator(AuditScope::Business(b), AuditAction::KeyCreated, key.prefix(), now));
            match self.repo.insert_api_key(&new, audit.as_ref()).await {
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
        let now = self.clock.now();
        let business = self.repo.find_api_key(prefix).await?.and_then(|k| k.business_id);
        let audit =
            business.map(|b| AuditEntry::by_operator(AuditScope::Business(b), AuditAction::KeyRevoked, prefix, now));
        if self.repo.revoke_api_key(prefix, now, audit.as_ref()).await? {
            Ok(())
        } else {
            Err(Error::not_found("API key"))
        }
    }

    /// # Errors
    /// `NotFound` for an unknown workspace; port errors.
    pub async fn approve_workspace(&self, id: WorkspaceId) -> Result<Workspace> {
        let now = self.clock.now();
        let audit = AuditEntry::by_operator(AuditScope::Workspace(id), AuditAction::WorkspaceApproved, id, now);
        self.repo
            .approve_workspace(id, &audit, &approval_event(id, now))
            .await?
            .ok_or_else(|| Error::not_found("workspace"))
    }
}
