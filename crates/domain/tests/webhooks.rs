//! Endpoints, signed deliveries, the retry schedule and the purge.

use crate::common::*;
use futures_executor::block_on;
use pulse_domain::error::ErrorCode;
use pulse_domain::shared::clock::Clock;
use pulse_domain::webhooks::models::{
    DISABLE_AFTER_DEAD, DeliveryStatus, PostOutcome, SECRET_PREFIX, SubscriptionInput, SubscriptionPatch,
};
use pulse_testing::fakes::TestCrypto;
use serde_json::{Value, json};
use time::Duration;

// Webhooks.

#[test]
fn endpoints_are_checked_and_their_secret_is_shown_once() {
    let w = world();
    let p = partner(&w, true);
    let (subscription, secret) = subscribe(&w, &p, &[]);
    assert!(secret.starts_with(SECRET_PREFIX) && secret.len() == SECRET_PREFIX.len() + 43);
    assert!(subscription.is_active && subscription.event_types.is_empty());

    let create = |url: &str, types: Option<Vec<String>>| {
        let input = SubscriptionInput { url: Some(url.into()), description: None, event_types: types };
        block_on(w.webhooks.create(&p.principal, None, input)).map(|(s, _)| s)
    };
    for refused in ["http://hooks.example.com/", "https://127.0.0.1/", "https://localhost/", "https://[::1]/"] {
        assert_eq!(code_of(create(refused, None)), ErrorCode::ValidationFailed, "{refused}");
    }
    assert_eq!(code_of(create("https://hooks.example.com/", Some(vec!["x.y".into()]))), ErrorCode::ValidationFailed);
    let listed = block_on(w.webhooks.list(&p.principal, None)).expect("list");
    assert_eq!(listed, vec![subscription.clone()], "refused requests stored nothing");

    let other = partner(&w, true);
    assert_eq!(code_of(block_on(w.webhooks.get(&other.principal, None, subscription.id))), ErrorCode::NotFound);
    assert_eq!(code_of(block_on(w.webhooks.delete(&other.principal, None, subscription.id))), ErrorCode::NotFound);
    for _ in 1..pulse_domain::webhooks::models::MAX_SUBSCRIPTIONS {
        create("https://hooks.example.com/more", None).expect("room left");
    }
    assert_eq!(code_of(create("https://hooks.example.com/full", None)), ErrorCode::Conflict);
}

#[test]
fn a_finished_session_reaches_subscribed_endpoints_signed() {
    let w = world();
    let p = partner(&w, true);
    let campaign = active_open(&w, &p).campaign;
    let (received_only, secret) = subscribe(&w, &p, &["feedback.received"]);
    let (analyzed_only, _) = subscribe(&w, &p, &["feedback.analyzed"]);
    let (everything, _) = subscribe(&w, &p, &[]);

    let session = finish_a_session(&w, &campaign.code);
    assert_eq!(deliveries(&w, &p, &received_only).len(), 1);
    assert!(deliveries(&w, &p, &analyzed_only).is_empty());
    let all: Vec<_> = deliveries(&w, &p, &everything).iter().map(|d| d.event_type.as_str()).collect();
    assert_eq!(all, vec!["feedback.received"], "the page's thank-you is no respondent.acknowledged");

    assert_eq!(block_on(w.dispatcher.deliver_due(50)).expect("delivered").len(), 2);
    let sent = w.transport.sent();
    let request =
        sent.iter().find(|r| r.url == received_only.url && r.body.windows(8).any(|b| b == b"received")).expect("sent");
    let header = |name: &str| request.headers.iter().find(|(n, _)| *n == name).map(|(_, v)| v.clone()).expect(name);
    let signature = header("x-svc-signature");
    let (t, v1) = signature.strip_prefix("t=").and_then(|s| s.split_once(",v1=")).expect("t=..,v1=..");
    assert_eq!(t, w.clock.now().unix_timestamp().to_string());
    let mut signed = format!("{t}.").into_bytes();
    signed.extend_from_slice(&request.body);
    assert_eq!(v1, pulse_domain::shared::hex::encode(&TestCrypto::hmac_sha256(secret.as_bytes(), &signed)));

    let body: Value = serde_json::from_slice(&request.body).expect("json");
    assert_eq!(header("x-svc-event"), body["id"].as_str().expect("id"));
    assert_eq!(header("x-svc-event-type"), "feedback.received");
    assert_eq!(body["aggregate"], "conversation");
    assert_eq!(body["orgId"], json!(p.workspace));
    assert_eq!(
        body["payload"],
        json!({
            "conversationId": session, "campaignId": campaign.id, "publicRef": campaign.code,
            "appInstallId": null, "deviceId": null, "userId": null, "answered": 1, "total": 3})
    );
    let delivered = deliveries(&w, &p, &received_only);
    assert_eq!((delivered[0].status, delivered[0].attempts), (DeliveryStatus::Delivered, 1));
    assert_eq!(delivered[0].delivered_at, Some(w.clock.now()));
    assert_eq!(block_on(w.dispatcher.deliver_due(50)).expect("nothing due").len(), 0);
}

