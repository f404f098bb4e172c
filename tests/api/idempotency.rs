//! `Idempotency-Key` on `POST /orgs`: the one mechanism every replay-safe POST uses.

use futures_util::future::join_all;
use serde_json::{Value, json};
use time::Duration;

use crate::helpers::{envelope, spawn_app};

#[tokio::test]
async fn a_replay_answers_200_with_the_original_body_and_created_false() {
    let app = spawn_app().await;
    let (_, key) = app.partner().await;
    let body = json!({"externalRef": "r1", "name": "Client"});
    let first = app.create_org_idempotent(&key.key, "op-1", &body).await;
    assert_eq!(first.status(), 201);
    assert!(first.headers().get("idempotency-replayed").is_none());
    let first: Value = first.json().await.expect("json");

    let replay = app.create_org_idempotent(&key.key, "op-1", &body).await;
    assert_eq!(replay.status(), 200);
    assert_eq!(replay.headers().get("idempotency-replayed").map(|v| v.as_bytes()), Some(&b"true"[..]));
    let replay: Value = replay.json().await.expect("json");
    assert_eq!(replay["created"], json!(false));
    assert_eq!(replay["workspace"], first["workspace"]);
}

#[tokio::test]
async fn the_same_key_with_another_body_is_409_conflict() {
    let app = spawn_app().await;
    let (_, key) = app.partner().await;
    app.create_org_idempotent(&key.key, "op-1", &json!({"externalRef": "r1", "name": "Client"})).await;
    let (status, code, description) =
        envelope(app.create_org_idempotent(&key.key, "op-1", &json!({"externalRef": "r2", "name": "Client"})).await)
            .await;
    assert_eq!((status, code.as_str()), (409, "CONFLICT"));
    assert!(description.contains("different request body"));
    let list: Value = app.list_orgs(&key.key).await.json().await.expect("json");
    assert_eq!(list["total"], json!(1));
}

#[tokio::test]
async fn key_order_and_spacing_do_not_make_another_body() {
    let app = spawn_app().await;
    let (_, key) = app.partner().await;
    let send = |raw: &'static str| {
        app.client
            .post(app.url("/api/v1/channel/orgs"))
            .bearer_auth(&key.key)
            .header("Idempotency-Key", "op-1")
            .header("Content-Type", "application/json")
            .body(raw)
            .send()
    };
    assert_eq!(send(r#"{"externalRef":"r1","name":"Client"}"#).await.expect("first").status(), 201);
    let replay = send("{ \"name\": \"Client\",\n  \"externalRef\": \"r1\" }").await.expect("replay");
    assert_eq!(replay.status(), 200);
    assert!(replay.headers().contains_key("idempotency-replayed"));
}

#[tokio::test]
async fn keys_over_255_characters_are_400() {
    let app = spawn_app().await;
    let (_, key) = app.partner().await;
    let body = json!({"externalRef": "r1", "name": "Client"});
    let (status, code, description) =
        envelope(app.create_org_idempotent(&key.key, &"k".repeat(256), &body).await).await;
    assert_eq!((status, code.as_str()), (400, "VALIDATION_FAILED"));
    assert!(description.contains("Idempotency-Key"));
    assert_eq!(app.create_org_idempotent(&key.key, &"k".repeat(255), &body).await.status(), 201);
}

#[tokio::test]
async fn keys_are_scoped_per_api_key() {
    let app = spawn_app().await;
    let (business, key) = app.partner().await;
    let sibling = app.create_key(Some(business), &["channel:workspaces"]).await;
    app.create_org_idempotent(&key.key, "op-1", &json!({"externalRef": "r1", "name": "Client"})).await;
    let other = app.create_org_idempotent(&sibling.key, "op-1", &json!({"externalRef": "r2", "name": "Client"})).await;
    assert_eq!(other.status(), 201, "another API key's Idempotency-Key is another namespace");
}

#[tokio::test]
async fn a_refused_request_does_not_use_up_the_key() {
    let app = spawn_app().await;
    let (_, key) = app.partner().await;
    let refused = app.create_org_idempotent(&key.key, "op-1", &json!({"externalRef": "", "name": "Client"})).await;
    assert_eq!(refused.status(), 400);
    let fixed = app.create_org_idempotent(&key.key, "op-1", &json!({"externalRef": "r1", "name": "Client"})).await;
    assert_eq!(fixed.status(), 201);
}

#[tokio::test]
async fn records_are_forgotten_after_24_hours() {
    let app = spawn_app().await;
    let (_, key) = app.partner().await;
    app.create_org_idempotent(&key.key, "op-1", &json!({"externalRef": "r1", "name": "Client"})).await;
    app.clock.advance(Duration::hours(23));
    let within = app.create_org_idempotent(&key.key, "op-1", &json!({"externalRef": "r2", "name": "Client"})).await;
    assert_eq!(within.status(), 409);
    app.clock.advance(Duration::hours(1) + Duration::SECOND);
    let after = app.create_org_idempotent(&key.key, "op-1", &json!({"externalRef": "r2", "name": "Client"})).await;
    assert_eq!(after.status(), 201);
}

#[tokio::test]
async fn parallel_duplicates_across_two_replicas_create_once() {
    let app = spawn_app().await;
    let replica = app.second_instance();
    let (_, key) = app.partner().await;
    let body = json!({"externalRef": "race", "name": "Client"});
    let requests = (0..12).map(|i| {
        let base = if i % 2 == 0 { app.address.clone() } else { replica.clone() };
        app.client
            .post(format!("{base}/api/v1/channel/orgs"))
            .bearer_auth(&key.key)
            .header("Idempotency-Key", "same-op")
            .json(&body)
            .send()
    });
    let mut created = 0;
    let mut ids = Vec::new();
    for response in join_all(requests).await {
        let response = response.expect("response");
        match response.status().as_u16() {
            201 => {
                created += 1;
                let body: Value = response.json().await.expect("json");
                ids.push(body["workspace"]["id"].clone());
            }
            200 => {
                assert!(response.headers().contains_key("idempotency-replayed"));
                let body: Value = response.json().await.expect("json");
                assert_eq!(body["created"], json!(false));
                ids.push(body["workspace"]["id"].clone());
            }
            409 => {
                let (_, code, description) = envelope(response).await;
                assert_eq!(code, "CONFLICT");
                assert!(description.contains("in flight"), "{description}");
            }
            other => panic!("unexpected status {other}"),
        }
    }
    assert_eq!(created, 1, "exactly one request created the workspace");
    ids.dedup();
    assert_eq!(ids.len(), 1, "every answer names the same workspace");
    let list: Value = app.list_orgs(&key.key).await.json().await.expect("json");
    assert_eq!(list["total"], json!(1));
}
