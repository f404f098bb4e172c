//! `GET /whoami` and authentication.

use pulse_domain::tenancy::models::SECRET_RANDOM_LEN;
use pulse_domain::tenancy::models::WellFormedKey;
use secrecy::ExposeSecret;
use serde_json::{Value, json};
use time::Duration;

use crate::helpers::{envelope, spawn_app};

#[tokio::test]
async fn whoami_describes_the_calling_key() {
    let app = spawn_app().await;
    let business = app.create_business().await;
    let key = app.create_key(Some(business), &["channel:results", "channel:workspaces"]).await;

    let response = app.whoami(&key.key).await;
    assert_eq!(response.status(), 200);
    assert!(response.headers().contains_key("x-request-id"));
    let body: Value = response.json().await.expect("json");
    assert_eq!(body["accountId"], json!(business.to_string()));
    assert_eq!(body["keyPrefix"], json!(key.prefix));
    assert_eq!(body["scopes"], json!(["channel:results", "channel:workspaces"]));
    assert_eq!(body["workspaceAllowlist"], json!([]));
    assert_eq!(body["defaultWorkspaceId"], Value::Null);
    assert_eq!(body["orgId"], Value::Null);
    assert!(body["serviceAccountId"].as_str().is_some_and(|s| s.len() == 36));
}

#[tokio::test]
async fn the_x_api_key_header_is_accepted_the_same() {
    let app = spawn_app().await;
    let key = app.create_key(None, &["channel:results"]).await;
    let response =
        app.client.get(app.url("/api/v1/channel/whoami")).header("X-API-Key", &key.key).send().await.expect("request");
    assert_eq!(response.status(), 200);
    let body: Value = response.json().await.expect("json");
    assert_eq!(body["accountId"], Value::Null, "a key without a business still knows who it is");
}

/// One credential per request: two headers that could name two callers are refused, whichever is
/// valid, so a proxy reading the other one can never disagree with us about who called.
#[tokio::test]
async fn ambiguous_credentials_are_refused() {
    let app = spawn_app().await;
    let a = app.create_key(None, &["channel:results"]).await;
    let b = app.create_key(None, &["channel:results"]).await;
    let whoami = app.url("/api/v1/channel/whoami");
    let bearer = |key: &str| format!("Bearer {key}");
    let cases: Vec<(&str, Vec<(&str, String)>)> = vec![
        ("a bearer key and another X-API-Key", vec![("Authorization", bearer(&a.key)), ("X-API-Key", b.key.clone())]),
        (
            "a bearer key and a garbage X-API-Key",
            vec![("Authorization", bearer(&a.key)), ("X-API-Key", "garbage".into())],
        ),
        ("the same key in both headers", vec![("Authorization", bearer(&a.key)), ("X-API-Key", a.key.clone())]),
        ("two Authorization headers", vec![("Authorization", bearer(&a.key)), ("Authorization", bearer(&b.key))]),
        ("two X-API-Key headers", vec![("X-API-Key", a.key.clone()), ("X-API-Key", b.key.clone())]),
    ];
    for (case, headers) in cases {
        let mut request = app.client.get(&whoami);
        for (name, value) in headers {
            request = request.header(name, value);
        }
        let (status, code, description) = envelope(request.send().await.expect("sent")).await;
        assert_eq!((status, code.as_str()), (401, "UNAUTHENTICATED"), "{case}");
        assert!(description.contains("exactly one credential"), "{case}: {description}");
        assert!(!description.contains(&a.key) && !description.contains(&b.key), "no key is repeated");
    }
    // An Authorization header of another scheme is no API key, and X-API-Key is not read beside it.
    let basic = app.client.get(&whoami).header("Authorization", "Basic dXNlcjpwYXNz").send().await.expect("sent");
    assert_eq!(envelope(basic).await.0, 401);
}

#[tokio::test]
async fn the_default_workspace_is_set_only_for_a_single_workspace() {
    let app = spawn_app().await;
    let (_, key) = app.partner().await;
    let first = app.workspace(&key.key, "client-1").await;
    let body: Value = app.whoami(&key.key).await.json().await.expect("json");
    assert_eq!(body["workspaceAllowlist"], json!([first.to_string()]));
    assert_eq!(body["defaultWorkspaceId"], json!(first.to_string()));
    assert_eq!(body["orgId"], json!(first.to_string()));

    app.workspace(&key.key, "client-2").await;
    let body: Value = app.whoami(&key.key).await.json().await.expect("json");
    assert_eq!(body["workspaceAllowlist"].as_array().map(Vec::len), Some(2));
    assert_eq!(body["defaultWorkspaceId"], Value::Null);
}

#[tokio::test]
async fn missing_invalid_revoked_and_expired_keys_get_401() {
    let app = spawn_app().await;
    let business = app.create_business().await;
    let revoked = app.create_key(Some(business), &["channel:results"]).await;
    let expiring = app.create_key_with(Some(business), &["channel:results"], &[], Some(Duration::minutes(5))).await;
    app.revoke_key(&revoked.prefix).await;

    let no_key = app.client.get(app.url("/api/v1/channel/whoami")).send().await.expect("request");
    let (status, code, description) = envelope(no_key).await;
    assert_eq!((status, code.as_str()), (401, "UNAUTHENTICATED"));
    assert!(description.contains("no API key"));

    // A real prefix with another secret: the format and checksum are right, the digest is not.
    let forged = WellFormedKey::assemble(&expiring.prefix, &"Z".repeat(SECRET_RANDOM_LEN));
    let forged = forged.secret().expose_secret().to_owned();
    assert!(WellFormedKey::parse(&forged).is_some());
    let truncated = &expiring.key[..expiring.key.len() - 1];
    for bad in ["svc_nonsense", "Bearer", truncated, &forged] {
        let (status, code, _) = envelope(app.whoami(bad).await).await;
        assert_eq!((status, code.as_str()), (401, "UNAUTHENTICATED"), "{bad}");
    }

    let (status, _, description) = envelope(app.whoami(&revoked.key).await).await;
    assert_eq!(status, 401);
    assert!(description.contains("revoked"));

    assert_eq!(app.whoami(&expiring.key).await.status(), 200);
    app.clock.advance(Duration::minutes(5));
    let (status, _, description) = envelope(app.whoami(&expiring.key).await).await;
    assert_eq!(status, 401);
    assert!(description.contains("expired"));
}
