//! `WebhookRepository`: a claimed delivery is held by its lease, concurrent claims never share a
//! delivery, only the holder of the live claim records an attempt, and attempts recorded at once
//! each count once in their endpoint's run of DEAD deliveries, and deliveries of every event type and
//! aggregate are read back as written. A rotated secret is claimed with its delivery until it
//! expires, and only the latest one is kept. A redelivery requeues what is finished, makes due
//! what waits, leaves a held delivery to its lease, and a bulk one takes exactly its range. An event
//! is purged once it is older than the purge's cut-off and every delivery of it is finished.
//! Each of a partner's actions on an endpoint writes one audit entry with it, and one that does
//! nothing writes none.

use futures_util::future::{join, join_all};
use pulse_domain::audit::models::{AuditAction, AuditEntry, AuditQuery};
use pulse_domain::error::ErrorCode;
use pulse_domain::ids::{DeliveryId, EventId, WebhookId};
use pulse_domain::shared::clock::Clock;
use pulse_domain::shared::paging::PageRequest;
use pulse_domain::webhooks::models::{
    AttemptRecord, Claim, ClaimedDelivery, DISABLE_AFTER_DEAD, DeliveryStatus, DeliveryView, EventType, NewEvent,
    NewSubscription, PreviousSecret, RedeliveryInput, RedeliveryRange, RedeliveryView, SecretRotation, Subscription,
    SubscriptionChanges, SubscriptionInput, SubscriptionPatch, aggregate,
};
use time::Duration;
use uuid::Uuid;

use super::{Partner, Store, World};

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

/// An endpoint of `partner` with `deliveries` test deliveries queued.
pub async fn endpoint_with<S: Store>(w: &World<S>, partner: &Partner, deliveries: usize) -> WebhookId {
    let input =
        SubscriptionInput { url: Some("https://hooks.example.com/pulse".into()), description: None, event_types: None };
    let (subscription, _) = w.webhooks.create(&partner.principal, None, input).await.expect("subscribed");
    for _ in 0..deliveries {
        w.webhooks.simulate(&partner.principal, None, subscription.id).await.expect("queued");
    }
    subscription.id
}

async fn endpoint_of<S: Store>(w: &World<S>, partner: &Partner, id: WebhookId) -> Subscription {
    w.store.find_subscription(partner.workspace, id).await.expect("read").expect("an endpoint")
}

async fn trail_of<S: Store>(w: &World<S>, id: WebhookId) -> Vec<DeliveryView> {
    w.store.list_deliveries(id, &PageRequest { limit: 20, after: None }).await.expect("listed")
}

/// The entry the service writes when `partner` does `action` to the endpoint `id` now.
fn audit<S: Store>(w: &World<S>, partner: &Partner, action: AuditAction, id: WebhookId) -> AuditEntry {
    AuditEntry::by_key(&partner.principal, partner.workspace, action, id, w.clock.now())
}

/// The outcome of an attempt at `delivery`, made under `token`.
pub fn outcome(
    delivery: &ClaimedDelivery,
    token: Uuid,
    status: DeliveryStatus,
    at: time::OffsetDateTime,
) -> AttemptRecord {
    let failed = status != DeliveryStatus::Delivered;
    AttemptRecord {
        delivery: delivery.id,
        claim_token: token,
        subscription: delivery.subscription_id,
        attempt: delivery.attempts + 1,
        attempted_at: at,
        status,
        next_attempt_at: (status == DeliveryStatus::Failed).then_some(at + Duration::MINUTE),
        status_code: Some(if failed { 500 } else { 204 }),
        error: failed.then(|| "HTTP 500".to_owned()),
        duration_ms: 4,
        disable_reason: format!("disabled after {}", delivery.id),
    }
}

