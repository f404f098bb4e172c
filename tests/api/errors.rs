//! The framework's own refusals come in the same envelope as ours.

use crate::helpers::{envelope, spawn_app};

#[tokio::test]
async fn malformed_bodies_get_the_envelope() {
    let app = spawn_app().await;
    let (_, key) = app.partner().await;
    let post = |content_type: &'static str, body: Vec<u8>| {
        app.client
            .post(app.url("/api/v1/channel/orgs"))
            .bearer_auth(&key.key)
            .header("Content-Type", content_type)
            .body(body)
            .send()
    };
    let cases: Vec<(&str, Vec<u8>, u16, &str, &str)> = vec![
        ("application/json", b"{\"externalRef\": ".to_vec(), 400, "VALIDATION_FAILED", "not valid JSON"),
        ("application/json", b"{not json}".to_vec(), 400, "VALIDATION_FAILED", "not valid JSON"),
        ("application/json", Vec::new(), 400, "VALIDATION_FAILED", "empty"),
        (
            "application/json",
            b"{\"externalRef\":\"r\",\"name\":\"n\"} trailing".to_vec(),
            400,
            "VALIDATION_FAILED",
            "after the JSON",
        ),
        (
            "text/plain",
            b"{\"externalRef\":\"r\",\"name\":\"n\"}".to_vec(),
            415,
            "UNSUPPORTED_MEDIA_TYPE",
            "application/json",
        ),
        ("application/json", vec![b' '; 70 * 1024], 413, "PAYLOAD_TOO_LARGE", "larger"),
    ];
    for (content_type, body, want_status, want_code, want_text) in cases {
        let response = post(content_type, body).await.expect("response");
        assert!(response.headers().contains_key("x-request-id"));
        let (status, code, description) = envelope(response).await;
        assert_eq!((status, code.as_str()), (want_status, want_code), "{description}");
        assert!(description.contains(want_text), "{description}");
    }
    let charset =
        post("application/json; charset=utf-8", br#"{"externalRef":"r","name":"n"}"#.to_vec()).await.expect("ok");
    assert_eq!(charset.status(), 201);
    // A coded body is refused (RFC 9110), not read as if it were plain: gzip of a valid body, or
    // a coding named over a plain one.
    let body = br#"{"externalRef":"coded","name":"n"}"#.to_vec();
    for coding in ["gzip", "br", "identity, gzip"] {
        let response = app
            .client
            .post(app.url("/api/v1/channel/orgs"))
            .bearer_auth(&key.key)
            .header("Content-Type", "application/json")
            .header("Content-Encoding", coding)
            .body(body.clone())
            .send()
            .await
            .expect("response");
        let (status, code, description) = envelope(response).await;
        assert_eq!((status, code.as_str()), (415, "UNSUPPORTED_MEDIA_TYPE"), "{coding}");
        assert!(description.contains("Content-Encoding"), "{description}");
    }
    let identity = app
        .client
        .post(app.url("/api/v1/channel/orgs"))
        .bearer_auth(&key.key)
        .header("Content-Type", "application/json")
        .header("Content-Encoding", "identity")
        .body(br#"{"externalRef":"plain","name":"n"}"#.to_vec())
        .send()
        .await
        .expect("response");
    assert_eq!(identity.status(), 201, "identity is no coding");
}

#[tokio::test]
async fn unknown_routes_and_wrong_methods_get_the_envelope() {
    let app = spawn_app().await;
    let unknown = app.client.get(app.url("/api/v1/channel/nothing-here")).send().await.expect("response");
    assert!(unknown.headers().contains_key("x-request-id"));
    assert_eq!(envelope(unknown).await.1, "NOT_FOUND");
    let root = app.client.get(app.url("/")).send().await.expect("response");
    assert_eq!(envelope(root).await.0, 404);

    for (method, path) in [
        (reqwest::Method::DELETE, "/api/v1/channel/orgs"),
        (reqwest::Method::POST, "/api/v1/channel/whoami"),
        (reqwest::Method::PUT, "/api/v1/channel/openapi.json"),
    ] {
        let response = app.client.request(method.clone(), app.url(path)).send().await.expect("response");
        let (status, code, description) = envelope(response).await;
        assert_eq!((status, code.as_str()), (405, "METHOD_NOT_ALLOWED"), "{method} {path}");
        assert!(description.contains(method.as_str()));
    }
}

#[tokio::test]
async fn authentication_comes_before_reading_the_body() {
    let app = spawn_app().await;
    let response = app
        .client
        .post(app.url("/api/v1/channel/orgs"))
        .header("Content-Type", "application/json")
        .body("{broken")
        .send()
        .await
        .expect("response");
    assert_eq!(envelope(response).await.0, 401);
}
