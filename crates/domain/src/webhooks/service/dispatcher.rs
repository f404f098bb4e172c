//! The delivery worker: claims due deliveries, signs, posts and records each attempt.

use crate::error::Result;
use crate::shared::clock::Clock;
use crate::shared::crypto::Crypto;
use crate::webhooks::models::{
    AttemptRecord, AttemptSummary, Claim, ClaimedDelivery, DISABLE_AFTER_DEAD, DeliveryStatus, OutboundRequest,
    PostOutcome, RetrySchedule, envelope, secret_seal_context,
};
use crate::webhooks::ports::{WebhookRepository, WebhookTransport};
use futures_util::future::join_all;
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

    /// Claims due deliveries and attempts them all at once.
    ///
    /// # Errors
    /// Port errors of the claim; an attempt's failure to record is reported after all have run.
    pub async fn deliver_due(&self, limit: u32) -> Result<Vec<AttemptSummary>> {
        let claimed = self.claim(limit).await?;
        join_all(claimed.iter().map(|d| self.attempt(d))).await.into_iter().collect()
    }
}
