//! The Studio's launch keys and signing setting: `/api/v1/campaigns/{campaignId}/launch-keys` and
//! `/launch-access`, behind a Studio session.

use pulse_domain::quota::models::QuotaFamily;
use pulse_domain::quota::models::QuotaPolicy;
use serde_json::{Value, json};
use sha2::{Digest as _, Sha256};
use time::Duration;

use crate::helpers::campaigns::{code_of, id_of};
use crate::helpers::studio::sign_launch_token;
use crate::helpers::{START, TestApp, envelope, spawn_app, spawn_app_with};

const VIEW: &str = "campaign:view";
const BUILD: &str = "campaign:build";

/// A token the partner's server signs with a launch key, valid for five minutes from now.
fn token(app: &TestApp, kid: &str, secret: &str, code: &str, jti: &str) -> String {
    let exp = (app.now() + Duration::minutes(5)).unix_timestamp();
    sign_launch_token(Some(kid), secret, &json!({"campaign": code, "exp": exp, "jti": jti}))
}

/// Every Studio route of `campaign`, sent with `token` (or none).
async fn every_route(app: &TestApp, token: &str, campaign: &str, key: &str) -> Vec<reqwest::Response> {
    vec![
        app.list_launch_keys(token, campaign).await,
        app.create_launch_key(token, campaign, None).await,
        app.revoke_launch_key(token, campaign, key).await,
        app.set_launch_access(token, campaign, &json!({"requireSigned": true})).await,
    ]
}

async fn list(app: &TestApp, token: &str, campaign: &str) -> Value {
    let response = app.list_launch_keys(token, campaign).await;
    assert_eq!(response.status(), 200);
    response.json().await.expect("json")
}

async fn access(app: &TestApp, code: &str, query: &[(&str, &str)]) -> Value {
    let response = app.access(code, query).await;
    assert_eq!(response.status(), 200);
    response.json().await.expect("json")
}

#[tokio::test]
async fn studio_routes_need_a_valid_session() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let campaign = app.live_campaign(&partner.key.key).await;
    let id = id_of(&campaign);
    let builder = app.studio_token(partner.business, &[VIEW, BUILD]).await;
    let (kid, _) = app.launch_key(&builder, id).await;

    let url = |suffix: &str| app.url(&format!("/api/v1/campaigns/{id}{suffix}"));
    let anonymous = [
        app.client.get(url("/launch-keys")).send().await.expect("request"),
        app.client.post(url("/launch-keys")).send().await.expect("request"),
        app.client.delete(url(&format!("/launch-keys/{kid}"))).send().await.expect("request"),
        app.client.put(url("/launch-access")).json(&json!({"requireSigned": true})).send().await.expect("request"),
    ];
    for response in anonymous {
        let (status, code, _) = envelope(response).await;
        assert_eq!((status, code.as_str()), (401, "UNAUTHENTICATED"));
    }
    // Garbage, an API key, a token signed with another secret, and an expired session.
    let studio_jwt = |secret: &[u8]| {
        use jsonwebtoken::{EncodingKey, Header, encode};
        let exp = (START + Duration::hours(1)).unix_timestamp();
        let claims = json!({"sub": uuid::Uuid::new_v4(), "business": partner.business.to_string(),
            "perms": [VIEW, BUILD], "exp": exp, "iat": START.unix_timestamp(), "aud": "pulse-studio"});
        encode(&Header::default(), &claims, &EncodingKey::from_secret(secret)).expect("token")
    };
    let forged = studio_jwt(b"not-the-studio-secret");
    // The same claims under the real secret pass: only the signature tells the forged one apart.
    assert_eq!(app.list_launch_keys(&studio_jwt(b"studio-secret-for-tests"), id).await.status(), 200);
    for token in ["garbage", partner.key.key.as_str(), forged.as_str()] {
        for response in every_route(&app, token, id, &kid).await {
            let (status, code, _) = envelope(response).await;
            assert_eq!((status, code.as_str()), (401, "UNAUTHENTICATED"), "{token}");
        }
    }
    app.clock.advance(Duration::minutes(61));
    for response in every_route(&app, &builder, id, &kid).await {
        let (status, code, description) = envelope(response).await;
        assert_eq!((status, code.as_str()), (401, "UNAUTHENTICATED"));
        assert!(description.contains("expired"), "{description}");
    }
    let fresh = app.studio_token(partner.business, &[VIEW]).await;
    let body = list(&app, &fresh, id).await;
    assert_eq!(body["items"].as_array().map(Vec::len), Some(1), "nothing changed");
    assert_eq!(body["requireSigned"], json!(false));
}

