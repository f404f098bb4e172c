use serde_json::{Value, json};

use crate::helpers::{envelope, spawn_app, spawn_app_with};

#[tokio::test]
async fn probes_answer_when_the_database_is_up() {
    let app = spawn_app().await;
    let live = app.client.get(app.url("/healthz")).send().await.expect("response");
    assert_eq!(live.status(), 200);
    let ready = app.client.get(app.url("/readyz")).send().await.expect("response");
    assert_eq!(ready.status(), 200);
    let body: Value = ready.json().await.expect("json");
    assert_eq!(body, json!({"status": "ready"}));
}

#[tokio::test]
async fn readiness_is_503_without_a_database_and_no_cause_leaks() {
    let app = spawn_app_with(|s| {
        // Nothing listens on port 1; the pool gives up quickly.
        s.database_url = "postgres://postgres@127.0.0.1:1/pulse".to_owned();
        s.pool.acquire_timeout = std::time::Duration::from_millis(500);
    })
    .await;
    let live = app.client.get(app.url("/healthz")).send().await.expect("response");
    assert_eq!(live.status(), 200, "liveness does not depend on the database");
    let ready = app.client.get(app.url("/readyz")).send().await.expect("response");
    assert!(ready.headers().contains_key("retry-after"));
    let (status, code, description) = envelope(ready).await;
    assert_eq!((status, code.as_str()), (503, "UNAVAILABLE"));
    assert_eq!(description, "a service dependency is unavailable; retry in a few seconds", "no infrastructure detail");
    let key_call = app.whoami("svc_AAAAAAAAAA_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA").await;
    assert_eq!(key_call.status(), 401, "a malformed key is refused without the database");
}
