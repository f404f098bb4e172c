//! The transport against servers on loopback: what the guard refuses without connecting, and what
//! each kind of answer (or its absence) becomes.

use std::time::Duration;

use pulse_domain::ErrorCode;
use pulse_domain::webhooks::models::{OutboundRequest, PostOutcome, WebhookUrl};
use pulse_domain::webhooks::ports::WebhookTransport;
use pulse_webhook_http::{HttpTransport, TransportConfig};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;

/// In every URL the tests post to: errors must not repeat it.
const SECRET_TAIL: &str = "/secret-path?token=abc";
const BODY: &[u8] = b"{\"type\":\"webhook.test\",\"data\":{}}";

fn transport(allow_private: bool, timeout: Duration) -> HttpTransport {
    HttpTransport::new(TransportConfig { timeout, allow_private }).expect("the client builds")
}

fn guarded() -> HttpTransport {
    transport(false, Duration::from_secs(5))
}

fn open() -> HttpTransport {
    transport(true, Duration::from_secs(5))
}

fn request(url: String) -> OutboundRequest {
    OutboundRequest {
        url,
        headers: vec![
            ("content-type", "application/json".into()),
            ("x-svc-signature", "v1,c2lnbmF0dXJl".into()),
            ("x-svc-event", "evt_1".into()),
        ],
        body: BODY.to_vec(),
    }
}

async fn listener() -> (TcpListener, u16) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("a loopback port is free");
    let port = listener.local_addr().expect("the listener has an address").port();
    (listener, port)
}

/// The outcome's error, checked to name nothing of the URL but its host.
fn failure(outcome: &PostOutcome) -> &str {
    assert_eq!(outcome.status_code, None, "{outcome:?}");
    let error = outcome.error.as_deref().expect("a failed POST has an error");
    assert!(!error.contains("secret-path") && !error.contains("abc"), "{error}");
    error
}

#[derive(Debug)]
struct Received {
    /// Request line and headers, lower-cased.
    head: String,
    body: Vec<u8>,
}

/// Reads one HTTP/1.1 request: its head, then as many body bytes as `content-length` says.
async fn read_request(stream: &mut TcpStream) -> Received {
    let mut buffer = Vec::new();
    let mut chunk = [0_u8; 4096];
    let head_end = loop {
        if let Some(at) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
        let read = stream.read(&mut chunk).await.expect("the request arrives");
        assert!(read > 0, "the client closed before a complete head");
        buffer.extend_from_slice(&chunk[..read]);
    };
    let head = String::from_utf8_lossy(&buffer[..head_end]).to_lowercase();
    let length: usize = head
        .lines()
        .find_map(|line| line.strip_prefix("content-length:"))
        .map_or(0, |value| value.trim().parse().expect("content-length is a number"));
    while buffer.len() < head_end + length {
        let read = stream.read(&mut chunk).await.expect("the body arrives");
        assert!(read > 0, "the client closed before the whole body");
        buffer.extend_from_slice(&chunk[..read]);
    }
    Received { head, body: buffer[head_end..head_end + length].to_vec() }
}

/// Serves every connection with `response` after `delay`, reporting each request it read.
fn serve(listener: TcpListener, response: impl Into<String>, delay: Duration) -> mpsc::UnboundedReceiver<Received> {
    let (sender, receiver) = mpsc::unbounded_channel();
    let response = response.into();
    tokio::spawn(async move {
        loop {
            let (mut stream, _) = listener.accept().await.expect("accept works");
            let (sender, response) = (sender.clone(), response.clone());
            tokio::spawn(async move {
                let received = read_request(&mut stream).await;
                let _ = sender.send(received);
                tokio::time::sleep(delay).await;
                let _ = stream.write_all(response.as_bytes()).await;
                let _ = stream.shutdown().await;
            });
        }
    });
    receiver
}