pub async fn attempts_recorded_at_once_each_count_once_in_their_endpoints_run<S: Store>(store: S) {
    let w = World::new(store);
    let partner = w.partner("Acme").await;
    let dying = endpoint_with(&w, &partner, 5).await;
    let recovering = endpoint_with(&w, &partner, 6).await;
    let lost = endpoint_with(&w, &partner, 1).await;
    let retried = endpoint_with(&w, &partner, 1).await;
    let now = w.clock.now();
    let claimed = w
        .store
        .claim_deliveries(&Claim { token: Uuid::new_v4(), now, lease_until: now + Duration::MINUTE, limit: 20 })
        .await
        .expect("claimed");
    assert_eq!(claimed.len(), 13);
    let of = |endpoint: WebhookId| claimed.iter().filter(move |d| d.subscription_id == endpoint);
    let mut recovering_deliveries = of(recovering);
    let first_dead = recovering_deliveries.next().expect("a delivery");
    let recovered = recovering_deliveries.next().expect("a delivery");
    let later_dead: Vec<&ClaimedDelivery> = recovering_deliveries.collect();

    // One DEAD delivery starts the recovering endpoint's run before the others arrive.
    let record = |d: &ClaimedDelivery, status| outcome(d, d.claim_token, status, now);
    assert!(w.store.record_attempt(&record(first_dead, DeliveryStatus::Dead)).await.expect("recorded"));

    let mut together: Vec<AttemptRecord> = of(dying).map(|d| record(d, DeliveryStatus::Dead)).collect();
    together.push(record(recovered, DeliveryStatus::Delivered));
    let stale = of(lost).next().expect("a delivery");
    together.push(outcome(stale, Uuid::new_v4(), DeliveryStatus::Delivered, now));
    together.push(record(of(retried).next().expect("a delivery"), DeliveryStatus::Failed));
    let answers = join_all(together.iter().map(|a| w.store.record_attempt(a))).await;
    let answers: Vec<bool> = answers.into_iter().map(|a| a.expect("recorded")).collect();
    assert_eq!(answers, [true, true, true, true, true, true, false, true], "only the lost claim records nothing");

    let endpoint = |id| endpoint_of(&w, &partner, id);
    let dead = endpoint(dying).await;
    assert!(!dead.is_active && dead.disabled_at == Some(now), "five DEAD deliveries in a row disable the endpoint");
    let reasons: Vec<String> = of(dying).map(|d| format!("disabled after {}", d.id)).collect();
    assert!(dead.disabled_reason.as_ref().is_some_and(|r| reasons.contains(r)), "{:?}", dead.disabled_reason);

    // Four more DEAD deliveries: five in all, but the delivered one ended the run after the first.
    assert_eq!(later_dead.len(), usize::try_from(DISABLE_AFTER_DEAD - 1).expect("small"));
    for d in later_dead {
        assert!(w.store.record_attempt(&record(d, DeliveryStatus::Dead)).await.expect("recorded"));
    }
    assert!(endpoint(recovering).await.is_active, "the run restarted at the delivered one");
    assert!(endpoint(lost).await.is_active && endpoint(retried).await.is_active);

    let trail = |id| trail_of(&w, id);
    for delivery in trail(dying).await {
        assert_eq!((delivery.status, delivery.attempts, delivery.history.len()), (DeliveryStatus::Dead, 1, 1));
        assert_eq!(delivery.next_attempt_at, None);
    }
    let untouched = trail(lost).await.remove(0);
    assert_eq!((untouched.status, untouched.attempts), (DeliveryStatus::Pending, 0), "a lost claim writes nothing");
    assert!(untouched.history.is_empty());
    let failed = trail(retried).await.remove(0);
    assert_eq!((failed.status, failed.next_attempt_at), (DeliveryStatus::Failed, Some(now + Duration::MINUTE)));
    assert_eq!((failed.last_status_code, failed.last_error.as_deref()), (Some(500), Some("HTTP 500")));
    let delivered = trail(recovering).await.into_iter().find(|d| d.id == recovered.id).expect("the delivered one");
    assert_eq!((delivered.status, delivered.delivered_at), (DeliveryStatus::Delivered, Some(now)));
    assert_eq!(delivered.history[0].status_code, Some(204));
}

