//! Endpoints, signed deliveries, the retry schedule and the purge.

use crate::common::*;
use futures_executor::block_on;
use pulse_domain::error::ErrorCode;
use pulse_domain::shared::clock::Clock;
use pulse_domain::webhooks::models::{
    CLAIM_BATCH, DISABLE_AFTER_DEAD, DeliveryStatus, EVENT_PURGE_BATCH, EVENT_RETENTION, PostOutcome, RedeliveryInput,
    RedeliveryView, SECRET_PREFIX, Subscription, SubscriptionInput, SubscriptionPatch,
};
use pulse_domain::webhooks::models::{OutboundRequest, RetrySchedule, WebhookUrl};
use pulse_domain::webhooks::ports::WebhookTransport;
use pulse_domain::webhooks::service::{Dispatched, Dispatcher, Pace};
use pulse_testing::fakes::RecordingTransport;
use pulse_testing::fakes::TestCrypto;
use secrecy::ExposeSecret as _;
use serde_json::{Value, json};
use std::cell::{Cell, RefCell};
use std::future::ready;
use std::sync::atomic::{AtomicBool, Ordering};
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

    w.clock.advance(EVENT_RETENTION - Duration::MINUTE);
    assert_eq!(block_on(w.webhooks.purge_old_events(|| true)).expect("purged"), 0, "kept for thirty days");
    w.clock.advance(Duration::MINUTE * 2);
    // The delivered one, and the workspace's approval, which no endpoint heard.
    assert_eq!(block_on(w.webhooks.purge_old_events(|| true)).expect("purged"), 2);
    let left = deliveries(&w, &p, &subscription);
    assert_eq!(left.len(), 1);
    assert_eq!(left[0].status, DeliveryStatus::Failed, "a delivery still to attempt keeps its event");
}

#[test]
fn the_worker_claims_whenever_there_is_room_and_rests_after_a_short_claim() {
    let w = world();
    let p = partner(&w, true);
    let (subscription, _) = subscribe(&w, &p, &[]);
    for _ in 0..250 {
        block_on(w.webhooks.simulate(&p.principal, None, subscription.id)).expect("queued");
    }
    let pace = Pace { batch: 100, attempts_in_flight: 150, poll_every: Duration::seconds(5) };
    let (claims, rests, attempted) = (RefCell::new(Vec::new()), RefCell::new(Vec::new()), Cell::new(0));
    let rest = |pause| {
        rests.borrow_mut().push(pause);
        ready(())
    };
    let report = |event| match event {
        Dispatched::Claimed(n) => claims.borrow_mut().push(n),
        Dispatched::Attempted(a) => {
            assert_eq!(a.status, DeliveryStatus::Delivered);
            attempted.set(attempted.get() + 1);
        }
        Dispatched::ClaimFailed(error) | Dispatched::Unrecorded(_, error) => panic!("{error}"),
        Dispatched::Panicked(delivery) => panic!("the attempt at {delivery} panicked"),
    };
    block_on(w.dispatcher.run(&pace, || rests.borrow().is_empty(), rest, report));
    assert_eq!(*claims.borrow(), [100, 100, 50], "another batch once the first left room for it");
    assert_eq!(*rests.borrow(), [Duration::seconds(5)], "a rest after the claim that came short");
    assert_eq!(attempted.get(), 250, "told to stop, it finished every attempt under way");
    assert_eq!(w.transport.sent().len(), 250);
}

/// Panics at its first post, then posts through the world's transport.
struct PanicsOnce {
    panicked: AtomicBool,
    then: RecordingTransport,
}

impl WebhookTransport for PanicsOnce {
    async fn check_target(&self, url: &WebhookUrl) -> pulse_domain::Result<()> {
        self.then.check_target(url).await
    }

    async fn post(&self, request: &OutboundRequest) -> PostOutcome {
        assert!(self.panicked.swap(true, Ordering::SeqCst), "a bug in the transport");
        self.then.post(request).await
    }
}

