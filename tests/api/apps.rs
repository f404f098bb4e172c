//! App install identity: register, heartbeats v1 and v2, attribution at start, the device and
//! install lists, and blocking.

use pulse_domain::quota::models::QuotaFamily;
use pulse_domain::quota::models::QuotaPolicy;
use serde_json::{Value, json};
use time::Duration;
use time::format_description::well_known::Rfc3339;

use crate::cli::{json_out, one_line_error, pulse};
use crate::helpers::campaigns::{code_of, id_of};
use crate::helpers::{START, TestApp, envelope, spawn_app, spawn_app_with};

fn app_body(code: &str) -> Value {
    json!({"campaignCode": code, "appId": "com.acme.shop", "platform": "ios", "appVersion": "5.2.0"})
}

fn with(mut body: Value, extra: &Value) -> Value {
    if let (Some(body), Some(extra)) = (body.as_object_mut(), extra.as_object()) {
        body.extend(extra.clone());
    }
    body
}

fn text<'a>(body: &'a Value, field: &str) -> &'a str {
    body[field].as_str().unwrap_or_else(|| panic!("`{field}` in {body}"))
}

fn at(body: &Value, field: &str) -> time::OffsetDateTime {
    time::OffsetDateTime::parse(text(body, field), &Rfc3339).expect("RFC 3339")
}

/// `userHash` as a partner's server makes it, with the partner crate.
fn user_hash(secret: &str, external_id: &str) -> String {
    pulse_partner::user_hash(secret, external_id)
}

fn v2(registered: &Value) -> Value {
    json!({"deviceId": registered["deviceId"], "refreshToken": registered["refreshToken"]})
}

fn v1(registered: &Value) -> Value {
    json!({"installId": registered["installId"], "appVersion": "5.2.0"})
}

async fn devices(app: &TestApp, key: &str) -> Vec<Value> {
    let response = app.list_devices(key, &[]).await;
    assert_eq!(response.status(), 200);
    let body: Value = response.json().await.expect("json");
    body["items"].as_array().expect("items").clone()
}

async fn device(app: &TestApp, key: &str, id: &Value) -> Value {
    devices(app, key).await.into_iter().find(|d| &d["deviceId"] == id).expect("the device is listed")
}

/// A live campaign of a fresh partner: its key and body.
async fn live(app: &TestApp) -> (crate::helpers::campaigns::CampaignPartner, Value) {
    let partner = app.campaign_partner().await;
    let campaign = app.live_campaign(&partner.key.key).await;
    (partner, campaign)
}

#[tokio::test]
async fn register_answers_201_with_tokens_and_an_anonymous_identity() {
    let app = spawn_app().await;
    let (_, campaign) = live(&app).await;
    let response = app.register(&app_body(code_of(&campaign))).await;
    assert_eq!(response.status(), 201);
    assert_eq!(response.headers().get("cache-control").and_then(|v| v.to_str().ok()), Some("no-store"));
    let body: Value = response.json().await.expect("json");
    let mut fields: Vec<&str> = body.as_object().expect("object").keys().map(String::as_str).collect();
    fields.sort_unstable();
    assert_eq!(
        fields,
        [
            "accessToken",
            "accessTokenExpiresAt",
            "deviceId",
            "expiresAt",
            "heartbeatIntervalSecs",
            "identity",
            "installId",
            "refreshToken",
            "refreshTokenExpiresAt",
            "userId"
        ]
    );
    assert_eq!(body["identity"], "anonymous");
    assert_eq!(body["userId"], Value::Null);
    assert_eq!(body["heartbeatIntervalSecs"], 300);
    assert!(uuid::Uuid::parse_str(text(&body, "deviceId")).is_ok());
    assert_eq!(at(&body, "accessTokenExpiresAt"), START + Duration::minutes(15));
    assert_eq!(at(&body, "refreshTokenExpiresAt"), START + Duration::days(90));
    assert_eq!(at(&body, "expiresAt"), START + Duration::days(30));
    assert!(text(&body, "refreshToken").len() >= 40);
    // The install id is opaque: it does not show the ids it carries.
    let install_id = text(&body, "installId");
    assert!(!install_id.contains(text(&body, "deviceId")) && !install_id.contains(id_of(&campaign)));
    // The refresh token is stored only as a keyed digest.
    assert!(app.tables_holding(text(&body, "refreshToken")).await.is_empty());
}

