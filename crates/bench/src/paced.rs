//! The paced run: a workload's requests at a fixed rate, open loop. Request `i` is due at
//! `start + i / rate` and is sent then whether or not earlier ones were answered; its latency runs
//! from when it was due to the end of its answer. wrk, closed loop, sends only once an answer is
//! back, so a server that stalls is sent less and its stall shows in few latencies (coordinated
//! omission); here every request the stall delayed counts it, and so does a sender that fell
//! behind.

use std::time::Duration;

use anyhow::Context as _;
use hdrhistogram::Histogram;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use reqwest::{Client, RequestBuilder};
use tokio::task::JoinSet;
use tokio::time::Instant;

use crate::Plan;
use crate::workloads::{METHOD, Measured, Requests};

/// Issue 15: p99 at half the maximum rate, every write path, under this.
pub const P99_TARGET_MS: f64 = 10.0;

/// A smoke run's rate: enough to go through every part, too little to load anything.
pub const SMOKE_RATE: f64 = 20.0;

/// Requests in flight at most. When all are out, the next due request waits for one to end, and
/// that wait is in its latency.
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

/// The client of every paced run: its connections are kept alive and reused, one per request in
/// flight at most; no proxy (the server is on loopback); redirects are answers, not followed.
pub fn client() -> anyhow::Result<Client> {
    Client::builder()
        .timeout(TIMEOUT)
        .no_proxy()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .context("cannot make the paced run's HTTP client")
}

/// Sends the requests to `base_url` on the schedule and measures their answers.
pub async fn run(client: &Client, base_url: &str, requests: &Requests, schedule: &Schedule) -> anyhow::Result<Paced> {
    let url = format!("{base_url}{}", requests.path);
    let mut headers = HeaderMap::new();
    for (name, value) in requests.headers() {
        headers.insert(
            HeaderName::from_bytes(name.as_bytes()).with_context(|| format!("the header name {name}"))?,
            HeaderValue::from_str(&value).with_context(|| format!("the value of {name}"))?,
        );
    }
    let mut tally = Tally::new()?;
    let mut pending = JoinSet::new();
    let start = Instant::now();
    for index in 0..schedule.count() {
        let due = start + schedule.due(index);
        tokio::time::sleep_until(due).await;
        while let Some(ended) = pending.try_join_next() {
            tally.record(&ended.context("a paced request failed")?);
        }
        while pending.len() >= IN_FLIGHT
            && let Some(ended) = pending.join_next().await
        {
            tally.record(&ended.context("a paced request failed")?);
        }
        let request = client.request(METHOD, &url).headers(headers.clone()).body(requests.paced_body(index));
        pending.spawn(send(request, start, due));
    }
    while let Some(ended) = pending.join_next().await {
        tally.record(&ended.context("a paced request failed")?);
    }
    Ok(tally.report(schedule))
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

/// Sends one request due at `due` and reads its answer to the end.
async fn send(request: RequestBuilder, start: Instant, due: Instant) -> Outcome {
    let answer = match request.send().await {
        Ok(response) => {
            let success = response.status().is_success();
            match response.bytes().await {
                Ok(_) if success => Answer::Success,
                Ok(_) => Answer::NotSuccess,
                Err(_) => Answer::Nothing,
            }
        }
        Err(_) => Answer::Nothing,
    };
    let end = Instant::now();
    Outcome { answer, latency: end.saturating_duration_since(due), ended: end.saturating_duration_since(start) }
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
    use super::*;

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
}
