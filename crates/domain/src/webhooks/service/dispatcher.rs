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

/// The `X-SVC-Signature` value: `t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<body>">`, keyed with the
/// UTF-8 bytes of the secret as shown to the partner.
pub fn signature_header(crypto: &impl Crypto, secret: &[u8], at: OffsetDateTime, body: &[u8]) -> String {
    let t = at.unix_timestamp();
    let mut signed = format!("{t}.").into_bytes();
    signed.extend_from_slice(body);
    format!("t={t},v1={}", crate::shared::hex::encode(&crypto.hmac_sha256(secret, &signed)))
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

    /// The signed POST of a claimed delivery, timestamped now.
    ///
    /// # Errors
    /// `Internal` when the secret does not open.
    pub fn request(&self, delivery: &ClaimedDelivery) -> Result<OutboundRequest> {
        let secret = self.crypto.open(&secret_seal_context(delivery.subscription_id), &delivery.secret_sealed)?;
        let body = envelope(&delivery.event)?;
        let signature = signature_header(&self.crypto, &secret, self.clock.now(), &body);
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
            match self.schedule.after_failures(attempt) {
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
