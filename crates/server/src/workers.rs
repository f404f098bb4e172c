//! Background work that runs inside `pulse serve`.

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use actix_web::web;
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

use pulse_api::telemetry::WEBHOOK_ATTEMPTS;
use pulse_domain::analysis::models::{ANALYSIS_BATCH, AnalysisOutcome, AnalysisSummary};
use pulse_domain::exports::models::EXPORT_BATCH;
use pulse_domain::outreach::models::{MESSAGE_BATCH, RECORDING_BATCH};
use pulse_domain::webhooks::models::{CLAIM_BATCH, DELIVERIES_IN_FLIGHT};
use pulse_domain::webhooks::service::{Dispatched, Pace};

use crate::platform::{ServerAnalysis, ServerDispatcher, ServerState};

/// Deletes idempotency records past their 24 hours, quota windows that have closed, webhook events
/// past their 30 days with nothing left to send, spent launch-token ids and challenges past their
/// expiry, and audit entries past the operator's retention; digests and seals audience references
/// still in clear (left by the version before, or by one of its replicas during an upgrade). Every
/// replica may run it, from its start: each step is idempotent.
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
        match state.webhooks.purge_old_events(|| !stop.is_cancelled()).await {
            Ok(purged) if purged > 0 => tracing::info!(purged, "purged webhook events past their retention"),
            Ok(_) => {}
            Err(error) => tracing::warn!(%error, "purging webhook events failed"),
        }
        match state.respondents.purge_spent_tokens().await {
            Ok(purged) if purged > 0 => tracing::info!(purged, "purged expired spent launch tokens and challenges"),
            Ok(_) => {}
            Err(error) => tracing::warn!(%error, "purging spent launch tokens and challenges failed"),
        }
        match state.audit.purge_expired().await {
            Ok(purged) if purged > 0 => tracing::info!(purged, "purged audit entries past their retention"),
            Ok(_) => {}
            Err(error) => tracing::warn!(%error, "purging audit entries failed"),
        }
        match state.campaigns.digest_clear_refs().await {
            Ok(done) if done.left > 0 => tracing::warn!(
                converted = done.converted,
                left = done.left,
                "audience references left in clear: the same reference was attached again meanwhile"
            ),
            Ok(done) if done.converted > 0 => {
                tracing::info!(converted = done.converted, "audience references digested and sealed");
            }
            Ok(_) => {}
            Err(error) => tracing::warn!(%error, "digesting audience references failed"),
        }
    }
}

