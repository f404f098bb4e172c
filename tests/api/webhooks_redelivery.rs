//! Redelivery on demand: one delivery, or every FAILED and DEAD one of a time range, sent again
//! with the same event id and delivery id and a fresh retry schedule.

use std::time::Duration;

use pulse_domain::quota::models::{QuotaFamily, QuotaPolicy};
use pulse_domain::webhooks::models::RetrySchedule;
use serde_json::{Value, json};
use time::format_description::well_known::Rfc3339;

use crate::helpers::{TestApp, envelope, spawn_app_with};
use crate::receiver::{Receiver, Reply};
use crate::webhooks::{at, deliveries, id, replica, subscribed, wait_for_delivery, webhook_app, webhook_partner};

/// An app whose own worker sleeps, where a delivery is DEAD after two attempts an hour apart.
pub(crate) async fn two_attempt_app() -> TestApp {
    spawn_app_with(|s| {
        s.webhooks.allow_private = true;
        s.webhooks.timeout = Duration::from_secs(1);
        s.webhooks.poll_every = Duration::from_secs(3600);
        s.webhooks.schedule = RetrySchedule::new(vec![time::Duration::hours(1)], 2).expect("a schedule");
    })
    .await
}

fn rfc3339(at: time::OffsetDateTime) -> String {
    at.format(&Rfc3339).expect("formats")
}

#[tokio::test]
async fn a_dead_delivery_redelivered_to_a_healthy_receiver_arrives_with_the_same_ids() {
    let app = webhook_app(Duration::from_millis(50)).await;
    let receiver = Receiver::start().await;
    receiver.reply(Reply::Status(500));
    let (_, hooks) = webhook_partner(&app).await;
    let (hook, secret) = subscribed(&app, &hooks.key, &receiver.url, &[]).await;
    receiver.set_secret(&secret);
    assert_eq!(app.simulate_webhook(&hooks.key, id(&hook)).await.status(), 201);
    for attempt in 1..=5 {
        let delivery = wait_for_delivery(&app, &hooks.key, id(&hook), |d| d["attempts"] == attempt).await;
        if attempt < 5 {
            app.clock.set(at(&delivery["nextAttemptAt"]));
        }
    }
    let dead = wait_for_delivery(&app, &hooks.key, id(&hook), |d| d["status"] == "DEAD").await;

    receiver.reply(Reply::Status(204));
    let response = app.redeliver(&hooks.key, id(&hook), id(&dead)).await;
    assert_eq!(response.status(), 202);
    let queued: Value = response.json().await.expect("json");
    assert_eq!((queued["id"].as_str(), &queued["eventId"]), (Some(id(&dead)), &dead["eventId"]));
    assert_eq!((queued["status"].as_str(), at(&queued["nextAttemptAt"])), (Some("PENDING"), app.now()));
    assert_eq!(queued["redeliveries"], json!([{"requestedAt": rfc3339(app.now()), "attemptsBefore": 5}]));
    let delivered = wait_for_delivery(&app, &hooks.key, id(&hook), |d| d["status"] == "DELIVERED").await;
    assert_eq!((delivered["attempts"].as_u64(), delivered["history"][5]["attempt"].as_u64()), (Some(6), Some(6)));
    assert_eq!(delivered["redeliveries"], queued["redeliveries"], "the trail keeps the request");

    let received = receiver.wait_for(6).await;
    let first = &received[0];
    let last = received.last().expect("the redelivery");
    assert_eq!(last.header("x-svc-event"), first.header("x-svc-event"), "the same event id, to dedupe on");
    assert_eq!(last.header("x-svc-delivery"), id(&dead));
    assert_eq!(last.body, first.body);
    assert_eq!(last.signature_valid, Some(true));

    // Unknown, another endpoint's or another workspace's delivery: 404. An inactive endpoint: 409.
    let (other_hook, _) = subscribed(&app, &hooks.key, &receiver.url, &[]).await;
    let (_, stranger) = webhook_partner(&app).await;
    for (key, hook_id, delivery) in [
        (&hooks.key, id(&hook), "5f0c9a4e-0000-4000-8000-000000000000"),
        (&hooks.key, id(&hook), "not-a-uuid"),
        (&hooks.key, id(&other_hook), id(&dead)),
        (&stranger.key, id(&hook), id(&dead)),
    ] {
        let (status, code, _) = envelope(app.redeliver(key, hook_id, delivery).await).await;
        assert_eq!((status, code.as_str()), (404, "NOT_FOUND"), "{hook_id} {delivery}");
    }
    assert_eq!(app.patch_webhook(&hooks.key, id(&hook), &json!({"isActive": false})).await.status(), 200);
    let (status, code, description) = envelope(app.redeliver(&hooks.key, id(&hook), id(&dead)).await).await;
    assert_eq!((status, code.as_str()), (409, "CONFLICT"));
    assert!(description.contains("PATCH isActive true"), "{description}");
}