#[test]
fn failures_walk_the_schedule_to_dead_and_five_dead_disable_the_endpoint() {
    let w = world();
    let p = partner(&w, true);
    let campaign = active_open(&w, &p).campaign;
    let (subscription, _) = subscribe(&w, &p, &["feedback.received"]);
    finish_a_session(&w, &campaign.code);
    w.transport.answer((0..5).map(|_| failing(500)));

    let mut waits = Vec::new();
    for attempt in 1..=5 {
        assert_eq!(block_on(w.dispatcher.deliver_due(50)).expect("attempted").len(), 1, "attempt {attempt}");
        let delivery = deliveries(&w, &p, &subscription).remove(0);
        assert_eq!(delivery.attempts, attempt);
        assert_eq!(delivery.last_status_code, Some(500));
        match delivery.next_attempt_at {
            Some(next) => {
                assert_eq!(delivery.status, DeliveryStatus::Failed);
                assert_eq!(block_on(w.dispatcher.deliver_due(50)).expect("not yet due").len(), 0);
                waits.push((next - w.clock.now()).whole_seconds());
                w.clock.set(next);
            }
            None => assert_eq!(delivery.status, DeliveryStatus::Dead),
        }
    }
    assert_eq!(waits, vec![60, 300, 1800, 7200]);
    assert_eq!(deliveries(&w, &p, &subscription)[0].history.len(), 5);

    for _ in 1..DISABLE_AFTER_DEAD {
        let current = block_on(w.webhooks.get(&p.principal, None, subscription.id)).expect("endpoint");
        assert!(current.is_active, "fewer than five DEAD in a row leave the endpoint active");
        finish_a_session(&w, &campaign.code);
        w.transport.answer((0..5).map(|_| PostOutcome {
            status_code: None,
            error: Some("timed out".into()),
            duration_ms: 9,
        }));
        for _ in 0..5 {
            block_on(w.dispatcher.deliver_due(50)).expect("attempted").len();
            w.clock.advance(Duration::hours(3));
        }
    }
    let disabled = block_on(w.webhooks.get(&p.principal, None, subscription.id)).expect("endpoint");
    assert!(!disabled.is_active);
    assert!(disabled.disabled_at.is_some());
    assert!(disabled.disabled_reason.as_deref().is_some_and(|r| r.contains("timed out")), "{disabled:?}");

    finish_a_session(&w, &campaign.code);
    assert_eq!(deliveries(&w, &p, &subscription).len(), 5, "a disabled endpoint gets no new deliveries");
    let patch = SubscriptionPatch { is_active: Some(true), ..SubscriptionPatch::default() };
    let enabled = block_on(w.webhooks.update(&p.principal, None, subscription.id, patch)).expect("re-enabled");
    assert!(enabled.is_active && enabled.disabled_at.is_none() && enabled.disabled_reason.is_none());
}

#[test]
fn a_lost_claim_records_nothing_and_the_delivery_is_sent_again() {
    let w = world();
    let p = partner(&w, true);
    let (subscription, _) = subscribe(&w, &p, &[]);
    block_on(w.webhooks.simulate(&p.principal, None, subscription.id)).expect("queued");
    let first = block_on(w.dispatcher.claim(10)).expect("claimed");
    assert_eq!(first.len(), 1);
    assert!(block_on(w.dispatcher.claim(10)).expect("claim").is_empty(), "a claimed delivery is not claimed twice");

    w.clock.advance(Duration::seconds(71));
    let second = block_on(w.dispatcher.claim(10)).expect("claimed again after the lease");
    assert_eq!(second.len(), 1);
    assert_eq!(block_on(w.dispatcher.attempt(&second[0])).expect("sent").status, DeliveryStatus::Delivered);
    assert_eq!(block_on(w.dispatcher.attempt(&first[0])).expect("sent").status, DeliveryStatus::Delivered);
    let delivery = deliveries(&w, &p, &subscription).remove(0);
    assert_eq!(delivery.attempts, 1, "the stale claim's attempt was not recorded");
    assert_eq!(delivery.event_type.as_str(), "webhook.test");
    let ids: Vec<_> = w.transport.sent().iter().map(|r| r.body.clone()).collect();
    assert_eq!(ids.len(), 2);
    assert_eq!(ids[0], ids[1], "the receiver saw the same event twice: at least once, never lost");
}

#[test]
fn finished_events_are_forgotten_after_thirty_days_and_open_ones_kept() {
    let w = world();
    let p = partner(&w, true);
    let (subscription, _) = subscribe(&w, &p, &[]);
    block_on(w.webhooks.simulate(&p.principal, None, subscription.id)).expect("queued");
    block_on(w.webhooks.simulate(&p.principal, None, subscription.id)).expect("queued");
    w.transport.answer([failing(200), failing(503)]);
    assert_eq!(block_on(w.dispatcher.deliver_due(50)).expect("attempted").len(), 2);

    w.clock.advance(pulse_domain::webhooks::models::EVENT_RETENTION - Duration::MINUTE);
    assert_eq!(block_on(w.webhooks.purge_old_events()).expect("purged"), 0, "kept for thirty days");
    w.clock.advance(Duration::MINUTE * 2);
    assert_eq!(block_on(w.webhooks.purge_old_events()).expect("purged"), 1);
    let left = deliveries(&w, &p, &subscription);
    assert_eq!(left.len(), 1);
    assert_eq!(left[0].status, DeliveryStatus::Failed, "a delivery still to attempt keeps its event");
}