/// Runs `round` until `stop`: a round that handled a full `batch` means more may be due, so the
/// next starts at once; otherwise the worker waits `poll_every`. A stop lets the round in flight
/// finish. Any number of replicas may run a worker: their claims never overlap.
async fn in_rounds<F, R>(stop: CancellationToken, poll_every: Duration, batch: usize, mut round: R)
where
    R: FnMut() -> F,
    F: Future<Output = usize>,
{
    loop {
        let handled = round().await;
        if handled >= batch {
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

/// Sends due webhook deliveries through the dispatcher's own loop (`Dispatcher::run`), keeping
/// up to [`DELIVERIES_IN_FLIGHT`] attempts going, and looking again after `poll_every` when a
/// claim finds fewer than it asked for. A stop lets the attempts in flight finish (each send is
/// bounded by its timeout). Any number of replicas may run a worker: their claims never overlap.
pub async fn deliver_webhooks(dispatcher: Arc<ServerDispatcher>, stop: CancellationToken, poll_every: Duration) {
    let pace = Pace {
        batch: CLAIM_BATCH,
        attempts_in_flight: DELIVERIES_IN_FLIGHT,
        poll_every: time::Duration::try_from(poll_every).unwrap_or(time::Duration::SECOND),
    };
    let rest = |pause: time::Duration| {
        let stop = stop.clone();
        async move {
            tokio::select! {
                () = stop.cancelled() => {}
                () = tokio::time::sleep(pause.unsigned_abs()) => {}
            }
        }
    };
    dispatcher.run(&pace, || !stop.is_cancelled(), rest, log_dispatched).await;
}

fn log_dispatched(event: Dispatched) {
    let outcome = match &event {
        Dispatched::Claimed(_) => return,
        Dispatched::ClaimFailed(error) => {
            tracing::warn!(%error, "claiming webhook deliveries failed");
            return;
        }
        Dispatched::Attempted(a) => a.status.as_str(),
        Dispatched::Unrecorded(..) | Dispatched::Panicked(_) => "unrecorded",
    };
    metrics::counter!(WEBHOOK_ATTEMPTS, "outcome" => outcome).increment(1);
    match event {
        Dispatched::Attempted(a) => tracing::info!(
            delivery = %a.delivery,
            event_type = a.event_type.as_str(),
            attempt = a.attempt,
            status = a.status.as_str(),
            status_code = a.status_code,
            error = a.error.as_deref(),
            recorded = a.recorded,
            "webhook attempt"
        ),
        // The delivery stays claimed until its lease ends, then is sent again.
        Dispatched::Unrecorded(delivery, error) => {
            tracing::warn!(%delivery, %error, "recording a webhook attempt failed")
        }
        Dispatched::Panicked(delivery) => tracing::error!(%delivery, "a webhook attempt panicked"),
        Dispatched::Claimed(_) | Dispatched::ClaimFailed(_) => {}
    }
}

/// Analyzes finished sessions, and reads again those an older analyzer read once this replica's
/// analyzer is announced in charge (it retries the announcement each round until it lands). Only
/// new sessions count towards a full round: a round that re-read some waits for the next poll.
/// Log lines carry ids, counts and codes, never a word a respondent wrote.
pub async fn analyze_sessions(analysis: Arc<ServerAnalysis>, stop: CancellationToken, poll_every: Duration) {
    let announced = AtomicBool::new(false);
    in_rounds(stop, poll_every, ANALYSIS_BATCH as usize, || async {
        if !announced.load(Ordering::Relaxed) {
            match analysis.announce().await {
                Ok(()) => announced.store(true, Ordering::Relaxed),
                Err(error) => tracing::warn!(%error, "announcing the analyzer failed; it is tried again next round"),
            }
        }
        match analysis.run_due().await {
            Ok(summaries) => {
                for s in &summaries {
                    log_analysis(s);
                }
                summaries.iter().filter(|s| !s.reanalysis).count()
            }
            Err(error) => {
                tracing::warn!(%error, "analysis round failed");
                0
            }
        }
    })
    .await;
}

fn log_analysis(s: &AnalysisSummary) {
    match &s.outcome {
        AnalysisOutcome::Recorded { accepted, rejection, run, reused, announced } => tracing::info!(
            session = %s.session,
            accepted,
            rejection = rejection.map(|r| r.as_str()),
            analyzers_run = run,
            analyzers_reused = reused,
            announced,
            reanalysis = s.reanalysis,
            "session analyzed"
        ),
        AnalysisOutcome::ClaimLost => tracing::warn!(session = %s.session, "analysis claim lost to another worker"),
        AnalysisOutcome::Vanished => tracing::info!(session = %s.session, "analyzed session is gone"),
        AnalysisOutcome::Failed { code, retry_at, released: true } => tracing::warn!(
            session = %s.session,
            code = code.as_str(),
            %retry_at,
            "session analysis failed; it will be retried"
        ),
        AnalysisOutcome::Failed { code, released: false, .. } => tracing::warn!(
            session = %s.session,
            code = code.as_str(),
            "session analysis failed and its claim could not be released; it is retried once its lease ends"
        ),
    }
}

/// Renders queued exports and deletes files past their retention. It beats every round, so
/// requests are taken only while some replica runs this worker. Log lines carry export ids, never
/// a download token.
pub async fn render_exports(state: web::Data<ServerState>, stop: CancellationToken, poll_every: Duration) {
    let worker = Uuid::new_v4();
    in_rounds(stop, poll_every, EXPORT_BATCH as usize, || async {
        if let Err(error) = state.exports.beat(worker).await {
            tracing::warn!(%error, "export worker beat failed");
        }
        let handled = match state.exports.run_due().await {
            Ok(round) => {
                for export in &round.ready {
                    tracing::info!(%export, "export rendered");
                }
                for export in &round.retried {
                    tracing::warn!(%export, "export rendering failed; it will be retried");
                }
                for export in &round.failed {
                    tracing::info!(%export, "export failed for good");
                }
                round.ready.len() + round.retried.len() + round.failed.len()
            }
            Err(error) => {
                tracing::warn!(%error, "export round failed");
                0
            }
        };
        match state.exports.sweep().await {
            Ok(expired) if expired > 0 => tracing::info!(expired, "deleted export files past their retention"),
            Ok(_) => {}
            Err(error) => tracing::warn!(%error, "sweeping expired exports failed"),
        }
        handled
    })
    .await;
}

/// Plans and sends invitations, reminders and thank-you messages. Log lines carry message ids and
/// counts, never an address or a text.
pub async fn send_messages(state: web::Data<ServerState>, stop: CancellationToken, poll_every: Duration) {
    in_rounds(stop, poll_every, MESSAGE_BATCH as usize, || async {
        match state.outreach.run_due().await {
            Ok(round) => {
                if round.planned > 0 {
                    tracing::info!(planned = round.planned, "outreach messages queued");
                }
                for message in &round.sent {
                    tracing::info!(%message, "message sent");
                }
                for message in &round.retried {
                    tracing::warn!(%message, "message not sent; it will be retried");
                }
                for message in &round.failed {
                    tracing::warn!(%message, "message failed for good");
                }
                for message in &round.suppressed {
                    tracing::info!(%message, "message not sent: suppressed");
                }
                round.handled()
            }
            Err(error) => {
                tracing::warn!(%error, "outreach round failed");
                0
            }
        }
    })
    .await;
}

/// Deletes recordings of spoken answers at the voice provider once their campaign's retention has
/// passed (or their respondent was erased), trying each again until the provider confirms. Log
/// lines carry recording ids and failure codes, never a reference.
pub async fn delete_recordings(state: web::Data<ServerState>, stop: CancellationToken, poll_every: Duration) {
    in_rounds(stop, poll_every, RECORDING_BATCH as usize, || async {
        match state.outreach.delete_due_recordings().await {
            Ok(round) => {
                for recording in &round.deleted {
                    tracing::info!(%recording, "recording deleted at the voice provider");
                }
                for (recording, code) in &round.retried {
                    tracing::warn!(%recording, code, "recording not deleted; it will be tried again");
                }
                round.handled()
            }
            Err(error) => {
                tracing::warn!(%error, "recordings round failed");
                0
            }
        }
    })
    .await;
}
