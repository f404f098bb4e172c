//! Claims, replays, conflicts and releases of `Idempotency-Key` requests.
use futures_executor::block_on;
use pulse_domain::error::{Error, ErrorCode, Result};
use pulse_domain::idempotency::models::{
    Completed, IdempotencyKey, Idempotent, REPLAY_WINDOW, STALE_CLAIM, StoredResponse,
};
use time::Duration;
use time::macros::datetime;

use pulse_domain::idempotency::service::*;
use pulse_domain::shared::clock::SettableClock;
use pulse_testing::{MemoryStore, fakes::TestCrypto};

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
    let failed =
        block_on(idem.run("s", &key, b"body", || async { Err::<Completed<u32>, _>(Error::validation("name", "bad")) }));
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