#[tokio::test]
async fn studio_routes_need_their_permission() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let campaign = app.live_campaign(&partner.key.key).await;
    let id = id_of(&campaign);
    let builder = app.studio_token(partner.business, &[VIEW, BUILD]).await;
    let (kid, _) = app.launch_key(&builder, id).await;

    let viewer = app.studio_token(partner.business, &[VIEW]).await;
    assert_eq!(list(&app, &viewer, id).await["items"].as_array().map(Vec::len), Some(1));
    let writes = [
        app.create_launch_key(&viewer, id, None).await,
        app.revoke_launch_key(&viewer, id, &kid).await,
        app.set_launch_access(&viewer, id, &json!({"requireSigned": true})).await,
    ];
    for response in writes {
        let (status, code, description) = envelope(response).await;
        assert_eq!((status, code.as_str()), (403, "INSUFFICIENT_PERMISSION"));
        assert!(description.contains(BUILD), "{description}");
    }
    let outsider = app.studio_token(partner.business, &["workspace:view"]).await;
    let (status, code, description) = envelope(app.list_launch_keys(&outsider, id).await).await;
    assert_eq!((status, code.as_str()), (403, "INSUFFICIENT_PERMISSION"));
    assert!(description.contains(VIEW), "{description}");

    let body = list(&app, &viewer, id).await;
    assert_eq!(body["items"].as_array().map(Vec::len), Some(1), "no refused call changed the keys");
    assert_eq!(body["requireSigned"], json!(false), "no refused call changed the setting");
}

#[tokio::test]
async fn another_business_campaign_is_404_like_an_unknown_one() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let campaign = app.live_campaign(&partner.key.key).await;
    let id = id_of(&campaign);
    let owner = app.studio_token(partner.business, &[VIEW, BUILD]).await;
    let (kid, _) = app.launch_key(&owner, id).await;

    let stranger = app.campaign_partner().await;
    let theirs = app.studio_token(stranger.business, &[VIEW, BUILD]).await;
    let unknown = uuid::Uuid::new_v4().to_string();
    let foreign = every_route(&app, &theirs, id, &kid).await;
    let missing = every_route(&app, &theirs, &unknown, &kid).await;
    for (foreign, missing) in foreign.into_iter().zip(missing) {
        let foreign = envelope(foreign).await;
        assert_eq!((foreign.0, foreign.1.as_str()), (404, "NOT_FOUND"));
        assert_eq!(foreign, envelope(missing).await);
    }
    let body = list(&app, &owner, id).await;
    assert_eq!(body["items"].as_array().map(Vec::len), Some(1));
    assert_eq!(body["requireSigned"], json!(false));

    // An unknown key, and a key of another campaign of the same business.
    let other = app.live_campaign(&partner.key.key).await;
    let (other_kid, _) = app.launch_key(&owner, id_of(&other)).await;
    for key in [uuid::Uuid::new_v4().to_string(), other_kid, "not-a-uuid".to_owned()] {
        let (status, code, _) = envelope(app.revoke_launch_key(&owner, id, &key).await).await;
        assert_eq!((status, code.as_str()), (404, "NOT_FOUND"), "{key}");
    }
    assert_eq!(list(&app, &owner, id_of(&other)).await["items"].as_array().map(Vec::len), Some(1));
}

