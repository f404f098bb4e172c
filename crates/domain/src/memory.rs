//! In-memory adapters of every port, for domain tests here and in other teams' crates. They keep
//! the contracts of the ports (constraints, atomicity) but nothing survives the process, and
//! [`TestCrypto`] is deliberately not secure.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use time::OffsetDateTime;
use uuid::Uuid;

use crate::error::{Error, ErrorCode, Result};
use crate::ids::{ApiKeyId, BusinessId, WorkspaceId};
use crate::ports::{
    ClaimRequest, Crypto, DigestPurpose, HealthCheck, IdempotencyClaim, IdempotencyStore, QuotaCounter,
    TenancyRepository,
};
use crate::quota::QuotaFamily;
use crate::tenancy::{ApiKeyRecord, Business, NewApiKey, NewWorkspace, Workspace, WorkspaceCreation, WorkspaceStatus};

#[derive(Clone, Debug)]
struct IdempotencyRecord {
    token: Uuid,
    fingerprint: Vec<u8>,
    response: Option<(u16, Vec<u8>)>,
    created_at: OffsetDateTime,
    locked_at: OffsetDateTime,
}

#[derive(Debug, Default)]
struct State {
    businesses: HashMap<BusinessId, Business>,
    keys: HashMap<String, ApiKeyRecord>,
    workspaces: Vec<Workspace>,
    idempotency: HashMap<(String, String), IdempotencyRecord>,
    quota_windows: HashMap<(String, QuotaFamily, OffsetDateTime), u32>,
}

/// One store for every repository port. Clones share the same data.
#[derive(Clone, Debug, Default)]
pub struct MemoryStore {
    state: Arc<Mutex<State>>,
}

impl MemoryStore {
    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl TenancyRepository for MemoryStore {
    async fn create_business(&self, business: &Business) -> Result<()> {
        self.state().businesses.insert(business.id, business.clone());
        Ok(())
    }

    async fn business_exists(&self, id: BusinessId) -> Result<bool> {
        Ok(self.state().businesses.contains_key(&id))
    }

    async fn insert_api_key(&self, key: &NewApiKey) -> Result<()> {
        let mut state = self.state();
        if state.keys.contains_key(&key.record.prefix) {
            return Err(Error::refused(ErrorCode::Conflict, "prefix taken"));
        }
        let foreign =
            key.record.workspace_allowlist.iter().any(|id| {
                !state.workspaces.iter().any(|w| w.id == *id && Some(w.business_id) == key.record.business_id)
            });
        if foreign {
            return Err(Error::not_found("workspace"));
        }
        state.keys.insert(key.record.prefix.clone(), key.record.clone());
        Ok(())
    }

    async fn find_api_key(&self, prefix: &str) -> Result<Option<ApiKeyRecord>> {
        Ok(self.state().keys.get(prefix).cloned())
    }

    async fn revoke_api_key(&self, prefix: &str, at: OffsetDateTime) -> Result<bool> {
        Ok(self.state().keys.get_mut(prefix).map(|k| k.revoked_at = Some(at)).is_some())
    }

    async fn create_workspace(
        &self,
        creator: ApiKeyId,
        new: &NewWorkspace,
        max_per_business: u32,
    ) -> Result<WorkspaceCreation> {
        let mut state = self.state();
        if let Some(existing) = state
            .workspaces
            .iter()
            .find(|w| w.business_id == new.business_id && w.details.external_ref == new.details.external_ref)
        {
            return Ok(WorkspaceCreation::Existing(existing.clone()));
        }
        let held = state.workspaces.iter().filter(|w| w.business_id == new.business_id).count();
        if held >= max_per_business as usize {
            return Err(Error::refused(ErrorCode::RateLimited, "business workspace limit reached"));
        }
        let workspace = Workspace {
            id: new.id,
            business_id: new.business_id,
            slug: new.slug.clone(),
            status: WorkspaceStatus::PendingApproval,
            details: new.details.clone(),
            created_at: new.created_at,
        };
        state.workspaces.push(workspace.clone());
        if let Some(key) = state.keys.values_mut().find(|k| k.id == creator) {
            key.workspace_allowlist.push(new.id);
        }
        Ok(WorkspaceCreation::Created(workspace))
    }

    async fn list_workspaces(&self, business: BusinessId, ids: &[WorkspaceId]) -> Result<Vec<Workspace>> {
        Ok(self
            .state()
            .workspaces
            .iter()
            .filter(|w| w.business_id == business && ids.contains(&w.id))
            .cloned()
            .collect())
    }

    async fn approve_workspace(&self, id: WorkspaceId) -> Result<Option<Workspace>> {
        let mut state = self.state();
        Ok(state.workspaces.iter_mut().find(|w| w.id == id).map(|w| {
            w.status = WorkspaceStatus::Active;
            w.clone()
        }))
    }
}

impl IdempotencyStore for MemoryStore {
    async fn claim(&self, request: &ClaimRequest<'_>) -> Result<IdempotencyClaim> {
        let ClaimRequest { scope, key, token, fingerprint, now, expired_before, stale_before } = *request;
        let mut state = self.state();
        let slot = (scope.to_owned(), key.to_owned());
        if let Some(existing) = state.idempotency.get(&slot) {
            let expired = existing.created_at < expired_before;
            let stale = existing.response.is_none() && existing.locked_at < stale_before;
            if !expired && !stale {
                return Ok(match &existing.response {
                    Some((status, body)) => IdempotencyClaim::Completed {
                        fingerprint: existing.fingerprint.clone(),
                        status: *status,
                        sealed_body: body.clone(),
                    },
                    None => IdempotencyClaim::InFlight { fingerprint: existing.fingerprint.clone() },
                });
            }
        }
        let record = IdempotencyRecord {
            token,
            fingerprint: fingerprint.to_vec(),
            response: None,
            created_at: now,
            locked_at: now,
        };
        state.idempotency.insert(slot, record);
        Ok(IdempotencyClaim::Claimed)
    }