/// Every event type's delivery, about every kind of aggregate, is claimed and read back as it was
/// written: one the store could not read would hold up the claims of every endpoint.
pub async fn deliveries_of_every_event_type_and_aggregate_are_claimed_as_written<S: Store>(store: S) {
    let w = World::new(store);
    let partner = w.partner("Acme").await;
    let input =
        SubscriptionInput { url: Some("https://hooks.example.com/pulse".into()), description: None, event_types: None };
    let (subscription, _) = w.webhooks.create(&partner.principal, None, input).await.expect("subscribed");
    let mut written = Vec::new();
    for (event_type, aggregate) in EventType::SUBSCRIBABLE.into_iter().zip(aggregate::ALL) {
        let mut payload = serde_json::Map::new();
        payload.insert("campaignId".into(), serde_json::json!(Uuid::new_v4()));
        let event = NewEvent {
            id: EventId::new_random(),
            workspace_id: partner.workspace,
            event_type,
            aggregate,
            aggregate_id: Uuid::new_v4(),
            payload,
            occurred_at: w.clock.now(),
        };
        w.store
            .queue_test_event(partner.workspace, subscription.id, &event)
            .await
            .expect("queued")
            .expect("an endpoint");
        written.push(event);
    }
    assert_eq!(written.len(), aggregate::ALL.len(), "every aggregate is written");
    let now = w.clock.now();
    let claim = Claim { token: Uuid::new_v4(), now, lease_until: now + Duration::MINUTE, limit: 10 };
    let claimed = w.store.claim_deliveries(&claim).await.expect("every delivery is readable");
    assert_eq!(claimed.len(), written.len());
    for event in &written {
        let read = claimed.iter().find(|d| d.event.id == event.id).expect("claimed");
        assert_eq!(&read.event, event);
    }
}

/// The sealed secrets a claim at `now` hands over for the endpoint's one due delivery: the current
/// one and the previous one, if it has not expired. The delivery is recorded right away, so the
/// next claim finds the next one.
async fn claimed_secrets<S: Store>(w: &World<S>, now: time::OffsetDateTime) -> (Vec<u8>, Option<PreviousSecret>) {
    let claim = Claim { token: Uuid::new_v4(), now, lease_until: now + Duration::MINUTE, limit: 1 };
    let mut claimed = w.store.claim_deliveries(&claim).await.expect("claimed");
    let delivery = claimed.pop().expect("a due delivery");
    let record = outcome(&delivery, delivery.claim_token, DeliveryStatus::Delivered, now);
    assert!(w.store.record_attempt(&record).await.expect("recorded"));
    (delivery.secret_sealed, delivery.previous_secret)
}

pub async fn a_rotated_secret_is_claimed_with_its_deliveries_until_it_expires<S: Store>(store: S) {
    let w = World::new(store);
    let partner = w.partner("Acme").await;
    let id = endpoint_with(&w, &partner, 5).await;
    let now = w.clock.now();
    let (first, previous) = claimed_secrets(&w, now).await;
    assert_eq!(previous, None, "nothing rotated yet");

    let rotation = |sealed: &[u8], expires_in: Option<Duration>| SecretRotation {
        secret_sealed: sealed.to_vec(),
        previous_expires_at: expires_in.map(|grace| now + grace),
        at: now,
    };
    let expires_at = now + Duration::HOUR;
    let rotated = audit(&w, &partner, AuditAction::WebhookSecretRotated, id);
    assert!(
        w.store
            .rotate_secret(partner.workspace, id, &rotation(b"second", Some(Duration::HOUR)), &rotated)
            .await
            .expect("rotated")
    );
    let (current, previous) = claimed_secrets(&w, now).await;
    assert_eq!((current.as_slice(), previous), (&b"second"[..], Some(PreviousSecret { sealed: first, expires_at })));

    // Rotating again keeps only the secret it replaces.
    assert!(
        w.store
            .rotate_secret(partner.workspace, id, &rotation(b"third", Some(Duration::HOUR)), &rotated)
            .await
            .expect("rotated")
    );
    let just_before = expires_at - Duration::SECOND;
    let (current, previous) = claimed_secrets(&w, just_before).await;
    assert_eq!(current, b"third");
    assert_eq!(previous, Some(PreviousSecret { sealed: b"second".to_vec(), expires_at }));
    let (_, previous) = claimed_secrets(&w, expires_at).await;
    assert_eq!(previous, None, "an expired secret is not handed over");

    assert!(w.store.rotate_secret(partner.workspace, id, &rotation(b"fourth", None), &rotated).await.expect("rotated"));
    let (current, previous) = claimed_secrets(&w, now).await;
    assert_eq!((current.as_slice(), previous), (&b"fourth"[..], None), "no grace keeps no previous secret");

    let stranger = w.partner("Other").await;
    let theirs = audit(&w, &stranger, AuditAction::WebhookSecretRotated, id);
    assert!(
        !w.store.rotate_secret(stranger.workspace, id, &rotation(b"theirs", None), &theirs).await.expect("answered")
    );
    assert!(
        !w.store
            .rotate_secret(partner.workspace, WebhookId::new_random(), &rotation(b"x", None), &rotated)
            .await
            .expect("answered")
    );
}

