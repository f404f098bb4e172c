//! The paced run: a workload's requests at a fixed rate, open loop. Request `i` is due at
//! `start + i / rate` and is sent then whether or not earlier ones were answered; its latency runs
//! from when it was due to the end of its answer. wrk, closed loop, sends only once an answer is
//! back, so a server that stalls is sent less and its stall shows in few latencies (coordinated
//! omission); here every request the stall delayed counts it, and so does a sender that fell
//! behind.

use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use hdrhistogram::Histogram;
use http_body_util::{BodyExt as _, Full};
use hyper::body::Bytes;
use hyper::client::conn::http1::{self, SendRequest};
use hyper::header::{HOST, HeaderMap, HeaderName, HeaderValue};
use hyper::{Request, Uri};
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;

use crate::Plan;
use crate::workloads::{METHOD, Measured, Requests};

/// The target for p99 at half the maximum rate, on every write path (docs/performance.md).
pub const P99_TARGET_MS: f64 = 10.0;

/// A smoke run's rate: enough to go through every part, too little to load anything.
pub const SMOKE_RATE: f64 = 20.0;

/// Requests in flight at most, one per connection. When all are out, the next due request waits
/// for one to end, and that wait is in its latency.
pub const IN_FLIGHT: usize = 256;

/// A request not answered within this gets no answer.
const TIMEOUT: Duration = Duration::from_secs(10);

/// The latencies the histogram holds, in microseconds: 1 µs to a minute, 3 significant digits.
const LOWEST_MICROS: u64 = 1;
const HIGHEST_MICROS: u64 = 60_000_000;
const SIGNIFICANT_DIGITS: u8 = 3;

/// A fixed rate for a fixed time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Schedule {
    /// Requests per second.
    rate: f64,
    duration: Duration,
}

impl Schedule {
    /// `rate` requests per second for `duration`; none when the rate is not a positive number.
    pub fn new(rate: f64, duration: Duration) -> Option<Self> {
        (rate.is_finite() && rate > 0.0).then_some(Self { rate, duration })
    }

    /// Half the rate wrk reached, for the plan's duration; in a smoke run, a small fixed rate.
    pub fn half_of(measured: &Measured, plan: &Plan) -> Option<Self> {
        let rate = if plan.smoke { SMOKE_RATE } else { measured.per_second / 2.0 };
        Self::new(rate, Duration::from_secs(plan.duration.into()))
    }

    pub fn rate(&self) -> f64 {
        self.rate
    }

    /// How many requests: the rate times the duration, at least one.
    pub fn count(&self) -> u64 {
        ((self.rate * self.duration.as_secs_f64()).round() as u64).max(1)
    }

    /// When request `index` is due, from the start.
    pub fn due(&self, index: u64) -> Duration {
        Duration::from_secs_f64(index as f64 / self.rate)
    }
}

/// What one paced run measured.
#[derive(Debug, Clone, PartialEq)]
pub struct Paced {
    /// The rate asked for.
    pub asked_per_second: f64,
    /// Complete answers, whatever their status, per second: over the duration, or until the last
    /// answer when that came later.
    pub per_second: f64,
    /// Latency percentiles of the complete answers; none when nothing was answered.
    pub p50_ms: Option<f64>,
    pub p99_ms: Option<f64>,
    pub answered: u64,
    /// Answers that were not 2xx.
    pub non_2xx: u64,
    /// Requests that got no complete answer: the connection failed or the timeout passed.
    pub no_answer: u64,
}

/// An empty histogram of latencies in microseconds.
pub fn latencies() -> anyhow::Result<Histogram<u64>> {
    Histogram::new_with_bounds(LOWEST_MICROS, HIGHEST_MICROS, SIGNIFICANT_DIGITS)
        .context("cannot make the latency histogram")
}

impl Paced {
    /// What a run asked at `asked_per_second` measured: the `latencies` of its complete answers
    /// (microseconds) over `span_secs`, and the answers that were not 2xx or not there.
    pub fn of(asked_per_second: f64, latencies: &Histogram<u64>, span_secs: f64, non_2xx: u64, no_answer: u64) -> Self {
        let answered = latencies.len();
        let percentile_ms =
            |quantile: f64| (answered > 0).then(|| latencies.value_at_quantile(quantile) as f64 / 1_000.0);
        Self {
            asked_per_second,
            per_second: if span_secs > 0.0 { answered as f64 / span_secs } else { 0.0 },
            p50_ms: percentile_ms(0.50),
            p99_ms: percentile_ms(0.99),
            answered,
            non_2xx,
            no_answer,
        }
    }