#[tokio::test]
async fn every_field_rule_is_a_400_naming_the_field_and_stores_nothing() {
    let app = spawn_app().await;
    let (_, campaign) = live(&app).await;
    let code = code_of(&campaign);
    let big_metadata: serde_json::Map<String, Value> =
        (0..10).map(|i| (format!("k{i}"), json!("v".repeat(250)))).collect();
    let many_keys: serde_json::Map<String, Value> = (0..33).map(|i| (format!("k{i}"), json!("v"))).collect();
    let cases = [
        (json!({"appId": "a", "platform": "ios", "appVersion": "1"}), "campaignCode"),
        (with(app_body(code), &json!({"appId": "a".repeat(129)})), "appId"),
        (with(app_body(code), &json!({"appId": ""})), "appId"),
        (with(app_body(code), &json!({"platform": "windows"})), "platform"),
        (with(app_body(code), &json!({"appVersion": "1".repeat(33)})), "appVersion"),
        (with(app_body(code), &json!({"deviceModel": "m".repeat(65)})), "deviceModel"),
        (with(app_body(code), &json!({"osVersion": "1".repeat(33)})), "osVersion"),
        (with(app_body(code), &json!({"locale": "not a locale"})), "locale"),
        (with(app_body(code), &json!({"language": "e"})), "language"),
        (with(app_body(code), &json!({"deviceId": "not-a-uuid"})), "deviceId"),
        (with(app_body(code), &json!({"vendorDeviceId": "v".repeat(129)})), "vendorDeviceId"),
        (with(app_body(code), &json!({"user": {"externalId": "u".repeat(129)}})), "user.externalId"),
        (with(app_body(code), &json!({"user": {"externalId": " user-1"}})), "user.externalId"),
        (with(app_body(code), &json!({"user": {"email": "not-an-email"}})), "user.email"),
        (with(app_body(code), &json!({"user": {"phone": "0044 20 7183"}})), "user.phone"),
        (with(app_body(code), &json!({"user": {"email": "a@example.com", "userHash": "00"}})), "user.userHash"),
        (with(app_body(code), &json!({"user": {}})), "user"),
        (with(app_body(code), &json!({"metadata": {"plan": {"nested": true}}})), "metadata.plan"),
        (with(app_body(code), &json!({"metadata": {"plan": "p".repeat(257)}})), "metadata.plan"),
        (with(app_body(code), &json!({"metadata": many_keys})), "metadata"),
        (with(app_body(code), &json!({"metadata": big_metadata})), "metadata"),
    ];
    for (body, field) in cases {
        let (status, error, description) = envelope(app.register(&body).await).await;
        assert_eq!((status, error.as_str()), (400, "VALIDATION_FAILED"), "{field}: {description}");
        assert!(description.contains(&format!("`{field}`")), "{field}: {description}");
    }
    assert_eq!(app.count_rows("app_devices").await, 0);
    assert_eq!(app.count_rows("app_users").await, 0);

    // The limits themselves are allowed.
    let at_limits = with(
        app_body(code),
        &json!({"appId": "a".repeat(128), "appVersion": "1".repeat(32), "deviceModel": "m".repeat(64),
            "osVersion": "1".repeat(32), "locale": "en_US", "vendorDeviceId": "v".repeat(128),
            "user": {"externalId": "u".repeat(128), "phone": "+14155550123"},
            "metadata": {"plan": "p".repeat(256)}}),
    );
    let response = app.register(&at_limits).await;
    assert_eq!(response.status(), 201);
}

#[tokio::test]
async fn an_unknown_code_is_404_and_a_campaign_not_collecting_is_409() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    for code in ["nosuchcode12".to_owned(), String::new(), "c".repeat(3000), "nul\u{0}".to_owned()] {
        let (status, error, _) = envelope(app.register(&app_body(&code)).await).await;
        assert_eq!((status, error.as_str()), (404, "NOT_FOUND"));
        let (status, error, _) = envelope(app.register_idempotent("k-1", &app_body(&code)).await).await;
        assert_eq!((status, error.as_str()), (404, "NOT_FOUND"), "an idempotent register with a bad code");
    }
    let draft = app.provisioned(&partner.key.key).await;
    let (status, error, _) = envelope(app.register(&app_body(code_of(&draft))).await).await;
    assert_eq!((status, error.as_str()), (409, "CAMPAIGN_NOT_COLLECTING"));
    assert_eq!(app.count_rows("app_devices").await, 0);
}