#[test]
fn an_attempt_that_panics_ends_alone_and_its_delivery_waits_for_its_lease() {
    let w = world();
    let p = partner(&w, true);
    let (subscription, _) = subscribe(&w, &p, &[]);
    for _ in 0..2 {
        block_on(w.webhooks.simulate(&p.principal, None, subscription.id)).expect("queued");
    }
    let transport = PanicsOnce { panicked: AtomicBool::new(false), then: w.transport.clone() };
    let lease = Duration::seconds(70);
    let dispatcher =
        Dispatcher::new(w.store.clone(), w.crypto.clone(), w.clock.clone(), transport, RetrySchedule::default(), lease);
    let refused = block_on(dispatcher.deliver_due(10));
    assert_eq!(code_of(refused), ErrorCode::Internal, "the panic is reported once every attempt ran");
    assert_eq!(w.transport.sent().len(), 1, "the other attempt went on");
    let statuses: Vec<_> = deliveries(&w, &p, &subscription).iter().map(|d| (d.status, d.attempts)).collect();
    assert!(statuses.contains(&(DeliveryStatus::Delivered, 1)) && statuses.contains(&(DeliveryStatus::Pending, 0)));

    assert_eq!(block_on(dispatcher.deliver_due(10)).expect("nothing due").len(), 0, "still held by its claim");
    w.clock.advance(lease + Duration::SECOND);
    assert_eq!(block_on(dispatcher.deliver_due(10)).expect("sent again")[0].status, DeliveryStatus::Delivered);
}

#[test]
fn a_purge_goes_on_batch_after_batch_until_none_is_left_or_it_is_told_to_stop() {
    let w = world();
    let p = partner(&w, true);
    let (subscription, _) = subscribe(&w, &p, &[]);
    for _ in 0..=2 * EVENT_PURGE_BATCH {
        block_on(w.webhooks.simulate(&p.principal, None, subscription.id)).expect("queued");
    }
    while !block_on(w.dispatcher.deliver_due(CLAIM_BATCH)).expect("attempted").is_empty() {}
    w.clock.advance(EVENT_RETENTION + Duration::MINUTE);

    let first = block_on(w.webhooks.purge_old_events(|| false)).expect("purged");
    assert_eq!(first, u64::from(EVENT_PURGE_BATCH), "told to stop, it stops after a batch");
    let rest = block_on(w.webhooks.purge_old_events(|| true)).expect("purged");
    // With the workspace's approval, which no endpoint heard.
    assert_eq!(rest, u64::from(EVENT_PURGE_BATCH) + 2, "the rest, in two batches");
    assert!(deliveries(&w, &p, &subscription).is_empty());
}

/// The secrets whose `v1` signatures the last request sent carries, in the header's order, among
/// `candidates`; every `v1` must verify with one of them.
fn signed_with<'a>(w: &World, candidates: &[&'a str]) -> Vec<&'a str> {
    let sent = w.transport.sent();
    let request = sent.last().expect("a request was sent");
    let header =
        request.headers.iter().find(|(n, _)| *n == "x-svc-signature").map(|(_, v)| v.as_str()).expect("signed");
    let mut parts = header.split(',');
    let t = parts.next().and_then(|t| t.strip_prefix("t=")).expect("t= first");
    assert_eq!(t, w.clock.now().unix_timestamp().to_string());
    let mut signed = format!("{t}.").into_bytes();
    signed.extend_from_slice(&request.body);
    parts
        .map(|part| {
            let v1 = part.strip_prefix("v1=").expect("v1=");
            let by = |secret: &&&str| {
                v1 == pulse_domain::shared::hex::encode(&TestCrypto::hmac_sha256(secret.as_bytes(), &signed))
            };
            *candidates.iter().find(by).unwrap_or_else(|| panic!("{v1} verifies with no secret"))
        })
        .collect()
}

