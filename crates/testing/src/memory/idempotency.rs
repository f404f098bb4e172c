//! Idempotency claims in memory.
use super::*;
use pulse_domain::error::Result;
use pulse_domain::idempotency::models::{ClaimRequest, IdempotencyClaim};
use pulse_domain::idempotency::ports::IdempotencyStore;
use time::OffsetDateTime;
use uuid::Uuid;

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