#[tokio::test]
async fn a_replayed_register_answers_200_with_the_same_install_id() {
    let app = spawn_app().await;
    let (_, campaign) = live(&app).await;
    let body = app_body(code_of(&campaign));
    let first = app.register_idempotent("b4e7c8e2-1f0a-4c1d-9a51-3f8f6a1d2c77", &body).await;
    assert_eq!(first.status(), 201);
    let first: Value = first.json().await.expect("json");
    let replay = app.register_idempotent("b4e7c8e2-1f0a-4c1d-9a51-3f8f6a1d2c77", &body).await;
    assert_eq!(replay.status(), 200);
    assert_eq!(replay.headers().get("idempotency-replayed").and_then(|v| v.to_str().ok()), Some("true"));
    let replay: Value = replay.json().await.expect("json");
    assert_eq!(replay, first, "the original body, tokens included");
    assert_eq!(app.count_rows("app_devices").await, 1);

    let other = with(body, &json!({"appVersion": "5.3.0"}));
    let (status, error, _) =
        envelope(app.register_idempotent("b4e7c8e2-1f0a-4c1d-9a51-3f8f6a1d2c77", &other).await).await;
    assert_eq!((status, error.as_str()), (409, "CONFLICT"));
}

#[tokio::test]
async fn every_register_rotates_the_refresh_token_and_an_id_alone_is_ignored() {
    let app = spawn_app().await;
    let (_, campaign) = live(&app).await;
    let code = code_of(&campaign);
    let first = app.registered(&app_body(code)).await;
    let again = app.registered(&with(app_body(code), &v2(&first))).await;
    assert_eq!(again["deviceId"], first["deviceId"], "the refresh token proves the device");
    assert_ne!(again["refreshToken"], first["refreshToken"]);

    let (status, error, _) = envelope(app.heartbeat(&v2(&first)).await).await;
    assert_eq!((status, error.as_str()), (401, "DEVICE_AUTH_INVALID"), "the old token stopped working at once");
    assert_eq!(app.heartbeat(&v2(&again)).await.status(), 200);

    // A replaced token, or an id alone, names no device: a new one is issued.
    let stale = app.registered(&with(app_body(code), &v2(&first))).await;
    assert_ne!(stale["deviceId"], first["deviceId"]);
    let id_only = app.registered(&with(app_body(code), &json!({"deviceId": first["deviceId"]}))).await;
    assert_ne!(id_only["deviceId"], first["deviceId"]);
    assert_eq!(app.heartbeat(&v2(&again)).await.status(), 200, "the owner keeps its device");
}

#[tokio::test]
async fn a_vendor_device_id_finds_the_device_again_after_a_reinstall() {
    let app = spawn_app().await;
    let (partner, campaign) = live(&app).await;
    let code = code_of(&campaign);
    let vendor = json!({"vendorDeviceId": "6D92078A-8246-4BA4-AE5B-76104861E7DC"});
    let first = app.registered(&with(app_body(code), &vendor)).await;
    let reinstalled = app.registered(&with(app_body(code), &vendor)).await;
    assert_eq!(reinstalled["deviceId"], first["deviceId"]);
    let (status, error, _) = envelope(app.heartbeat(&v2(&first)).await).await;
    assert_eq!((status, error.as_str()), (401, "DEVICE_AUTH_INVALID"));

    let other_app = app.registered(&with(with(app_body(code), &json!({"appId": "com.acme.other"})), &vendor)).await;
    assert_ne!(other_app["deviceId"], first["deviceId"], "a vendor id is per app");
    assert_eq!(devices(&app, &partner.key.key).await.len(), 2);
    assert!(app.tables_holding("6D92078A-8246").await.is_empty(), "vendor ids are kept as digests");
}