#[tokio::test]
async fn creating_answers_201_with_the_secret_once_in_two_slots() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let campaign = app.live_campaign(&partner.key.key).await;
    let id = id_of(&campaign);
    let builder = app.studio_token(partner.business, &[VIEW, BUILD]).await;

    let mut secrets = Vec::new();
    for slot in [1, 2] {
        let response = app.create_launch_key(&builder, id, None).await;
        assert_eq!(response.status(), 201);
        assert!(response.headers().get("idempotency-replayed").is_none());
        let key: Value = response.json().await.expect("json");
        assert_eq!(key["slot"], json!(slot));
        assert_eq!(key["kid"], key["id"]);
        assert!(key["id"].as_str().is_some_and(|id| id.parse::<uuid::Uuid>().is_ok()));
        assert!(key["createdAt"].as_str().is_some_and(|t| t.starts_with("2026-03-02T10:00:00")));
        assert_eq!(key["lastUsedAt"], Value::Null);
        let secret = key["secret"].as_str().expect("secret");
        assert!(secret.len() >= 32 && secret.is_ascii(), "{secret}");
        let digest = Sha256::digest(secret.as_bytes());
        let hex: String = digest.iter().take(4).map(|b| format!("{b:02x}")).collect();
        assert_eq!(key["fingerprint"], json!(hex));
        secrets.push((key["id"].clone(), secret.to_owned(), key["fingerprint"].clone()));
    }
    assert_ne!(secrets[0].1, secrets[1].1);

    let (status, code, _) = envelope(app.create_launch_key(&builder, id, None).await).await;
    assert_eq!((status, code.as_str()), (409, "LAUNCH_KEY_SLOTS_FULL"));

    let response = app.list_launch_keys(&builder, id).await;
    assert_eq!(response.status(), 200);
    let text = response.text().await.expect("body");
    for (_, secret, _) in &secrets {
        assert!(!text.contains(secret.as_str()), "a list showed a secret");
    }
    let body: Value = serde_json::from_str(&text).expect("json");
    assert_eq!(body["requireSigned"], json!(false));
    let items = body["items"].as_array().expect("items");
    assert_eq!(items.len(), 2);
    for (item, (id, _, fingerprint)) in items.iter().zip(&secrets) {
        assert_eq!(&item["id"], id);
        assert_eq!(item["kid"], *id);
        assert_eq!(&item["fingerprint"], fingerprint);
        assert_eq!(item["secret"], Value::Null);
    }
}

#[tokio::test]
async fn a_replay_answers_200_with_the_same_key_and_no_secret() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let campaign = app.live_campaign(&partner.key.key).await;
    let id = id_of(&campaign);
    let builder = app.studio_token(partner.business, &[VIEW, BUILD]).await;

    let first = app.create_launch_key(&builder, id, Some("rotate-1")).await;
    assert_eq!(first.status(), 201);
    let first: Value = first.json().await.expect("json");
    assert!(first["secret"].is_string());

    let replay = app.create_launch_key(&builder, id, Some("rotate-1")).await;
    assert_eq!(replay.status(), 200);
    assert_eq!(replay.headers().get("idempotency-replayed").map(|v| v.as_bytes()), Some(&b"true"[..]));
    let replay: Value = replay.json().await.expect("json");
    assert_eq!(replay["id"], first["id"]);
    assert_eq!(replay["slot"], first["slot"]);
    assert_eq!(replay["fingerprint"], first["fingerprint"]);
    assert_eq!(replay["secret"], Value::Null);
    assert_eq!(list(&app, &builder, id).await["items"].as_array().map(Vec::len), Some(1), "one key only");

    let second = app.create_launch_key(&builder, id, Some("rotate-2")).await;
    assert_eq!(second.status(), 201);
    let second: Value = second.json().await.expect("json");
    assert_eq!(second["slot"], json!(2));
    // With both slots full the replay still answers.
    assert_eq!(app.create_launch_key(&builder, id, Some("rotate-1")).await.status(), 200);
}

