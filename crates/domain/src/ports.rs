//! The ports: what the domain needs from the outside world. Adapters live in other crates (and
//! in-memory ones in [`crate::memory`]).

use std::future::Future;

use time::OffsetDateTime;
use uuid::Uuid;

use crate::error::Result;
use crate::ids::{ApiKeyId, BusinessId, WorkspaceId};
use crate::quota::QuotaFamily;
use crate::tenancy::{ApiKeyRecord, Business, NewApiKey, NewWorkspace, Workspace, WorkspaceCreation};

/// What a keyed digest is for: each purpose is keyed separately, so a digest made for one can
/// never be replayed as another.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DigestPurpose {
    ApiKey,
    IdempotencyFingerprint,
}

impl DigestPurpose {
    pub const fn label(self) -> &'static str {
        match self {
            DigestPurpose::ApiKey => "pulse/api-key-digest/v1",
            DigestPurpose::IdempotencyFingerprint => "pulse/idempotency-fingerprint/v1",
        }
    }
}

/// Randomness, keyed digests and authenticated encryption.
pub trait Crypto: Send + Sync + 'static {
    /// `len` characters of `[0-9A-Za-z]` from a cryptographically secure generator.
    fn random_base62(&self, len: usize) -> String;

    /// A keyed digest (HMAC-SHA256 in production) of `input` for `purpose`.
    fn keyed_digest(&self, purpose: DigestPurpose, input: &[u8]) -> Vec<u8>;

    /// Whether `expected` is the keyed digest of `input`, compared in constant time.
    fn verify_keyed_digest(&self, purpose: DigestPurpose, input: &[u8], expected: &[u8]) -> bool;

    /// Encrypts `plaintext`, binding `context` (the row it belongs to) as associated data.
    fn seal(&self, context: &[u8], plaintext: &[u8]) -> Vec<u8>;

    /// Decrypts what [`Crypto::seal`] produced for the same `context`.
    ///
    /// # Errors
    /// `Internal` when the data was altered, belongs to another context or was sealed under a key
    /// this process does not hold.
    fn open(&self, context: &[u8], sealed: &[u8]) -> Result<Vec<u8>>;
}

/// Businesses, service accounts, API keys and workspaces.
pub trait TenancyRepository: Send + Sync + 'static {
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn create_business(&self, business: &Business) -> impl Future<Output = Result<()>> + Send;

    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn business_exists(&self, id: BusinessId) -> impl Future<Output = Result<bool>> + Send;

    /// Stores a key with a new service account and its allowlist.
    ///
    /// # Errors
    /// `Conflict` when the prefix is already taken (the caller draws another); `NotFound` when an
    /// allowlisted workspace does not belong to the key's business; `Internal`/`Unavailable` otherwise.
    fn insert_api_key(&self, key: &NewApiKey) -> impl Future<Output = Result<()>> + Send;

    /// The key with this public prefix, with its allowlist.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn find_api_key(&self, prefix: &str) -> impl Future<Output = Result<Option<ApiKeyRecord>>> + Send;

    /// Marks the key revoked at `at`; `false` when no such key exists.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn revoke_api_key(&self, prefix: &str, at: OffsetDateTime) -> impl Future<Output = Result<bool>> + Send;

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

    /// Sets the workspace `ACTIVE`; `None` when it does not exist.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn approve_workspace(&self, id: WorkspaceId) -> impl Future<Output = Result<Option<Workspace>>> + Send;
}

/// The outcome of claiming an idempotency key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IdempotencyClaim {
    /// This request owns the key now and must complete or release it.
    Claimed,
    /// Another request with this key finished; its response is stored.
    Completed { fingerprint: Vec<u8>, status: u16, sealed_body: Vec<u8> },
    /// Another request with this key is still running.
    InFlight { fingerprint: Vec<u8> },
}

/// A request to claim an idempotency key.
#[derive(Clone, Copy, Debug)]
pub struct ClaimRequest<'a> {
    pub scope: &'a str,
    pub key: &'a str,
    /// Names the claiming request: only it may complete or release the claim.
    pub token: Uuid,
    pub fingerprint: &'a [u8],
    pub now: OffsetDateTime,
    /// Records created before this are expired and taken over.
    pub expired_before: OffsetDateTime,
    /// In-flight records claimed before this are presumed dead and taken over.
    pub stale_before: OffsetDateTime,
}

/// Where idempotency keys and their stored responses live.
pub trait IdempotencyStore: Send + Sync + 'static {
    /// Claims `(scope, key)` for the request `token`, unless a live record holds it. Records
    /// created before `expired_before`, and in-flight records claimed before `stale_before`
    /// (their request is presumed dead), are taken over.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn claim(&self, request: &ClaimRequest<'_>) -> impl Future<Output = Result<IdempotencyClaim>> + Send;

    /// Stores the response of the request that claimed the key with `token`; does nothing when
    /// another request has taken the claim over since.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn complete(
        &self,
        scope: &str,
        key: &str,
        token: Uuid,
        status: u16,
        sealed_body: &[u8],
    ) -> impl Future<Output = Result<()>> + Send;

    /// Frees a key claimed with `token` whose request was refused or failed, so it may be used
    /// again; does nothing when another request holds the claim now.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn release(&self, scope: &str, key: &str, token: Uuid) -> impl Future<Output = Result<()>> + Send;

    /// Deletes records created before `before`; returns how many.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn purge_idempotency(&self, before: OffsetDateTime) -> impl Future<Output = Result<u64>> + Send;
}

/// Counters of fixed quota windows, shared by every replica.
pub trait QuotaCounter: Send + Sync + 'static {
    /// Adds one to the counter of `(subject, family, window_start)` atomically and returns the new count.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn hit(
        &self,
        subject: &str,
        family: QuotaFamily,
        window_start: OffsetDateTime,
    ) -> impl Future<Output = Result<u32>> + Send;

    /// Deletes windows that started before `before`; returns how many.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn purge_quota_windows(&self, before: OffsetDateTime) -> impl Future<Output = Result<u64>> + Send;
}

/// Whether the store answers at all (for readiness probes).
pub trait HealthCheck: Send + Sync + 'static {
    /// # Errors
    /// `Unavailable` when the store cannot be reached.
    fn ping(&self) -> impl Future<Output = Result<()>> + Send;
}

impl<C: Crypto> Crypto for std::sync::Arc<C> {
    fn random_base62(&self, len: usize) -> String {
        (**self).random_base62(len)
    }

    fn keyed_digest(&self, purpose: DigestPurpose, input: &[u8]) -> Vec<u8> {
        (**self).keyed_digest(purpose, input)
    }

    fn verify_keyed_digest(&self, purpose: DigestPurpose, input: &[u8], expected: &[u8]) -> bool {
        (**self).verify_keyed_digest(purpose, input, expected)
    }

    fn seal(&self, context: &[u8], plaintext: &[u8]) -> Vec<u8> {
        (**self).seal(context, plaintext)
    }

    fn open(&self, context: &[u8], sealed: &[u8]) -> Result<Vec<u8>> {
        (**self).open(context, sealed)
    }
}