#[tokio::test]
async fn a_bulk_redelivery_queues_exactly_the_failed_and_dead_deliveries_of_its_range() {
    let app = two_attempt_app().await;
    let receiver = Receiver::start().await;
    let (_, hooks) = webhook_partner(&app).await;
    let (hook, _) = subscribed(&app, &hooks.key, &receiver.url, &[]).await;
    let (_, worker) = replica(&app);
    let start = app.now();
    // Events an hour apart: DEAD, DEAD, DELIVERED, FAILED, DEAD. The FAILED one is made last, so
    // that walking the others to DEAD does not retry it.
    let mut by_hour = [None, None, None, None, None];
    for (hour, fate) in [(0, "DEAD"), (1, "DEAD"), (2, "DELIVERED"), (4, "DEAD"), (3, "FAILED")] {
        app.clock.set(start + time::Duration::hours(hour));
        receiver.reply(Reply::Status(if fate == "DELIVERED" { 200 } else { 500 }));
        let queued: Value = app.simulate_webhook(&hooks.key, id(&hook)).await.json().await.expect("json");
        assert_eq!(worker.deliver_due(10).await.expect("round").len(), 1);
        if fate == "DEAD" {
            app.clock.set(app.now() + time::Duration::hours(1));
            assert_eq!(worker.deliver_due(10).await.expect("round").len(), 1);
        }
        by_hour[usize::try_from(hour).expect("small")] = Some(id(&queued).to_owned());
    }
    let status_by_hour = || async {
        let trail = deliveries(&app, &hooks.key, id(&hook)).await;
        by_hour
            .iter()
            .map(|wanted| {
                let delivery = trail.iter().find(|d| d["id"].as_str() == wanted.as_deref()).expect("in the trail");
                delivery["status"].as_str().expect("a status").to_owned()
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(status_by_hour().await, ["DEAD", "DEAD", "DELIVERED", "FAILED", "DEAD"]);

    let (from, to) = (rfc3339(start + time::Duration::hours(1)), rfc3339(start + time::Duration::hours(4)));
    for (body, field) in [
        (json!({"to": to}), "from"),
        (json!({"from": "last tuesday", "to": to}), "`from`"),
        (json!({"from": to, "to": from}), "`to`"),
        (json!({"from": from, "to": rfc3339(start + time::Duration::days(32))}), "`to`"),
        (json!({"from": from, "to": to, "statuses": ["DELIVERED"]}), "`statuses[0]`"),
        (json!({"from": from, "to": to, "everything": true}), "everything"),
    ] {
        let (status, code, description) = envelope(app.redeliver_range(&hooks.key, id(&hook), &body).await).await;
        assert_eq!((status, code.as_str()), (400, "VALIDATION_FAILED"), "{body}");
        assert!(description.contains(field), "{body}: {description}");
        assert!(!description.contains("tuesday") && !description.contains("DELIVERED"), "{description}");
    }

    let response = app.redeliver_range(&hooks.key, id(&hook), &json!({"from": from, "to": to})).await;
    assert_eq!(response.status(), 202);
    assert_eq!(response.json::<Value>().await.expect("json"), json!({"queued": 2}));
    assert_eq!(status_by_hour().await, ["DEAD", "PENDING", "DELIVERED", "FAILED", "DEAD"]);
    let trail = deliveries(&app, &hooks.key, id(&hook)).await;
    let failed = trail.iter().find(|d| d["id"].as_str() == by_hour[3].as_deref()).expect("the failed one");
    assert_eq!(at(&failed["nextAttemptAt"]), app.now(), "a FAILED one is made due now");
    receiver.reply(Reply::Status(200));
    assert_eq!(worker.deliver_due(10).await.expect("round").len(), 2, "exactly the two of the range");
    assert_eq!(status_by_hour().await, ["DEAD", "DELIVERED", "DELIVERED", "DELIVERED", "DEAD"]);

    let (_, stranger) = webhook_partner(&app).await;
    let (status, code, _) =
        envelope(app.redeliver_range(&stranger.key, id(&hook), &json!({"from": from, "to": to})).await).await;
    assert_eq!((status, code.as_str()), (404, "NOT_FOUND"));
    assert_eq!(app.patch_webhook(&hooks.key, id(&hook), &json!({"isActive": false})).await.status(), 200);
    let (status, code, _) =
        envelope(app.redeliver_range(&hooks.key, id(&hook), &json!({"from": from, "to": to})).await).await;
    assert_eq!((status, code.as_str()), (409, "CONFLICT"));
}

#[tokio::test]
async fn redeliveries_count_against_their_own_hourly_quotas() {
    let app = spawn_app_with(|s| {
        s.webhooks.allow_private = true;
        s.webhooks.poll_every = Duration::from_secs(3600);
        s.quotas = QuotaPolicy::default()
            .with_hourly(QuotaFamily::WebhookRedelivery, 1)
            .with_hourly(QuotaFamily::WebhookBulkRedelivery, 1);
    })
    .await;
    let receiver = Receiver::start().await;
    let (_, hooks) = webhook_partner(&app).await;
    let (hook, _) = subscribed(&app, &hooks.key, &receiver.url, &[]).await;
    let queued: Value = app.simulate_webhook(&hooks.key, id(&hook)).await.json().await.expect("json");
    let range = json!({"from": rfc3339(app.now()), "to": rfc3339(app.now() + time::Duration::hours(1))});

    let first = app.redeliver(&hooks.key, id(&hook), id(&queued)).await;
    assert_eq!(first.status(), 202, "a waiting delivery is made due");
    let limit = first.headers().get("ratelimit-limit").and_then(|v| v.to_str().ok()).map(str::to_owned);
    assert_eq!(limit.as_deref(), Some("1"));
    assert_eq!(app.redeliver_range(&hooks.key, id(&hook), &range).await.status(), 202);
    for refused in [
        app.redeliver(&hooks.key, id(&hook), id(&queued)).await,
        app.redeliver_range(&hooks.key, id(&hook), &range).await,
    ] {
        assert!(refused.headers().get("retry-after").is_some());
        let (status, code, description) = envelope(refused).await;
        assert_eq!((status, code.as_str()), (429, "RATE_LIMITED"));
        assert!(description.contains("redelivery"), "{description}");
    }
    assert_eq!(app.get_webhook(&hooks.key, id(&hook)).await.status(), 200, "the other webhook routes go on");
}
