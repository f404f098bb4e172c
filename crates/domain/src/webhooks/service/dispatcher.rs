//! The delivery worker: claims due deliveries, signs, posts and records each attempt.

use std::cell::Cell;
use std::future::{Future, poll_fn, ready};
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::task::Poll;

use crate::error::{Error, Result};
use crate::ids::DeliveryId;
use crate::shared::clock::Clock;
use crate::shared::crypto::Crypto;
use crate::webhooks::models::{
    AttemptRecord, AttemptSummary, Claim, ClaimedDelivery, DISABLE_AFTER_DEAD, DeliveryStatus, OutboundRequest,
    PostOutcome, RetrySchedule, envelope, secret_seal_context,
};
use crate::webhooks::ports::{WebhookRepository, WebhookTransport};
use futures_util::stream::FuturesUnordered;
use futures_util::{FutureExt as _, StreamExt as _};
use time::{Duration, OffsetDateTime};

/// The `X-SVC-Signature` value: `t=<unix>` and one `v1=<hex HMAC-SHA256 of "<t>.<body>">` per
/// secret, in the order given, each keyed with the UTF-8 bytes of the secret as shown to the
/// partner. A receiver accepts the request when any `v1` verifies with a secret it holds.
pub fn signature_header(crypto: &impl Crypto, secrets: &[&[u8]], at: OffsetDateTime, body: &[u8]) -> String {
    let t = at.unix_timestamp();
    let mut signed = format!("{t}.").into_bytes();
    signed.extend_from_slice(body);
    let mut header = format!("t={t}");
    for secret in secrets {
        header.push_str(",v1=");
        header.push_str(&crate::shared::hex::encode(&crypto.hmac_sha256(secret, &signed)));
    }
    header
}

/// Claims due deliveries and makes their attempts.
pub struct Dispatcher<R, C, K, T> {
    repo: R,
    crypto: C,
    clock: K,
    transport: T,
    schedule: RetrySchedule,
    lease: Duration,
}

