//! `POST /campaigns/{id}/launch` (a campaign starts collecting) and `POST /launch` (single-use
//! respondent links that carry the partner's context).

use futures_util::future::join_all;
use pulse_domain::quota::models::QuotaFamily;
use pulse_domain::quota::models::QuotaPolicy;
use serde_json::{Map, Value, json};
use time::format_description::well_known::Rfc3339;
use time::{Duration, OffsetDateTime};

use crate::helpers::campaigns::{CAMPAIGN_SCOPES, Link, code_of, id_of};
use crate::helpers::{START, TestApp, captured_logs, envelope, spawn_app, spawn_app_with, unreachable_senders};

/// The access state of a visit with `lt`.
async fn state_with_token(app: &TestApp, code: &str, token: &str) -> Value {
    let response = app.access(code, &[("lt", token)]).await;
    assert_eq!(response.status(), 200);
    let body: Value = response.json().await.expect("json");
    body["state"].clone()
}

#[tokio::test]
async fn launching_needs_an_approved_workspace_and_then_answers_200_again_and_again() {
    let app = spawn_app().await;
    let business = app.create_business().await;
    let key = app.create_key(Some(business), &CAMPAIGN_SCOPES).await;
    let workspace = app.workspace(&key.key, "pending").await;
    let campaign = app.provisioned(&key.key).await;
    let id = id_of(&campaign);

    let (status, code, description) = envelope(app.launch_campaign(&key.key, id).await).await;
    assert_eq!((status, code.as_str()), (400, "NOT_LAUNCH_READY"));
    assert!(description.contains("WORKSPACE_NOT_APPROVED"), "{description}");
    let read: Value = app.get_campaign(&key.key, id).await.json().await.expect("json");
    assert_eq!(read["status"], json!("DRAFT"));

    app.approve_workspace(workspace).await;
    let launched = app.launch_campaign(&key.key, id).await;
    assert_eq!(launched.status(), 200);
    let launched: Value = launched.json().await.expect("json");
    assert_eq!(launched["id"], campaign["id"]);
    assert_eq!(launched["status"], json!("ACTIVE"));
    assert_eq!(launched["readiness"], json!({"launchReady": true, "blockers": []}));
    assert!(launched["launchedAt"].as_str().is_some_and(|t| t.starts_with("2026-03-02T10:00:00")));

    app.clock.advance(Duration::minutes(5));
    let again = app.launch_campaign(&key.key, id).await;
    assert_eq!(again.status(), 200);
    let again: Value = again.json().await.expect("json");
    assert_eq!(again["status"], json!("ACTIVE"));
    assert_eq!(again["launchedAt"], launched["launchedAt"], "launching again changes nothing");
    let read: Value = app.get_campaign(&key.key, id).await.json().await.expect("json");
    assert_eq!(read["status"], json!("ACTIVE"));
}

#[tokio::test]
async fn launching_names_missing_recipients() {
    let app = spawn_app_with(unreachable_senders).await;
    let partner = app.campaign_partner().await;
    let body = json!({"brief": {"intentText": "How was your last delivery with us?"},
        "delivery": {"channels": ["EMAIL"]}});
    let response = app.provision(&partner.key.key, &body).await;
    assert_eq!(response.status(), 201);
    let campaign: Value = response.json().await.expect("json");
    let id = id_of(&campaign["campaign"]);
    let (status, code, description) = envelope(app.launch_campaign(&partner.key.key, id).await).await;
    assert_eq!((status, code.as_str()), (400, "NOT_LAUNCH_READY"));
    assert!(description.contains("NO_EMAIL_RECIPIENTS"), "{description}");
    let rows = json!({"rows": [{"externalRef": "r1", "email": "r1@example.com"}]});
    assert_eq!(app.attach_respondents(&partner.key.key, id, &rows).await.status(), 200);
    assert_eq!(app.launch_campaign(&partner.key.key, id).await.status(), 200);
}