/// Claims every due delivery at `now` and records each with the status `statuses` gives it in
/// claim order (`None`: left held); returns the claimed deliveries in the endpoint's order.
pub async fn settle<S: Store>(
    w: &World<S>,
    now: time::OffsetDateTime,
    statuses: &[Option<DeliveryStatus>],
) -> Vec<ClaimedDelivery> {
    let claim = Claim { token: Uuid::new_v4(), now, lease_until: now + Duration::MINUTE, limit: 20 };
    let mut claimed = w.store.claim_deliveries(&claim).await.expect("claimed");
    claimed.sort_by_key(|d| d.event.occurred_at);
    assert_eq!(claimed.len(), statuses.len());
    for (delivery, status) in claimed.iter().zip(statuses) {
        if let Some(status) = status {
            assert!(
                w.store.record_attempt(&outcome(delivery, delivery.claim_token, *status, now)).await.expect("recorded")
            );
        }
    }
    claimed
}

pub async fn a_redelivery_requeues_finished_deliveries_and_leaves_a_held_one_to_its_lease<S: Store>(store: S) {
    use DeliveryStatus::{Dead, Delivered, Failed, Pending};
    let w = World::new(store);
    let partner = w.partner("Acme").await;
    let id = endpoint_with(&w, &partner, 0).await;
    let now = w.clock.now();
    for minute in 0..4 {
        w.clock.set(now + Duration::minutes(minute));
        w.webhooks.simulate(&partner.principal, None, id).await.expect("queued");
    }
    let settled = settle(&w, now + Duration::minutes(5), &[Some(Dead), Some(Delivered), Some(Failed), None]).await;
    // Within the held delivery's lease, which ends a minute after the claim.
    let at = now + Duration::minutes(5) + Duration::seconds(30);
    let redelivered = audit(&w, &partner, AuditAction::WebhookRedelivered, id);
    let redeliver = |n: usize| w.store.redeliver(id, settled[n].id, at, &redelivered);

    let dead = redeliver(0).await.expect("redelivered").expect("found");
    assert_eq!((dead.status, dead.next_attempt_at, dead.attempts), (Pending, Some(at), 1));
    assert_eq!(dead.redeliveries, [RedeliveryView { requested_at: at, attempts_before: 1 }]);
    let delivered = redeliver(1).await.expect("redelivered").expect("found");
    assert_eq!((delivered.status, delivered.delivered_at, delivered.redeliveries.len()), (Pending, None, 1));
    let failed = redeliver(2).await.expect("redelivered").expect("found");
    assert_eq!((failed.status, failed.next_attempt_at), (Failed, Some(at)), "made due, not rescheduled");
    assert!(failed.redeliveries.is_empty());
    let held = redeliver(3).await.expect("redelivered").expect("found");
    let lease_end = now + Duration::minutes(6);
    assert_eq!((held.status, held.next_attempt_at), (Pending, Some(lease_end)), "the lease stands");
    assert!(held.redeliveries.is_empty());
    assert_eq!(trail_of(&w, id).await.iter().find(|d| d.id == settled[0].id), Some(&dead), "read back as answered");

    // The next claim takes the three, with the attempt limit counted from the redelivery; not the
    // held one, whose holder still records it.
    let later = at + Duration::SECOND;
    let claim = Claim { token: Uuid::new_v4(), now: later, lease_until: later + Duration::MINUTE, limit: 20 };
    let claimed = w.store.claim_deliveries(&claim).await.expect("claimed");
    let mut ids: Vec<_> = claimed.iter().map(|d| d.id).collect();
    ids.sort_by_key(|d| settled.iter().position(|s| s.id == *d));
    assert_eq!(ids, settled[..3].iter().map(|d| d.id).collect::<Vec<_>>());
    let again = claimed.iter().find(|d| d.id == settled[0].id).expect("the redelivered one");
    assert_eq!((again.attempts, again.attempts_before_redelivery), (1, 1));
    let untouched = claimed.iter().find(|d| d.id == settled[2].id).expect("the failed one");
    assert_eq!(untouched.attempts_before_redelivery, 0);
    let holder = &settled[3];
    assert!(w.store.record_attempt(&outcome(holder, holder.claim_token, Delivered, later)).await.expect("recorded"));

    let other = endpoint_with(&w, &partner, 0).await;
    let elsewhere = audit(&w, &partner, AuditAction::WebhookRedelivered, other);
    let answer = w.store.redeliver(other, settled[0].id, at, &elsewhere).await.expect("answered");
    assert_eq!(answer, None, "another endpoint's");
    assert_eq!(w.store.redeliver(id, DeliveryId::new_random(), at, &redelivered).await.expect("answered"), None);
}

