//! Slow clients: a request head or body that trickles is cut off instead of holding a connection
//! and a worker open.

use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;

use crate::helpers::{TestApp, spawn_app_with};

async fn connect(app: &TestApp) -> TcpStream {
    let address = app.address.strip_prefix("http://").expect("an http address");
    TcpStream::connect(address).await.expect("connect")
}

/// Everything the server sends until it closes the connection (at most 10 s).
async fn read_all(stream: &mut TcpStream) -> String {
    let mut answer = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut answer))
        .await
        .expect("the server closes the connection in time")
        .expect("read");
    String::from_utf8_lossy(&answer).into_owned()
}

#[tokio::test]
async fn a_body_that_trickles_is_cut_off_with_the_envelope_and_changes_nothing() {
    let app = spawn_app_with(|s| s.body_timeout = Duration::from_secs(1)).await;
    let partner = app.campaign_partner().await;
    let mut stream = connect(&app).await;
    let head = format!(
        "POST /api/v1/channel/orgs HTTP/1.1\r\nHost: pulse\r\nAuthorization: Bearer {}\r\n\
         Content-Type: application/json\r\nContent-Length: 200\r\n\r\n{{\"externalRef\": \"slow-1\"",
        partner.key.key
    );
    stream.write_all(head.as_bytes()).await.expect("write");
    let answer = read_all(&mut stream).await;
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    let body: Value = serde_json::from_str(answer.split("\r\n\r\n").nth(1).expect("a body")).expect("the envelope");
    assert_eq!(body["code"], "REQUEST_TIMEOUT");
    let orgs = app.client.get(app.url("/api/v1/channel/orgs")).bearer_auth(&partner.key.key).send().await;
    let orgs = orgs.expect("sent").text().await.expect("text");
    assert!(orgs.contains("client-1") && !orgs.contains("slow-1"), "nothing was created: {orgs}");
}

#[tokio::test]
async fn a_body_sent_in_time_is_read_whole() {
    let app = spawn_app_with(|s| s.body_timeout = Duration::from_secs(2)).await;
    let partner = app.campaign_partner().await;
    let mut stream = connect(&app).await;
    let body = r#"{"externalRef": "steady-1", "name": "Steady"}"#;
    let head = format!(
        "POST /api/v1/channel/orgs HTTP/1.1\r\nHost: pulse\r\nAuthorization: Bearer {}\r\nConnection: close\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        partner.key.key,
        body.len()
    );
    stream.write_all(head.as_bytes()).await.expect("write");
    // Two halves, well inside the deadline.
    let (first, second) = body.split_at(10);
    stream.write_all(first.as_bytes()).await.expect("write");
    tokio::time::sleep(Duration::from_millis(300)).await;
    stream.write_all(second.as_bytes()).await.expect("write");
    let answer = read_all(&mut stream).await;
    assert!(answer.starts_with("HTTP/1.1 201"), "{answer}");
}

/// The head is read by the HTTP library before any of our code runs: it answers 408 with no body
/// and closes (docs/errors.md says so).
#[tokio::test]
async fn a_head_that_trickles_is_cut_off() {
    let app = spawn_app_with(|s| s.header_timeout = Duration::from_secs(1)).await;
    let mut stream = connect(&app).await;
    stream.write_all(b"GET /healthz HTTP/1.1\r\nHost: pulse\r\n").await.expect("write");
    let answer = read_all(&mut stream).await;
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
}

/// Requests the HTTP library cannot read are refused by it; no client can write ERROR log lines
/// with them.
#[tokio::test]
async fn requests_the_library_cannot_read_write_no_error_lines() {
    let app = spawn_app_with(|_| {}).await;
    let marker = uuid::Uuid::new_v4().simple().to_string();
    for request in [
        format!("GET /healthz?{marker} HTTP/1.1\r\nHost: pulse\r\nBad Header: x\r\n\r\n"),
        format!("NOT A REQUEST LINE {marker}\r\n\r\n"),
        format!("GET /{marker} HTTP/1.1\r\nHost: pulse\r\nContent-Length: nope\r\n\r\n"),
    ] {
        let mut stream = connect(&app).await;
        stream.write_all(request.as_bytes()).await.expect("write");
        let answer = read_all(&mut stream).await;
        assert!(answer.starts_with("HTTP/1.1 400"), "{answer}");
    }
    let errors: Vec<String> = crate::helpers::captured_logs()
        .lines()
        .filter(|l| l.contains("\"level\":\"ERROR\""))
        .map(str::to_owned)
        .collect();
    assert!(!errors.iter().any(|l| l.contains("actix_http")), "{errors:?}");
}
