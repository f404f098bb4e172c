//! Launch tokens a partner signs itself with a launch key (`?lt=`): HS256, `kid` = key id, and
//! the claims rules of the contract. Every failure is one answer: 403 `LAUNCH_TOKEN_INVALID`.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use futures_util::future::join_all;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{Value, json};
use time::Duration;

use crate::helpers::campaigns::{code_of, id_of};
use crate::helpers::studio::sign_launch_token;
use crate::helpers::{TestApp, captured_logs, envelope, spawn_app};

/// A live open campaign with one launch key.
struct Signed {
    key: String,
    campaign: Value,
    kid: String,
    secret: String,
}

impl Signed {
    fn code(&self) -> &str {
        code_of(&self.campaign)
    }

    /// Valid claims: this campaign by code, five minutes ahead, a fresh jti.
    fn claims(&self, app: &TestApp) -> Value {
        json!({
            "campaign": self.code(),
            "exp": (app.now() + Duration::minutes(5)).unix_timestamp(),
            "jti": uuid::Uuid::new_v4().simple().to_string(),
        })
    }

    fn sign(&self, claims: &Value) -> String {
        sign_launch_token(Some(&self.kid), &self.secret, claims)
    }

    /// A valid token with `changes` applied to the claims (`null` removes a claim).
    fn token_with(&self, app: &TestApp, changes: Value) -> String {
        let mut claims = self.claims(app);
        if let (Some(claims), Some(changes)) = (claims.as_object_mut(), changes.as_object()) {
            for (name, value) in changes {
                if value.is_null() {
                    claims.remove(name);
                } else {
                    claims.insert(name.clone(), value.clone());
                }
            }
        }
        self.sign(&claims)
    }
}

async fn signed_campaign(app: &TestApp) -> Signed {
    let partner = app.campaign_partner().await;
    signed_campaign_of(app, partner.business, partner.key.key).await
}

async fn signed_campaign_of(app: &TestApp, business: pulse_domain::ids::BusinessId, key: String) -> Signed {
    let campaign = app.live_campaign(&key).await;
    let studio = app.studio_token(business, &["campaign:view", "campaign:build"]).await;
    let (kid, secret) = app.launch_key(&studio, id_of(&campaign)).await;
    Signed { key, campaign, kid, secret }
}

/// The partner crate signs what the server accepts: one session per token, its context kept.
#[tokio::test]
async fn a_token_signed_with_the_partner_crate_starts_one_session() {
    let app = spawn_app().await;
    let signed = signed_campaign(&app).await;
    let now = app.now().unix_timestamp();
    let claims = pulse_partner::LaunchClaims {
        campaign: signed.code().to_owned(),
        exp: now + 300,
        jti: uuid::Uuid::new_v4().simple().to_string(),
        app_version: Some("5.2.0".into()),
        tags: vec!["beta".into()],
        ..pulse_partner::LaunchClaims::default()
    };
    let token = pulse_partner::sign_launch_token(&signed.kid, &signed.secret, &claims, now).expect("signed");
    let body = json!({"consentGiven": true, "launchToken": token});
    assert_eq!(app.start(signed.code(), &body).await.status(), 201);
    refused_start(&app, signed.code(), &token, "the same token again").await;
}

async fn access_state(app: &TestApp, code: &str, token: &str) -> Value {
    let response = app.access(code, &[("lt", token)]).await;
    assert_eq!(response.status(), 200);
    response.json().await.expect("json")
}

/// Starts with `token` and returns the refusal, asserting it is 403 `LAUNCH_TOKEN_INVALID`.
async fn refused_start(app: &TestApp, code: &str, token: &str, label: &str) -> String {
    let response = app.start(code, &json!({"consentGiven": true, "launchToken": token})).await;
    let (status, error, description) = envelope(response).await;
    assert_eq!((status, error.as_str()), (403, "LAUNCH_TOKEN_INVALID"), "{label}");
    description
}

async fn started_count(app: &TestApp, signed: &Signed) -> Value {
    let body: Value = app.get_campaign(&signed.key, id_of(&signed.campaign)).await.json().await.expect("json");
    body["counts"]["started"].clone()
}

