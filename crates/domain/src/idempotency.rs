//! `Idempotency-Key` handling for every POST route that honours it.
//!
//! A key is scoped (per API key, or per campaign code for app routes) and remembered for 24 hours.
//! The first request claims it; a later one with the same body replays the stored response; a
//! different body, or a request that arrives while the first is still running, is a `CONFLICT`.
//! Refused or failed requests release the key, so a corrected retry may use it again.

use std::future::Future;

use time::Duration;
use uuid::Uuid;

use crate::clock::Clock;
use crate::error::{Error, ErrorCode, Result};
use crate::ports::{ClaimRequest, Crypto, DigestPurpose, IdempotencyClaim, IdempotencyStore};

pub const REPLAY_WINDOW: Duration = Duration::HOUR.saturating_mul(24);
/// An in-flight claim older than this is presumed dead and may be taken over; the request that
/// held it can then neither complete nor release it.
pub const STALE_CLAIM: Duration = Duration::MINUTE;
pub const MAX_KEY_LEN: usize = 255;

/// A validated `Idempotency-Key` header value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IdempotencyKey(String);

impl IdempotencyKey {
    /// # Errors
    /// `ValidationFailed` when empty, longer than 255 characters, or not printable ASCII.
    pub fn parse(text: &str) -> Result<Self> {
        if text.is_empty() || text.len() > MAX_KEY_LEN {
            return Err(Error::validation("Idempotency-Key", format!("must be 1 to {MAX_KEY_LEN} characters")));
        }
        if !text.bytes().all(|b| b.is_ascii_graphic() || b == b' ') {
            return Err(Error::validation("Idempotency-Key", "must be printable ASCII"));
        }
        Ok(Self(text.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A response as it is stored and replayed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredResponse {
    pub status: u16,
    pub body: Vec<u8>,
}

/// What a request produced: the answer for this caller, and what a replay of it should say.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Completed<T> {
    pub value: T,
    pub replay: StoredResponse,
}

/// The result of running an operation under a key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Idempotent<T> {
    Fresh(T),
    Replayed(StoredResponse),
}

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

#[cfg(test)]
mod tests {
    use futures_executor::block_on;
    use time::macros::datetime;

    use super::*;
    use crate::clock::SettableClock;
    use crate::memory::{MemoryStore, TestCrypto};

    fn service() -> (Idempotency<MemoryStore, TestCrypto, SettableClock>, SettableClock) {
        let clock = SettableClock::new(datetime!(2026-01-01 10:00 UTC));
        (Idempotency::new(MemoryStore::default(), TestCrypto::default(), clock.clone()), clock)
    }

    fn completed(n: u32) -> Result<Completed<u32>> {
        Ok(Completed { value: n, replay: StoredResponse { status: 200, body: format!("replay-{n}").into_bytes() } })
    }

    #[test]
    fn keys_are_bounded_printable_ascii() {
        assert!(IdempotencyKey::parse("k").is_ok());
        assert!(IdempotencyKey::parse(&"k".repeat(255)).is_ok());
        assert!(IdempotencyKey::parse(&"k".repeat(256)).is_err());
        assert!(IdempotencyKey::parse("").is_err());
        assert!(IdempotencyKey::parse("é").is_err());
    }

    #[test]
    fn same_body_replays_and_other_body_conflicts() {
        let (idem, _) = service();
        let key = IdempotencyKey::parse("abc").expect("key");
        let first = block_on(idem.run("s", &key, b"body", || async { completed(1) })).expect("first");
        assert_eq!(first, Idempotent::Fresh(1));
        let again = block_on(idem.run("s", &key, b"body", || async { completed(2) })).expect("replay");
        assert_eq!(again, Idempotent::Replayed(StoredResponse { status: 200, body: b"replay-1".to_vec() }));
        let other = block_on(idem.run("s", &key, b"other", || async { completed(3) })).expect_err("conflict");
        assert_eq!(other.code(), ErrorCode::Conflict);
        // Another scope is another namespace.
        let scoped = block_on(idem.run("t", &key, b"other", || async { completed(4) })).expect("other scope");
        assert_eq!(scoped, Idempotent::Fresh(4));
    }

    #[test]
    fn a_failed_request_releases_the_key() {
        let (idem, _) = service();
        let key = IdempotencyKey::parse("abc").expect("key");
        let failed = block_on(
            idem.run("s", &key, b"body", || async { Err::<Completed<u32>, _>(Error::validation("name", "bad")) }),
        );
        assert!(failed.is_err());
        let retried = block_on(idem.run("s", &key, b"fixed", || async { completed(5) })).expect("retry");
        assert_eq!(retried, Idempotent::Fresh(5));
    }

    #[test]
    fn a_request_whose_claim_was_taken_over_cannot_complete_it() {
        let (idem, clock) = service();
        let key = IdempotencyKey::parse("abc").expect("key");
        let slow = block_on(idem.run("s", &key, b"slow", || async {
            // While this request hangs past the stale limit, another one takes the key over.
            clock.advance(STALE_CLAIM + Duration::SECOND);
            let taken = idem.run("s", &key, b"fast", || async { completed(2) }).await.expect("takeover");
            assert_eq!(taken, Idempotent::Fresh(2));
            completed(1)
        }))
        .expect("slow finishes");
        assert_eq!(slow, Idempotent::Fresh(1));
        let replay = block_on(idem.run("s", &key, b"fast", || async { completed(3) })).expect("replay");
        assert_eq!(replay, Idempotent::Replayed(StoredResponse { status: 200, body: b"replay-2".to_vec() }));
    }

    #[test]
    fn a_request_still_in_flight_is_a_conflict() {
        let (idem, _) = service();
        let key = IdempotencyKey::parse("abc").expect("key");
        block_on(idem.run("s", &key, b"body", || async {
            let second = idem.run("s", &key, b"body", || async { completed(2) }).await;
            assert_eq!(second.expect_err("in flight").code(), ErrorCode::Conflict);
            completed(1)
        }))
        .expect("first");
    }

    #[test]
    fn records_expire_after_the_window() {
        let (idem, clock) = service();
        let key = IdempotencyKey::parse("abc").expect("key");
        block_on(idem.run("s", &key, b"body", || async { completed(1) })).expect("first");
        clock.advance(REPLAY_WINDOW + Duration::SECOND);
        let later = block_on(idem.run("s", &key, b"different", || async { completed(2) })).expect("expired");
        assert_eq!(later, Idempotent::Fresh(2));
    }
}