pub async fn a_bulk_redelivery_takes_exactly_the_statuses_of_its_range_or_nothing_beyond_its_cap<S: Store>(store: S) {
    use DeliveryStatus::{Dead, Delivered, Failed, Pending};
    let w = World::new(store);
    let partner = w.partner("Acme").await;
    let id = endpoint_with(&w, &partner, 0).await;
    let neighbour = endpoint_with(&w, &partner, 0).await;
    let start = w.clock.now();
    for hour in 0..5 {
        w.clock.set(start + Duration::hours(hour));
        w.webhooks.simulate(&partner.principal, None, id).await.expect("queued");
    }
    w.clock.set(start + Duration::minutes(270));
    w.webhooks.simulate(&partner.principal, None, neighbour).await.expect("queued");
    let now = start + Duration::hours(5);
    let statuses = [Some(Dead), Some(Failed), Some(Delivered), Some(Dead), Some(Dead), Some(Dead)];
    let settled = settle(&w, now, &statuses).await;
    let range = RedeliveryRange {
        from: start + Duration::hours(1),
        to: start + Duration::hours(4),
        statuses: vec![Failed, Dead],
    };
    let status_of = |trail: &[DeliveryView], n: usize| trail.iter().find(|d| d.id == settled[n].id).map(|d| d.status);
    let redelivered = audit(&w, &partner, AuditAction::WebhookRedelivered, id);

    let above_cap = w.store.redeliver_range(id, &range, now, 1, &redelivered).await.expect("answered");
    assert_eq!(above_cap, None, "two match: above the cap");
    let trail = trail_of(&w, id).await;
    assert_eq!(status_of(&trail, 3), Some(Dead), "a refused bulk redelivery changes nothing");

    assert_eq!(w.store.redeliver_range(id, &range, now, 2, &redelivered).await.expect("answered"), Some(2));
    let trail = trail_of(&w, id).await;
    let after: Vec<_> = (0..5).map(|n| status_of(&trail, n).expect("in the trail")).collect();
    assert_eq!(after, [Dead, Failed, Delivered, Pending, Dead], "only FAILED and DEAD inside the range");
    let failed = trail.iter().find(|d| d.id == settled[1].id).expect("the failed one");
    assert_eq!(failed.next_attempt_at, Some(now), "made due now");
    let requeued = trail.iter().find(|d| d.id == settled[3].id).expect("the requeued one");
    assert_eq!(requeued.redeliveries, [RedeliveryView { requested_at: now, attempts_before: 1 }]);
    assert_eq!(trail_of(&w, neighbour).await[0].status, Dead, "another endpoint's delivery is not touched");

    let dead_only = RedeliveryRange { statuses: vec![Dead], ..range };
    assert_eq!(w.store.redeliver_range(id, &dead_only, now, 2, &redelivered).await.expect("answered"), Some(0));
}