#[tokio::test]
async fn identity_levels_follow_the_user_hash() {
    let app = spawn_app().await;
    let (partner, campaign) = live(&app).await;
    let code = code_of(&campaign);
    let studio = app.studio_token(partner.business, &["campaign:view", "campaign:build"]).await;
    let (kid, secret) = app.launch_key(&studio, id_of(&campaign)).await;

    let anonymous = app.registered(&app_body(code)).await;
    assert_eq!((anonymous["identity"].as_str(), &anonymous["userId"]), (Some("anonymous"), &Value::Null));

    let declared_user = json!({"user": {"externalId": "user-7", "email": "ada@example.com", "phone": "+14155550123"}});
    let declared = app.registered(&with(app_body(code), &declared_user)).await;
    assert_eq!(declared["identity"], "self_declared");
    assert!(declared["userId"].is_string());

    let verified_user = json!({"user": {"externalId": "user-8", "userHash": user_hash(&secret, "user-8")}});
    let verified = app.registered(&with(app_body(code), &verified_user)).await;
    assert_eq!(verified["identity"], "verified");
    // Upper-case hex verifies too; the same person on another device has the same userId.
    let upper = json!({"user": {"externalId": "user-8", "userHash": user_hash(&secret, "user-8").to_uppercase()}});
    let second_device = app.registered(&with(app_body(code), &upper)).await;
    assert_eq!((second_device["identity"].as_str(), &second_device["userId"]), (Some("verified"), &verified["userId"]));

    let refusals = [
        json!({"user": {"externalId": "user-9", "userHash": user_hash(&secret, "someone-else")}}),
        json!({"user": {"externalId": "user-9", "userHash": "zz"}}),
        json!({"user": {"externalId": "user-9", "userHash": user_hash("not-the-secret", "user-9")}}),
        // A verified person addressed without a hash.
        json!({"user": {"externalId": "user-8"}}),
    ];
    for user in refusals {
        let (status, error, _) = envelope(app.register(&with(app_body(code), &user)).await).await;
        assert_eq!((status, error.as_str()), (401, "USER_HASH_INVALID"), "{user}");
    }

    // A hash made with a revoked key no longer verifies.
    assert_eq!(app.revoke_launch_key(&studio, id_of(&campaign), &kid).await.status(), 204);
    let revoked = json!({"user": {"externalId": "user-10", "userHash": user_hash(&secret, "user-10")}});
    let (status, error, _) = envelope(app.register(&with(app_body(code), &revoked)).await).await;
    assert_eq!((status, error.as_str()), (401, "USER_HASH_INVALID"));

    // Partners see whether contact details are held, never the details.
    let listed = device(&app, &partner.key.key, &declared["deviceId"]).await;
    assert_eq!((listed["hasEmail"].as_bool(), listed["hasPhone"].as_bool()), (Some(true), Some(true)));
    assert_eq!(listed["identity"], "self_declared");
    let page = app.list_devices(&partner.key.key, &[]).await.text().await.expect("text");
    assert!(!page.contains("ada@example.com") && !page.contains("4155550123") && !page.contains("user-7"));
    for needle in ["ada@example.com", "+14155550123", "user-7", "user-8"] {
        assert!(app.tables_holding(needle).await.is_empty(), "{needle} is stored in clear");
        assert!(!crate::helpers::captured_logs().contains(needle), "{needle} reached a log line");
    }
    assert!(!crate::helpers::captured_logs().contains(text(&declared, "refreshToken")));
}

#[tokio::test]
async fn heartbeat_v2_works_with_an_expired_access_token_and_counts_app_sessions() {
    let app = spawn_app().await;
    let (partner, campaign) = live(&app).await;
    let registered = app.registered(&app_body(code_of(&campaign))).await;
    app.clock.advance(Duration::hours(1));
    let response = app.heartbeat(&with(v2(&registered), &json!({"osVersion": "18.1", "locale": "fr_FR"}))).await;
    assert_eq!(response.status(), 200);
    let beat: Value = response.json().await.expect("json");
    assert_eq!(beat["ok"], true);
    assert_eq!(beat["heartbeatIntervalSecs"], 300);
    assert_ne!(beat["accessToken"], registered["accessToken"]);
    let now = START + Duration::hours(1);
    assert_eq!(at(&beat, "accessTokenExpiresAt"), now + Duration::minutes(15));
    assert_eq!(at(&beat, "refreshTokenExpiresAt"), now + Duration::days(90), "use extends the refresh token");
    assert!(beat["installId"].is_string());
    assert_eq!(at(&beat, "expiresAt"), now + Duration::days(30));

    app.clock.advance(Duration::seconds(20));
    assert_eq!(app.heartbeat(&v2(&registered)).await.status(), 200);
    let listed = device(&app, &partner.key.key, &registered["deviceId"]).await;
    assert_eq!(listed["heartbeatCount"], 2);
    assert_eq!(listed["sessionCount"], 2, "the first beat after an hour starts an app session; the next does not");
    let recent: Vec<&str> =
        listed["recentSessions"].as_array().expect("array").iter().filter_map(Value::as_str).collect();
    assert_eq!(recent, ["2026-03-02T11:00:00Z", "2026-03-02T10:00:00Z"], "newest first");
    assert_eq!((listed["osVersion"].as_str(), listed["locale"].as_str()), (Some("18.1"), Some("fr-FR")));
    assert_eq!(at(&listed, "lastSeenAt"), now + Duration::seconds(20));

    // The refresh token dies after 90 days unused.
    app.clock.advance(Duration::days(91));
    let (status, error, _) = envelope(app.heartbeat(&v2(&registered)).await).await;
    assert_eq!((status, error.as_str()), (401, "DEVICE_AUTH_INVALID"));
}

