use serde_json::{Value, json};

use pulse_domain::quota::models::QuotaFamily;

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
    let refusals = r#"pulse_readiness_refusals_total{reason="database"}"#;
    let before = scrape(&app, &app.address).await;
    let ready = app.client.get(app.url("/readyz")).send().await.expect("response");
    let after = scrape(&app, &app.address).await;
    assert!(series(&after, refusals) >= series(&before, refusals) + 1.0, "counted for the alerts: {after}");
    assert!(ready.headers().contains_key("retry-after"));
    let (status, code, description) = envelope(ready).await;
    assert_eq!((status, code.as_str()), (503, "UNAVAILABLE"));
    assert_eq!(description, "a service dependency is unavailable; retry in a few seconds", "no infrastructure detail");
    let key_call = app.whoami("svc_AAAAAAAAAA_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA").await;
    assert_eq!(key_call.status(), 401, "a malformed key is refused without the database");
}

/// The value of the series `name{labels}` (labels in the order they are recorded), or 0.
fn series(text: &str, name_and_labels: &str) -> f64 {
    text.lines()
        .find_map(|line| line.strip_prefix(name_and_labels).and_then(|rest| rest.strip_prefix(' ')))
        .map_or(0.0, |value| value.trim().parse().expect("a number"))
}

async fn scrape(app: &crate::helpers::TestApp, base: &str) -> String {
    let response = app.client.get(format!("{base}/metrics")).send().await.expect("response");
    assert_eq!(response.status(), 200);
    let content_type = response.headers().get("content-type").and_then(|v| v.to_str().ok()).map(str::to_owned);
    assert_eq!(content_type.as_deref(), Some("text/plain; version=0.0.4; charset=utf-8"));
    response.text().await.expect("text")
}

/// Requests by route pattern, method and status, their latency, quota refusals by family, the
/// pool and the worker queues; and no label carries an id or a token.
#[tokio::test]
async fn metrics_count_requests_refusals_pool_and_queues_without_ids() {
    let app = spawn_app_with(|s| s.quotas = s.quotas.clone().with_hourly(QuotaFamily::Identity, 1)).await;
    let partner = app.campaign_partner().await;
    let whoami = || app.client.get(app.url("/api/v1/channel/whoami")).bearer_auth(&partner.key.key).send();
    let route = r#"pulse_http_requests_total{route="/api/v1/channel/whoami",method="GET",status="429"}"#;
    let refusals = r#"pulse_quota_refusals_total{family="identity"}"#;
    let before = scrape(&app, &app.address).await;
    assert_eq!(whoami().await.expect("response").status(), 200);
    assert_eq!(whoami().await.expect("response").status(), 429);
    // A campaign id in the path is counted under the route's pattern, never the id.
    let unknown = uuid::Uuid::new_v4();
    let path = format!("/api/v1/channel/campaigns/{unknown}");
    assert_eq!(app.client.get(app.url(&path)).bearer_auth(&partner.key.key).send().await.expect("sent").status(), 404);
    assert_eq!(app.client.get(app.url("/no/such/route/4f1c")).send().await.expect("sent").status(), 404);

    let after = scrape(&app, &app.address).await;
    // Other tests of this process record into the same recorder: counts only grow.
    assert!(series(&after, route) >= series(&before, route) + 1.0, "{after}");
    assert!(series(&after, refusals) >= series(&before, refusals) + 1.0);
    let campaign_route =
        r#"pulse_http_requests_total{route="/api/v1/channel/campaigns/{id}",method="GET",status="404"}"#;
    assert!(series(&after, campaign_route) >= 1.0);
    assert!(after.contains(r#"route="unmatched""#));
    assert!(after.contains(
        r#"pulse_http_request_duration_seconds_bucket{route="/api/v1/channel/whoami",method="GET",le="0.005"}"#
    ));
    for gauge in ["pulse_db_pool_connections", "pulse_db_pool_in_use", "pulse_db_pool_waiting"] {
        assert!(after.lines().any(|l| l.starts_with(gauge)), "{gauge}");
    }
    for queue in ["webhook_deliveries", "analyses", "exports", "outreach_messages"] {
        assert!(after.contains(&format!(r#"pulse_queue_due{{queue="{queue}"}}"#)), "{queue}");
        assert!(after.contains(&format!(r#"pulse_queue_oldest_seconds{{queue="{queue}"}}"#)), "{queue}");
    }
    assert!(!after.lines().any(holds_a_uuid), "no series names an id");
    assert!(!after.contains(&partner.key.key) && !after.contains("4f1c"), "no key or path in a label");
}

/// With a read-only copy, how far it replays behind; the copy here is the primary itself, which
/// is never behind. Counters of fixed labels are there from the start, at zero or more.
#[tokio::test]
async fn metrics_serve_the_replicas_lag_and_every_fixed_counter_from_the_start() {
    let app = spawn_app_with(|s| s.database_read_url = Some(s.database_url.clone())).await;
    let text = scrape(&app, &app.address).await;
    assert!(text.lines().any(|l| l == "pulse_db_replica_lag_seconds 0"), "{text}");
    for outcome in ["DELIVERED", "FAILED", "DEAD", "unrecorded"] {
        assert!(text.contains(&format!(r#"pulse_webhook_attempts_total{{outcome="{outcome}"}}"#)), "{outcome}");
    }
    for reason in ["database", "draining"] {
        assert!(text.contains(&format!(r#"pulse_readiness_refusals_total{{reason="{reason}"}}"#)), "{reason}");
    }
}

/// Whether `line` holds a canonical uuid.
fn holds_a_uuid(line: &str) -> bool {
    line.as_bytes().windows(36).any(|w| {
        w.iter().enumerate().all(|(i, b)| if [8, 13, 18, 23].contains(&i) { *b == b'-' } else { b.is_ascii_hexdigit() })
    })
}

/// With `PULSE_METRICS_BIND`, metrics are served on that listener only.
#[tokio::test]
async fn metrics_can_be_served_on_their_own_listener_only() {
    let app = spawn_app_with(|s| s.metrics_bind = Some("127.0.0.1:0".parse().expect("address"))).await;
    let (status, code, _) = envelope(app.client.get(app.url("/metrics")).send().await.expect("response")).await;
    assert_eq!((status, code.as_str()), (404, "NOT_FOUND"), "not on the public listener");
    let own = app.metrics_address.clone().expect("a metrics listener");
    let text = scrape(&app, &own).await;
    assert!(text.contains("pulse_db_pool_connections"));
    let (status, _, _) =
        envelope(app.client.get(format!("{own}/api/v1/channel/whoami")).send().await.expect("sent")).await;
    assert_eq!(status, 404, "the metrics listener serves nothing else");
}
