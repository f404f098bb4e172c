//! `IdempotencyStore`: one live claim per scope and key, replays of completed responses, and
//! take-overs of released, expired or stale claims.

use pulse_domain::idempotency::models::{ClaimRequest, IdempotencyClaim};
use pulse_domain::idempotency::ports::IdempotencyStore;
use time::macros::datetime;
use time::{Duration, OffsetDateTime};
use uuid::Uuid;

const NOW: OffsetDateTime = datetime!(2026-01-01 10:00 UTC);

fn request<'a>(key: &'a str, token: Uuid, now: OffsetDateTime) -> ClaimRequest<'a> {
    ClaimRequest {
        scope: "key:contract",
        key,
        token,
        fingerprint: b"fingerprint",
        now,
        expired_before: now - Duration::DAY,
        stale_before: now - Duration::MINUTE,
    }
}

pub async fn a_claim_is_exclusive_until_completed_then_replays<S: IdempotencyStore>(store: S) {
    let (first, second) = (Uuid::new_v4(), Uuid::new_v4());
    assert_eq!(store.claim(&request("k1", first, NOW)).await.expect("claim"), IdempotencyClaim::Claimed);
    assert_eq!(
        store.claim(&request("k1", second, NOW)).await.expect("claim"),
        IdempotencyClaim::InFlight { fingerprint: b"fingerprint".to_vec() }
    );
    assert_eq!(
        store.claim(&request("k2", second, NOW)).await.expect("claim"),
        IdempotencyClaim::Claimed,
        "another key is another claim"
    );
    store.complete("key:contract", "k1", first, 201, b"sealed").await.expect("complete");
    assert_eq!(
        store.claim(&request("k1", second, NOW + Duration::HOUR)).await.expect("claim"),
        IdempotencyClaim::Completed {
            fingerprint: b"fingerprint".to_vec(),
            status: 201,
            sealed_body: b"sealed".to_vec()
        }
    );
}

pub async fn a_released_expired_or_stale_claim_is_taken_again<S: IdempotencyStore>(store: S) {
    let (first, second) = (Uuid::new_v4(), Uuid::new_v4());
    store.claim(&request("released", first, NOW)).await.expect("claim");
    store.release("key:contract", "released", first).await.expect("release");
    assert_eq!(store.claim(&request("released", second, NOW)).await.expect("claim"), IdempotencyClaim::Claimed);

    store.claim(&request("stale", first, NOW)).await.expect("claim");
    let later = NOW + Duration::MINUTE + Duration::SECOND;
    assert_eq!(
        store.claim(&request("stale", second, later)).await.expect("claim"),
        IdempotencyClaim::Claimed,
        "an in-flight claim older than the stale limit is presumed dead"
    );

    store.claim(&request("expired", first, NOW)).await.expect("claim");
    store.complete("key:contract", "expired", first, 200, b"old").await.expect("complete");
    let next_day = NOW + Duration::DAY + Duration::SECOND;
    assert_eq!(store.claim(&request("expired", second, next_day)).await.expect("claim"), IdempotencyClaim::Claimed);
    assert_eq!(store.purge_idempotency(next_day).await.expect("purge"), 2, "records created before then");
    assert_eq!(store.purge_idempotency(next_day + Duration::SECOND).await.expect("purge"), 1);
}

pub async fn only_the_claiming_request_completes_or_releases<S: IdempotencyStore>(store: S) {
    let (owner, stranger) = (Uuid::new_v4(), Uuid::new_v4());
    store.claim(&request("k", owner, NOW)).await.expect("claim");
    store.complete("key:contract", "k", stranger, 200, b"not mine").await.expect("complete");
    store.release("key:contract", "k", stranger).await.expect("release");
    assert_eq!(
        store.claim(&request("k", stranger, NOW)).await.expect("claim"),
        IdempotencyClaim::InFlight { fingerprint: b"fingerprint".to_vec() },
        "a stranger's token changes nothing"
    );
    store.complete("key:contract", "k", owner, 200, b"mine").await.expect("complete");
    assert!(matches!(
        store.claim(&request("k", stranger, NOW)).await.expect("claim"),
        IdempotencyClaim::Completed { status: 200, .. }
    ));
}