#[tokio::test]
async fn heartbeat_v2_refuses_every_bad_proof_with_device_auth_invalid() {
    let app = spawn_app().await;
    let (_, campaign) = live(&app).await;
    let registered = app.registered(&app_body(code_of(&campaign))).await;
    let refusals = [
        json!({"deviceId": uuid::Uuid::new_v4(), "refreshToken": registered["refreshToken"]}),
        json!({"deviceId": registered["deviceId"], "refreshToken": "wrong"}),
        json!({"deviceId": "not-a-uuid", "refreshToken": registered["refreshToken"]}),
    ];
    for body in refusals {
        let (status, error, _) = envelope(app.heartbeat(&body).await).await;
        assert_eq!((status, error.as_str()), (401, "DEVICE_AUTH_INVALID"), "{body}");
    }
    let malformed = [
        (json!({"deviceId": registered["deviceId"]}), "refreshToken"),
        (json!({"refreshToken": registered["refreshToken"]}), "deviceId"),
        (json!({"appVersion": "1"}), "installId"),
        (with(v2(&registered), &json!({"installId": registered["installId"]})), "installId"),
        (json!({"installId": registered["installId"]}), "appVersion"),
        (with(v2(&registered), &json!({"osVersion": "1".repeat(33)})), "osVersion"),
    ];
    for (body, field) in malformed {
        let (status, error, description) = envelope(app.heartbeat(&body).await).await;
        assert_eq!((status, error.as_str()), (400, "VALIDATION_FAILED"), "{body}");
        assert!(description.contains(&format!("`{field}`")), "{description}");
    }
}

#[tokio::test]
async fn heartbeat_v1_renews_an_install_id_close_to_expiry_and_refuses_bad_ones() {
    let app = spawn_app().await;
    let (partner, campaign) = live(&app).await;
    let registered = app.registered(&app_body(code_of(&campaign))).await;
    let beat: Value = app.heartbeat(&v1(&registered)).await.json().await.expect("json");
    assert_eq!(beat["installId"], Value::Null, "far from expiry: no new install id");
    assert_eq!(beat["refreshTokenExpiresAt"], Value::Null, "v1 has no refresh token");
    assert_eq!(at(&beat, "expiresAt"), START + Duration::days(30));
    assert_eq!(beat["accessToken"], Value::Null, "an install id in a URL never mints a device proof");

    app.clock.advance(Duration::days(24));
    let renewed: Value = app.heartbeat(&v1(&registered)).await.json().await.expect("json");
    let new_id = renewed["installId"].as_str().expect("a new install id within 7 days of expiry").to_owned();
    assert_eq!(at(&renewed, "expiresAt"), START + Duration::days(54));

    app.clock.advance(Duration::days(7));
    let (status, error, _) = envelope(app.heartbeat(&v1(&registered)).await).await;
    assert_eq!((status, error.as_str()), (401, "INSTALL_INVALID"), "the old id expired");
    assert_eq!(app.heartbeat(&json!({"installId": new_id, "appVersion": "5.3.0"})).await.status(), 200);
    let install = app.list_installs(&partner.key.key, id_of(&campaign), &[]).await;
    let install: Value = install.json().await.expect("json");
    assert_eq!(install["items"][0]["appVersion"], "5.3.0");
    assert_eq!(install["items"][0]["heartbeatCount"], 3);

    let mut forged = new_id.clone().into_bytes();
    let last = forged.len() - 2;
    forged[last] = if forged[last] == b'A' { b'B' } else { b'A' };
    let forged = String::from_utf8(forged).expect("ascii");
    for install_id in [forged.as_str(), "in1.AAAA", "garbage", registered["accessToken"].as_str().expect("token")] {
        let (status, error, _) =
            envelope(app.heartbeat(&json!({"installId": install_id, "appVersion": "1"})).await).await;
        assert_eq!((status, error.as_str()), (401, "INSTALL_INVALID"), "{install_id}");
    }
}

#[tokio::test]
async fn heartbeats_beyond_the_rate_are_429_per_device() {
    let app = spawn_app().await;
    let (_, campaign) = live(&app).await;
    let one = app.registered(&app_body(code_of(&campaign))).await;
    let other = app.registered(&app_body(code_of(&campaign))).await;
    for _ in 0..3 {
        assert_eq!(app.heartbeat(&v2(&one)).await.status(), 200, "a burst of 3");
    }
    let refused = app.heartbeat(&v2(&one)).await;
    assert_eq!(refused.headers().get("retry-after").and_then(|v| v.to_str().ok()), Some("10"));
    let (status, error, _) = envelope(refused).await;
    assert_eq!((status, error.as_str()), (429, "RATE_LIMITED"));
    assert_eq!(app.heartbeat(&v2(&other)).await.status(), 200, "another device is counted apart");
    app.clock.advance(Duration::seconds(10));
    assert_eq!(app.heartbeat(&v2(&one)).await.status(), 200);

    // v1 is counted per install.
    for _ in 0..3 {
        assert_eq!(app.heartbeat(&v1(&other)).await.status(), 200);
    }
    let (status, error, _) = envelope(app.heartbeat(&v1(&other)).await).await;
    assert_eq!((status, error.as_str()), (429, "RATE_LIMITED"));
}

