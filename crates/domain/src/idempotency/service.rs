//! Replays of `Idempotency-Key` requests: claim, complete or release, replay.

use crate::error::{Error, ErrorCode, Result};
use crate::idempotency::models::{
    ClaimRequest, Completed, IdempotencyClaim, IdempotencyKey, Idempotent, REPLAY_WINDOW, STALE_CLAIM, StoredResponse,
};
use crate::idempotency::ports::IdempotencyStore;
use crate::shared::clock::Clock;
use crate::shared::crypto::{Crypto, DigestPurpose};
use std::future::Future;
use uuid::Uuid;

pub struct Idempotency<S, C, K> {
    store: S,
    crypto: C,
    clock: K,
}

impl<S: IdempotencyStore, C: Crypto, K: Clock> Idempotency<S, C, K> {
    pub fn new(store: S, crypto: C, clock: K) -> Self {
        Self { store, crypto, clock }
    }

    /// Runs `operation` once per `(scope, key)`; `request` is what makes two requests "the same"
    /// (route and canonical body). Stored replay bodies are encrypted, as some hold tokens.
    ///
    /// # Errors
    /// `Conflict` for a different request under the same key or one still in flight; whatever
    /// `operation` returns (the key is then released); port errors.
    pub async fn run<T, F, Fut>(
        &self,
        scope: &str,
        key: &IdempotencyKey,
        request: &[u8],
        operation: F,
    ) -> Result<Idempotent<T>>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<Completed<T>>>,
    {
        let fingerprint = self.crypto.keyed_digest(DigestPurpose::IdempotencyFingerprint, request);
        let now = self.clock.now();
        let token = Uuid::new_v4();
        let claim = self
            .store
            .claim(&ClaimRequest {
                scope,
                key: key.as_str(),
                token,
                fingerprint: &fingerprint,
                now,
                expired_before: now - REPLAY_WINDOW,
                stale_before: now - STALE_CLAIM,
            })
            .await?;
        let context = seal_context(scope, key);
        match claim {
            IdempotencyClaim::Claimed => {}
            IdempotencyClaim::Completed { fingerprint: stored, status, sealed_body } => {
                if stored != fingerprint {
                    return Err(reused_with_other_body());
                }
                let body = self.crypto.open(&context, &sealed_body)?;
                return Ok(Idempotent::Replayed(StoredResponse { status, body }));
            }
            IdempotencyClaim::InFlight { fingerprint: stored } => {
                return Err(if stored == fingerprint {
                    Error::refused(
                        ErrorCode::Conflict,
                        "a request with this Idempotency-Key is still in flight; retry when it has finished",
                    )
                } else {
                    reused_with_other_body()
                });
            }
        }
        // The operation's own outcome is what the caller must see. When the bookkeeping after it
        // fails, the claim goes stale and is taken over after `STALE_CLAIM`.
        match operation().await {
            Ok(done) => {
                let sealed = self.crypto.seal(&context, &done.replay.body);
                let _stale_claim_expires =
                    self.store.complete(scope, key.as_str(), token, done.replay.status, &sealed).await;
                Ok(Idempotent::Fresh(done.value))
            }
            Err(error) => {
                let _stale_claim_expires = self.store.release(scope, key.as_str(), token).await;
                Err(error)
            }
        }
    }

    /// Deletes records older than the replay window.
    ///
    /// # Errors
    /// Port errors as they are.
    pub async fn purge_expired(&self) -> Result<u64> {
        self.store.purge_idempotency(self.clock.now() - REPLAY_WINDOW).await
    }
}

fn seal_context(scope: &str, key: &IdempotencyKey) -> Vec<u8> {
    format!("idempotency\0{scope}\0{}", key.as_str()).into_bytes()
}

fn reused_with_other_body() -> Error {
    Error::refused(ErrorCode::Conflict, "this Idempotency-Key was already used with a different request body")
}
