//! Webhooks end to end: endpoints over the channel API, events from finished sessions, and the
//! delivery worker posting to a real receiver on loopback (`PULSE_WEBHOOK_ALLOW_PRIVATE` on), with
//! the settable clock walking the retry schedule.

use std::collections::HashSet;
use std::time::Duration;

use pulse::platform::{AppClock, ServerDispatcher};
use pulse::startup::{crypto_from, dispatcher_from, store_from};
use pulse_domain::webhooks::models::EVENT_RETENTION;
use pulse_domain::webhooks::ports::WebhookTransport as _;
use pulse_domain::webhooks::service::Webhooks;
use serde_json::{Value, json};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use crate::helpers::admin::TestKey;
use crate::helpers::campaigns::{CampaignPartner, code_of};
use crate::helpers::{TestApp, captured_logs, envelope, spawn_app_with};
use crate::receiver::{Receiver, Reply};

/// An app whose worker looks for due deliveries every `poll`, sending to loopback with a 1 s timeout.
pub(crate) async fn webhook_app(poll: Duration) -> TestApp {
    spawn_app_with(|s| {
        s.webhooks.allow_private = true;
        s.webhooks.timeout = Duration::from_secs(1);
        s.webhooks.poll_every = poll;
    })
    .await
}

/// A campaign partner and a key of the same business that manages its webhooks.
pub(crate) async fn webhook_partner(app: &TestApp) -> (CampaignPartner, TestKey) {
    let partner = app.campaign_partner().await;
    let key = app.create_key_with(Some(partner.business), &["channel:webhooks"], &[partner.workspace], None).await;
    (partner, key)
}

/// Registers `url` and returns the endpoint and its secret.
pub(crate) async fn subscribed(app: &TestApp, key: &str, url: &str, event_types: &[&str]) -> (Value, String) {
    let response = app.create_webhook(key, &json!({"url": url, "eventTypes": event_types})).await;
    assert_eq!(response.status(), 201);
    assert_eq!(response.headers().get("cache-control").and_then(|v| v.to_str().ok()), Some("no-store"));
    let body: Value = response.json().await.expect("json");
    let secret = body["secret"].as_str().expect("secret").to_owned();
    (body["subscription"].clone(), secret)
}

pub(crate) fn id(body: &Value) -> &str {
    body["id"].as_str().expect("id")
}

pub(crate) async fn deliveries(app: &TestApp, key: &str, hook: &str) -> Vec<Value> {
    let response = app.list_deliveries(key, hook, &[]).await;
    assert_eq!(response.status(), 200);
    let page: Value = response.json().await.expect("json");
    page["items"].as_array().expect("items").clone()
}

