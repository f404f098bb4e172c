//! Rotating an endpoint's signing secret: during the grace every delivery carries a signature with
//! the old secret and one with the new, so a receiver holding either accepts it; afterwards only
//! the new one signs.

use std::time::Duration;

use serde_json::{Value, json};

use crate::helpers::{captured_logs, envelope};
use crate::receiver::{Receiver, Reply, verify_signature};
use crate::webhooks::{at, id, subscribed, wait_for_delivery, webhook_app, webhook_partner};

#[tokio::test]
async fn a_receiver_holding_either_secret_accepts_deliveries_until_the_grace_ends() {
    let app = webhook_app(Duration::from_millis(50)).await;
    let receiver = Receiver::start().await;
    receiver.reply(Reply::Verified);
    let (_, hooks) = webhook_partner(&app).await;
    let (hook, old) = subscribed(&app, &hooks.key, &receiver.url, &[]).await;

    let response = app.rotate_webhook_secret(&hooks.key, id(&hook), Some(&json!({"graceSeconds": 3600}))).await;
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers().get("cache-control").and_then(|v| v.to_str().ok()), Some("no-store"));
    let rotated: Value = response.json().await.expect("json");
    let new = rotated["secret"].as_str().expect("secret").to_owned();
    assert!(new.starts_with("whsec_") && new.len() == old.len() && new != old, "the format of create's");
    let expires = at(&rotated["previousSecretExpiresAt"]);
    assert_eq!(expires, app.now() + time::Duration::hours(1));

    // During the grace: a receiver that knows only the new secret accepts, and so does one that
    // still knows only the old one.
    for (secret, delivered) in [(&new, 1), (&old, 2)] {
        receiver.set_secret(secret);
        assert_eq!(app.simulate_webhook(&hooks.key, id(&hook)).await.status(), 201);
        let request = receiver.wait_for(delivered).await.pop().expect("a request");
        assert_eq!(request.signature_valid, Some(true));
        let delivery = wait_for_delivery(&app, &hooks.key, id(&hook), |d| d["attempts"] == 1).await;
        assert_eq!(delivery["status"], "DELIVERED");
        let signature = request.header("x-svc-signature");
        assert_eq!(signature.matches(",v1=").count(), 2, "{signature}");
        let now = app.now().unix_timestamp();
        for holding in [&old, &new] {
            pulse_partner::verify_webhook_at(&[holding], signature, &request.body, now).expect("verifies");
        }
    }

    // The grace ends: only the new secret signs, and the receiver holding the old one refuses.
    app.clock.set(expires);
    assert_eq!(app.simulate_webhook(&hooks.key, id(&hook)).await.status(), 201);
    let request = receiver.wait_for(3).await.pop().expect("a request");
    assert_eq!(request.signature_valid, Some(false));
    let refused = wait_for_delivery(&app, &hooks.key, id(&hook), |d| d["attempts"] == 1).await;
    assert_eq!((refused["status"].as_str(), refused["lastStatusCode"].as_u64()), (Some("FAILED"), Some(401)));
    let signature = request.header("x-svc-signature");
    assert_eq!(signature.matches(",v1=").count(), 1, "{signature}");
    assert!(verify_signature(&new, signature, &request.body) && !verify_signature(&old, signature, &request.body));

    // No body: the default grace of a day; graceSeconds 0: the replaced secret stops at once.
    let response = app.rotate_webhook_secret(&hooks.key, id(&hook), None).await;
    assert_eq!(response.status(), 200);
    let by_default: Value = response.json().await.expect("json");
    assert_eq!(at(&by_default["previousSecretExpiresAt"]), app.now() + time::Duration::days(1));
    // A JSON `null` body is no body too (the document's request body is optional and nullable).
    let response = app.rotate_webhook_secret(&hooks.key, id(&hook), Some(&Value::Null)).await;
    assert_eq!(response.status(), 200);
    let null_body: Value = response.json().await.expect("json");
    assert_eq!(at(&null_body["previousSecretExpiresAt"]), app.now() + time::Duration::days(1));
    let response = app.rotate_webhook_secret(&hooks.key, id(&hook), Some(&json!({"graceSeconds": 0}))).await;
    let at_once: Value = response.json().await.expect("json");
    assert_eq!(at_once["previousSecretExpiresAt"], Value::Null);
    let newest = at_once["secret"].as_str().expect("secret");
    receiver.set_secret(newest);
    assert_eq!(app.simulate_webhook(&hooks.key, id(&hook)).await.status(), 201);
    let request = receiver.wait_for(4).await.pop().expect("a request");
    assert_eq!(request.header("x-svc-signature").matches(",v1=").count(), 1);
    assert_eq!(request.signature_valid, Some(true));

    // No secret in reads, in the logs or in the database in the clear.
    let secrets = [old.as_str(), new.as_str(), by_default["secret"].as_str().expect("secret"), newest];
    for response in [app.list_webhooks(&hooks.key).await, app.get_webhook(&hooks.key, id(&hook)).await] {
        assert_eq!(response.status(), 200);
        let text = response.text().await.expect("body");
        assert!(secrets.iter().all(|secret| !text.contains(secret)), "reads never carry a secret");
    }
    let logs = captured_logs();
    for secret in secrets {
        assert!(!logs.contains(secret), "a secret is never logged");
        assert_eq!(app.tables_holding(secret).await, Vec::<String>::new(), "secrets are sealed at rest");
    }
}

#[tokio::test]
async fn rotation_is_refused_for_a_bad_grace_and_for_another_workspaces_endpoint() {
    let app = webhook_app(Duration::from_secs(3600)).await;
    let receiver = Receiver::start().await;
    let (_, hooks) = webhook_partner(&app).await;
    let (hook, _) = subscribed(&app, &hooks.key, &receiver.url, &[]).await;

    for body in [
        json!({"graceSeconds": -1}),
        json!({"graceSeconds": 604_801}),
        json!({"graceSeconds": "3600"}),
        json!({"graceSeconds": 1.5}),
        json!({"grace": 60}),
    ] {
        let (status, code, description) =
            envelope(app.rotate_webhook_secret(&hooks.key, id(&hook), Some(&body)).await).await;
        assert_eq!((status, code.as_str()), (400, "VALIDATION_FAILED"), "{body}");
        assert!(description.contains("grace"), "{body}: {description}");
        assert!(!description.contains("604801") && !description.contains("1.5"), "never the value sent: {description}");
    }
    let response = app.rotate_webhook_secret(&hooks.key, id(&hook), Some(&json!({"graceSeconds": 604_800}))).await;
    assert_eq!(response.status(), 200, "seven days at most");

    let (_, other) = webhook_partner(&app).await;
    for (key, endpoint) in
        [(&other.key, id(&hook)), (&hooks.key, "5f0c9a4e-0000-4000-8000-000000000000"), (&hooks.key, "not-a-uuid")]
    {
        let (status, code, _) = envelope(app.rotate_webhook_secret(key, endpoint, None).await).await;
        assert_eq!((status, code.as_str()), (404, "NOT_FOUND"), "{endpoint}");
    }
    let (status, code, _) = envelope(app.rotate_webhook_secret("svc_nope", id(&hook), None).await).await;
    assert_eq!((status, code.as_str()), (401, "UNAUTHENTICATED"));
}
