//! The webhook dispatch workload: how many deliveries per second the server's delivery worker
//! gets to a receiver on loopback.
//!
//! Deliveries are queued through the real API on a server whose worker is idle (it waits a minute
//! between looks, and the queueing takes less), which is then stopped; a second server, with the
//! default settings but `PULSE_WEBHOOK_ALLOW_PRIVATE=true` so loopback URLs are allowed, drains the
//! queue. The receiver inside pulse-bench answers 200 to every POST, checks each signature, and
//! counts; the rate is the deliveries over the time from the first to the last one received.
//! Afterwards every delivery must be recorded as delivered, with one attempt each.

use std::collections::{HashMap, HashSet};
use std::convert::Infallible;
use std::fmt::Write as _;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use anyhow::{Context as _, bail, ensure};
use http_body_util::{BodyExt as _, Empty};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use reqwest::StatusCode;
use ring::hmac;
use serde_json::json;
use tokio::net::TcpListener;
use tokio::process::Command;
use tokio::task::{JoinHandle, JoinSet};

use crate::Plan;
use crate::seed::{Http, Seeded, text};
use crate::server::Pulse;
use crate::tools::{output, say};

/// Endpoints registered on the seeded workspace (a workspace holds at most 20); the deliveries
/// are spread over them.
const ENDPOINTS: usize = 20;

/// The target.
const TARGET_PER_SECOND: f64 = 5_000.0;

/// Deliveries queued per second of `--duration`: at the target rate they drain in a fifth of it.
const DELIVERIES_PER_SECOND_OF_DURATION: u32 = 1_000;

/// How long the drain may go without a single delivery before the run gives up.
const STALLED_AFTER: Duration = Duration::from_secs(30);

/// The queueing server's worker looks this rarely: it looks once at start-up, before anything is
/// queued, and the server is stopped well before it looks again.
const IDLE_POLL_MS: &str = "60000";

/// Runs the workload when `--only` is empty or names it; answers its table (empty otherwise).
pub async fn run(
    only: &[String],
    pulse: &Pulse,
    seeded: &Seeded,
    plan: &Plan,
    database_url: &str,
) -> anyhow::Result<String> {
    if !(only.is_empty() || only.iter().any(|slug| slug == "dispatch")) {
        return Ok(String::new());
    }
    let deliveries = if plan.smoke { 100 } else { plan.duration * DELIVERIES_PER_SECOND_OF_DURATION };
    let receiver = Receiver::start().await?;

    say("webhook dispatch: pulse serve with an idle delivery worker, to queue deliveries");
    let queueing =
        pulse.serve_with(plan.connections, &[allow_loopback(), ("PULSE_WEBHOOK_POLL_MS", IDLE_POLL_MS)]).await?;
    let http = Http::new(queueing.base_url())?;
    let endpoints = register(&http, seeded, &receiver).await?;
    say(format_args!("webhook dispatch: queueing {deliveries} deliveries over {ENDPOINTS} endpoints (simulate)"));
    let queued_in = Instant::now();
    queue(&http, &seeded.key, &endpoints, deliveries, plan.connections).await?;
    let queued_in = queued_in.elapsed();
    queueing.stop().await;
    ensure!(
        receiver.tally().received == 0,
        "the queueing server's worker sent deliveries (queueing took {queued_in:.0?}): lower --duration"
    );

    say(format_args!("webhook dispatch: pulse serve (PULSE_DB_POOL_SIZE={}) drains them", plan.connections));
    let draining = pulse.serve_with(plan.connections, &[allow_loopback()]).await?;
    let drained = drain(&receiver, deliveries).await;
    let recorded = match &drained {
        Ok(()) => all_recorded(database_url, deliveries).await,
        Err(_) => Ok(()),
    };
    let log_tail = draining.log_tail();
    draining.stop().await;
    drained.and(recorded).with_context(|| format!("the server's last log lines:\n{log_tail}"))?;

    let tally = receiver.tally();
    ensure!(tally.bad_signatures == 0, "{} deliveries arrived without a valid signature", tally.bad_signatures);
    Ok(render(deliveries, &tally))
}

fn allow_loopback() -> (&'static str, &'static str) {
    ("PULSE_WEBHOOK_ALLOW_PRIVATE", "true")
}

/// Registers [`ENDPOINTS`] endpoints at the receiver and gives it their secrets; answers their ids.
async fn register(http: &Http, seeded: &Seeded, receiver: &Receiver) -> anyhow::Result<Vec<String>> {
    let mut ids = Vec::with_capacity(ENDPOINTS);
    for n in 0..ENDPOINTS {
        let path = format!("/hooks/{n}");
        let body = json!({ "url": format!("{}{path}", receiver.base_url), "description": "pulse-bench receiver" });
        let created =
            http.post("/api/v1/channel/webhooks", Some(&seeded.key), Some(&body), StatusCode::CREATED).await?;
        receiver.expect_secret(path, text(&created, "/secret")?);
        ids.push(text(&created, "/subscription/id")?);
    }
    Ok(ids)
}