    async fn complete(&self, scope: &str, key: &str, token: Uuid, status: u16, sealed_body: &[u8]) -> Result<()> {
        if let Some(record) =
            self.state().idempotency.get_mut(&(scope.to_owned(), key.to_owned())).filter(|r| r.token == token)
        {
            record.response = Some((status, sealed_body.to_vec()));
        }
        Ok(())
    }

    async fn release(&self, scope: &str, key: &str, token: Uuid) -> Result<()> {
        let mut state = self.state();
        let slot = (scope.to_owned(), key.to_owned());
        if state.idempotency.get(&slot).is_some_and(|r| r.token == token) {
            state.idempotency.remove(&slot);
        }
        Ok(())
    }

    async fn purge_idempotency(&self, before: OffsetDateTime) -> Result<u64> {
        let mut state = self.state();
        let len = state.idempotency.len();
        state.idempotency.retain(|_, r| r.created_at >= before);
        Ok((len - state.idempotency.len()) as u64)
    }
}

impl QuotaCounter for MemoryStore {
    async fn hit(&self, subject: &str, family: QuotaFamily, window_start: OffsetDateTime) -> Result<u32> {
        let mut state = self.state();
        let count = state.quota_windows.entry((subject.to_owned(), family, window_start)).or_insert(0);
        *count += 1;
        Ok(*count)
    }

    async fn purge_quota_windows(&self, before: OffsetDateTime) -> Result<u64> {
        let mut state = self.state();
        let len = state.quota_windows.len();
        state.quota_windows.retain(|(_, _, start), _| *start >= before);
        Ok((len - state.quota_windows.len()) as u64)
    }
}

impl HealthCheck for MemoryStore {
    async fn ping(&self) -> Result<()> {
        Ok(())
    }
}

/// A deterministic stand-in for the crypto adapter. NOT secure: its "encryption" only checks the
/// context and its digests are plain FNV hashes. Use it in tests, never in a running service.
#[derive(Clone, Debug, Default)]
pub struct TestCrypto {
    counter: Arc<Mutex<u64>>,
}

fn fnv(seed: u64, parts: &[&[u8]]) -> u64 {
    let mut hash = 0xcbf2_9ce4_8422_2325_u64 ^ seed;
    for part in parts {
        for &b in *part {
            hash ^= u64::from(b);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
        hash ^= 0xff;
    }
    hash
}

impl Crypto for TestCrypto {
    fn random_base62(&self, len: usize) -> String {
        const ALPHABET: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
        let mut counter = self.counter.lock().unwrap_or_else(PoisonError::into_inner);
        (0..len)
            .map(|_| {
                *counter += 1;
                char::from(ALPHABET[(fnv(*counter, &[b"random"]) % 62) as usize])
            })
            .collect()
    }

    fn keyed_digest(&self, purpose: DigestPurpose, input: &[u8]) -> Vec<u8> {
        (0..4u64).flat_map(|i| fnv(i, &[purpose.label().as_bytes(), input]).to_be_bytes()).collect()
    }

    fn verify_keyed_digest(&self, purpose: DigestPurpose, input: &[u8], expected: &[u8]) -> bool {
        self.keyed_digest(purpose, input) == expected
    }

    fn seal(&self, context: &[u8], plaintext: &[u8]) -> Vec<u8> {
        let mut out = fnv(0, &[context]).to_be_bytes().to_vec();
        out.extend(plaintext.iter().map(|b| b ^ 0x5a));
        out
    }

    fn open(&self, context: &[u8], sealed: &[u8]) -> Result<Vec<u8>> {
        match sealed.split_at_checked(8) {
            Some((tag, body)) if tag == fnv(0, &[context]).to_be_bytes() => Ok(body.iter().map(|b| b ^ 0x5a).collect()),
            _ => Err(Error::internal("sealed data does not belong to this context")),
        }
    }
}
