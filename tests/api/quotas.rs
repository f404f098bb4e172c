//! Hourly per-key quotas, shared by replicas through PostgreSQL.

use pulse_domain::quota::models::QuotaFamily;
use serde_json::json;
use time::Duration;

use crate::helpers::{envelope, spawn_app_with};

fn header(response: &reqwest::Response, name: &str) -> Option<String> {
    response.headers().get(name).and_then(|v| v.to_str().ok()).map(str::to_owned)
}

#[tokio::test]
async fn the_creation_quota_refuses_with_429_until_the_next_hour() {
    let app = spawn_app_with(|s| s.quotas = s.quotas.clone().with_hourly(QuotaFamily::WorkspaceCreate, 2)).await;
    let (_, key) = app.partner().await;
    app.clock.advance(Duration::minutes(45));
    let first = app.create_org(&key.key, &json!({"externalRef": "a", "name": "n"})).await;
    assert_eq!(first.status(), 201);
    assert_eq!(header(&first, "ratelimit-limit").as_deref(), Some("2"));
    assert_eq!(header(&first, "ratelimit-remaining").as_deref(), Some("1"));
    assert_eq!(header(&first, "ratelimit-reset").as_deref(), Some("900"));
    assert_eq!(app.create_org(&key.key, &json!({"externalRef": "b", "name": "n"})).await.status(), 201);

    let refused = app.create_org(&key.key, &json!({"externalRef": "c", "name": "n"})).await;
    assert_eq!(header(&refused, "retry-after").as_deref(), Some("900"));
    assert_eq!(header(&refused, "ratelimit-remaining").as_deref(), Some("0"));
    let (status, code, description) = envelope(refused).await;
    assert_eq!((status, code.as_str()), (429, "RATE_LIMITED"));
    assert!(description.contains("workspace_create"));

    // Other families have their own quota.
    assert_eq!(app.list_orgs(&key.key).await.status(), 200);
    app.clock.advance(Duration::minutes(15));
    assert_eq!(app.create_org(&key.key, &json!({"externalRef": "c", "name": "n"})).await.status(), 201);
}

#[tokio::test]
async fn quotas_are_per_key() {
    let app = spawn_app_with(|s| s.quotas = s.quotas.clone().with_hourly(QuotaFamily::Identity, 1)).await;
    let one = app.create_key(None, &["channel:results"]).await;
    let two = app.create_key(None, &["channel:results"]).await;
    assert_eq!(app.whoami(&one.key).await.status(), 200);
    assert_eq!(app.whoami(&one.key).await.status(), 429);
    assert_eq!(app.whoami(&two.key).await.status(), 200);
}

#[tokio::test]
async fn replicas_share_one_count() {
    let app = spawn_app_with(|s| s.quotas = s.quotas.clone().with_hourly(QuotaFamily::WorkspaceRead, 3)).await;
    let replica = app.second_instance();
    let (_, key) = app.partner().await;
    let mut statuses = Vec::new();
    for base in [&app.address, &replica, &app.address, &replica] {
        let response =
            app.client.get(format!("{base}/api/v1/channel/orgs")).bearer_auth(&key.key).send().await.expect("request");
        statuses.push(response.status().as_u16());
    }
    assert_eq!(statuses, [200, 200, 200, 429]);
}

#[tokio::test]
async fn rate_limits_off_lifts_every_quota_and_the_workspace_limit() {
    let app = spawn_app_with(|s| {
        s.quotas = s.quotas.clone().with_hourly(QuotaFamily::Identity, 1);
        s.quotas.workspaces_per_business = 2;
        s.quotas.enabled = false;
    })
    .await;
    let key = app.create_key(None, &["channel:results"]).await;
    for _ in 0..3 {
        let response = app.whoami(&key.key).await;
        assert_eq!(response.status(), 200);
        assert!(header(&response, "ratelimit-limit").is_none());
    }
    let (_, partner) = app.partner().await;
    for r in ["a", "b", "c"] {
        assert_eq!(app.create_org(&partner.key, &json!({"externalRef": r, "name": "n"})).await.status(), 201);
    }
}

/// Per-network limits see the client a trusted proxy names in `X-Forwarded-For` (a proxy given as
/// a range, as an ingress controller's pods are), and ignore the header from anyone else.
#[tokio::test]
async fn per_network_limits_read_forwarded_clients_from_trusted_proxies_only() {
    for (trusted, expected) in
        [(vec!["127.0.0.0/8".parse().expect("a range")], [201, 201, 429]), (vec![], [201, 429, 429])]
    {
        let app = spawn_app_with(|s| {
            s.quotas = s.quotas.clone().with_hourly(QuotaFamily::Install, 1);
            s.trusted_proxies = trusted.clone();
        })
        .await;
        let partner = app.campaign_partner().await;
        let campaign = app.live_campaign(&partner.key.key).await;
        let body =
            json!({"campaignCode": campaign["code"], "appId": "com.acme.shop", "platform": "ios", "appVersion": "1.0"});
        let mut statuses = Vec::new();
        // Two clients, the first twice: each network has its own hourly install.
        for client in ["203.0.113.7", "198.51.100.9", "203.0.113.7"] {
            let response = app
                .client
                .post(app.url("/api/v1/apps/register"))
                .header("X-Forwarded-For", format!("{client}, 127.0.0.1"))
                .json(&body)
                .send()
                .await
                .expect("sent");
            statuses.push(response.status().as_u16());
        }
        assert_eq!(statuses, expected, "trusted proxies: {trusted:?}");
    }
}