pub async fn events_past_their_retention_are_purged_once_every_delivery_is_finished<S: Store>(store: S) {
    use DeliveryStatus::{Dead, Delivered, Failed};
    let w = World::new(store);
    let partner = w.partner("Acme").await;
    let id = endpoint_with(&w, &partner, 0).await;
    let start = w.clock.now();
    // The workspace's approval left an event no endpoint heard: it goes first.
    assert_eq!(w.store.purge_webhook_events(start + Duration::SECOND, 10).await.expect("purged"), 1);
    for minute in 0..5 {
        w.clock.set(start + Duration::minutes(minute));
        w.webhooks.simulate(&partner.principal, None, id).await.expect("queued");
    }
    // Events of minutes 0 to 4: delivered, dead, failed, held by a worker, delivered.
    let settled =
        settle(&w, start + Duration::minutes(5), &[Some(Delivered), Some(Dead), Some(Failed), None, Some(Delivered)])
            .await;
    let cut_off = start + Duration::minutes(4);

    let left = async || -> Vec<_> { trail_of(&w, id).await.into_iter().map(|d| d.id).collect() };
    let events_of = |minutes: &[usize]| -> Vec<_> { minutes.iter().map(|n| settled[*n].id).collect() };

    assert_eq!(w.store.purge_webhook_events(cut_off, 1).await.expect("purged"), 1, "at most as many as asked");
    assert_eq!(left().await, events_of(&[4, 3, 2, 1]), "the oldest first");
    assert_eq!(w.store.purge_webhook_events(cut_off, 10).await.expect("purged"), 1, "the dead one");
    assert_eq!(
        left().await,
        events_of(&[4, 3, 2]),
        "a failed or held delivery keeps its event, and so does a newer event"
    );
    assert_eq!(w.store.purge_webhook_events(cut_off, 10).await.expect("purged"), 0, "nothing twice");
}

/// Asserts that the workspace's audit trail, which held `seen` entries, grew by `expected` alone.
async fn assert_audited<S: Store>(w: &World<S>, partner: &Partner, seen: &mut usize, expected: &[AuditEntry]) {
    let page = PageRequest { limit: 50, after: None };
    let events = w.store.list_audit_events(partner.workspace, &AuditQuery::default(), &page).await.expect("listed");
    let entries: Vec<AuditEntry> = events.into_iter().map(|e| e.entry).collect();
    assert_eq!(entries.get(*seen..), Some(expected));
    *seen = entries.len();
}