/// Nothing connected to `listener` within a moment (the refused POST has already returned, so
/// any connection it made would be waiting).
async fn assert_never_connected(listener: &TcpListener) {
    let accepted = tokio::time::timeout(Duration::from_millis(200), listener.accept()).await;
    assert!(accepted.is_err(), "a connection reached the listener: {accepted:?}");
}

async fn check(transport: &HttpTransport, url: &str) -> pulse_domain::Result<()> {
    let url = WebhookUrl::parse(url, false).expect("the URL is well formed");
    transport.check_target(&url).await
}

#[tokio::test]
async fn check_target_refuses_non_public_addresses() {
    let transport = guarded();
    for (url, named) in [
        ("https://127.0.0.1/", "127.0.0.1 (loopback)"),
        ("https://[::1]/", "::1 (loopback)"),
        ("https://localhost:8443/", "localhost resolves to"),
        ("https://10.0.0.1/", "10.0.0.1 (private)"),
        ("https://169.254.169.254/", "169.254.169.254 (link-local)"),
        ("https://[::ffff:127.0.0.1]/", "IPv4-mapped non-public address"),
    ] {
        let error = check(&transport, url).await.expect_err(url);
        assert_eq!(error.code(), ErrorCode::ValidationFailed, "{url}");
        assert!(error.to_string().contains(named), "{url}: {error}");
    }
}

#[tokio::test]
async fn check_target_requires_a_name_that_resolves() {
    // A label over 63 characters: the stub resolver rejects it without sending a query.
    let url = format!("https://{}.example/", "a".repeat(64));
    let error = check(&guarded(), &url).await.expect_err("nothing resolves");
    assert_eq!(error.code(), ErrorCode::ValidationFailed);
    assert!(error.to_string().contains("does not resolve"), "{error}");
    let error = check(&open(), &url).await.expect_err("allowing private addresses does not make it resolve");
    assert!(error.to_string().contains("does not resolve"), "{error}");
}

#[tokio::test]
async fn check_target_lets_private_addresses_through_when_allowed() {
    let transport = open();
    for url in ["https://127.0.0.1/", "https://localhost:8443/", "https://10.0.0.1/"] {
        check(&transport, url).await.expect(url);
    }
}

#[tokio::test]
async fn post_to_a_loopback_name_is_refused_without_connecting() {
    let (listener, port) = listener().await;
    let outcome = guarded().post(&request(format!("http://localhost:{port}{SECRET_TAIL}"))).await;
    let error = failure(&outcome);
    assert!(error.starts_with("address refused: localhost resolves to"), "{error}");
    assert!(error.ends_with("(loopback)"), "{error}");
    assert_never_connected(&listener).await;
}

#[tokio::test]
async fn post_to_a_loopback_literal_is_refused_without_connecting() {
    let (listener, port) = listener().await;
    let outcome = guarded().post(&request(format!("http://127.0.0.1:{port}{SECRET_TAIL}"))).await;
    assert_eq!(failure(&outcome), "address refused: 127.0.0.1 resolves to 127.0.0.1 (loopback)");
    assert_never_connected(&listener).await;
}

#[tokio::test]
async fn post_delivers_the_body_and_headers_and_reports_the_status() {
    let (listener, port) = listener().await;
    let mut received = serve(listener, "HTTP/1.1 204 No Content\r\n\r\n", Duration::ZERO);
    // Through the resolver (a name) and around it (a literal).
    for host in ["localhost", "127.0.0.1"] {
        let outcome = open().post(&request(format!("http://{host}:{port}/hooks"))).await;
        assert_eq!((outcome.status_code, outcome.error), (Some(204), None), "{host}");
        let request = received.recv().await.expect("the server saw the request");
        assert_eq!(request.body, BODY);
        assert!(request.head.starts_with("post /hooks http/1.1\r\n"), "{}", request.head);
        for header in
            ["content-type: application/json\r\n", "x-svc-signature: v1,c2lnbmf0dxjl\r\n", "x-svc-event: evt_1\r\n"]
        {
            assert!(request.head.contains(header), "{header} missing from {}", request.head);
        }
    }
}