#[tokio::test]
async fn revoking_refuses_the_key_tokens_at_once_and_frees_the_slot() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let campaign = app.live_campaign(&partner.key.key).await;
    let (id, code) = (id_of(&campaign), code_of(&campaign));
    let builder = app.studio_token(partner.business, &[VIEW, BUILD]).await;
    let (old_kid, old_secret) = app.launch_key(&builder, id).await;
    let (new_kid, new_secret) = app.launch_key(&builder, id).await;

    let old_token = token(&app, &old_kid, &old_secret, code, "old-token-1");
    assert_eq!(access(&app, code, &[("lt", &old_token)]).await["state"], json!("VALID"));

    let response = app.revoke_launch_key(&builder, id, &old_kid).await;
    assert_eq!(response.status(), 204);
    assert!(response.bytes().await.expect("body").is_empty());

    let after = access(&app, code, &[("lt", &old_token)]).await;
    assert_eq!(after["state"], json!("INVALID"));
    assert_eq!(after["refusal"]["code"], json!("LAUNCH_TOKEN_INVALID"));
    let (status, error, _) =
        envelope(app.start(code, &json!({"consentGiven": true, "launchToken": old_token})).await).await;
    assert_eq!((status, error.as_str()), (403, "LAUNCH_TOKEN_INVALID"));
    let fresh_old = token(&app, &old_kid, &old_secret, code, "old-token-2");
    let (status, error, _) =
        envelope(app.start(code, &json!({"consentGiven": true, "launchToken": fresh_old})).await).await;
    assert_eq!((status, error.as_str()), (403, "LAUNCH_TOKEN_INVALID"), "no new token of the key works either");

    // The other key still works, and the freed slot takes a new key.
    app.started(code, &json!({"launchToken": token(&app, &new_kid, &new_secret, code, "new-token-1")})).await;
    let body = list(&app, &builder, id).await;
    let ids: Vec<&str> = body["items"].as_array().expect("items").iter().filter_map(|k| k["id"].as_str()).collect();
    assert_eq!(ids, [new_kid.as_str()]);
    let response = app.create_launch_key(&builder, id, None).await;
    assert_eq!(response.status(), 201);
    let replacement: Value = response.json().await.expect("json");
    assert_eq!(replacement["slot"], json!(1));

    let (status, error, _) = envelope(app.revoke_launch_key(&builder, id, &old_kid).await).await;
    assert_eq!((status, error.as_str()), (404, "NOT_FOUND"), "a revoked key is gone");
}

#[tokio::test]
async fn last_used_at_is_set_when_a_token_starts_a_session() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let campaign = app.live_campaign(&partner.key.key).await;
    let (id, code) = (id_of(&campaign), code_of(&campaign));
    let builder = app.studio_token(partner.business, &[VIEW, BUILD]).await;
    let (used_kid, used_secret) = app.launch_key(&builder, id).await;
    app.launch_key(&builder, id).await;

    app.clock.advance(Duration::minutes(2));
    let first = token(&app, &used_kid, &used_secret, code, "first-use");
    assert_eq!(access(&app, code, &[("lt", &first)]).await["state"], json!("VALID"));
    app.started(code, &json!({"launchToken": first})).await;
    let used_at = |body: &Value, slot: usize| body["items"][slot]["lastUsedAt"].clone();

    app.clock.advance(Duration::minutes(5));
    let viewer = app.studio_token(partner.business, &[VIEW]).await;
    let body = list(&app, &viewer, id).await;
    assert!(used_at(&body, 0).as_str().is_some_and(|t| t.starts_with("2026-03-02T10:02:00")), "{body}");
    assert_eq!(used_at(&body, 1), Value::Null, "the other key was not used");
    let later = list(&app, &viewer, id).await;
    assert_eq!(used_at(&later, 0), used_at(&body, 0), "kept on later reads");

    // A refused token does not count as a use.
    let forged = token(&app, &used_kid, "not-the-secret-of-this-key-at-all-000000", code, "forged-use");
    assert_eq!(app.start(code, &json!({"consentGiven": true, "launchToken": forged})).await.status(), 403);
    assert_eq!(used_at(&list(&app, &viewer, id).await, 0), used_at(&body, 0));

    app.started(code, &json!({"launchToken": token(&app, &used_kid, &used_secret, code, "second-use")})).await;
    let body = list(&app, &viewer, id).await;
    assert!(used_at(&body, 0).as_str().is_some_and(|t| t.starts_with("2026-03-02T10:07:00")), "{body}");
}