#[tokio::test]
async fn lifted_rate_limits_lift_the_heartbeat_rate_too() {
    let app = spawn_app_with(|s| s.quotas.enabled = false).await;
    let (_, campaign) = live(&app).await;
    let registered = app.registered(&app_body(code_of(&campaign))).await;
    for _ in 0..6 {
        assert_eq!(app.heartbeat(&v2(&registered)).await.status(), 200);
        assert_eq!(app.heartbeat(&v1(&registered)).await.status(), 200);
    }
}

#[tokio::test]
async fn installs_per_network_are_limited_per_hour() {
    let app = spawn_app_with(|s| s.quotas = QuotaPolicy::default().with_hourly(QuotaFamily::Install, 2)).await;
    let (_, campaign) = live(&app).await;
    for _ in 0..2 {
        assert_eq!(app.register(&app_body(code_of(&campaign))).await.status(), 201);
    }
    let (status, error, _) = envelope(app.register(&app_body(code_of(&campaign))).await).await;
    assert_eq!((status, error.as_str()), (429, "RATE_LIMITED"));
    app.clock.advance(Duration::hours(1));
    assert_eq!(app.register(&app_body(code_of(&campaign))).await.status(), 201);
}

#[tokio::test]
async fn a_start_with_a_valid_device_proof_is_attributed_and_a_bad_one_is_ignored() {
    let app = spawn_app().await;
    let (partner, campaign) = live(&app).await;
    let code = code_of(&campaign);
    let registered = app.registered(&with(app_body(code), &json!({"user": {"externalId": "user-1"}}))).await;

    app.started(code, &json!({"deviceToken": registered["accessToken"]})).await;
    app.started(code, &json!({"installId": registered["installId"]})).await;
    let listed = device(&app, &partner.key.key, &registered["deviceId"]).await;
    assert_eq!(listed["feedbackCount"], 2);
    let installs: Value = app.list_installs(&partner.key.key, id_of(&campaign), &[]).await.json().await.expect("json");
    assert_eq!(installs["items"][0]["feedbackCount"], 2);

    // Another campaign's install id, another workspace's device, a forged or expired token: the
    // feedback is taken, anonymously.
    let other_campaign = app.live_campaign(&partner.key.key).await;
    let elsewhere = app.registered(&app_body(code_of(&other_campaign))).await;
    let stranger = app.campaign_partner().await;
    let stranger_campaign = app.live_campaign(&stranger.key.key).await;
    let foreign = app.registered(&app_body(code_of(&stranger_campaign))).await;
    let mut forged = text(&registered, "accessToken").to_owned();
    forged.replace_range(6..8, "zz");
    for proof in [
        json!({"installId": elsewhere["installId"]}),
        json!({"deviceToken": foreign["accessToken"]}),
        json!({"deviceToken": forged}),
        json!({"deviceToken": "x".repeat(1024)}),
    ] {
        app.started(code, &proof).await;
    }
    app.clock.advance(Duration::minutes(16));
    app.started(code, &json!({"deviceToken": registered["accessToken"]})).await;

    assert_eq!(device(&app, &partner.key.key, &registered["deviceId"]).await["feedbackCount"], 2);
    assert_eq!(device(&app, &partner.key.key, &elsewhere["deviceId"]).await["feedbackCount"], 0);
    let counts: Value = app.get_campaign(&partner.key.key, id_of(&campaign)).await.json().await.expect("json");
    assert_eq!(counts["counts"]["started"], 7, "every start created its session");
    let (status, error, _) =
        envelope(app.start(code, &json!({"consentGiven": true, "deviceToken": "x".repeat(1025)})).await).await;
    assert_eq!((status, error.as_str()), (400, "VALIDATION_FAILED"));
}