#[tokio::test]
async fn a_valid_token_works_once() {
    let app = spawn_app().await;
    let signed = signed_campaign(&app).await;
    let token = signed.token_with(
        &app,
        json!({"lang": "fr", "app": "acme-app", "appVersion": "3.2.1", "device": "Pixel 8", "os": "Android 15",
            "uid": "user-1", "tags": ["a", "b", "c", "d", "e", "f", "g", "h"]}),
    );
    let started = app.started(signed.code(), &json!({"launchToken": token})).await;
    assert!(started["sessionToken"].as_str().is_some_and(|t| !t.is_empty()));
    assert_eq!(started["language"], json!("fr"), "the token's lang");

    let description = refused_start(&app, signed.code(), &token, "reused").await;
    assert!(!description.is_empty());
    let state = access_state(&app, signed.code(), &token).await;
    assert_eq!(state["state"], json!("INVALID"));
    assert_eq!(state["refusal"]["code"], json!("LAUNCH_TOKEN_INVALID"));
    assert_eq!(started_count(&app, &signed).await, json!(1));
}

#[tokio::test]
async fn every_bad_token_is_refused_alike_at_access_and_start() {
    let app = spawn_app().await;
    let signed = signed_campaign(&app).await;
    let partner_of_other = app.campaign_partner().await;
    let other = signed_campaign_of(&app, partner_of_other.business, partner_of_other.key.key).await;
    let now = app.now().unix_timestamp();

    let none = {
        let header = URL_SAFE_NO_PAD.encode(json!({"alg": "none", "kid": signed.kid, "typ": "JWT"}).to_string());
        let claims = URL_SAFE_NO_PAD.encode(signed.claims(&app).to_string());
        format!("{header}.{claims}.")
    };
    let hs512 = {
        let mut header = Header::new(Algorithm::HS512);
        header.kid = Some(signed.kid.clone());
        jsonwebtoken::encode(&header, &signed.claims(&app), &EncodingKey::from_secret(signed.secret.as_bytes()))
            .expect("sign")
    };
    let cases = [
        (
            "wrong secret",
            sign_launch_token(Some(&signed.kid), "a-secret-the-partner-never-had-0000000000", &signed.claims(&app)),
        ),
        ("expired", signed.token_with(&app, json!({"exp": now - 1}))),
        ("expiring now", signed.token_with(&app, json!({"exp": now}))),
        ("31 minutes ahead", signed.token_with(&app, json!({"exp": now + 31 * 60}))),
        ("no exp", signed.token_with(&app, json!({"exp": null}))),
        ("jti of 7", signed.token_with(&app, json!({"jti": "1234567"}))),
        ("jti of 65", signed.token_with(&app, json!({"jti": "j".repeat(65)}))),
        ("no jti", signed.token_with(&app, json!({"jti": null}))),
        ("9 tags", signed.token_with(&app, json!({"tags": ["1", "2", "3", "4", "5", "6", "7", "8", "9"]}))),
        ("no campaign", signed.token_with(&app, json!({"campaign": null}))),
        ("another campaign named", signed.token_with(&app, json!({"campaign": other.code()}))),
        ("another campaign's id", signed.token_with(&app, json!({"campaign": id_of(&other.campaign)}))),
        ("alg none", none),
        ("HS512", hs512),
        ("no kid", sign_launch_token(None, &signed.secret, &signed.claims(&app))),
        (
            "unknown kid",
            sign_launch_token(Some(&uuid::Uuid::new_v4().to_string()), &signed.secret, &signed.claims(&app)),
        ),
        ("kid not a uuid", sign_launch_token(Some("key-1"), &signed.secret, &signed.claims(&app))),
        ("the service's own kid", sign_launch_token(Some("pulse-link"), &signed.secret, &signed.claims(&app))),
        ("another campaign's key", sign_launch_token(Some(&other.kid), &other.secret, &signed.claims(&app))),
        ("not a JWT", "not-a-token".to_owned()),
    ];
    let mut descriptions = Vec::new();
    for (label, token) in &cases {
        let state = access_state(&app, signed.code(), token).await;
        assert_eq!(state["state"], json!("INVALID"), "{label}");
        assert_eq!(state["refusal"]["code"], json!("LAUNCH_TOKEN_INVALID"), "{label}");
        descriptions.push(refused_start(&app, signed.code(), token, label).await);
    }
    descriptions.dedup();
    assert_eq!(descriptions.len(), 1, "the refusal never says which check failed: {descriptions:?}");
    assert_eq!(started_count(&app, &signed).await, json!(0));

    // The edges of the rules are accepted, and the campaign's own key works.
    for (label, changes) in [
        ("30 minutes ahead", json!({"exp": now + 30 * 60})),
        ("jti of 8", json!({"jti": "12345678"})),
        ("jti of 64", json!({"jti": "j".repeat(64)})),
        ("8 tags", json!({"tags": ["1", "2", "3", "4", "5", "6", "7", "8"]})),
    ] {
        let response = app
            .start(signed.code(), &json!({"consentGiven": true, "launchToken": signed.token_with(&app, changes)}))
            .await;
        assert_eq!(response.status(), 201, "{label}");
    }
    // The other campaign's key works for the other campaign.
    app.started(other.code(), &json!({"launchToken": other.sign(&other.claims(&app))})).await;
}

