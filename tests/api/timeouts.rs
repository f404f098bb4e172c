//! Slow clients: a request head or body that trickles is cut off instead of holding a connection
//! and a worker open. A slow database: work that runs past its deadline is answered with the
//! envelope and finishes in the background.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::{TcpListener, TcpStream};

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

/// A proxy in front of PostgreSQL that holds back every chunk the server sends by the delay set.
#[derive(Clone, Default)]
struct SlowLink {
    delay_ms: Arc<AtomicU64>,
}

impl SlowLink {
    /// Listens on a free port, forwarding to `upstream` (host:port); returns that port.
    fn start(&self, upstream: String) -> u16 {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        listener.set_nonblocking(true).expect("non-blocking");
        let port = listener.local_addr().expect("address").port();
        let listener = TcpListener::from_std(listener).expect("a tokio listener");
        let delay_ms = Arc::clone(&self.delay_ms);
        tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                let Ok(server) = TcpStream::connect(&upstream).await else { continue };
                let (mut client_reads, mut client_writes) = client.into_split();
                let (mut server_reads, mut server_writes) = server.into_split();
                tokio::spawn(async move { tokio::io::copy(&mut client_reads, &mut server_writes).await });
                let delay_ms = Arc::clone(&delay_ms);
                tokio::spawn(async move {
                    let mut chunk = vec![0; 64 * 1024];
                    while let Ok(read @ 1..) = server_reads.read(&mut chunk).await {
                        tokio::time::sleep(Duration::from_millis(delay_ms.load(Ordering::Relaxed))).await;
                        if client_writes.write_all(&chunk[..read]).await.is_err() {
                            break;
                        }
                    }
                });
            }
        });
        port
    }

    fn set_delay(&self, delay: Duration) {
        self.delay_ms.store(u64::try_from(delay.as_millis()).expect("a short delay"), Ordering::Relaxed);
    }
}

/// Pulse reaches its database through a [`SlowLink`], with a request deadline of one second.
async fn spawn_app_over(link: &SlowLink) -> TestApp {
    spawn_app_with(|s| {
        let mut url = url::Url::parse(&s.database_url).expect("a database URL");
        let upstream = format!("{}:{}", url.host_str().expect("a host"), url.port().unwrap_or(5432));
        url.set_port(Some(link.start(upstream))).expect("a port");
        s.database_url = url.to_string();
        s.request_timeout = Duration::from_secs(1);
    })
    .await
}

#[tokio::test]
async fn work_past_its_deadline_is_answered_with_the_envelope_and_finishes_in_the_background() {
    let link = SlowLink::default();
    let app = spawn_app_over(&link).await;
    let partner = app.campaign_partner().await;
    let create = |key: &'static str| {
        app.client
            .post(app.url("/api/v1/channel/orgs"))
            .bearer_auth(&partner.key.key)
            .header("Idempotency-Key", key)
            .json(&serde_json::json!({"externalRef": "slow-db-1", "name": "Slow"}))
            .send()
    };
    link.set_delay(Duration::from_secs(3));
    let answer = create("slow-db").await.expect("sent");
    assert_eq!(answer.status(), 503);
    assert!(answer.headers().contains_key("x-request-id"));
    let body: Value = answer.json().await.expect("the envelope");
    assert_eq!(body["code"], "UNAVAILABLE");
    assert!(body["description"].as_str().expect("a description").contains("did not finish in time"), "{body}");
    link.set_delay(Duration::ZERO);
    // The first request goes on: once it has finished, the same key replays its answer (while it
    // runs, the key is refused as in flight), and the workspace exists once.
    let mut replay = create("slow-db").await.expect("sent");
    for _ in 0..100 {
        if replay.status() != 409 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        replay = create("slow-db").await.expect("sent");
    }
    assert_eq!(replay.status(), 201, "{:?}", replay.text().await);
    let orgs = app.client.get(app.url("/api/v1/channel/orgs")).bearer_auth(&partner.key.key).send().await;
    let orgs = orgs.expect("sent").text().await.expect("text");
    assert_eq!(orgs.matches("slow-db-1").count(), 1, "{orgs}");
}

#[tokio::test]
async fn a_read_past_its_deadline_is_answered_with_the_envelope_and_the_server_recovers() {
    let link = SlowLink::default();
    let app = spawn_app_over(&link).await;
    let partner = app.campaign_partner().await;
    let orgs = || app.client.get(app.url("/api/v1/channel/orgs")).bearer_auth(&partner.key.key).send();
    assert_eq!(orgs().await.expect("sent").status(), 200);
    link.set_delay(Duration::from_secs(3));
    let answers = futures_util::future::join_all((0..4).map(|_| orgs())).await;
    for answer in answers {
        let answer = answer.expect("sent");
        assert_eq!(answer.status(), 503);
        let body: Value = answer.json().await.expect("the envelope");
        assert_eq!(body["code"], "UNAVAILABLE");
    }
    link.set_delay(Duration::ZERO);
    let mut answer = orgs().await.expect("sent");
    for _ in 0..100 {
        if answer.status() == 200 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        answer = orgs().await.expect("sent");
    }
    assert_eq!(answer.status(), 200);
}