#[test]
fn a_rotated_secret_signs_next_to_the_new_one_until_its_grace_ends() {
    let w = world();
    let p = partner(&w, true);
    let (subscription, first) = subscribe(&w, &p, &[]);
    let rotate = |grace: Option<i64>| {
        block_on(w.webhooks.rotate_secret(&p.principal, None, subscription.id, grace))
            .map(|(secret, expires)| (secret.expose_secret().to_owned(), expires))
    };
    let send = || {
        block_on(w.webhooks.simulate(&p.principal, None, subscription.id)).expect("queued");
        assert_eq!(block_on(w.dispatcher.deliver_due(10)).expect("sent").len(), 1);
    };

    let (second, expires) = rotate(None).expect("rotated");
    assert!(second.starts_with(SECRET_PREFIX) && second.len() == first.len() && second != first);
    assert_eq!(expires, Some(w.clock.now() + Duration::days(1)), "a day by default");
    send();
    assert_eq!(signed_with(&w, &[&first, &second]), [first.as_str(), second.as_str()], "the old, then the new");

    // A rotation within the grace retires the secret it replaces; the first one stops at once.
    w.clock.advance(Duration::hours(1));
    let (third, expires) = rotate(Some(600)).expect("rotated");
    assert_eq!(expires, Some(w.clock.now() + Duration::minutes(10)));
    send();
    assert_eq!(signed_with(&w, &[&first, &second, &third]), [second.as_str(), third.as_str()]);

    w.clock.advance(Duration::minutes(10) - Duration::SECOND);
    send();
    assert_eq!(signed_with(&w, &[&second, &third]), [second.as_str(), third.as_str()], "still within the grace");
    w.clock.advance(Duration::SECOND);
    send();
    assert_eq!(signed_with(&w, &[&second, &third]), [third.as_str()], "the grace has ended");

    // Grace 0: the replaced secret stops at once.
    let (fourth, expires) = rotate(Some(0)).expect("rotated");
    assert_eq!(expires, None);
    send();
    assert_eq!(signed_with(&w, &[&third, &fourth]), [fourth.as_str()]);

    for refused in [-1, 604_801] {
        let error = rotate(Some(refused)).expect_err("refused");
        assert_eq!(error.code(), ErrorCode::ValidationFailed);
        assert!(error.to_string().contains("graceSeconds") && !error.to_string().contains(&refused.to_string()));
    }
    assert!(rotate(Some(604_800)).is_ok(), "seven days at most");
    let other = partner(&w, true);
    let stranger = block_on(w.webhooks.rotate_secret(&other.principal, None, subscription.id, None));
    assert_eq!(code_of(stranger), ErrorCode::NotFound);
    assert_eq!(block_on(w.webhooks.list(&p.principal, None)).expect("listed"), vec![subscription], "reads unchanged");
}

/// Makes `attempts` failed attempts at the endpoint's newest delivery, following its schedule with
/// the clock; returns the waits between them.
fn fail_attempts(w: &World, p: &Partner, subscription: &Subscription, attempts: usize) -> Vec<i64> {
    w.transport.answer((0..attempts).map(|_| failing(503)));
    let mut waits = Vec::new();
    for _ in 0..attempts {
        assert_eq!(block_on(w.dispatcher.deliver_due(10)).expect("attempted").len(), 1);
        let delivery = deliveries(w, p, subscription).remove(0);
        if let (DeliveryStatus::Failed, Some(next)) = (delivery.status, delivery.next_attempt_at) {
            waits.push((next - w.clock.now()).whole_seconds());
            w.clock.set(next);
        }
    }
    waits
}