#[tokio::test]
async fn launching_needs_the_provision_scope_and_a_campaign_of_the_workspace() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let campaign = app.provisioned(&partner.key.key).await;
    let id = id_of(&campaign);
    let scopes: Vec<&str> = CAMPAIGN_SCOPES.iter().copied().filter(|s| *s != "channel:provision").collect();
    let without = app.create_key_with(Some(partner.business), &scopes, &[partner.workspace], None).await;
    let (status, code, description) = envelope(app.launch_campaign(&without.key, id).await).await;
    assert_eq!((status, code.as_str()), (403, "INSUFFICIENT_PERMISSION"));
    assert!(description.contains("channel:provision"), "{description}");

    let stranger = app.campaign_partner().await;
    let foreign = envelope(app.launch_campaign(&stranger.key.key, id).await).await;
    assert_eq!((foreign.0, foreign.1.as_str()), (404, "NOT_FOUND"));
    let unknown = envelope(app.launch_campaign(&stranger.key.key, &uuid::Uuid::new_v4().to_string()).await).await;
    assert_eq!(foreign, unknown);
    let read: Value = app.get_campaign(&partner.key.key, id).await.json().await.expect("json");
    assert_eq!(read["status"], json!("DRAFT"), "no refused call launched it");
}

#[tokio::test]
async fn a_minted_link_answers_201_expires_in_ten_minutes_and_works_once() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let campaign = app.live_campaign(&partner.key.key).await;
    let code = code_of(&campaign);
    let response = app.mint_link(&partner.key.key, &json!({"campaignId": id_of(&campaign)})).await;
    assert_eq!(response.status(), 201);
    let body: Value = response.json().await.expect("json");
    let expires = OffsetDateTime::parse(body["expiresAt"].as_str().expect("expiresAt"), &Rfc3339).expect("date-time");
    let lifetime = expires - START;
    assert!(lifetime >= Duration::minutes(9) && lifetime <= Duration::minutes(11), "{lifetime}");
    let link = Link::parse(body["url"].as_str().expect("url"));
    assert_eq!(link.path, format!("/p/{code}"));
    assert_eq!(link.lang.as_deref(), Some("en"));
    let token = link.lt.expect("lt");

    assert_eq!(state_with_token(&app, code, &token).await, json!("VALID"));
    let started = app.started(code, &json!({"launchToken": token})).await;
    assert!(started["sessionId"].is_string());
    let (status, code_, _) =
        envelope(app.start(code, &json!({"consentGiven": true, "launchToken": token})).await).await;
    assert_eq!((status, code_.as_str()), (403, "LAUNCH_TOKEN_INVALID"), "a link works once");
    assert_eq!(state_with_token(&app, code, &token).await, json!("INVALID"));
}

#[tokio::test]
async fn a_minted_link_expires() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let campaign = app.live_campaign(&partner.key.key).await;
    let code = code_of(&campaign);
    let early = app.minted(&partner.key.key, id_of(&campaign)).await.lt.expect("lt");
    let late = app.minted(&partner.key.key, id_of(&campaign)).await.lt.expect("lt");

    app.clock.advance(Duration::minutes(9));
    assert_eq!(state_with_token(&app, code, &early).await, json!("VALID"), "still within its ten minutes");
    app.started(code, &json!({"launchToken": early})).await;

    app.clock.advance(Duration::minutes(2));
    assert_eq!(state_with_token(&app, code, &late).await, json!("INVALID"));
    let (status, error, _) = envelope(app.start(code, &json!({"consentGiven": true, "launchToken": late})).await).await;
    assert_eq!((status, error.as_str()), (403, "LAUNCH_TOKEN_INVALID"));
}

#[tokio::test]
async fn minting_for_a_draft_campaign_is_409_not_collecting() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let campaign = app.provisioned(&partner.key.key).await;
    let (status, code, description) =
        envelope(app.mint_link(&partner.key.key, &json!({"campaignId": id_of(&campaign)})).await).await;
    assert_eq!((status, code.as_str()), (409, "CAMPAIGN_NOT_COLLECTING"));
    assert!(description.contains("DRAFT"), "{description}");
    assert_eq!(app.count_rows("launch_links").await, 0);
}