impl<R, C, K, T> Dispatcher<R, C, K, T>
where
    R: WebhookRepository,
    C: Crypto,
    K: Clock,
    T: WebhookTransport,
{
    /// `lease` must outlast a send (the transport's timeout) and its recording.
    pub fn new(repo: R, crypto: C, clock: K, transport: T, schedule: RetrySchedule, lease: Duration) -> Self {
        Self { repo, crypto, clock, transport, schedule, lease }
    }

    /// Claims up to `limit` due deliveries for this worker.
    ///
    /// # Errors
    /// Port errors.
    pub async fn claim(&self, limit: u32) -> Result<Vec<ClaimedDelivery>> {
        let now = self.clock.now();
        let claim = Claim { token: uuid::Uuid::new_v4(), now, lease_until: now + self.lease, limit };
        self.repo.claim_deliveries(&claim).await
    }

    /// The signed POST of a claimed delivery, timestamped now: signed with the endpoint's secret,
    /// and first with its previous one while that is within its grace, so a receiver holding
    /// either secret accepts it.
    ///
    /// # Errors
    /// `Internal` when a secret does not open.
    pub fn request(&self, delivery: &ClaimedDelivery) -> Result<OutboundRequest> {
        let context = secret_seal_context(delivery.subscription_id);
        let now = self.clock.now();
        let previous = match &delivery.previous_secret {
            Some(previous) if now < previous.expires_at => Some(self.crypto.open(&context, &previous.sealed)?),
            _ => None,
        };
        let secret = self.crypto.open(&context, &delivery.secret_sealed)?;
        let secrets: Vec<&[u8]> = previous.iter().chain([&secret]).map(Vec::as_slice).collect();
        let body = envelope(&delivery.event)?;
        let signature = signature_header(&self.crypto, &secrets, now, &body);
        Ok(OutboundRequest {
            url: delivery.url.clone(),
            headers: vec![
                ("content-type", "application/json".into()),
                ("user-agent", "Pulse-Webhooks/1".into()),
                ("x-svc-signature", signature),
                ("x-svc-event", delivery.event.id.to_string()),
                ("x-svc-event-type", delivery.event.event_type.as_str().into()),
                ("x-svc-delivery", delivery.id.to_string()),
            ],
            body,
        })
    }

    /// Sends a claimed delivery and records the attempt. A secret that does not open is recorded
    /// as a failed attempt, not sent.
    ///
    /// # Errors
    /// Port errors.
    pub async fn attempt(&self, delivery: &ClaimedDelivery) -> Result<AttemptSummary> {
        let outcome = match self.request(delivery) {
            Ok(request) => self.transport.post(&request).await,
            Err(_) => PostOutcome {
                status_code: None,
                error: Some("the endpoint's signing secret could not be read; re-register the endpoint".into()),
                duration_ms: 0,
            },
        };
        let now = self.clock.now();
        let attempt = delivery.attempts + 1;
        let delivered = outcome.status_code.is_some_and(|c| (200..300).contains(&c));
        let (status, next_attempt_at) = if delivered {
            (DeliveryStatus::Delivered, None)
        } else {
            // A redelivery starts a fresh schedule: count only the attempts made since.
            match self.schedule.after_failures(attempt.saturating_sub(delivery.attempts_before_redelivery)) {
                Some(wait) => (DeliveryStatus::Failed, Some(now + wait)),
                None => (DeliveryStatus::Dead, None),
            }
        };
        let error = match (&outcome.error, outcome.status_code) {
            (Some(e), _) => Some(e.clone()),
            (None, Some(code)) if (300..400).contains(&code) => {
                Some(format!("HTTP {code}: redirects are not followed; point the endpoint at the final URL"))
            }
            (None, Some(code)) if !delivered => Some(format!("HTTP {code}")),
            _ => None,
        };
        let disable_reason = format!(
            "{DISABLE_AFTER_DEAD} deliveries in a row failed every attempt (the last: {}); fix the endpoint and PATCH isActive to true",
            error.as_deref().unwrap_or("no answer")
        );
        let record = AttemptRecord {
            delivery: delivery.id,
            claim_token: delivery.claim_token,
            subscription: delivery.subscription_id,
            attempt,
            attempted_at: now,
            status,
            next_attempt_at,
            status_code: outcome.status_code,
            error,
            duration_ms: outcome.duration_ms,
            disable_reason,
        };
        let recorded = self.repo.record_attempt(&record).await?;
        Ok(AttemptSummary {
            delivery: delivery.id,
            event_type: delivery.event.event_type,
            attempt,
            status,
            status_code: record.status_code,
            error: record.error,
            recorded,
        })
    }

    /// Keeps up to `pace.attempts_in_flight` attempts going: claims another `pace.batch` whenever that
    /// leaves room, so a slow endpoint holds only its own attempt, never the deliveries claimed
    /// after it. When a claim finds fewer than it asked for (or fails), it rests for
    /// `pace.poll_every` (`rest` makes the pause) while the attempts go on. Before each claim it
    /// asks `keep_going`; once that says no, it finishes the attempts under way and returns. Every
    /// claim and attempt is told to `report` as it ends.
    pub async fn run<W>(
        &self,
        pace: &Pace,
        keep_going: impl Fn() -> bool,
        rest: impl Fn(Duration) -> W,
        mut report: impl FnMut(Dispatched),
    ) where
        W: Future<Output = ()>,
    {
        let batch = usize::try_from(pace.batch).unwrap_or(usize::MAX);
        // A panic ends its own attempt only, as a spawned task's would.
        let attempt = |delivery: ClaimedDelivery| async move {
            let outcome = AssertUnwindSafe(self.attempt(&delivery)).catch_unwind().await;
            (delivery.id, outcome.ok())
        };
        let mut attempts = FuturesUnordered::new();
        let mut claiming = None;
        let mut resting: Option<Pin<Box<W>>> = None;
        loop {
            let room = attempts.is_empty() || attempts.len() + batch <= pace.attempts_in_flight;
            if claiming.is_none() && resting.is_none() && room {
                if !keep_going() {
                    break;
                }
                claiming = Some(Box::pin(self.claim(pace.batch)));
            }
            let turn = poll_fn(|cx| {
                if let Some(claim) = claiming.as_mut()
                    && let Poll::Ready(claimed) = claim.as_mut().poll(cx)
                {
                    claiming = None;
                    return Poll::Ready(Turn::Claimed(claimed));
                }
                if let Some(pause) = resting.as_mut()
                    && pause.as_mut().poll(cx).is_ready()
                {
                    resting = None;
                    return Poll::Ready(Turn::Rested);
                }
                match attempts.poll_next_unpin(cx) {
                    Poll::Ready(Some((delivery, outcome))) => Poll::Ready(Turn::Attempted(delivery, outcome)),
                    Poll::Ready(None) | Poll::Pending => Poll::Pending,
                }
            })
            .await;
            match turn {
                Turn::Claimed(Ok(claimed)) => {
                    if claimed.len() < batch {
                        resting = Some(Box::pin(rest(pace.poll_every)));
                    }
                    report(Dispatched::Claimed(claimed.len()));
                    attempts.extend(claimed.into_iter().map(attempt));
                }
                Turn::Claimed(Err(error)) => {
                    resting = Some(Box::pin(rest(pace.poll_every)));
                    report(Dispatched::ClaimFailed(error));
                }
                Turn::Rested => {}
                Turn::Attempted(delivery, outcome) => report(Dispatched::attempted(delivery, outcome)),
            }
        }
        while let Some((delivery, outcome)) = attempts.next().await {
            report(Dispatched::attempted(delivery, outcome));
        }
    }

    /// One claim of up to `limit` due deliveries, all attempted at once: [`Dispatcher::run`] held
    /// to a single turn. The summaries come in the order the attempts finished.
    ///
    /// # Errors
    /// Port errors of the claim; the first attempt that failed to record, or panicked (`Internal`),
    /// once all have run.
    pub async fn deliver_due(&self, limit: u32) -> Result<Vec<AttemptSummary>> {
        let pace = Pace {
            batch: limit,
            attempts_in_flight: usize::try_from(limit).unwrap_or(usize::MAX),
            poll_every: Duration::ZERO,
        };
        let claimed = Cell::new(false);
        let mut attempted = Vec::new();
        let mut failure = None;
        let report = |event| match event {
            Dispatched::Claimed(_) => claimed.set(true),
            Dispatched::ClaimFailed(error) | Dispatched::Unrecorded(_, error) => {
                claimed.set(true);
                failure.get_or_insert(error);
            }
            Dispatched::Attempted(summary) => attempted.push(summary),
            Dispatched::Panicked(delivery) => {
                failure.get_or_insert(Error::internal(format!("the attempt at delivery {delivery} panicked")));
            }
        };
        self.run(&pace, || !claimed.get(), |_| ready(()), report).await;
        failure.map_or(Ok(attempted), Err)
    }
}