#[test]
fn a_redelivered_dead_delivery_keeps_its_ids_and_gets_a_fresh_schedule() {
    let w = world();
    let p = partner(&w, true);
    let (subscription, _) = subscribe(&w, &p, &[]);
    let queued = block_on(w.webhooks.simulate(&p.principal, None, subscription.id)).expect("queued");
    assert_eq!(fail_attempts(&w, &p, &subscription, 5), [60, 300, 1800, 7200]);
    assert_eq!(deliveries(&w, &p, &subscription)[0].status, DeliveryStatus::Dead);

    let redeliver = |delivery| block_on(w.webhooks.redeliver(&p.principal, None, subscription.id, delivery));
    let requeued = redeliver(queued.id).expect("redelivered");
    assert_eq!(
        (requeued.status, requeued.next_attempt_at, requeued.attempts),
        (DeliveryStatus::Pending, Some(w.clock.now()), 5)
    );
    let first = RedeliveryView { requested_at: w.clock.now(), attempts_before: 5 };
    assert_eq!(requeued.redeliveries, [first]);
    assert_eq!(redeliver(queued.id).expect("again").redeliveries, [first], "a waiting delivery is only made due");

    // The limit counts from the redelivery: five more attempts on the same schedule, then DEAD.
    assert_eq!(fail_attempts(&w, &p, &subscription, 5), [60, 300, 1800, 7200]);
    let dead = deliveries(&w, &p, &subscription).remove(0);
    assert_eq!((dead.status, dead.attempts, dead.history.len()), (DeliveryStatus::Dead, 10, 10));
    let numbers: Vec<u32> = dead.history.iter().map(|a| a.attempt).collect();
    assert_eq!(numbers, (1..=10).collect::<Vec<_>>(), "attempt numbers go on counting");

    w.clock.advance(Duration::hours(1));
    redeliver(queued.id).expect("redelivered");
    assert_eq!(block_on(w.dispatcher.deliver_due(10)).expect("sent")[0].status, DeliveryStatus::Delivered);
    let delivered = deliveries(&w, &p, &subscription).remove(0);
    assert_eq!((delivered.attempts, delivered.delivered_at), (11, Some(w.clock.now())));
    let attempts_before: Vec<u32> = delivered.redeliveries.iter().map(|r| r.attempts_before).collect();
    assert_eq!(attempts_before, [5, 10]);
    let sent = w.transport.sent();
    assert_eq!(sent.len(), 11);
    let header = |i: usize, name: &str| sent[i].headers.iter().find(|(n, _)| *n == name).map(|(_, v)| v.clone());
    for i in 0..sent.len() {
        assert_eq!(header(i, "x-svc-event").as_deref(), Some(queued.event_id.to_string().as_str()));
        assert_eq!(header(i, "x-svc-delivery").as_deref(), Some(queued.id.to_string().as_str()));
    }
    let again = redeliver(queued.id).expect("a delivered one too");
    assert_eq!((again.status, again.delivered_at, again.redeliveries.len()), (DeliveryStatus::Pending, None, 3));

    // A delivery a worker holds keeps its lease: it is not sent twice at once.
    let held = block_on(w.dispatcher.claim(10)).expect("claimed");
    assert_eq!(held.len(), 1);
    let lease = deliveries(&w, &p, &subscription)[0].next_attempt_at;
    assert_eq!(redeliver(queued.id).expect("answered").next_attempt_at, lease);
    assert!(block_on(w.dispatcher.claim(10)).expect("claim").is_empty(), "no second worker takes it");

    let other = partner(&w, true);
    let stranger = block_on(w.webhooks.redeliver(&other.principal, None, subscription.id, queued.id));
    assert_eq!(code_of(stranger), ErrorCode::NotFound);
    assert_eq!(code_of(redeliver(pulse_domain::ids::DeliveryId::new_random())), ErrorCode::NotFound);
    let (elsewhere, _) = subscribe(&w, &p, &[]);
    let crossed = block_on(w.webhooks.redeliver(&p.principal, None, elsewhere.id, queued.id));
    assert_eq!(code_of(crossed), ErrorCode::NotFound, "a delivery of another endpoint");
    let paused = SubscriptionPatch { is_active: Some(false), ..SubscriptionPatch::default() };
    block_on(w.webhooks.update(&p.principal, None, subscription.id, paused)).expect("paused");
    let error = redeliver(queued.id).expect_err("refused");
    assert_eq!(error.code(), ErrorCode::Conflict);
    assert!(error.to_string().contains("PATCH isActive true"), "{error}");
}

