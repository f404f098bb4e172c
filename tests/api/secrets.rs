//! Secrets are shown once and never again: not in responses, not in logs.

use serde_json::json;

use crate::helpers::campaigns::{code_of, id_of};
use crate::helpers::{captured_logs, spawn_app};

#[tokio::test]
async fn api_keys_never_reach_a_response_or_a_log_line() {
    let app = spawn_app().await;
    let (_, key) = app.partner().await;
    let secret_part = key.key.rsplit('_').next().expect("secret part").to_owned();

    let mut bodies = Vec::new();
    bodies.push(app.whoami(&key.key).await.text().await.expect("body"));
    bodies.push(app.list_orgs(&key.key).await.text().await.expect("body"));
    bodies.push(app.create_org(&key.key, &json!({"externalRef": "r", "name": "n"})).await.text().await.expect("body"));
    bodies.push(
        app.create_org(&key.key, &json!({"externalRef": "r", "name": "other"})).await.text().await.expect("body"),
    );
    bodies.push(app.create_org(&key.key, &json!({"externalRef": 1})).await.text().await.expect("body"));
    // A mistyped key, as a partner's log might show it, is not echoed either.
    let mistyped = format!("{}x", &key.key[..key.key.len() - 1]);
    bodies.push(app.whoami(&mistyped).await.text().await.expect("body"));
    app.revoke_key(&key.prefix).await;
    bodies.push(app.whoami(&key.key).await.text().await.expect("body"));

    let mistyped_secret = mistyped.rsplit('_').next().expect("secret part").to_owned();
    for body in &bodies {
        assert!(!body.contains(&secret_part), "a response carried the key: {body}");
        assert!(!body.contains(&mistyped_secret), "a response echoed the presented key: {body}");
    }
    assert!(bodies[0].contains(&key.prefix), "the public prefix is what identifies a key");
    let logs = captured_logs();
    assert!(logs.contains("request finished"), "the capture works");
    assert!(!logs.contains(&secret_part), "a log line carried the key");
    assert!(!logs.contains(&mistyped_secret), "a log line carried the presented key");
}

#[tokio::test]
async fn invalid_values_are_not_echoed_in_errors() {
    let app = spawn_app().await;
    let (_, key) = app.partner().await;
    let personal = "ada.lovelace@example.com";
    let response = app.create_org(&key.key, &json!({"externalRef": "r", "name": "n", "type": personal})).await;
    let body = response.text().await.expect("body");
    assert!(body.contains("VALIDATION_FAILED"));
    assert!(!body.contains(personal), "{body}");
    let response = app.create_org(&key.key, &json!({"externalRef": {"email": personal}, "name": "n"})).await;
    assert!(!response.text().await.expect("body").contains(personal));
    assert!(!captured_logs().contains(personal));
}

#[tokio::test]
async fn answers_that_carry_a_secret_are_never_cacheable() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let campaign = app.live_campaign(&partner.key.key).await;
    let studio = app.studio_token(partner.business, &["campaign:build"]).await;
    let cache_control = |response: &reqwest::Response| {
        response.headers().get("cache-control").and_then(|v| v.to_str().ok()).map(str::to_owned)
    };

    let created = app.create_launch_key(&studio, id_of(&campaign), None).await;
    assert_eq!((created.status().as_u16(), cache_control(&created).as_deref()), (201, Some("no-store")));
    let started = app.start(code_of(&campaign), &json!({"consentGiven": true})).await;
    assert_eq!((started.status().as_u16(), cache_control(&started).as_deref()), (201, Some("no-store")));
    let registered = app
        .register(&json!({"campaignCode": code_of(&campaign), "appId": "a", "platform": "web", "appVersion": "1"}))
        .await;
    assert_eq!((registered.status().as_u16(), cache_control(&registered).as_deref()), (201, Some("no-store")));
}