/// How a worker paces its claims.
#[derive(Clone, Debug)]
pub struct Pace {
    /// Deliveries one claim asks for.
    pub batch: u32,
    /// Attempts kept going at most.
    pub attempts_in_flight: usize,
    /// How long to rest after a claim that found fewer than it asked for.
    pub poll_every: Duration,
}

/// What [`Dispatcher::run`] reports as it goes.
#[derive(Debug)]
pub enum Dispatched {
    /// A claim took this many deliveries.
    Claimed(usize),
    ClaimFailed(Error),
    Attempted(AttemptSummary),
    /// The attempt was made but could not be recorded: the delivery stays claimed until its lease
    /// ends, then is sent again.
    Unrecorded(DeliveryId, Error),
    /// The attempt panicked: the delivery stays claimed until its lease ends, then is sent again.
    Panicked(DeliveryId),
}

impl Dispatched {
    fn attempted(delivery: DeliveryId, outcome: Option<Result<AttemptSummary>>) -> Self {
        match outcome {
            Some(Ok(summary)) => Self::Attempted(summary),
            Some(Err(error)) => Self::Unrecorded(delivery, error),
            None => Self::Panicked(delivery),
        }
    }
}

enum Turn {
    Claimed(Result<Vec<ClaimedDelivery>>),
    Rested,
    Attempted(DeliveryId, Option<Result<AttemptSummary>>),
}