#[tokio::test]
async fn minting_for_an_unknown_or_foreign_campaign_is_404() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let stranger = app.campaign_partner().await;
    let theirs = app.live_campaign(&stranger.key.key).await;
    let foreign = envelope(app.mint_link(&partner.key.key, &json!({"campaignId": id_of(&theirs)})).await).await;
    assert_eq!((foreign.0, foreign.1.as_str()), (404, "NOT_FOUND"));
    let unknown = envelope(app.mint_link(&partner.key.key, &json!({"campaignId": uuid::Uuid::new_v4()})).await).await;
    assert_eq!(foreign, unknown);
    assert_eq!(app.count_rows("launch_links").await, 0);
}

#[tokio::test]
async fn minting_needs_the_sessions_launch_scope() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let campaign = app.live_campaign(&partner.key.key).await;
    let scopes: Vec<&str> = CAMPAIGN_SCOPES.iter().copied().filter(|s| *s != "sessions:launch").collect();
    let without = app.create_key_with(Some(partner.business), &scopes, &[partner.workspace], None).await;
    let (status, code, description) =
        envelope(app.mint_link(&without.key, &json!({"campaignId": id_of(&campaign)})).await).await;
    assert_eq!((status, code.as_str()), (403, "INSUFFICIENT_PERMISSION"));
    assert!(description.contains("sessions:launch"), "{description}");
    assert_eq!(app.count_rows("launch_links").await, 0);
}

#[tokio::test]
async fn the_launch_context_is_checked_naming_the_field() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let campaign = app.live_campaign(&partner.key.key).await;
    let id = id_of(&campaign);
    let with = |extra: Value| {
        let mut body = json!({"campaignId": id});
        if let (Some(body), Some(extra)) = (body.as_object_mut(), extra.as_object()) {
            body.extend(extra.clone());
        }
        body
    };
    let keys = |n: usize| Value::Object((0..n).map(|i| (format!("k{i}"), json!(i))).collect::<Map<_, _>>());
    let big = Value::Object((0..9).map(|i| (format!("k{i}"), json!("x".repeat(1000)))).collect::<Map<_, _>>());
    let cases = [
        (with(json!({"device": {"imei": "35-209900-176148-1"}})), "device"),
        (with(json!({"device": {"platform": "p".repeat(65)}})), "device.platform"),
        (with(json!({"device": {"osVersion": 17}})), "device.osVersion"),
        (with(json!({"attributes": keys(65)})), "attributes"),
        (with(json!({"attributes": big})), "attributes"),
        (with(json!({"attributes": {"plan": {"tier": "gold"}}})), "attributes.plan"),
        (with(json!({"attributes": {"visits": [1, 2]}})), "attributes.visits"),
        (with(json!({"attributes": {"nothing": null}})), "attributes.nothing"),
        (with(json!({"externalUserRef": "u".repeat(201)})), "externalUserRef"),
        (with(json!({"language": "e"})), "language"),
        (with(json!({"language": "e".repeat(25)})), "language"),
        (with(json!({"referrer": "newsletter"})), "referrer"),
        (json!({"language": "en"}), "campaignId"),
        (json!({"campaignId": "not-a-uuid"}), "campaignId"),
    ];
    for (body, field) in cases {
        let (status, code, description) = envelope(app.mint_link(&partner.key.key, &body).await).await;
        assert_eq!((status, code.as_str()), (400, "VALIDATION_FAILED"), "{field}");
        assert!(description.contains(field), "{field}: {description}");
        assert!(!description.contains("imei"), "a refusal never repeats what was sent: {description}");
    }
    assert_eq!(app.count_rows("launch_links").await, 0, "no refused call minted a link");

    // The limits themselves are allowed.
    let device: Map<String, Value> = [
        "platform",
        "osName",
        "osVersion",
        "deviceVendor",
        "deviceModel",
        "browserName",
        "browserVersion",
        "appId",
        "appVersion",
        "appBuild",
        "sdkVersion",
        "locale",
        "timezone",
        "networkType",
    ]
    .into_iter()
    .map(|k| (k.to_owned(), json!("d".repeat(64))))
    .collect();
    let body = with(json!({
        "externalUserRef": "u".repeat(200),
        "language": "fr",
        "device": device,
        "attributes": keys(64),
    }));
    let response = app.mint_link(&partner.key.key, &body).await;
    assert_eq!(response.status(), 201);
    let mixed = with(json!({"attributes": {"plan": "gold", "visits": 3, "ratio": 0.5, "vip": true}}));
    assert_eq!(app.mint_link(&partner.key.key, &mixed).await.status(), 201);
}