/// Queues `count` `webhook.test` deliveries, one simulate each, `at_once` at a time, taking the
/// endpoints in turn.
async fn queue(http: &Http, key: &str, endpoints: &[String], count: u32, at_once: u32) -> anyhow::Result<()> {
    let mut pending = JoinSet::new();
    let mut next = 0;
    while next < count || !pending.is_empty() {
        while next < count && pending.len() < at_once as usize {
            let path = format!("/api/v1/channel/webhooks/{}/simulate", endpoints[next as usize % endpoints.len()]);
            let (http, key) = (http.clone(), key.to_owned());
            pending.spawn(async move { http.post(&path, Some(&key), None, StatusCode::CREATED).await.map(drop) });
            next += 1;
        }
        if let Some(joined) = pending.join_next().await {
            joined.context("a simulate task failed")??;
        }
    }
    Ok(())
}

/// Waits until the receiver has every delivery, saying how many arrived each second.
async fn drain(receiver: &Receiver, deliveries: u32) -> anyhow::Result<()> {
    let mut seen = 0;
    let mut progress_at = Instant::now();
    loop {
        tokio::time::sleep(Duration::from_secs(1)).await;
        let distinct = receiver.tally().distinct;
        if distinct >= u64::from(deliveries) {
            return Ok(());
        }
        if distinct > seen {
            say(format_args!("webhook dispatch: {distinct} of {deliveries} received (+{})", distinct - seen));
            seen = distinct;
            progress_at = Instant::now();
        } else if progress_at.elapsed() > STALLED_AFTER {
            bail!("webhook dispatch stalled: {seen} of {deliveries} deliveries received");
        }
    }
}