/// Waits until the endpoint's newest delivery satisfies `done` (the worker runs in the background).
pub(crate) async fn wait_for_delivery(app: &TestApp, key: &str, hook: &str, done: impl Fn(&Value) -> bool) -> Value {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(delivery) = deliveries(app, key, hook).await.into_iter().next().filter(|d| done(d)) {
            return delivery;
        }
        assert!(tokio::time::Instant::now() < deadline, "the delivery never reached the expected state");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

pub(crate) fn at(text: &Value) -> OffsetDateTime {
    OffsetDateTime::parse(text.as_str().expect("a time"), &Rfc3339).expect("RFC 3339")
}

/// Starts a session on the campaign, answers its first question with `words` (or a rating) and
/// completes it; returns the session id.
async fn finish_session(app: &TestApp, code: &str, words: &str) -> String {
    let started = app.started(code, &json!({})).await;
    let session = started["sessionId"].as_str().expect("session").to_owned();
    let token = started["sessionToken"].as_str().expect("token");
    let answers: Vec<Value> = started["questions"]
        .as_array()
        .expect("questions")
        .iter()
        .map(|q| match q["type"].as_str() {
            Some("rating") => json!({"questionId": q["id"], "value": 4}),
            _ => json!({"questionId": q["id"], "value": words}),
        })
        .collect();
    assert_eq!(app.answer(code, &session, token, &json!({"answers": answers})).await.status(), 200);
    assert_eq!(app.complete(code, &session, token).await.status(), 200);
    session
}

#[tokio::test]
async fn a_finished_survey_reaches_the_partner_endpoint_signed() {
    let app = webhook_app(Duration::from_millis(50)).await;
    let receiver = Receiver::start().await;
    let (partner, hooks) = webhook_partner(&app).await;
    let (hook, secret) = subscribed(&app, &hooks.key, &receiver.url, &["feedback.received"]).await;
    receiver.set_secret(&secret);
    assert_eq!(hook["eventTypes"], json!(["feedback.received"]));
    assert_eq!((hook["isActive"].as_bool(), &hook["disabledAt"]), (Some(true), &Value::Null));
    assert!(secret.starts_with("whsec_"));

    for response in [app.list_webhooks(&hooks.key).await, app.get_webhook(&hooks.key, id(&hook)).await] {
        assert_eq!(response.status(), 200);
        let text = response.text().await.expect("body");
        assert!(text.contains(id(&hook)) && !text.contains(&secret), "reads never carry the secret");
    }

    let campaign = app.live_campaign(&partner.key.key).await;
    let session = finish_session(&app, code_of(&campaign), "The courier was rude to me").await;
    let received = receiver.wait_for(1).await;
    let request = &received[0];
    assert_eq!(request.signature_valid, Some(true), "the signature verifies with the secret shown once");
    let signature = request.header("x-svc-signature");
    let t: i64 =
        signature.strip_prefix("t=").and_then(|s| s.split(',').next()).and_then(|t| t.parse().ok()).expect("t");
    assert_eq!(t, app.now().unix_timestamp(), "signed at the service's clock");
    assert_eq!(request.header("content-type"), "application/json");

    let body = request.json();
    assert_eq!(request.header("x-svc-event"), id(&body));
    assert_eq!(request.header("x-svc-event-type"), "feedback.received");
    assert_eq!(body["type"], "feedback.received");
    assert_eq!(body["aggregate"], "conversation");
    assert_eq!(body["aggregateId"], json!(session));
    assert_eq!(body["orgId"], json!(partner.workspace));
    assert_eq!(at(&body["occurredAt"]), app.now());
    assert_eq!(
        body["payload"],
        json!({
            "conversationId": session, "campaignId": campaign["id"], "publicRef": campaign["code"],
            "appInstallId": null, "deviceId": null, "userId": null, "answered": 3, "total": 3,
        })
    );
    let raw = String::from_utf8_lossy(&request.body).into_owned();
    assert!(!raw.contains("courier") && !raw.contains("rude"), "never a word the respondent said");

    let delivery = wait_for_delivery(&app, &hooks.key, id(&hook), |d| d["status"] == "DELIVERED").await;
    assert_eq!(request.header("x-svc-delivery"), id(&delivery));
    assert_eq!(delivery["eventId"], body["id"]);
    assert_eq!((delivery["attempts"].as_u64(), delivery["lastStatusCode"].as_u64()), (Some(1), Some(200)));
    assert_eq!((&delivery["nextAttemptAt"], &delivery["lastError"]), (&Value::Null, &Value::Null));
    assert_eq!(at(&delivery["deliveredAt"]), app.now());
    assert_eq!(delivery["history"][0]["statusCode"], 200);
    // The worker logs a round's attempts once the round has recorded them all.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while !captured_logs().contains(id(&delivery)) && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let logs = captured_logs();
    assert!(logs.contains(id(&delivery)), "the attempt is logged with its delivery id");
    assert!(!logs.contains(&secret), "the secret is never logged");
    assert!(!logs.contains("/hooks/pulse"), "nor the endpoint's path");
    assert_eq!(app.tables_holding(&secret).await, Vec::<String>::new(), "the secret is sealed at rest");
}

#[tokio::test]
async fn endpoints_of_all_events_get_the_acknowledgement_and_a_device_proven_by_the_app() {
    let app = webhook_app(Duration::from_millis(50)).await;
    let receiver = Receiver::start().await;
    let (partner, hooks) = webhook_partner(&app).await;
    let (_, secret) = subscribed(&app, &hooks.key, &receiver.url, &[]).await;
    receiver.set_secret(&secret);
    let campaign = app.live_campaign(&partner.key.key).await;
    let registered = app
        .registered(&json!({"campaignCode": campaign["code"], "appId": "com.acme.app", "platform": "ios",
            "appVersion": "1.0", "user": {"externalId": "u-1"}}))
        .await;
    let installs: Value = app.list_installs(&partner.key.key, id(&campaign), &[]).await.json().await.expect("json");
    let install = &installs["items"][0]["id"];
    let started = app.started(code_of(&campaign), &json!({"deviceToken": registered["accessToken"]})).await;
    let session = started["sessionId"].as_str().expect("session");
    let token = started["sessionToken"].as_str().expect("token");
    assert_eq!(app.complete(code_of(&campaign), session, token).await.status(), 200);
    assert_eq!(app.complete(code_of(&campaign), session, token).await.status(), 200);
    // Events are written in the completion's transaction: what the second call wrote is there now.
    // The workspace's approval, and one completion: completing again emits nothing.
    assert_eq!(app.count_rows("webhook_events").await, 2, "completing again emits nothing");

    let received = receiver.wait_for(1).await;
    let types: HashSet<String> = received.iter().map(|r| r.header("x-svc-event-type").to_owned()).collect();
    assert_eq!(types, HashSet::from(["feedback.received".to_owned()]), "a web completion acknowledges nothing");
    for request in &received {
        assert_eq!(request.signature_valid, Some(true));
        let payload = &request.json()["payload"];
        assert_eq!(payload["deviceId"], registered["deviceId"], "the app proved the device");
        assert_eq!(payload["userId"], Value::Null, "a self-declared person is not named");
        assert_eq!(&payload["appInstallId"], install);
    }
}

#[tokio::test]
async fn simulate_sends_a_signed_test_event_on_the_same_path() {
    let app = webhook_app(Duration::from_millis(50)).await;
    let receiver = Receiver::start().await;
    let (_, hooks) = webhook_partner(&app).await;
    let (hook, secret) = subscribed(&app, &hooks.key, &receiver.url, &["feedback.analyzed"]).await;
    receiver.set_secret(&secret);

    let response = app.simulate_webhook(&hooks.key, id(&hook)).await;
    assert_eq!(response.status(), 201);
    let queued: Value = response.json().await.expect("json");
    assert_eq!((queued["eventType"].as_str(), queued["status"].as_str()), (Some("webhook.test"), Some("PENDING")));
    let request = &receiver.wait_for(1).await[0];
    assert_eq!(request.signature_valid, Some(true));
    assert_eq!(request.header("x-svc-event-type"), "webhook.test");
    assert_eq!(request.header("x-svc-delivery"), id(&queued));
    let body = request.json();
    assert_eq!((body["aggregate"].as_str(), &body["aggregateId"]), (Some("webhook"), &hook["id"]));
    assert_eq!(body["payload"]["webhookId"], hook["id"]);
    // The partner crate verifies it at the receiver's clock and reads it into its typed event.
    let signature = request.header("x-svc-signature");
    let now = app.now().unix_timestamp();
    let envelope = pulse_partner::verify_webhook_at(&[&secret], signature, &request.body, now).expect("verified");
    match envelope.event {
        pulse_partner::Event::WebhookTest(test) => assert_eq!(test.webhook_id.to_string(), id(&hook)),
        other => panic!("a webhook.test, not {other:?}"),
    }
    let late = now + pulse_partner::SIGNATURE_TOLERANCE_SECS + 1;
    assert_eq!(
        pulse_partner::verify_webhook_at(&[&secret], signature, &request.body, late),
        Err(pulse_partner::WebhookError::Stale)
    );
    wait_for_delivery(&app, &hooks.key, id(&hook), |d| d["status"] == "DELIVERED").await;
}

#[tokio::test]
async fn a_failing_endpoint_walks_the_schedule_to_dead_and_five_dead_disable_it() {
    let app = webhook_app(Duration::from_millis(50)).await;
    let receiver = Receiver::start().await;
    receiver.reply(Reply::Status(500));
    let (_, hooks) = webhook_partner(&app).await;
    let (hook, secret) = subscribed(&app, &hooks.key, &receiver.url, &[]).await;
    receiver.set_secret(&secret);
    for _ in 0..5 {
        assert_eq!(app.simulate_webhook(&hooks.key, id(&hook)).await.status(), 201);
    }

    let mut waits = Vec::new();
    for attempt in 1..=5_u64 {
        receiver.wait_for(usize::try_from(attempt * 5).expect("small")).await;
        let all = loop {
            let all = deliveries(&app, &hooks.key, id(&hook)).await;
            if all.iter().all(|d| d["attempts"].as_u64() == Some(attempt)) {
                break all;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        };
        assert!(all.iter().all(|d| d["lastStatusCode"] == 500 && d["lastError"] == "HTTP 500"));
        if attempt < 5 {
            assert!(all.iter().all(|d| d["status"] == "FAILED"));
            let next = at(&all[0]["nextAttemptAt"]);
            waits.push((next - app.now()).whole_seconds());
            app.clock.set(next);
        } else {
            assert!(all.iter().all(|d| d["status"] == "DEAD" && d["nextAttemptAt"].is_null()));
            assert!(all.iter().all(|d| d["history"].as_array().map(Vec::len) == Some(5)));
        }
    }
    assert_eq!(waits, vec![60, 300, 1800, 7200], "1 min, 5 min, 30 min, 2 h");
    assert!(receiver.received().iter().all(|r| r.signature_valid == Some(true)));

    let response = app.get_webhook(&hooks.key, id(&hook)).await;
    let disabled: Value = response.json().await.expect("json");
    assert_eq!(disabled["isActive"], false);
    assert_eq!(at(&disabled["disabledAt"]), app.now());
    let reason = disabled["disabledReason"].as_str().expect("a reason");
    assert!(reason.contains("5 deliveries in a row") && reason.contains("HTTP 500"), "{reason}");

    app.clock.set(app.now() + time::Duration::hours(24));
    let (_, another_worker) = replica(&app);
    assert!(another_worker.claim(50).await.expect("claim").is_empty(), "DEAD deliveries are never due again");
    assert_eq!(receiver.received().len(), 25);

    receiver.reply(Reply::Status(204));
    let response = app.patch_webhook(&hooks.key, id(&hook), &json!({"isActive": true})).await;
    assert_eq!(response.status(), 200);
    let enabled: Value = response.json().await.expect("json");
    assert_eq!(
        (&enabled["isActive"], &enabled["disabledAt"], &enabled["disabledReason"]),
        (&json!(true), &Value::Null, &Value::Null)
    );
    app.simulate_webhook(&hooks.key, id(&hook)).await;
    wait_for_delivery(&app, &hooks.key, id(&hook), |d| d["status"] == "DELIVERED").await;
}

#[tokio::test]
async fn timeouts_closed_connections_and_redirects_are_failed_attempts() {
    let app = webhook_app(Duration::from_millis(50)).await;
    let receiver = Receiver::start().await;
    let (_, hooks) = webhook_partner(&app).await;
    let (hook, _) = subscribed(&app, &hooks.key, &receiver.url, &[]).await;

    receiver.reply(Reply::Hang(Duration::from_secs(3)));
    app.simulate_webhook(&hooks.key, id(&hook)).await;
    let hung = wait_for_delivery(&app, &hooks.key, id(&hook), |d| d["attempts"] == 1).await;
    assert_eq!((hung["status"].as_str(), &hung["lastStatusCode"]), (Some("FAILED"), &Value::Null));
    assert!(hung["lastError"].as_str().is_some_and(|e| e.contains("timed out")), "{hung}");

    receiver.reply(Reply::Close);
    app.clock.set(at(&hung["nextAttemptAt"]));
    let closed = wait_for_delivery(&app, &hooks.key, id(&hook), |d| d["attempts"] == 2).await;
    assert_eq!((closed["status"].as_str(), &closed["lastStatusCode"]), (Some("FAILED"), &Value::Null));
    assert!(closed["lastError"].as_str().is_some_and(|e| e.contains("closed")), "{closed}");

    receiver.reply(Reply::Status(302));
    app.clock.set(at(&closed["nextAttemptAt"]));
    let redirected = wait_for_delivery(&app, &hooks.key, id(&hook), |d| d["attempts"] == 3).await;
    assert_eq!((redirected["status"].as_str(), redirected["lastStatusCode"].as_u64()), (Some("FAILED"), Some(302)));
    assert!(redirected["lastError"].as_str().is_some_and(|e| e.contains("redirects are not followed")));

    receiver.reply(Reply::Status(204));
    app.clock.set(at(&redirected["nextAttemptAt"]));
    let delivered = wait_for_delivery(&app, &hooks.key, id(&hook), |d| d["attempts"] == 4).await;
    assert_eq!(delivered["status"], "DELIVERED");
    let codes: Vec<Value> =
        delivered["history"].as_array().expect("history").iter().map(|a| a["statusCode"].clone()).collect();
    assert_eq!(codes, vec![Value::Null, Value::Null, json!(302), json!(204)]);
    assert_eq!(receiver.received().len(), 4, "the redirect's target was never requested");
    let paths: HashSet<String> = receiver.received().iter().map(|r| r.header("host").to_owned()).collect();
    assert_eq!(paths.len(), 1);
}

#[tokio::test]
async fn urls_leading_to_non_public_addresses_are_refused_and_nothing_is_stored() {
    let app = spawn_app_with(|_| {}).await;
    let (_, hooks) = webhook_partner(&app).await;
    let refused = [
        "https://127.0.0.1/hook",
        "https://localhost/hook",
        "https://10.1.2.3/hook",
        "https://172.16.0.1/hook",
        "https://192.168.0.10/hook",
        "https://169.254.169.254/latest",
        "https://100.64.0.1/hook",
        "https://224.0.0.1/hook",
        "https://192.0.2.1/hook",
        "https://198.51.100.1/hook",
        "https://203.0.113.1/hook",
        "https://0.0.0.0/hook",
        "https://[::]/hook",
        "https://[::1]/hook",
        "https://[fe80::1]/hook",
        "https://[fd00::1]/hook",
        "https://[ff02::1]/hook",
        "https://[2001:db8::1]/hook",
        "https://[::ffff:127.0.0.1]/hook",
        "https://[::ffff:10.0.0.1]/hook",
    ];
    for url in refused {
        let (status, code, description) = envelope(app.create_webhook(&hooks.key, &json!({"url": url})).await).await;
        assert_eq!((status, code.as_str()), (400, "VALIDATION_FAILED"), "{url}");
        assert!(description.contains("public addresses only"), "{url}: {description}");
    }
    for (body, names) in [
        (json!({"url": "http://hooks.example.com/"}), "https"),
        (json!({"url": "https://user:pw@hooks.example.com/"}), "password"),
        (json!({"url": "not a url"}), "url"),
        (json!({"url": "https://hooks.example.com/", "eventTypes": ["feedback.deleted"]}), "eventTypes[0]"),
        (json!({"url": "https://hooks.example.com/", "eventTypes": ["webhook.test"]}), "webhook.test"),
        (json!({"url": "https://hooks.example.com/", "secret": "mine"}), "secret"),
        (json!({"description": "no url"}), "url"),
    ] {
        let (status, code, description) = envelope(app.create_webhook(&hooks.key, &body).await).await;
        assert_eq!((status, code.as_str()), (400, "VALIDATION_FAILED"), "{body}");
        assert!(description.contains(names), "{body}: {description}");
        assert!(!description.contains("feedback.deleted"), "a refusal never repeats what was sent: {description}");
    }
    assert_eq!(app.count_rows("webhook_subscriptions").await, 0);
}

#[tokio::test]
async fn the_address_is_checked_again_at_every_send() {
    let app = spawn_app_with(|s| s.webhooks.poll_every = Duration::from_millis(50)).await;
    let receiver = Receiver::start().await;
    let (_, hooks) = webhook_partner(&app).await;
    let response = app.create_webhook(&hooks.key, &json!({"url": "https://93.184.215.14/hooks"})).await;
    assert_eq!(response.status(), 201);
    let hook: Value = response.json().await.expect("json");
    let hook = hook["subscription"].clone();
    // As if the endpoint's name now resolved to this machine (DNS rebinding).
    let port = receiver.url.split(':').nth(2).and_then(|rest| rest.split('/').next()).expect("port");
    app.execute_sql(&format!("UPDATE webhook_subscriptions SET url = 'https://localhost:{port}/hooks/pulse'")).await;

    app.simulate_webhook(&hooks.key, id(&hook)).await;
    let refused = wait_for_delivery(&app, &hooks.key, id(&hook), |d| d["attempts"] == 1).await;
    assert_eq!(refused["status"], "FAILED");
    let error = refused["lastError"].as_str().expect("an error");
    assert!(error.contains("address refused") && error.contains("loopback"), "{error}");
    assert!(receiver.received().is_empty(), "no connection was made");
}

#[tokio::test]
async fn routes_answer_every_status_of_the_contract() {
    let app = webhook_app(Duration::from_secs(3600)).await;
    let receiver = Receiver::start().await;
    let (partner, hooks) = webhook_partner(&app).await;
    let (hook, _) = subscribed(&app, &hooks.key, &receiver.url, &[]).await;
    let hook_id = id(&hook);

    // 401 without a key; 403 without the scope (the campaign key has every campaign scope but it).
    let (status, code, _) = envelope(app.list_webhooks("svc_nope").await).await;
    assert_eq!((status, code.as_str()), (401, "UNAUTHENTICATED"));
    let (status, code, description) = envelope(app.get_webhook(&partner.key.key, hook_id).await).await;
    assert_eq!((status, code.as_str()), (403, "INSUFFICIENT_PERMISSION"));
    assert!(description.contains("channel:webhooks"));

    // Another business's key: the endpoint does not exist for it.
    let (_, other) = webhook_partner(&app).await;
    for response in [
        app.get_webhook(&other.key, hook_id).await,
        app.patch_webhook(&other.key, hook_id, &json!({"isActive": false})).await,
        app.delete_webhook(&other.key, hook_id).await,
        app.simulate_webhook(&other.key, hook_id).await,
        app.list_deliveries(&other.key, hook_id, &[]).await,
        app.get_webhook(&hooks.key, "5f0c9a4e-0000-4000-8000-000000000000").await,
        app.get_webhook(&hooks.key, "not-a-uuid").await,
    ] {
        let (status, code, _) = envelope(response).await;
        assert_eq!((status, code.as_str()), (404, "NOT_FOUND"));
    }
    let list: Value = app.list_webhooks(&other.key).await.json().await.expect("json");
    assert_eq!(list["items"], json!([]));

    // PATCH: description cleared with null, types replaced, a bad URL refused without a change.
    let response = app
        .patch_webhook(&hooks.key, hook_id, &json!({"description": "orders", "eventTypes": ["feedback.received"]}))
        .await;
    assert_eq!(response.status(), 200);
    let response = app.patch_webhook(&hooks.key, hook_id, &json!({"description": null})).await;
    let patched: Value = response.json().await.expect("json");
    assert_eq!((&patched["description"], &patched["eventTypes"]), (&Value::Null, &json!(["feedback.received"])));
    let (status, code, _) =
        envelope(app.patch_webhook(&hooks.key, hook_id, &json!({"eventTypes": ["nope"]})).await).await;
    assert_eq!((status, code.as_str()), (400, "VALIDATION_FAILED"));
    let paused: Value =
        app.patch_webhook(&hooks.key, hook_id, &json!({"isActive": false})).await.json().await.expect("json");
    assert_eq!((&paused["isActive"], &paused["disabledAt"]), (&json!(false), &Value::Null));

    // Idempotency-Key is ignored: the same key twice makes two endpoints with their own secrets.
    let create = || {
        app.client
            .post(app.url("/api/v1/channel/webhooks"))
            .bearer_auth(&hooks.key)
            .header("Idempotency-Key", "same")
            .json(&json!({"url": receiver.url}))
            .send()
    };
    let first: Value = create().await.expect("request").json().await.expect("json");
    let second: Value = create().await.expect("request").json().await.expect("json");
    assert_ne!(first["subscription"]["id"], second["subscription"]["id"]);
    assert_ne!(first["secret"], second["secret"]);

    // Deliveries: keyset pages, newest first, signed cursors.
    for _ in 0..3 {
        assert_eq!(app.simulate_webhook(&hooks.key, hook_id).await.status(), 201);
    }
    let page: Value = app.list_deliveries(&hooks.key, hook_id, &[("limit", "2")]).await.json().await.expect("json");
    let cursor = page["nextCursor"].as_str().expect("a next page");
    let rest: Value = app.list_deliveries(&hooks.key, hook_id, &[("cursor", cursor)]).await.json().await.expect("json");
    let ids: Vec<&Value> =
        page["items"].as_array().into_iter().chain(rest["items"].as_array()).flatten().map(|d| &d["id"]).collect();
    assert_eq!(ids.len(), 3);
    assert_eq!(ids.iter().collect::<HashSet<_>>().len(), 3);
    assert_eq!(rest["nextCursor"], Value::Null);
    for query in [[("limit", "0")], [("limit", "201")], [("cursor", "forged")]] {
        let (status, code, _) = envelope(app.list_deliveries(&hooks.key, hook_id, &query).await).await;
        assert_eq!((status, code.as_str()), (400, "VALIDATION_FAILED"), "{query:?}");
    }
    let other_hook = first["subscription"]["id"].as_str().expect("id");
    let (status, _, _) = envelope(app.list_deliveries(&hooks.key, other_hook, &[("cursor", cursor)]).await).await;
    assert_eq!(status, 400, "a cursor of another endpoint's trail is refused");

    // DELETE takes the delivery trail with it.
    assert_eq!(app.delete_webhook(&hooks.key, hook_id).await.status(), 204);
    let (status, _, _) = envelope(app.get_webhook(&hooks.key, hook_id).await).await;
    assert_eq!(status, 404);
    let (status, _, _) = envelope(app.delete_webhook(&hooks.key, hook_id).await).await;
    assert_eq!(status, 404);
    assert_eq!(app.count_rows("webhook_deliveries").await, 0);
}

/// The transport and dispatcher of the app's settings over its database, as another replica runs them.
pub(crate) fn replica(app: &TestApp) -> (impl pulse_domain::webhooks::ports::WebhookTransport, ServerDispatcher) {
    dispatcher_from(
        &app.settings,
        store_from(&app.settings).expect("store"),
        crypto_from(&app.settings).expect("crypto"),
        AppClock::Settable(app.clock.clone()),
    )
    .expect("dispatcher")
}

#[tokio::test]
async fn a_worker_dying_between_send_and_record_loses_nothing() {
    // The app's own worker sleeps: the replicas below do the work.
    let app = webhook_app(Duration::from_secs(3600)).await;
    let receiver = Receiver::start().await;
    let (_, hooks) = webhook_partner(&app).await;
    let (hook, secret) = subscribed(&app, &hooks.key, &receiver.url, &[]).await;
    receiver.set_secret(&secret);
    app.simulate_webhook(&hooks.key, id(&hook)).await;

    let (transport, dying) = replica(&app);
    let claimed = dying.claim(10).await.expect("claimed");
    assert_eq!(claimed.len(), 1);
    let sent = transport.post(&dying.request(&claimed[0]).expect("signed")).await;
    assert_eq!(sent.status_code, Some(200));
    drop(dying);

    let (_, survivor) = replica(&app);
    assert_eq!(survivor.deliver_due(10).await.expect("round").len(), 0, "the dead worker's lease still holds");
    app.clock.set(app.now() + time::Duration::seconds(61 + 1));
    assert_eq!(survivor.deliver_due(10).await.expect("round").len(), 1, "claimed again once the lease ran out");

    let received = receiver.received();
    assert_eq!(received.len(), 2);
    assert_eq!(received[0].header("x-svc-event"), received[1].header("x-svc-event"), "the same event id, to dedupe on");
    assert!(received.iter().all(|r| r.signature_valid == Some(true)));
    let delivery = deliveries(&app, &hooks.key, id(&hook)).await.remove(0);
    assert_eq!((delivery["status"].as_str(), delivery["attempts"].as_u64()), (Some("DELIVERED"), Some(1)));
}

#[tokio::test]
async fn two_workers_on_one_database_never_send_the_same_attempt_twice() {
    let app = webhook_app(Duration::from_secs(3600)).await;
    let receiver = Receiver::start().await;
    let (_, hooks) = webhook_partner(&app).await;
    let (hook, _) = subscribed(&app, &hooks.key, &receiver.url, &[]).await;
    for _ in 0..24 {
        assert_eq!(app.simulate_webhook(&hooks.key, id(&hook)).await.status(), 201);
    }
    let ((_, first), (_, second)) = (replica(&app), replica(&app));
    let mut rounds = 0;
    loop {
        let (a, b) = tokio::join!(first.deliver_due(4), second.deliver_due(4));
        let attempted = a.expect("first worker").len() + b.expect("second worker").len();
        if attempted == 0 {
            break;
        }
        rounds += 1;
        assert!(rounds < 50, "the workers stopped making progress");
    }
    let received = receiver.received();
    let distinct: HashSet<&str> = received.iter().map(|r| r.header("x-svc-delivery")).collect();
    assert_eq!((received.len(), distinct.len()), (24, 24), "each delivery sent exactly once");
    assert!(deliveries(&app, &hooks.key, id(&hook)).await.iter().all(|d| d["status"] == "DELIVERED"));
}

#[tokio::test]
async fn a_slow_endpoint_does_not_hold_back_the_deliveries_claimed_after_it() {
    let app = spawn_app_with(|s| {
        s.webhooks.allow_private = true;
        s.webhooks.timeout = Duration::from_secs(60);
        s.webhooks.poll_every = Duration::from_millis(50);
    })
    .await;
    let (slow, fast) = (Receiver::start().await, Receiver::start().await);
    // Answers only after the test is over: its attempt stays in flight throughout.
    slow.reply(Reply::Hang(Duration::from_secs(3600)));
    let (_, hooks) = webhook_partner(&app).await;
    let (slow_hook, _) = subscribed(&app, &hooks.key, &slow.url, &[]).await;
    let (fast_hook, _) = subscribed(&app, &hooks.key, &fast.url, &[]).await;
    app.simulate_webhook(&hooks.key, id(&slow_hook)).await;
    slow.wait_for(1).await;

    for _ in 0..3 {
        assert_eq!(app.simulate_webhook(&hooks.key, id(&fast_hook)).await.status(), 201);
    }
    fast.wait_for(3).await;
    wait_for_delivery(&app, &hooks.key, id(&fast_hook), |d| d["status"] == "DELIVERED").await;
    let held = deliveries(&app, &hooks.key, id(&slow_hook)).await.remove(0);
    assert_eq!((held["status"].as_str(), held["attempts"].as_u64()), (Some("PENDING"), Some(0)), "still in flight");
}

#[tokio::test]
async fn finished_events_leave_the_database_after_thirty_days() {
    let app = webhook_app(Duration::from_secs(3600)).await;
    let receiver = Receiver::start().await;
    let (_, hooks) = webhook_partner(&app).await;
    let (hook, _) = subscribed(&app, &hooks.key, &receiver.url, &[]).await;
    let (transport, worker) = replica(&app);
    app.simulate_webhook(&hooks.key, id(&hook)).await;
    assert_eq!(worker.deliver_due(10).await.expect("round").len(), 1);
    receiver.reply(Reply::Status(500));
    app.simulate_webhook(&hooks.key, id(&hook)).await;
    assert_eq!(worker.deliver_due(10).await.expect("round").len(), 1);

    let webhooks = Webhooks::new(
        store_from(&app.settings).expect("store"),
        crypto_from(&app.settings).expect("crypto"),
        AppClock::Settable(app.clock.clone()),
        transport,
        true,
    );
    app.clock.set(app.now() + EVENT_RETENTION + time::Duration::MINUTE);
    // The delivered one, and the workspace's approval, which no endpoint heard.
    assert_eq!(webhooks.purge_old_events(|| true).await.expect("purged"), 2);
    let left = deliveries(&app, &hooks.key, id(&hook)).await;
    assert_eq!(left.len(), 1);
    assert_eq!(left[0]["status"], "FAILED", "a delivery still to attempt keeps its event");
    assert_eq!((app.count_rows("webhook_events").await, app.count_rows("webhook_attempts").await), (1, 1));
}

/// Every delivery's body matches, key for key, the event its type names in the document's
/// `webhooks` section: a generated receiver can parse what is sent.
#[tokio::test]
async fn every_delivery_matches_its_event_in_the_documents_webhooks_section() {
    let app = webhook_app(Duration::from_millis(50)).await;
    let receiver = Receiver::start().await;
    let (partner, hooks) = webhook_partner(&app).await;
    let (hook, secret) = subscribed(&app, &hooks.key, &receiver.url, &[]).await;
    receiver.set_secret(&secret);
    let campaign = app.live_campaign(&partner.key.key).await;
    let question = campaign["survey"]["questions"][0]["id"].as_str().expect("a question");
    app.respond(code_of(&campaign), &json!({}), &[(question, json!(4))]).await;
    app.analyze().await;
    assert_eq!(app.simulate_webhook(&hooks.key, id(&hook)).await.status(), 201);
    let exporter = app.create_key_with(Some(partner.business), &["channel:export"], &[partner.workspace], None).await;
    app.export_worker_beats().await;
    let export = app.request_export(&exporter.key, id(&campaign), &json!({"format": "json"})).await;
    assert_eq!(export.status(), 202);
    let export: Value = export.json().await.expect("json");
    app.ready_export(&exporter.key, id(&export)).await;

    let delivered = receiver.wait_for(4).await;
    let metrics = app.client.get(app.url("/metrics")).send().await.expect("request").text().await.expect("text");
    let attempts = metrics
        .lines()
        .find_map(|l| l.strip_prefix(r#"pulse_webhook_attempts_total{outcome="DELIVERED"} "#))
        .and_then(|v| v.parse::<f64>().ok());
    assert!(attempts.is_some_and(|n| n >= 3.0), "attempts are counted by outcome: {attempts:?}");
    let document: Value = app
        .client
        .get(app.url("/api/v1/channel/openapi.json"))
        .send()
        .await
        .expect("request")
        .json()
        .await
        .expect("json");
    let types: HashSet<String> =
        delivered.iter().map(|r| r.json()["type"].as_str().expect("type").to_owned()).collect();
    let expected = ["feedback.received", "feedback.analyzed", "webhook.test", "export.ready"];
    assert_eq!(types, expected.iter().map(|t| (*t).to_owned()).collect());
    for request in &delivered {
        let body = request.json();
        let event_type = body["type"].as_str().expect("type");
        let operation = &document["webhooks"][event_type]["post"];
        let reference = operation["requestBody"]["content"]["application/json"]["schema"]["$ref"].as_str();
        let reference = reference.unwrap_or_else(|| panic!("{event_type} is in the webhooks section"));
        let schema = json!({"$ref": reference, "components": document["components"]});
        let validator = jsonschema::options().should_validate_formats(true).build(&schema).expect("compiles");
        let problems: Vec<String> =
            validator.iter_errors(&body).map(|e| format!("{e} at {}", e.instance_path())).collect();
        assert!(problems.is_empty(), "{event_type}: {problems:?}");
        // Key for key: nothing sent that the document does not name.
        let envelope_name = reference.rsplit('/').next().expect("a name");
        let payload_name = envelope_name.replace("Event", "Payload");
        for (part, name) in [(&body, envelope_name), (&body["payload"], payload_name.as_str())] {
            let sent: HashSet<&String> = part.as_object().expect("an object").keys().collect();
            let properties = document["components"]["schemas"][name]["properties"].as_object().expect("properties");
            let named: HashSet<&String> = properties.keys().collect();
            assert_eq!(sent, named, "{event_type}: {name}");
        }
        for header in ["x-svc-signature", "x-svc-event", "x-svc-event-type", "x-svc-delivery"] {
            assert!(!request.header(header).is_empty(), "{event_type} carries {header}");
            let documented = operation["parameters"].as_array().expect("parameters").iter();
            assert!(documented.clone().any(|p| p["name"].as_str().map(str::to_lowercase).as_deref() == Some(header)));
        }
    }
}

/// The operator's approval, at the command line, reaches an endpoint the pending workspace
/// registered, signed; the workspace then lists as ACTIVE.
#[tokio::test]
async fn an_operators_approval_reaches_the_workspaces_endpoint_signed() {
    let app = webhook_app(Duration::from_millis(50)).await;
    let receiver = Receiver::start().await;
    let business = app.create_business().await;
    let key = app.create_key(Some(business), &["channel:workspaces", "channel:webhooks"]).await;
    let workspace = app.workspace(&key.key, "client-1").await;
    let (hook, secret) = subscribed(&app, &key.key, &receiver.url, &["workspace.approved"]).await;
    receiver.set_secret(&secret);
    let status = || async {
        let orgs: Value = app.list_orgs(&key.key).await.json().await.expect("json");
        orgs["workspaces"][0]["status"].clone()
    };
    assert_eq!(status().await, json!("PENDING_APPROVAL"));

    let workspace_id = workspace.to_string();
    for _ in 0..2 {
        let output = crate::cli::pulse(&app, &["admin", "workspace", "approve", &workspace_id]);
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    }
    // The command ran on the machine's clock: the delivery is due from then.
    app.clock.set(time::OffsetDateTime::now_utc());
    let received = receiver.wait_for(1).await;
    let request = &received[0];
    assert_eq!(request.signature_valid, Some(true));
    assert_eq!(request.header("x-svc-event-type"), "workspace.approved");
    let body = request.json();
    assert_eq!((&body["type"], &body["aggregate"]), (&json!("workspace.approved"), &json!("workspace")));
    assert_eq!((&body["aggregateId"], &body["orgId"]), (&json!(workspace_id), &json!(workspace_id)));
    assert_eq!(body["payload"], json!({"workspaceId": workspace_id, "status": "ACTIVE"}));
    assert_eq!(status().await, json!("ACTIVE"));
    let events = deliveries(&app, &key.key, id(&hook)).await;
    assert_eq!(events.len(), 1, "approving an active workspace again emits nothing");
}