    /// p99 under the target, with every request answered (one without an answer was not answered
    /// in time).
    pub fn meets_target(&self) -> bool {
        self.no_answer == 0 && self.p99_ms.is_some_and(|p99| p99 < P99_TARGET_MS)
    }

    pub fn answered_2xx(&self) -> u64 {
        self.answered.saturating_sub(self.non_2xx)
    }
}

/// Where a paced run sends, and what every request of it carries.
struct Target {
    address: String,
    uri: Uri,
    headers: HeaderMap,
}

impl Target {
    fn new(base_url: &str, requests: &Requests) -> anyhow::Result<Self> {
        let base = url::Url::parse(base_url).with_context(|| format!("the server's address {base_url}"))?;
        let host = base.host_str().context("the server's address has no host")?;
        let port = base.port_or_known_default().context("the server's address has no port")?;
        let address = format!("{host}:{port}");
        let mut headers = HeaderMap::new();
        headers.insert(HOST, HeaderValue::from_str(&address).context("the Host header")?);
        for (name, value) in requests.headers() {
            headers.insert(
                HeaderName::from_bytes(name.as_bytes()).with_context(|| format!("the header name {name}"))?,
                HeaderValue::from_str(&value).with_context(|| format!("the value of {name}"))?,
            );
        }
        let uri = requests.path.parse().with_context(|| format!("the path {}", requests.path))?;
        Ok(Self { address, uri, headers })
    }

    fn request(&self, body: Bytes) -> Request<Full<Bytes>> {
        let mut request = Request::new(Full::new(body));
        *request.method_mut() = METHOD;
        *request.uri_mut() = self.uri.clone();
        *request.headers_mut() = self.headers.clone();
        request
    }
}

/// A request handed to an idle connection.
struct Job {
    due: Instant,
    body: Bytes,
}

/// Sends the requests to `base_url` on the schedule and measures their answers.
///
/// The sender is light on purpose: it shares the machine's cores with the server and PostgreSQL,
/// and what it spends on a request is a core they wait for. It runs on one thread of its own, so
/// handing a request to a connection and its answer back wakes no other thread; each connection
/// is a task, kept alive across requests and handed one request at a time; a due request takes the
/// connection that came back last, or opens one while fewer than [`IN_FLIGHT`] are open.
pub async fn run(base_url: &str, requests: &Requests, schedule: &Schedule) -> anyhow::Result<Paced> {
    let target = Arc::new(Target::new(base_url, requests)?);
    let (requests, schedule) = (requests.clone(), *schedule);
    let (done, result) = oneshot::channel();
    std::thread::Builder::new()
        .name("paced sender".to_owned())
        .spawn(move || {
            let sent = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .context("cannot start the paced sender's runtime")
                .and_then(|runtime| runtime.block_on(send(target, &requests, &schedule)));
            let _ = done.send(sent);
        })
        .context("cannot start the paced sender's thread")?;
    result.await.context("the paced sender's thread ended without a result")?
}

/// The paced run itself, on the sender's thread.
async fn send(target: Arc<Target>, requests: &Requests, schedule: &Schedule) -> anyhow::Result<Paced> {
    let (ended, mut endings) = mpsc::unbounded_channel::<(usize, Outcome)>();
    let mut connections: Vec<mpsc::Sender<Job>> = Vec::new();
    let mut idle: Vec<usize> = Vec::new();
    let mut out = 0_usize;
    let mut tally = Tally::new()?;
    let start = Instant::now();
    for index in 0..schedule.count() {
        let due = start + schedule.due(index);
        tokio::time::sleep_until(due).await;
        while let Ok((connection, outcome)) = endings.try_recv() {
            tally.record(&outcome);
            idle.push(connection);
            out -= 1;
        }
        let connection = match idle.pop() {
            Some(connection) => connection,
            None if connections.len() < IN_FLIGHT => {
                let (jobs, queue) = mpsc::channel(1);
                tokio::spawn(connection(connections.len(), Arc::clone(&target), queue, ended.clone(), start));
                connections.push(jobs);
                connections.len() - 1
            }
            None => {
                let (connection, outcome) =
                    endings.recv().await.context("a paced connection ended without reporting its request")?;
                tally.record(&outcome);
                out -= 1;
                connection
            }
        };
        let job = Job { due, body: Bytes::from(requests.paced_body(index)) };
        // A connection is chosen only once it has reported its last request, so its queue is empty.
        connections[connection].try_send(job).context("a paced connection was not idle or ended")?;
        out += 1;
    }
    // Without the senders, a connection that ended without reporting (it panicked) ends the wait
    // with an error instead of leaving it open forever.
    drop(connections);
    drop(ended);
    while out > 0 {
        let (_, outcome) = endings.recv().await.context("a paced connection ended without reporting its request")?;
        tally.record(&outcome);
        out -= 1;
    }
    Ok(tally.report(schedule))
}

