//! `WebhookRepository`: a claimed delivery is held by its lease, concurrent claims never share a
//! delivery, and only the holder of the live claim records an attempt.

use futures_util::future::join;
use pulse_domain::shared::clock::Clock;
use pulse_domain::webhooks::models::{AttemptRecord, Claim, DeliveryStatus, SubscriptionInput};
use time::Duration;
use uuid::Uuid;

use super::{Store, World};

pub async fn a_claimed_delivery_is_held_by_its_lease_and_only_its_holder_records<S: Store>(store: S) {
    let w = World::new(store);
    let partner = w.partner("Acme").await;
    let input =
        SubscriptionInput { url: Some("https://hooks.example.com/pulse".into()), description: None, event_types: None };
    let (subscription, _) = w.webhooks.create(&partner.principal, None, input).await.expect("subscribed");
    for _ in 0..4 {
        w.webhooks.simulate(&partner.principal, None, subscription.id).await.expect("queued");
    }
    let now = w.clock.now();
    let claim = |lease: Duration| Claim { token: Uuid::new_v4(), now, lease_until: now + lease, limit: 3 };
    let (a, b) =
        join(w.store.claim_deliveries(&claim(Duration::MINUTE)), w.store.claim_deliveries(&claim(Duration::MINUTE)))
            .await;
    let (a, b) = (a.expect("claimed"), b.expect("claimed"));
    assert_eq!(a.len() + b.len(), 4, "every due delivery is claimed once");
    assert!(a.iter().all(|x| b.iter().all(|y| x.id != y.id)), "concurrent claims share nothing");
    assert!(w.store.claim_deliveries(&claim(Duration::MINUTE)).await.expect("claimed").is_empty(), "all are leased");

    let held = a.first().or(b.first()).expect("a claimed delivery").clone();
    let later = now + Duration::MINUTE + Duration::SECOND;
    let retaken = w
        .store
        .claim_deliveries(&Claim { token: Uuid::new_v4(), now: later, lease_until: later + Duration::MINUTE, limit: 4 })
        .await
        .expect("claimed");
    let again = retaken.iter().find(|d| d.id == held.id).expect("claimed again once its lease ended");
    let record = |token| AttemptRecord {
        delivery: held.id,
        claim_token: token,
        subscription: subscription.id,
        attempt: 1,
        attempted_at: later,
        status: DeliveryStatus::Delivered,
        next_attempt_at: None,
        status_code: Some(204),
        error: None,
        duration_ms: 3,
        disable_reason: String::new(),
    };
    assert!(
        !w.store.record_attempt(&record(held.claim_token)).await.expect("recorded"),
        "a lost claim records nothing"
    );
    assert!(w.store.record_attempt(&record(again.claim_token)).await.expect("recorded"));
}