#[tokio::test]
async fn blocked_devices_are_refused_at_register_and_heartbeat_until_unblocked() {
    let app = spawn_app().await;
    let (partner, campaign) = live(&app).await;
    let code = code_of(&campaign);
    let vendor = json!({"vendorDeviceId": "vendor-1"});
    let registered = app.registered(&with(app_body(code), &vendor)).await;
    let id = text(&registered, "deviceId");

    assert_eq!(json_out(&pulse(&app, &["admin", "device", "block", id])), json!({"deviceId": id, "status": "BLOCKED"}));
    for body in [with(app_body(code), &v2(&registered)), with(app_body(code), &vendor)] {
        let (status, error, _) = envelope(app.register(&body).await).await;
        assert_eq!((status, error.as_str()), (403, "INSTALL_BLOCKED"));
    }
    let (status, error, _) = envelope(app.heartbeat(&v2(&registered)).await).await;
    assert_eq!((status, error.as_str()), (401, "DEVICE_AUTH_INVALID"));
    let (status, error, _) = envelope(app.heartbeat(&v1(&registered)).await).await;
    assert_eq!((status, error.as_str()), (401, "INSTALL_INVALID"));
    app.started(code, &json!({"deviceToken": registered["accessToken"]})).await;
    let listed = device(&app, &partner.key.key, &registered["deviceId"]).await;
    assert_eq!((listed["status"].as_str(), &listed["feedbackCount"]), (Some("BLOCKED"), &json!(0)));
    let installs: Value = app.list_installs(&partner.key.key, id_of(&campaign), &[]).await.json().await.expect("json");
    assert_eq!(installs["items"][0]["status"], "BLOCKED");

    assert_eq!(
        json_out(&pulse(&app, &["admin", "device", "unblock", id])),
        json!({"deviceId": id, "status": "ACTIVE"})
    );
    assert_eq!(app.heartbeat(&v2(&registered)).await.status(), 200);
    assert_eq!(app.register(&with(app_body(code), &v2(&registered))).await.status(), 201);

    let unknown = uuid::Uuid::new_v4().to_string();
    let error = one_line_error(&pulse(&app, &["admin", "device", "block", &unknown]));
    assert!(error.contains("not found"), "{error}");
}

#[tokio::test]
async fn device_pages_lose_nothing_and_repeat_nothing_while_devices_are_added() {
    let app = spawn_app().await;
    let (partner, campaign) = live(&app).await;
    let code = code_of(&campaign);
    let mut expected = Vec::new();
    for _ in 0..7 {
        expected.push(app.registered(&app_body(code)).await["deviceId"].clone());
    }
    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    loop {
        let mut query = vec![("limit", "3".to_owned())];
        if let Some(c) = &cursor {
            query.push(("cursor", c.clone()));
        }
        let query: Vec<(&str, &str)> = query.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let response = app.list_devices(&partner.key.key, &query).await;
        assert_eq!(response.status(), 200);
        let page: Value = response.json().await.expect("json");
        let items = page["items"].as_array().expect("items");
        assert!(items.len() <= 3);
        seen.extend(items.iter().map(|d| d["deviceId"].clone()));
        pages += 1;
        // Devices keep arriving while the partner pages: two more after each of the first pages.
        if pages <= 2 {
            for _ in 0..2 {
                expected.push(app.registered(&app_body(code)).await["deviceId"].clone());
            }
        }
        match page["nextCursor"].as_str() {
            Some(next) => cursor = Some(next.to_owned()),
            None => break,
        }
        assert!(pages < 20, "paging ends");
    }
    assert!(pages > 3, "more than two pages: {pages}");
    let mut unique = seen.clone();
    unique.sort_by_key(Value::to_string);
    unique.dedup();
    assert_eq!(unique.len(), seen.len(), "no device repeated");
    assert_eq!(seen.len(), expected.len(), "no device lost");
    for id in &expected {
        assert!(seen.contains(id));
    }
    // Nothing in a page holds contact details' values.
    let default_page: Value = app.list_devices(&partner.key.key, &[]).await.json().await.expect("json");
    assert_eq!(default_page["items"].as_array().map(Vec::len), Some(11), "default page size 50 holds all");
    assert_eq!(default_page["nextCursor"], Value::Null);
}