pub async fn each_endpoint_action_writes_one_audit_entry_and_one_that_does_nothing_none<S: Store>(store: S) {
    use AuditAction::{WebhookCreated, WebhookDeleted, WebhookRedelivered, WebhookSecretRotated, WebhookUpdated};
    let w = World::new(store);
    let partner = w.partner("Acme").await;
    let p = &partner.principal;
    let now = w.clock.now();
    // Setting the partner up may write entries of its own: only those of the actions below count.
    let page = PageRequest { limit: 50, after: None };
    let mut seen =
        w.store.list_audit_events(partner.workspace, &AuditQuery::default(), &page).await.expect("listed").len();
    let entry = |action, id| audit(&w, &partner, action, id);

    let input =
        SubscriptionInput { url: Some("https://hooks.example.com/pulse".into()), description: None, event_types: None };
    let (endpoint, _) = w.webhooks.create(p, None, input).await.expect("subscribed");
    let id = endpoint.id;
    assert_audited(&w, &partner, &mut seen, &[entry(WebhookCreated, id)]).await;

    let patch = SubscriptionPatch { description: Some(Some("Orders".into())), ..SubscriptionPatch::default() };
    w.webhooks.update(p, None, id, patch).await.expect("updated");
    assert_audited(&w, &partner, &mut seen, &[entry(WebhookUpdated, id)]).await;

    w.webhooks.rotate_secret(p, None, id, None).await.expect("rotated");
    assert_audited(&w, &partner, &mut seen, &[entry(WebhookSecretRotated, id)]).await;

    let queued = w.webhooks.simulate(p, None, id).await.expect("queued");
    w.webhooks.redeliver(p, None, id, queued.id).await.expect("redelivered");
    assert_audited(&w, &partner, &mut seen, &[entry(WebhookRedelivered, id)]).await;

    settle(&w, now, &[Some(DeliveryStatus::Dead)]).await;
    let rfc = |at: time::OffsetDateTime| at.format(&time::format_description::well_known::Rfc3339).expect("formats");
    let input =
        RedeliveryInput { from: Some(rfc(now - Duration::HOUR)), to: Some(rfc(now + Duration::HOUR)), statuses: None };
    assert_eq!(w.webhooks.redeliver_range(p, None, id, input).await.expect("redelivered"), 1);
    assert_audited(&w, &partner, &mut seen, &[entry(WebhookRedelivered, id)]).await;

    // Nothing done, nothing written: a full workspace, an unknown endpoint or delivery, a range
    // matching no delivery.
    let twin = NewSubscription {
        subscription: Subscription { id: WebhookId::new_random(), ..endpoint.clone() },
        secret_sealed: b"sealed".to_vec(),
    };
    let created = entry(WebhookCreated, twin.subscription.id);
    let full = w.store.insert_subscription(&twin, 1, &created).await.expect_err("the workspace is full");
    assert_eq!(full.code(), ErrorCode::Conflict);
    let (workspace, unknown) = (partner.workspace, WebhookId::new_random());
    let changes = SubscriptionChanges { is_active: Some(false), ..SubscriptionChanges::default() };
    let updated = entry(WebhookUpdated, unknown);
    assert_eq!(w.store.update_subscription(workspace, unknown, &changes, now, &updated).await.expect("answered"), None);
    let rotation = SecretRotation { secret_sealed: b"new".to_vec(), previous_expires_at: None, at: now };
    let rotated = entry(WebhookSecretRotated, unknown);
    assert!(!w.store.rotate_secret(workspace, unknown, &rotation, &rotated).await.expect("answered"));
    let deleted = entry(WebhookDeleted, unknown);
    assert!(!w.store.delete_subscription(workspace, unknown, &deleted).await.expect("answered"));
    let range = RedeliveryRange {
        from: now - Duration::HOUR,
        to: now + Duration::HOUR,
        statuses: vec![DeliveryStatus::Failed, DeliveryStatus::Dead],
    };
    let redelivered = entry(WebhookRedelivered, unknown);
    assert_eq!(w.store.redeliver(unknown, queued.id, now, &redelivered).await.expect("answered"), None);
    assert_eq!(w.store.redeliver_range(unknown, &range, now, 10, &redelivered).await.expect("answered"), Some(0));
    let redelivered = entry(WebhookRedelivered, id);
    assert_eq!(w.store.redeliver(id, DeliveryId::new_random(), now, &redelivered).await.expect("answered"), None);
    let none_left = w.store.redeliver_range(id, &range, now, 10, &redelivered).await.expect("answered");
    assert_eq!(none_left, Some(0), "the DEAD delivery was sent again already");
    assert_audited(&w, &partner, &mut seen, &[]).await;

    w.webhooks.delete(p, None, id).await.expect("deleted");
    assert_audited(&w, &partner, &mut seen, &[entry(WebhookDeleted, id)]).await;
    let deleted = entry(WebhookDeleted, id);
    assert!(!w.store.delete_subscription(workspace, id, &deleted).await.expect("answered"), "deleted already");
    assert_audited(&w, &partner, &mut seen, &[]).await;
}