/// Waits until every delivery is recorded as delivered (the worker records an attempt after its
/// answer), then checks each has exactly one attempt.
async fn all_recorded(database_url: &str, deliveries: u32) -> anyhow::Result<()> {
    let started = Instant::now();
    loop {
        let counts = psql(
            database_url,
            "SELECT (SELECT count(*) FROM webhook_deliveries WHERE status = 'DELIVERED') || ' ' || \
             (SELECT count(*) FROM webhook_deliveries) || ' ' || (SELECT count(*) FROM webhook_attempts)",
        )
        .await?;
        let counts: Vec<u64> = counts.split_whitespace().filter_map(|n| n.parse().ok()).collect();
        let [delivered, total, attempts] = counts[..] else { bail!("psql answered {counts:?}") };
        ensure!(total == u64::from(deliveries), "{total} deliveries in the database, {deliveries} queued");
        if delivered == total {
            ensure!(attempts == total, "{attempts} attempts recorded for {total} deliveries");
            return Ok(());
        }
        if started.elapsed() > STALLED_AFTER {
            bail!("only {delivered} of {total} deliveries were recorded as delivered");
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

async fn psql(url: &str, sql: &str) -> anyhow::Result<String> {
    output(Command::new("psql").args(["-X", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", url, "-c", sql]), "psql").await
}

fn render(deliveries: u32, tally: &Tally) -> String {
    let seconds = tally.span.as_secs_f64();
    let rate = if seconds > 0.0 { tally.distinct as f64 / seconds } else { 0.0 };
    let mut out = String::from(
        "\n| workload | deliveries | first to last s | deliveries/s | duplicates | receiver connections | target | met |\n\
         |---|---:|---:|---:|---:|---:|---:|---|\n",
    );
    let _ = writeln!(
        out,
        "| webhook dispatch (loopback receiver) | {deliveries} | {seconds:.2} | {rate:.0} | {} | {} | >= {TARGET_PER_SECOND:.0} | {} |",
        tally.received - tally.distinct,
        tally.connections,
        if rate >= TARGET_PER_SECOND { "yes" } else { "no" },
    );
    out
}

/// What the receiver counted.
#[derive(Clone, Debug, Default)]
struct Tally {
    /// POSTs answered.
    received: u64,
    /// Distinct `X-SVC-Delivery` ids among them.
    distinct: u64,
    bad_signatures: u64,
    connections: u64,
    /// From the first POST to the last.
    span: Duration,
}

#[derive(Default)]
struct State {
    /// Each endpoint's secret, by path.
    secrets: HashMap<String, String>,
    deliveries: HashSet<String>,
    received: u64,
    bad_signatures: u64,
    connections: u64,
    first: Option<Instant>,
    last: Option<Instant>,
}

/// A partner's endpoint: answers 200 to every request, after reading it whole.
struct Receiver {
    base_url: String,
    state: Arc<Mutex<State>>,
    accepting: JoinHandle<()>,
}

impl Receiver {
    async fn start() -> anyhow::Result<Self> {
        let listener = TcpListener::bind("127.0.0.1:0").await.context("cannot bind the webhook receiver")?;
        let base_url = format!("http://127.0.0.1:{}", listener.local_addr()?.port());
        let state = Arc::new(Mutex::new(State::default()));
        let accepting = tokio::spawn(accept(listener, Arc::clone(&state)));
        Ok(Self { base_url, state, accepting })
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn expect_secret(&self, path: String, secret: String) {
        self.state().secrets.insert(path, secret);
    }

    fn tally(&self) -> Tally {
        let state = self.state();
        Tally {
            received: state.received,
            distinct: state.deliveries.len() as u64,
            bad_signatures: state.bad_signatures,
            connections: state.connections,
            span: state.first.zip(state.last).map(|(first, last)| last - first).unwrap_or_default(),
        }
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        self.accepting.abort();
    }
}

async fn accept(listener: TcpListener, state: Arc<Mutex<State>>) {
    while let Ok((stream, _)) = listener.accept().await {
        let _ = stream.set_nodelay(true);
        state.lock().unwrap_or_else(PoisonError::into_inner).connections += 1;
        let state = Arc::clone(&state);
        tokio::spawn(async move {
            let service = service_fn(move |request| answer(Arc::clone(&state), request));
            // A connection the sender closes ends here; nothing to report.
            let _ = http1::Builder::new().serve_connection(TokioIo::new(stream), service).await;
        });
    }
}

async fn answer(
    state: Arc<Mutex<State>>,
    request: Request<Incoming>,
) -> Result<Response<Empty<&'static [u8]>>, Infallible> {
    let (head, body) = request.into_parts();
    let header = |name: &str| head.headers.get(name).and_then(|v| v.to_str().ok()).unwrap_or_default().to_owned();
    let (signature, delivery) = (header("x-svc-signature"), header("x-svc-delivery"));
    let body = match body.collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(_) => return Ok(Response::new(Empty::new())),
    };
    let now = Instant::now();
    let mut state = state.lock().unwrap_or_else(PoisonError::into_inner);
    let valid = state.secrets.get(head.uri.path()).is_some_and(|secret| verify(secret, &signature, &body));
    state.bad_signatures += u64::from(!valid);
    state.received += 1;
    state.deliveries.insert(delivery);
    state.first.get_or_insert(now);
    state.last = Some(now);
    Ok(Response::new(Empty::new()))
}

/// Checks `t=<unix>,v1=<hex>` over `<t>.<body>`, as docs/webhooks.md tells partners to.
fn verify(secret: &str, header: &str, body: &[u8]) -> bool {
    let Some((t, v1)) = header.strip_prefix("t=").and_then(|rest| rest.split_once(",v1=")) else { return false };
    let Some(expected) = decode_hex(v1) else { return false };
    let mut signed = format!("{t}.").into_bytes();
    signed.extend_from_slice(body);
    hmac::verify(&hmac::Key::new(hmac::HMAC_SHA256, secret.as_bytes()), &signed, &expected).is_ok()
}

fn decode_hex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len()).step_by(2).map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_are_checked_over_the_time_and_body() {
        let key = hmac::Key::new(hmac::HMAC_SHA256, b"whsec_test");
        let tag = hmac::sign(&key, b"1700000000.{\"a\":1}");
        let hex: String = tag.as_ref().iter().map(|b| format!("{b:02x}")).collect();
        let header = format!("t=1700000000,v1={hex}");
        assert!(verify("whsec_test", &header, b"{\"a\":1}"));
        assert!(!verify("whsec_test", &header, b"{\"a\":2}"));
        assert!(!verify("whsec_other", &header, b"{\"a\":1}"));
        assert!(!verify("whsec_test", "v1=00", b"{\"a\":1}"));
    }

    #[test]
    fn the_line_shows_the_rate_and_duplicates() {
        let tally = Tally {
            received: 10_002,
            distinct: 10_000,
            bad_signatures: 0,
            connections: 64,
            span: Duration::from_secs(2),
        };
        let table = render(10_000, &tally);
        assert!(
            table.contains("| webhook dispatch (loopback receiver) | 10000 | 2.00 | 5000 | 2 | 64 | >= 5000 | yes |"),
            "{table}"
        );
    }
}