#[tokio::test]
async fn bad_limits_and_cursors_are_400_and_lists_are_per_tenant() {
    let app = spawn_app().await;
    let (partner, campaign) = live(&app).await;
    let code = code_of(&campaign);
    for _ in 0..3 {
        app.registered(&app_body(code)).await;
    }
    app.registered(&with(app_body(code), &json!({"appId": "com.acme.other"}))).await;
    let key = &partner.key.key;
    let filtered: Value = app.list_devices(key, &[("appId", "com.acme.other")]).await.json().await.expect("json");
    assert_eq!(filtered["items"].as_array().map(Vec::len), Some(1));
    assert_eq!(filtered["items"][0]["appId"], "com.acme.other");

    let page: Value = app.list_devices(key, &[("limit", "1")]).await.json().await.expect("json");
    let device_cursor = page["nextCursor"].as_str().expect("cursor").to_owned();
    let page: Value = app.list_installs(key, id_of(&campaign), &[("limit", "1")]).await.json().await.expect("json");
    let install_cursor = page["nextCursor"].as_str().expect("cursor").to_owned();
    let mut tampered = device_cursor.clone().into_bytes();
    tampered[5] = if tampered[5] == b'A' { b'B' } else { b'A' };
    let tampered = String::from_utf8(tampered).expect("ascii");
    for (query, field) in [
        (vec![("limit", "0")], "limit"),
        (vec![("limit", "201")], "limit"),
        (vec![("limit", "many")], "limit"),
        (vec![("cursor", tampered.as_str())], "cursor"),
        (vec![("cursor", install_cursor.as_str())], "cursor"),
        (vec![("cursor", "%%%")], "cursor"),
    ] {
        let (status, error, description) = envelope(app.list_devices(key, &query).await).await;
        assert_eq!((status, error.as_str()), (400, "VALIDATION_FAILED"), "{query:?}");
        assert!(description.contains(&format!("`{field}`")), "{description}");
    }
    let (status, _, _) =
        envelope(app.list_installs(key, id_of(&campaign), &[("cursor", device_cursor.as_str())]).await).await;
    assert_eq!(status, 400);
    assert_eq!(app.list_devices(key, &[("limit", "200")]).await.status(), 200);

    // Another partner sees none of it; another's campaign is 404 like an unknown one.
    let stranger = app.campaign_partner().await;
    let theirs: Value = app.list_devices(&stranger.key.key, &[]).await.json().await.expect("json");
    assert_eq!(theirs["items"], json!([]));
    for campaign_id in [id_of(&campaign).to_owned(), uuid::Uuid::new_v4().to_string(), "nope".to_owned()] {
        let (status, error, _) = envelope(app.list_installs(&stranger.key.key, &campaign_id, &[]).await).await;
        assert_eq!((status, error.as_str()), (404, "NOT_FOUND"));
    }
    // channel:results is required.
    let narrow = app.create_key_with(Some(partner.business), &["channel:provision"], &[partner.workspace], None).await;
    for response in
        [app.list_devices(&narrow.key, &[]).await, app.list_installs(&narrow.key, id_of(&campaign), &[]).await]
    {
        let (status, error, description) = envelope(response).await;
        assert_eq!((status, error.as_str()), (403, "INSUFFICIENT_PERMISSION"));
        assert!(description.contains("channel:results"));
    }
    let (status, _, _) = envelope(app.list_devices("svc_nope_nope", &[]).await).await;
    assert_eq!(status, 401);
}

#[tokio::test]
async fn the_studio_lists_a_campaigns_app_installs() {
    let app = spawn_app().await;
    let (partner, campaign) = live(&app).await;
    let registered =
        app.registered(&with(app_body(code_of(&campaign)), &json!({"user": {"email": "grace@example.com"}}))).await;
    let viewer = app.studio_token(partner.business, &["campaign:view"]).await;
    let response = app.list_app_installs(&viewer, id_of(&campaign), &[]).await;
    assert_eq!(response.status(), 200);
    let page: Value = response.json().await.expect("json");
    let install = &page["items"][0];
    assert_eq!(install["deviceId"], registered["deviceId"]);
    assert_eq!(install["campaignId"].as_str(), Some(id_of(&campaign)));
    assert_eq!((install["identity"].as_str(), install["hasEmail"].as_bool()), (Some("self_declared"), Some(true)));
    assert_eq!((install["sessionCount"].clone(), install["appSessionCount"].clone()), (json!(1), json!(1)));
    assert_eq!(page["nextCursor"], Value::Null);
    assert!(!page.to_string().contains("grace@example.com"));

    let builder_only = app.studio_token(partner.business, &["campaign:build"]).await;
    let (status, error, _) = envelope(app.list_app_installs(&builder_only, id_of(&campaign), &[]).await).await;
    assert_eq!((status, error.as_str()), (403, "INSUFFICIENT_PERMISSION"));
    let outsider = app.studio_token(app.create_business().await, &["campaign:view"]).await;
    let (status, error, _) = envelope(app.list_app_installs(&outsider, id_of(&campaign), &[]).await).await;
    assert_eq!((status, error.as_str()), (404, "NOT_FOUND"));
    let (status, _, _) = envelope(app.list_app_installs("not-a-token", id_of(&campaign), &[]).await).await;
    assert_eq!(status, 401);
}
