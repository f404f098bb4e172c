//! What tenancy needs from the world: businesses, keys and workspaces kept somewhere.

use crate::audit::models::AuditEntry;
use crate::error::Result;
use crate::ids::{ApiKeyId, BusinessId, WorkspaceId};
use crate::tenancy::models::{ApiKeyRecord, Business, NewApiKey, NewWorkspace, Workspace, WorkspaceCreation};
use crate::webhooks::models::NewEvent;
use std::future::Future;
use time::OffsetDateTime;

/// Businesses, service accounts, API keys and workspaces.
pub trait TenancyRepository: Send + Sync + 'static {
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn create_business(&self, business: &Business) -> impl Future<Output = Result<()>> + Send;

    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn business_exists(&self, id: BusinessId) -> impl Future<Output = Result<bool>> + Send;

    /// Stores a key with a new service account and its allowlist, and `audit` (when given) in the
    /// same transaction.
    ///
    /// # Errors
    /// `Conflict` when the prefix is already taken (the caller draws another); `NotFound` when an
    /// allowlisted workspace does not belong to the key's business; `Internal`/`Unavailable` otherwise.
    fn insert_api_key(&self, key: &NewApiKey, audit: Option<&AuditEntry>) -> impl Future<Output = Result<()>> + Send;

    /// The key with this public prefix, with its allowlist.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn find_api_key(&self, prefix: &str) -> impl Future<Output = Result<Option<ApiKeyRecord>>> + Send;

    /// The key's prefix when it exists and is neither revoked nor expired at `at`.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn usable_key_prefix(
        &self,
        id: ApiKeyId,
        at: OffsetDateTime,
    ) -> impl Future<Output = Result<Option<String>>> + Send;

    /// Marks the key revoked at `at` unless it was already, writing `audit` (when given) in the
    /// same transaction when it was not; `false` when no such key exists.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn revoke_api_key(
        &self,
        prefix: &str,
        at: OffsetDateTime,
        audit: Option<&AuditEntry>,
    ) -> impl Future<Output = Result<bool>> + Send;

    /// Creates the workspace and adds it to the creating key's allowlist in one transaction, or
    /// returns the workspace that already has this external reference in the business.
    ///
    /// # Errors
    /// `RateLimited` when the business already holds `max_per_business` workspaces;
    /// `Internal`/`Unavailable` otherwise.
    fn create_workspace(
        &self,
        creator: ApiKeyId,
        workspace: &NewWorkspace,
        max_per_business: u32,
    ) -> impl Future<Output = Result<WorkspaceCreation>> + Send;

    /// The business's workspaces among `ids`, oldest first.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn list_workspaces(
        &self,
        business: BusinessId,
        ids: &[WorkspaceId],
    ) -> impl Future<Output = Result<Vec<Workspace>>> + Send;

    /// Sets the workspace `ACTIVE`, writing `audit` and emitting `event` (with its deliveries) in
    /// the same transaction when it was not already; `None` when it does not exist.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn approve_workspace(
        &self,
        id: WorkspaceId,
        audit: &AuditEntry,
        event: &NewEvent,
    ) -> impl Future<Output = Result<Option<Workspace>>> + Send;
}