#[tokio::test]
async fn requiring_signed_launches_refuses_unsigned_starts() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let campaign = app.live_campaign(&partner.key.key).await;
    let (id, code) = (id_of(&campaign), code_of(&campaign));
    let builder = app.studio_token(partner.business, &[VIEW, BUILD]).await;
    let (kid, secret) = app.launch_key(&builder, id).await;

    let response = app.set_launch_access(&builder, id, &json!({"requireSigned": true})).await;
    assert_eq!(response.status(), 200);
    let body: Value = response.json().await.expect("json");
    assert_eq!(body, json!({"requireSigned": true}));
    assert_eq!(list(&app, &builder, id).await["requireSigned"], json!(true));
    let read: Value = app.get_campaign(&partner.key.key, id).await.json().await.expect("json");
    assert_eq!(read["requireSigned"], json!(true));

    let state = access(&app, code, &[]).await;
    assert_eq!(state["requireSigned"], json!(true));
    assert_eq!(state["state"], json!("MISSING"));
    assert_eq!(state["refusal"]["code"], json!("LAUNCH_SIGNATURE_REQUIRED"));
    assert!(state["refusal"]["title"].as_str().is_some_and(|t| !t.is_empty()));
    assert!(state["refusal"]["description"].as_str().is_some_and(|d| !d.is_empty()));
    let (status, error, _) = envelope(app.start(code, &json!({"consentGiven": true})).await).await;
    assert_eq!((status, error.as_str()), (403, "LAUNCH_SIGNATURE_REQUIRED"));
    let counts: Value = app.get_campaign(&partner.key.key, id).await.json().await.expect("json");
    assert_eq!(counts["counts"]["started"], json!(0));

    // A signed token, or a link the partner minted, still opens it.
    let signed = token(&app, &kid, &secret, code, "signed-only-1");
    let state = access(&app, code, &[("lt", &signed)]).await;
    assert_eq!((state["state"].clone(), state["refusal"].clone()), (json!("VALID"), Value::Null));
    app.started(code, &json!({"launchToken": signed})).await;
    let minted = app.minted(&partner.key.key, id).await.lt.expect("lt");
    app.started(code, &json!({"launchToken": minted})).await;

    let response = app.set_launch_access(&builder, id, &json!({"requireSigned": false})).await;
    assert_eq!(response.status(), 200);
    assert_eq!(response.json::<Value>().await.expect("json"), json!({"requireSigned": false}));
    let state = access(&app, code, &[]).await;
    assert_eq!(state["state"], json!("NOT_REQUIRED"));
    assert_eq!(state["refusal"], Value::Null);
    app.started(code, &json!({})).await;
}

#[tokio::test]
async fn the_launch_access_body_is_checked() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let campaign = app.live_campaign(&partner.key.key).await;
    let id = id_of(&campaign);
    let builder = app.studio_token(partner.business, &[VIEW, BUILD]).await;
    for body in [
        json!({}),
        json!({"requireSigned": "yes"}),
        json!({"requireSigned": null}),
        json!({"requireSigned": true, "extra": 1}),
    ] {
        let (status, code, description) = envelope(app.set_launch_access(&builder, id, &body).await).await;
        assert_eq!((status, code.as_str()), (400, "VALIDATION_FAILED"), "{body}");
        assert!(description.contains("requireSigned") || description.contains("extra"), "{body}: {description}");
    }
    assert_eq!(list(&app, &builder, id).await["requireSigned"], json!(false));
}

