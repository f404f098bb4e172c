//! A partner's webhook endpoint for the tests: a small HTTP/1.1 server on loopback that records
//! every request, checks its signature once the secret is known, and answers as told (a status,
//! a hang past the sender's timeout, or a closed connection).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use ring::hmac;
use serde_json::Value;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Notify;

/// How the receiver answers.
#[derive(Clone, Copy, Debug)]
pub enum Reply {
    Status(u16),
    /// Answers 200 when the signature verified with the secret set, 401 otherwise, as a partner's
    /// server does.
    Verified,
    /// Answers 200 only after this long.
    Hang(Duration),
    /// Closes the connection without answering.
    Close,
}

/// One request as received.
#[derive(Clone, Debug)]
pub struct Received {
    /// Such as `POST /hooks/pulse HTTP/1.1`.
    pub request_line: String,
    pub headers: HashMap<String, String>,
    pub body: Vec<u8>,
    /// Whether `X-SVC-Signature` verified with the secret set when it arrived (`None`: no secret yet).
    pub signature_valid: Option<bool>,
}

impl Received {
    pub fn header(&self, name: &str) -> &str {
        self.headers.get(name).map_or("", String::as_str)
    }

    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).expect("a JSON body")
    }
}

struct State {
    reply: Reply,
    secret: Option<String>,
    received: Vec<Received>,
}

#[derive(Clone)]
pub struct Receiver {
    pub url: String,
    state: Arc<Mutex<State>>,
    arrived: Arc<Notify>,
}

/// Verifies `t=<unix>,v1=<hex>[,v1=<hex>…]` over `<t>.<body>` as docs/webhooks.md tells partners
/// to: any `v1` made with the secret verifies (while a secret is rotated, there are two).
pub fn verify_signature(secret: &str, header: &str, body: &[u8]) -> bool {
    let Some((t, signatures)) = header.strip_prefix("t=").and_then(|rest| rest.split_once(',')) else { return false };
    let mut signed = format!("{t}.").into_bytes();
    signed.extend_from_slice(body);
    let key = hmac::Key::new(hmac::HMAC_SHA256, secret.as_bytes());
    signatures
        .split(',')
        .filter_map(|part| part.strip_prefix("v1=").and_then(decode_hex))
        .any(|expected| hmac::verify(&key, &signed, &expected).is_ok())
}

fn decode_hex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len()).step_by(2).map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok()).collect()
}

impl Receiver {
    pub async fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind the receiver");
        let url = format!("http://127.0.0.1:{}/hooks/pulse", listener.local_addr().expect("address").port());
        let receiver = Self {
            url,
            state: Arc::new(Mutex::new(State { reply: Reply::Status(200), secret: None, received: vec![] })),
            arrived: Arc::new(Notify::new()),
        };
        let serving = receiver.clone();
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                tokio::spawn(serving.clone().serve(stream));
            }
        });
        receiver
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub fn reply(&self, reply: Reply) {
        self.lock().reply = reply;
    }

    pub fn set_secret(&self, secret: &str) {
        self.lock().secret = Some(secret.to_owned());
    }

    pub fn received(&self) -> Vec<Received> {
        self.lock().received.clone()
    }

    /// Waits until `count` requests have arrived, and returns them all.
    pub async fn wait_for(&self, count: usize) -> Vec<Received> {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
        loop {
            let notified = self.arrived.notified();
            let received = self.received();
            if received.len() >= count {
                return received;
            }
            if tokio::time::timeout_at(deadline, notified).await.is_err() {
                panic!("expected {count} webhook requests, received {}", self.received().len());
            }
        }
    }

    async fn serve(self, mut stream: TcpStream) {
        let Some((request_line, headers, body)) = read_request(&mut stream).await else { return };
        let (reply, verified) = {
            let mut state = self.lock();
            let signature = headers.get("x-svc-signature").map_or("", String::as_str);
            let signature_valid = state.secret.as_deref().map(|secret| verify_signature(secret, signature, &body));
            state.received.push(Received { request_line, headers, body, signature_valid });
            (state.reply, signature_valid == Some(true))
        };
        self.arrived.notify_waiters();
        let status = match reply {
            Reply::Close => return,
            Reply::Hang(wait) => {
                tokio::time::sleep(wait).await;
                200
            }
            Reply::Status(status) => status,
            Reply::Verified if verified => 200,
            Reply::Verified => 401,
        };
        let location = if (300..400).contains(&status) { "Location: http://127.0.0.1:9/elsewhere\r\n" } else { "" };
        let answer = format!("HTTP/1.1 {status} Reply\r\n{location}Content-Length: 0\r\nConnection: close\r\n\r\n");
        let _ = stream.write_all(answer.as_bytes()).await;
        let _ = stream.shutdown().await;
    }
}

async fn read_request(stream: &mut TcpStream) -> Option<(String, HashMap<String, String>, Vec<u8>)> {
    let mut buffer = Vec::new();
    let mut chunk = [0_u8; 4096];
    let head_end = loop {
        if let Some(end) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
            break end;
        }
        let read = stream.read(&mut chunk).await.ok()?;
        if read == 0 {
            return None;
        }
        buffer.extend_from_slice(&chunk[..read]);
    };
    let head = String::from_utf8_lossy(&buffer[..head_end]).into_owned();
    let request_line = head.lines().next().unwrap_or_default().to_owned();
    let headers: HashMap<String, String> = head
        .lines()
        .skip(1)
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_ascii_lowercase(), value.trim().to_owned()))
        .collect();
    let length: usize = headers.get("content-length").and_then(|l| l.parse().ok()).unwrap_or(0);
    let mut body = buffer[head_end + 4..].to_vec();
    while body.len() < length {
        let read = stream.read(&mut chunk).await.ok()?;
        if read == 0 {
            return None;
        }
        body.extend_from_slice(&chunk[..read]);
    }
    Some((request_line, headers, body))
}