#[test]
fn a_bulk_redelivery_sends_again_the_failed_and_dead_deliveries_of_its_range_only() {
    let w = world();
    let p = partner(&w, true);
    let (subscription, _) = subscribe(&w, &p, &[]);
    let start = w.clock.now();
    // Five events an hour apart: DEAD, FAILED, DELIVERED, DEAD, DEAD. The FAILED one comes last,
    // so that no other's walk retries it.
    let mut queued = vec![None; 5];
    for (hour, answers) in [(0, 5), (2, 0), (3, 5), (4, 5), (1, 1)] {
        w.clock.set(start + Duration::hours(hour));
        let delivery = block_on(w.webhooks.simulate(&p.principal, None, subscription.id)).expect("queued");
        if answers == 0 {
            assert_eq!(block_on(w.dispatcher.deliver_due(10)).expect("sent").len(), 1);
        } else {
            fail_attempts(&w, &p, &subscription, answers);
        }
        queued[usize::try_from(hour).expect("small")] = Some(delivery.id);
    }
    let queued: Vec<_> = queued.into_iter().map(|id| id.expect("queued")).collect();
    // Before the FAILED one's retry is due.
    w.clock.set(start + Duration::hours(1) + Duration::seconds(30));
    let status_of = |id| deliveries(&w, &p, &subscription).into_iter().find(|d| d.id == id).expect("a delivery");

    let rfc = |at: time::OffsetDateTime| at.format(&time::format_description::well_known::Rfc3339).expect("formats");
    let range = |from: &str, to: &str, statuses: Option<Vec<&str>>| RedeliveryInput {
        from: Some(from.to_owned()),
        to: Some(to.to_owned()),
        statuses: statuses.map(|s| s.into_iter().map(str::to_owned).collect()),
    };
    let bulk = |input| block_on(w.webhooks.redeliver_range(&p.principal, None, subscription.id, input));
    let (from, to) = (rfc(start + Duration::hours(1)), rfc(start + Duration::hours(4)));
    for (input, field) in [
        (RedeliveryInput { to: Some(to.clone()), ..RedeliveryInput::default() }, "`from`"),
        (range("yesterday", &to, None), "`from`"),
        (range(&from, &from, None), "`to`"),
        (range(&from, &rfc(start + Duration::days(32)), None), "`to`"),
        (range(&from, &to, Some(vec!["DELIVERED"])), "`statuses[0]`"),
        (range(&from, &to, Some(vec!["DEAD", "nope"])), "`statuses[1]`"),
    ] {
        let error = bulk(input).expect_err("refused");
        assert_eq!(error.code(), ErrorCode::ValidationFailed);
        assert!(error.to_string().contains(field) && !error.to_string().contains("nope"), "{error}");
    }

    assert_eq!(bulk(range(&from, &to, Some(vec!["DEAD"]))).expect("queued"), 1, "the DEAD one of the range");
    assert_eq!(bulk(range(&from, &to, None)).expect("queued"), 1, "then the FAILED one; the other is waiting now");
    let statuses: Vec<DeliveryStatus> = queued.iter().map(|id| status_of(*id).status).collect();
    use DeliveryStatus::{Dead, Delivered, Failed, Pending};
    assert_eq!(statuses, [Dead, Failed, Delivered, Pending, Dead], "nothing outside the range, nothing delivered");
    assert_eq!(status_of(queued[1]).next_attempt_at, Some(w.clock.now()), "the FAILED one is due now");
    assert!(status_of(queued[1]).redeliveries.is_empty(), "and was only made due");
    assert_eq!(status_of(queued[3]).redeliveries.len(), 1);
}