#[tokio::test]
async fn the_campaign_claim_may_be_the_code_or_the_id() {
    let app = spawn_app().await;
    let signed = signed_campaign(&app).await;
    for campaign in [signed.code().to_owned(), id_of(&signed.campaign).to_owned()] {
        let token = signed.token_with(&app, json!({"campaign": campaign}));
        assert_eq!(access_state(&app, signed.code(), &token).await["state"], json!("VALID"), "{campaign}");
        app.started(signed.code(), &json!({"launchToken": token})).await;
    }
    assert_eq!(started_count(&app, &signed).await, json!(2));
}

#[tokio::test]
async fn the_access_check_never_spends_a_token() {
    let app = spawn_app().await;
    let signed = signed_campaign(&app).await;
    let token = signed.sign(&signed.claims(&app));
    for _ in 0..2 {
        let state = access_state(&app, signed.code(), &token).await;
        assert_eq!(state["state"], json!("VALID"));
        assert_eq!(state["refusal"], Value::Null);
        assert_eq!(state["requireSigned"], json!(false));
    }
    app.started(signed.code(), &json!({"launchToken": token})).await;
    assert_eq!(access_state(&app, signed.code(), &token).await["state"], json!("INVALID"), "start spent it");
}

#[tokio::test]
async fn a_token_expires_with_its_exp() {
    let app = spawn_app().await;
    let signed = signed_campaign(&app).await;
    let token = signed.token_with(&app, json!({"exp": (app.now() + Duration::minutes(3)).unix_timestamp()}));
    assert_eq!(access_state(&app, signed.code(), &token).await["state"], json!("VALID"));
    app.clock.advance(Duration::minutes(3));
    assert_eq!(access_state(&app, signed.code(), &token).await["state"], json!("INVALID"));
    refused_start(&app, signed.code(), &token, "expired meanwhile").await;
}

#[tokio::test]
async fn the_partner_uid_is_never_stored_or_shown_raw() {
    let app = spawn_app().await;
    let signed = signed_campaign(&app).await;
    let uid = "partner-user-7731-marigold";
    let token = signed.token_with(&app, json!({"uid": uid}));
    let access = app.access(signed.code(), &[("lt", &token)]).await;
    assert_eq!(access.status(), 200);
    let access = access.text().await.expect("body");
    let start = app.start(signed.code(), &json!({"consentGiven": true, "launchToken": token})).await;
    assert_eq!(start.status(), 201);
    let start = start.text().await.expect("body");
    let reused = app.start(signed.code(), &json!({"consentGiven": true, "launchToken": token})).await;
    let reused = reused.text().await.expect("body");
    let campaign = app.get_campaign(&signed.key, id_of(&signed.campaign)).await.text().await.expect("body");
    for body in [access, start, reused, campaign] {
        assert!(!body.contains(uid), "a response carried the uid: {body}");
    }
    assert!(!captured_logs().contains(uid), "a log line carried the uid");
    assert_eq!(app.tables_holding(uid).await, Vec::<String>::new(), "the uid is stored in clear");
    assert_eq!(app.count_rows("sessions").await, 1);
}

#[tokio::test]
async fn parallel_starts_with_one_token_create_one_session() {
    let app = spawn_app().await;
    let signed = signed_campaign(&app).await;
    let body = json!({"consentGiven": true, "launchToken": signed.sign(&signed.claims(&app))});
    let responses = join_all((0..8).map(|_| app.start(signed.code(), &body))).await;
    let mut created = 0;
    for response in responses {
        if response.status() == 201 {
            created += 1;
        } else {
            let (status, code, _) = envelope(response).await;
            assert_eq!((status, code.as_str()), (403, "LAUNCH_TOKEN_INVALID"));
        }
    }
    assert_eq!(created, 1, "exactly one start spent the token");
    assert_eq!(started_count(&app, &signed).await, json!(1));
}