#[tokio::test]
async fn the_link_language_is_an_offered_one_or_the_default() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let campaign = app.live_campaign(&partner.key.key).await;
    let code = code_of(&campaign);
    let mut links = Vec::new();
    for (language, expected) in [("fr", "fr"), ("de", "en"), ("xx-unknown", "en")] {
        let body = json!({"campaignId": id_of(&campaign), "language": language});
        let response = app.mint_link(&partner.key.key, &body).await;
        assert_eq!(response.status(), 201, "{language} is never an error");
        let body: Value = response.json().await.expect("json");
        let link = Link::parse(body["url"].as_str().expect("url"));
        assert_eq!(link.lang.as_deref(), Some(expected), "{language}");
        links.push((link, expected));
    }
    // The session the link starts speaks the link's language.
    for (link, expected) in links {
        let started = app.started(code, &json!({"launchToken": link.lt.expect("lt")})).await;
        assert_eq!(started["language"], json!(expected));
    }
}

#[tokio::test]
async fn minting_ignores_idempotency_keys() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let campaign = app.live_campaign(&partner.key.key).await;
    let body = json!({"campaignId": id_of(&campaign)});
    let mut urls = Vec::new();
    for _ in 0..2 {
        let response = app
            .client
            .post(app.url("/api/v1/channel/launch"))
            .bearer_auth(&partner.key.key)
            .header("Idempotency-Key", "same-link")
            .json(&body)
            .send()
            .await
            .expect("request");
        assert_eq!(response.status(), 201);
        assert!(response.headers().get("idempotency-replayed").is_none());
        let body: Value = response.json().await.expect("json");
        urls.push(body["url"].as_str().expect("url").to_owned());
    }
    assert_ne!(urls[0], urls[1], "every call mints a fresh link");
    for url in urls {
        app.started(code_of(&campaign), &json!({"launchToken": Link::parse(&url).lt.expect("lt")})).await;
    }
}

#[tokio::test]
async fn a_closed_campaign_mints_single_use_invitation_links() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let campaign = app.provisioned(&partner.key.key).await;
    let id = id_of(&campaign);
    let code = code_of(&campaign);
    let rows = json!({"rows": [{"externalRef": "r1"}]});
    assert_eq!(app.attach_respondents(&partner.key.key, id, &rows).await.status(), 200);
    assert_eq!(app.launch_campaign(&partner.key.key, id).await.status(), 200);

    let response = app.mint_link(&partner.key.key, &json!({"campaignId": id, "language": "fr"})).await;
    assert_eq!(response.status(), 201);
    let body: Value = response.json().await.expect("json");
    let link = Link::parse(body["url"].as_str().expect("url"));
    assert!(link.path.starts_with(&format!("/s/{code}/")), "{link:?}");
    assert_eq!(link.lang.as_deref(), Some("fr"));
    assert!(link.lt.is_none());
    let nonce = link.nonce().expect("nonce");

    let access: Value = app.access(code, &[("invitation", nonce)]).await.json().await.expect("json");
    assert_eq!(access["state"], json!("VALID"));
    let started = app.started(code, &json!({"invitation": nonce})).await;
    assert_eq!(started["language"], json!("fr"), "the link's language");
    let (status, error, _) = envelope(app.start(code, &json!({"consentGiven": true, "invitation": nonce})).await).await;
    assert_eq!((status, error.as_str()), (403, "LAUNCH_TOKEN_INVALID"));
}