/// One connection: sends each request it is handed and reports how it ended. The connection is
/// opened on its first request, and again after the server closed it or a request failed on it.
async fn connection(
    id: usize,
    target: Arc<Target>,
    mut jobs: mpsc::Receiver<Job>,
    ended: mpsc::UnboundedSender<(usize, Outcome)>,
    start: Instant,
) {
    let mut link: Option<SendRequest<Full<Bytes>>> = None;
    while let Some(job) = jobs.recv().await {
        let answer = match tokio::time::timeout(TIMEOUT, exchange(&mut link, &target, job.body)).await {
            Ok(answer) => answer,
            Err(_) => Answer::Nothing,
        };
        if answer == Answer::Nothing {
            link = None;
        }
        let end = Instant::now();
        let outcome = Outcome {
            answer,
            latency: end.saturating_duration_since(job.due),
            ended: end.saturating_duration_since(start),
        };
        if ended.send((id, outcome)).is_err() {
            return;
        }
    }
}

/// Sends one request on the connection, opening it first where there is none or the server closed
/// it, and reads the answer to the end. A request the connection closed before sending is sent
/// once more on a new one, as a pooling client would.
async fn exchange(link: &mut Option<SendRequest<Full<Bytes>>>, target: &Target, body: Bytes) -> Answer {
    for _ in 0..2 {
        let sender = match link.as_mut().filter(|sender| !sender.is_closed()) {
            Some(sender) => sender,
            None => match open(&target.address).await {
                Ok(sender) => link.insert(sender),
                Err(_) => return Answer::Nothing,
            },
        };
        let request = target.request(body.clone());
        if sender.ready().await.is_err() {
            *link = None;
            continue;
        }
        match sender.send_request(request).await {
            Ok(response) => {
                let success = response.status().is_success();
                return match response.into_body().collect().await {
                    Ok(_) if success => Answer::Success,
                    Ok(_) => Answer::NotSuccess,
                    Err(_) => Answer::Nothing,
                };
            }
            Err(e) if e.is_canceled() => *link = None,
            Err(_) => return Answer::Nothing,
        }
    }
    Answer::Nothing
}

/// A new HTTP/1.1 connection, its driver running as a task of its own.
async fn open(address: &str) -> anyhow::Result<SendRequest<Full<Bytes>>> {
    let stream = TcpStream::connect(address).await?;
    stream.set_nodelay(true)?;
    let (sender, driver) = http1::handshake(TokioIo::new(stream)).await?;
    tokio::spawn(driver);
    Ok(sender)
}

/// How a request ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Answer {
    Success,
    NotSuccess,
    Nothing,
}

#[derive(Debug, Clone, Copy)]
struct Outcome {
    answer: Answer,
    /// From when it was due to the end of its answer (or of the attempt).
    latency: Duration,
    /// When it ended, from the start of the run.
    ended: Duration,
}

/// The outcomes of one run, added up.
struct Tally {
    /// The latencies of complete answers, in microseconds.
    latencies: Histogram<u64>,
    non_2xx: u64,
    no_answer: u64,
    /// When the last request ended, from the start.
    last: Duration,
}

impl Tally {
    fn new() -> anyhow::Result<Self> {
        Ok(Self { latencies: latencies()?, non_2xx: 0, no_answer: 0, last: Duration::ZERO })
    }

    fn record(&mut self, outcome: &Outcome) {
        self.last = self.last.max(outcome.ended);
        match outcome.answer {
            Answer::Nothing => self.no_answer += 1,
            answer => {
                if answer == Answer::NotSuccess {
                    self.non_2xx += 1;
                }
                let micros = u64::try_from(outcome.latency.as_micros()).unwrap_or(u64::MAX);
                self.latencies.saturating_record(micros);
            }
        }
    }

    fn report(&self, schedule: &Schedule) -> Paced {
        let span = self.last.max(schedule.duration).as_secs_f64();
        Paced::of(schedule.rate, &self.latencies, span, self.non_2xx, self.no_answer)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicU64, Ordering};