#[tokio::test]
async fn post_reports_a_redirect_without_following_it() {
    let (listener, port) = listener().await;
    let response =
        format!("HTTP/1.1 302 Found\r\nlocation: http://127.0.0.1:{port}/followed\r\ncontent-length: 0\r\n\r\n");
    let mut received = serve(listener, response, Duration::ZERO);
    let outcome = open().post(&request(format!("http://127.0.0.1:{port}/hooks"))).await;
    assert_eq!((outcome.status_code, outcome.error), (Some(302), None));
    let first = received.recv().await.expect("the server saw the request");
    assert!(first.head.starts_with("post /hooks "), "{}", first.head);
    // A followed redirect would have arrived before the POST returned.
    assert!(received.try_recv().is_err(), "the redirect was followed");
}

#[tokio::test]
async fn post_reports_a_server_error_as_a_status() {
    let (listener, port) = listener().await;
    let _received =
        serve(listener, "HTTP/1.1 500 Internal Server Error\r\ncontent-length: 4\r\n\r\noops", Duration::ZERO);
    let outcome = open().post(&request(format!("http://127.0.0.1:{port}{SECRET_TAIL}"))).await;
    assert_eq!((outcome.status_code, outcome.error), (Some(500), None));
}

#[tokio::test]
async fn post_gives_up_after_the_timeout() {
    let (listener, port) = listener().await;
    let _received = serve(listener, "HTTP/1.1 204 No Content\r\n\r\n", Duration::from_secs(3));
    let outcome =
        transport(true, Duration::from_secs(1)).post(&request(format!("http://127.0.0.1:{port}{SECRET_TAIL}"))).await;
    assert_eq!(failure(&outcome), "timed out after 1 s without a complete answer");
}

#[tokio::test]
async fn post_reports_a_connection_closed_without_an_answer() {
    let (listener, port) = listener().await;
    tokio::spawn(async move {
        let (stream, _) = listener.accept().await.expect("accept works");
        drop(stream);
    });
    let outcome = open().post(&request(format!("http://127.0.0.1:{port}{SECRET_TAIL}"))).await;
    assert_eq!(failure(&outcome), "the connection closed before an answer");
}

#[tokio::test]
async fn post_reports_a_refused_connection() {
    let (listener, port) = listener().await;
    drop(listener);
    let outcome = open().post(&request(format!("http://127.0.0.1:{port}{SECRET_TAIL}"))).await;
    assert_eq!(failure(&outcome), "could not connect: connection refused");
}

#[tokio::test]
async fn post_reports_a_failed_tls_handshake() {
    let (listener, port) = listener().await;
    // Plain HTTP where the client expects a TLS server's hello.
    tokio::spawn(async move {
        let (mut stream, _) = listener.accept().await.expect("accept works");
        let _ = stream.write_all(b"HTTP/1.1 204 No Content\r\n\r\n").await;
        let _ = stream.read_to_end(&mut Vec::new()).await;
    });
    let outcome = open().post(&request(format!("https://127.0.0.1:{port}{SECRET_TAIL}"))).await;
    assert_eq!(failure(&outcome), "could not connect: TLS failed: received corrupt message of type InvalidContentType");
}

#[tokio::test]
async fn post_reports_an_answer_that_is_not_http() {
    let (listener, port) = listener().await;
    let _received = serve(listener, "SSH-2.0-OpenSSH_9.6\r\n\r\n", Duration::ZERO);
    let outcome = open().post(&request(format!("http://127.0.0.1:{port}{SECRET_TAIL}"))).await;
    assert_eq!(failure(&outcome), "the answer was not valid HTTP");
}

#[tokio::test]
async fn post_reports_an_unresolvable_name() {
    // http: for https, rustls refuses so long a label as a server name before any lookup.
    let url = format!("http://{}.example{SECRET_TAIL}", "a".repeat(64));
    let outcome = guarded().post(&request(url)).await;
    assert!(failure(&outcome).ends_with(".example does not resolve"), "{outcome:?}");
}
