//! Background work that runs inside `pulse serve`.

use std::sync::Arc;
use std::time::Duration;

use actix_web::web;
use tokio_util::sync::CancellationToken;

use pulse_domain::analysis::{ANALYSIS_BATCH, AnalysisOutcome};
use pulse_domain::webhooks::CLAIM_BATCH;

use crate::startup::{ServerAnalysis, ServerDispatcher, ServerState};

/// Deletes idempotency records past their 24 hours, quota windows that have closed, webhook events
/// past their 30 days with nothing left to send, and spent launch-token ids past their token's
/// expiry. Every
/// replica may run it: the deletes are idempotent.
pub async fn maintenance(state: web::Data<ServerState>, stop: CancellationToken, every: Duration) {
    let mut ticks = tokio::time::interval(every);
    loop {
        tokio::select! {
            () = stop.cancelled() => return,
            _ = ticks.tick() => {}
        }
        match state.idempotency.purge_expired().await {
            Ok(purged) if purged > 0 => tracing::info!(purged, "purged expired idempotency records"),
            Ok(_) => {}
            Err(error) => tracing::warn!(%error, "purging idempotency records failed"),
        }
        match state.quotas.purge_old_windows().await {
            Ok(purged) if purged > 0 => tracing::info!(purged, "purged closed quota windows"),
            Ok(_) => {}
            Err(error) => tracing::warn!(%error, "purging quota windows failed"),
        }
        match state.webhooks.purge_old_events().await {
            Ok(purged) if purged > 0 => tracing::info!(purged, "purged webhook events past their retention"),
            Ok(_) => {}
            Err(error) => tracing::warn!(%error, "purging webhook events failed"),
        }
        match state.respondents.purge_spent_tokens().await {
            Ok(purged) if purged > 0 => tracing::info!(purged, "purged expired spent launch tokens"),
            Ok(_) => {}
            Err(error) => tracing::warn!(%error, "purging spent launch tokens failed"),
        }
    }
}

/// Sends due webhook deliveries. A full batch means more may be due, so the next round starts at
/// once; otherwise the worker waits `poll_every`. Any number of replicas may run it: claims never
/// overlap. On stop, the round in flight finishes (its sends are bounded by their timeout).
pub async fn deliver_webhooks(dispatcher: Arc<ServerDispatcher>, stop: CancellationToken, poll_every: Duration) {
    loop {
        let attempted = match dispatcher.deliver_due(CLAIM_BATCH).await {
            Ok(attempts) => {
                for a in &attempts {
                    tracing::info!(
                        delivery = %a.delivery,
                        event_type = a.event_type.as_str(),
                        attempt = a.attempt,
                        status = a.status.as_str(),
                        status_code = a.status_code,
                        error = a.error.as_deref(),
                        recorded = a.recorded,
                        "webhook attempt"
                    );
                }
                attempts.len()
            }
            Err(error) => {
                tracing::warn!(%error, "webhook delivery round failed");
                0
            }
        };
        if attempted >= CLAIM_BATCH as usize {
            if stop.is_cancelled() {
                return;
            }
            continue;
        }
        tokio::select! {
            () = stop.cancelled() => return,
            () = tokio::time::sleep(poll_every) => {}
        }
    }
}

/// Analyzes finished sessions. Like the delivery worker: a full batch starts the next round at
/// once, claims never overlap across replicas, and a stop lets the round in flight finish. Log
/// lines carry ids, counts and codes, never a word a respondent wrote.
pub async fn analyze_sessions(analysis: Arc<ServerAnalysis>, stop: CancellationToken, poll_every: Duration) {
    loop {
        let handled = match analysis.run_due().await {
            Ok(summaries) => {
                for s in &summaries {
                    match &s.outcome {
                        AnalysisOutcome::Recorded { accepted, rejection, run, reused, announced } => tracing::info!(
                            session = %s.session,
                            accepted,
                            rejection = rejection.map(|r| r.as_str()),
                            analyzers_run = run,
                            analyzers_reused = reused,
                            announced,
                            "session analyzed"
                        ),
                        AnalysisOutcome::ClaimLost => {
                            tracing::warn!(session = %s.session, "analysis claim lost to another worker");
                        }
                        AnalysisOutcome::Vanished => tracing::info!(session = %s.session, "analyzed session is gone"),
                        AnalysisOutcome::Failed { code, retry_at } => tracing::warn!(
                            session = %s.session,
                            code = code.as_str(),
                            %retry_at,
                            "session analysis failed; it will be retried"
                        ),
                    }
                }
                summaries.len()
            }
            Err(error) => {
                tracing::warn!(%error, "analysis round failed");
                0
            }
        };
        if handled >= ANALYSIS_BATCH as usize {
            if stop.is_cancelled() {
                return;
            }
            continue;
        }
        tokio::select! {
            () = stop.cancelled() => return,
            () = tokio::time::sleep(poll_every) => {}
        }
    }
}