    use hyper::body::Incoming;
    use hyper::server::conn::http1 as server_http1;
    use hyper::service::service_fn;

    use super::*;
    use crate::seed::Seeded;
    use crate::workloads;

    fn schedule(rate: f64, seconds: u64) -> Schedule {
        Schedule::new(rate, Duration::from_secs(seconds)).expect("a schedule")
    }

    #[test]
    fn requests_are_due_evenly_over_the_duration() {
        let every = schedule(100.0, 2);
        assert_eq!(every.count(), 200);
        assert_eq!(every.due(0), Duration::ZERO);
        assert_eq!(every.due(1), Duration::from_millis(10));
        assert_eq!(every.due(150), Duration::from_millis(1_500));
        assert!(every.due(every.count() - 1) < Duration::from_secs(2));
        assert_eq!(schedule(2.5, 3).count(), 8);
        assert_eq!(schedule(0.01, 1).count(), 1, "at least one request");
    }

    #[test]
    fn a_rate_must_be_a_positive_number() {
        for rate in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            assert_eq!(Schedule::new(rate, Duration::from_secs(1)), None, "{rate}");
        }
    }

    #[test]
    fn the_rate_is_half_of_wrks_or_small_in_a_smoke_run() {
        let measured = Measured { per_second: 1_000.0, ..Measured::default() };
        let plan = Plan { duration: 15, connections: 32, threads: 2, devices: 256, smoke: false };
        assert_eq!(Schedule::half_of(&measured, &plan), Some(schedule(500.0, 15)));
        let smoke = Plan { duration: 1, connections: 4, devices: 16, smoke: true, ..plan };
        assert_eq!(Schedule::half_of(&measured, &smoke), Some(schedule(SMOKE_RATE, 1)));
        assert_eq!(Schedule::half_of(&Measured::default(), &plan), None, "wrk reached no rate");
    }

    fn outcome(answer: Answer, latency_ms: u64, ended_ms: u64) -> Outcome {
        Outcome { answer, latency: Duration::from_millis(latency_ms), ended: Duration::from_millis(ended_ms) }
    }

    fn close(actual: Option<f64>, expected: f64) -> bool {
        // The histogram keeps three significant digits.
        actual.is_some_and(|actual| (actual - expected).abs() <= expected * 0.001)
    }

    #[test]
    fn every_complete_answer_counts_in_the_latencies_and_requests_without_one_apart() {
        let mut tally = Tally::new().expect("a tally");
        for ms in 1..=100 {
            let answer = if ms % 50 == 0 { Answer::NotSuccess } else { Answer::Success };
            tally.record(&outcome(answer, ms, 10 * ms));
        }
        for _ in 0..3 {
            tally.record(&outcome(Answer::Nothing, 10_000, 500));
        }
        let paced = tally.report(&schedule(50.0, 2));
        assert_eq!((paced.answered, paced.non_2xx, paced.no_answer), (100, 2, 3));
        assert_eq!(paced.answered_2xx(), 98);
        assert!(close(paced.p50_ms, 50.0), "{paced:?}");
        assert!(close(paced.p99_ms, 99.0), "{paced:?}");
        assert_eq!(paced.asked_per_second, 50.0);
        // The last answer ended at 1 s, within the 2 s: 100 answers over 2 s.
        assert!((paced.per_second - 50.0).abs() < 1e-9, "{paced:?}");
        assert!(!paced.meets_target(), "{paced:?}");
    }

    #[test]
    fn answers_after_the_duration_lower_the_rate() {
        let mut tally = Tally::new().expect("a tally");
        for i in 0..10 {
            tally.record(&outcome(Answer::Success, 2, 100 * i));
        }
        tally.record(&outcome(Answer::Success, 3_000, 4_000));
        let paced = tally.report(&schedule(5.0, 2));
        assert!((paced.per_second - 11.0 / 4.0).abs() < 1e-9, "{paced:?}");
    }

    #[test]
    fn the_target_needs_a_p99_under_ten_ms_and_every_request_answered() {
        let mut tally = Tally::new().expect("a tally");
        for _ in 0..99 {
            tally.record(&outcome(Answer::Success, 1, 1));
        }
        tally.record(&outcome(Answer::Success, 9, 1));
        assert!(tally.report(&schedule(100.0, 1)).meets_target());

        tally.record(&outcome(Answer::Success, 40, 1));
        tally.record(&outcome(Answer::Success, 40, 1));
        let slow = tally.report(&schedule(100.0, 1));
        assert!(close(slow.p99_ms, 40.0) && !slow.meets_target(), "{slow:?}");

        let mut unanswered = Tally::new().expect("a tally");
        unanswered.record(&outcome(Answer::Success, 1, 1));
        unanswered.record(&outcome(Answer::Nothing, 1, 1));
        assert!(!unanswered.report(&schedule(100.0, 1)).meets_target());
    }

    #[test]
    fn nothing_answered_has_no_percentiles() {
        let mut tally = Tally::new().expect("a tally");
        tally.record(&outcome(Answer::Nothing, 10_000, 10_000));
        let paced = tally.report(&schedule(1.0, 1));
        assert_eq!((paced.p50_ms, paced.p99_ms, paced.answered, paced.no_answer), (None, None, 0, 1));
        assert!(!paced.meets_target());
    }

    /// A server on a free loopback port that answers every request with `201`, every fifth with
    /// `500`, each after `answer_after`, and closes each connection after its third answer when
    /// `closing`, so a sender must open connections again. It counts the requests it saw that
    /// carried the workload's key.
    async fn server(answer_after: Duration, closing: bool) -> (String, Arc<AtomicU64>) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("a free port");
        let base_url = format!("http://{}", listener.local_addr().expect("the address"));
        let seen = Arc::new(AtomicU64::new(0));
        let counted = Arc::clone(&seen);
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let seen = Arc::clone(&counted);
                let answers_here = Arc::new(AtomicU64::new(0));
                let service = service_fn(move |request: hyper::Request<Incoming>| {
                    let keyed = request.headers().get("authorization").is_some_and(|v| v == "Bearer pk_test");
                    let nth = if keyed { seen.fetch_add(1, Ordering::SeqCst) + 1 } else { 0 };
                    let here = answers_here.fetch_add(1, Ordering::SeqCst) + 1;
                    async move {
                        tokio::time::sleep(answer_after).await;
                        let status = if nth.is_multiple_of(5) { 500 } else { 201 };
                        let mut answer = hyper::Response::builder().status(status);
                        if closing && here.is_multiple_of(3) {
                            answer = answer.header("connection", "close");
                        }
                        answer.body(Full::new(Bytes::from_static(b"{}")))
                    }
                });
                tokio::spawn(server_http1::Builder::new().serve_connection(TokioIo::new(stream), service));
            }
        });
        (base_url, seen)
    }

    /// The mint workload's requests, with the key the test server counts.
    fn mint_requests() -> Requests {
        let seeded = Seeded {
            key: "pk_test".to_owned(),
            campaign_id: "cmp-1".to_owned(),
            code: "C".to_owned(),
            devices: vec![],
        };
        workloads::all(&seeded).into_iter().find(|w| w.slug == "mint").expect("the mint workload").requests
    }

    #[tokio::test]
    async fn every_request_is_sent_once_and_counted_also_when_the_server_closes_connections() {
        let mint = mint_requests();
        let (base_url, seen) = server(Duration::ZERO, true).await;
        let schedule = schedule(50.0, 1);
        let started = std::time::Instant::now();
        let paced = run(&base_url, &mint, &schedule).await.expect("a paced run");
        assert!(
            started.elapsed() >= Duration::from_millis(980),
            "the requests are spread over the second, not sent at once"
        );
        assert_eq!((paced.answered, paced.non_2xx, paced.no_answer), (50, 10, 0), "{paced:?}");
        assert_eq!(seen.load(Ordering::SeqCst), 50, "each request sent once, with its headers");
    }

    #[tokio::test]
    async fn a_due_request_waits_for_a_connection_when_all_are_out_and_the_wait_is_in_its_latency() {
        let mint = mint_requests();
        // Each answer takes 300 ms, so 256 connections answer about 850 requests a second: asked
        // for 1,000, the later requests queue for a connection, up to about 170 ms by the end.
        let (base_url, seen) = server(Duration::from_millis(300), false).await;
        let paced = run(&base_url, &mint, &schedule(1_000.0, 1)).await.expect("a paced run");
        assert_eq!((paced.answered, paced.no_answer), (1_000, 0), "{paced:?}");
        assert_eq!(seen.load(Ordering::SeqCst), 1_000);
        assert!(
            paced.p50_ms.is_some_and(|p50| p50 >= 300.0),
            "no answer comes sooner than the server gives it: {paced:?}"
        );
        assert!(paced.p99_ms.is_some_and(|p99| p99 >= 400.0), "the queued requests count their wait: {paced:?}");
    }
}