#[tokio::test]
async fn the_studio_quota_is_429_with_retry_after() {
    let app = spawn_app_with(|s| s.quotas = QuotaPolicy::default().with_hourly(QuotaFamily::Studio, 1)).await;
    let partner = app.campaign_partner().await;
    let campaign = app.live_campaign(&partner.key.key).await;
    let viewer = app.studio_token(partner.business, &[VIEW]).await;
    list(&app, &viewer, id_of(&campaign)).await;
    let response = app.list_launch_keys(&viewer, id_of(&campaign)).await;
    assert!(response.headers().contains_key("retry-after"));
    let (status, code, description) = envelope(response).await;
    assert_eq!((status, code.as_str()), (429, "RATE_LIMITED"));
    assert!(description.contains("studio"), "{description}");
}

#[tokio::test]
async fn parallel_creations_fill_each_slot_once() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let campaign = app.live_campaign(&partner.key.key).await;
    let id = id_of(&campaign);
    let builder = app.studio_token(partner.business, &[VIEW, BUILD]).await;
    let responses = futures_util::future::join_all((0..6).map(|_| app.create_launch_key(&builder, id, None))).await;
    let mut slots = Vec::new();
    for response in responses {
        if response.status() == 201 {
            let key: Value = response.json().await.expect("json");
            slots.push(key["slot"].as_u64().expect("slot"));
        } else {
            let (status, code, _) = envelope(response).await;
            assert_eq!((status, code.as_str()), (409, "LAUNCH_KEY_SLOTS_FULL"));
        }
    }
    slots.sort_unstable();
    assert_eq!(slots, [1, 2]);
    assert_eq!(list(&app, &builder, id).await["items"].as_array().map(Vec::len), Some(2));
}

/// Where Studio tokens are verified, not only where they are minted: a token not valid yet (`nbf`
/// or `iat` ahead of the service's clock) or living longer than 24 hours is refused.
#[tokio::test]
async fn studio_tokens_not_valid_yet_or_too_long_lived_are_refused() {
    use jsonwebtoken::{EncodingKey, Header, encode};
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let campaign = app.live_campaign(&partner.key.key).await;
    let id = id_of(&campaign);
    let token = |iat: time::OffsetDateTime, nbf: Option<time::OffsetDateTime>, exp: time::OffsetDateTime| {
        let mut claims = json!({"sub": uuid::Uuid::new_v4(), "business": partner.business.to_string(),
            "perms": [VIEW], "exp": exp.unix_timestamp(), "iat": iat.unix_timestamp(), "aud": "pulse-studio"});
        if let Some(nbf) = nbf {
            claims["nbf"] = json!(nbf.unix_timestamp());
        }
        encode(&Header::default(), &claims, &EncodingKey::from_secret(b"studio-secret-for-tests")).expect("token")
    };
    let now = app.now();
    let accepted = [
        token(now, None, now + Duration::hours(24)),
        token(now - Duration::hours(1), Some(now - Duration::minutes(5)), now + Duration::hours(1)),
        token(now + Duration::seconds(30), Some(now + Duration::seconds(30)), now + Duration::hours(1)),
    ];
    for good in accepted {
        assert_eq!(app.list_launch_keys(&good, id).await.status(), 200);
    }
    let refused = [
        (token(now, Some(now + Duration::minutes(10)), now + Duration::hours(1)), "not valid yet"),
        (token(now + Duration::minutes(10), None, now + Duration::hours(1)), "not valid yet"),
        (token(now - Duration::hours(1), None, now + Duration::days(3650)), "24 hours"),
    ];
    for (bad, why) in refused {
        let (status, code, description) = envelope(app.list_launch_keys(&bad, id).await).await;
        assert_eq!((status, code.as_str()), (401, "UNAUTHENTICATED"), "{why}");
        assert!(description.contains(why), "{description}");
    }
}