#[tokio::test]
async fn parallel_starts_with_one_link_create_one_session() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let campaign = app.live_campaign(&partner.key.key).await;
    let code = code_of(&campaign);
    let token = app.minted(&partner.key.key, id_of(&campaign)).await.lt.expect("lt");
    let body = json!({"consentGiven": true, "launchToken": token});
    let responses = join_all((0..8).map(|_| app.start(code, &body))).await;
    let mut created = 0;
    for response in responses {
        if response.status() == 201 {
            created += 1;
        } else {
            let (status, code, _) = envelope(response).await;
            assert_eq!((status, code.as_str()), (403, "LAUNCH_TOKEN_INVALID"));
        }
    }
    assert_eq!(created, 1);
    let read: Value = app.get_campaign(&partner.key.key, id_of(&campaign)).await.json().await.expect("json");
    assert_eq!(read["counts"]["started"], json!(1));
}

#[tokio::test]
async fn the_external_user_ref_is_kept_only_as_a_digest() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let campaign = app.live_campaign(&partner.key.key).await;
    let user = "crm-user-5581-zephyrine";
    let response =
        app.mint_link(&partner.key.key, &json!({"campaignId": id_of(&campaign), "externalUserRef": user})).await;
    assert_eq!(response.status(), 201);
    let body = response.text().await.expect("body");
    assert!(!body.contains(user));
    let url: Value = serde_json::from_str(&body).expect("json");
    let link = Link::parse(url["url"].as_str().expect("url"));
    let started = app.start(code_of(&campaign), &json!({"consentGiven": true, "launchToken": link.lt})).await;
    assert_eq!(started.status(), 201);
    assert!(!started.text().await.expect("body").contains(user));
    assert_eq!(app.tables_holding(user).await, Vec::<String>::new());
    assert!(!captured_logs().contains(user));
}

#[tokio::test]
async fn the_launch_quota_is_429_with_retry_after() {
    let app = spawn_app_with(|s| s.quotas = QuotaPolicy::default().with_hourly(QuotaFamily::Launch, 1)).await;
    let partner = app.campaign_partner().await;
    let campaign = app.live_campaign(&partner.key.key).await;
    app.minted(&partner.key.key, id_of(&campaign)).await;
    let response = app.mint_link(&partner.key.key, &json!({"campaignId": id_of(&campaign)})).await;
    assert!(response.headers().contains_key("retry-after"));
    let (status, code, description) = envelope(response).await;
    assert_eq!((status, code.as_str()), (429, "RATE_LIMITED"));
    assert!(description.contains("launch"), "{description}");
    assert_eq!(app.count_rows("launch_links").await, 1);
}

#[tokio::test]
async fn a_link_of_another_campaign_is_refused() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let campaign = app.live_campaign(&partner.key.key).await;
    let other = app.live_campaign(&partner.key.key).await;
    let token = app.minted(&partner.key.key, id_of(&other)).await.lt.expect("lt");
    assert_eq!(state_with_token(&app, code_of(&campaign), &token).await, json!("INVALID"));
    let (status, code, _) =
        envelope(app.start(code_of(&campaign), &json!({"consentGiven": true, "launchToken": token})).await).await;
    assert_eq!((status, code.as_str()), (403, "LAUNCH_TOKEN_INVALID"));
    // It still works where it belongs.
    app.started(code_of(&other), &json!({"launchToken": token})).await;
}

#[tokio::test]
async fn a_closed_campaign_link_expires_too() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let campaign = app.provisioned(&partner.key.key).await;
    let id = id_of(&campaign);
    assert_eq!(
        app.attach_respondents(&partner.key.key, id, &json!({"rows": [{"externalRef": "r1"}]})).await.status(),
        200
    );
    assert_eq!(app.launch_campaign(&partner.key.key, id).await.status(), 200);
    let link = app.minted(&partner.key.key, id).await;
    let nonce = link.nonce().expect("nonce");
    app.clock.advance(Duration::minutes(11));
    let access: Value = app.access(code_of(&campaign), &[("invitation", nonce)]).await.json().await.expect("json");
    assert_eq!(access["state"], json!("INVALID"));
    let (status, code, _) =
        envelope(app.start(code_of(&campaign), &json!({"consentGiven": true, "invitation": nonce})).await).await;
    assert_eq!((status, code.as_str()), (403, "LAUNCH_TOKEN_INVALID"));
}
