//! Background work that runs inside `pulse serve`.

use std::time::Duration;

use actix_web::web;
use tokio_util::sync::CancellationToken;

use crate::startup::ServerState;

/// Deletes idempotency records past their 24 hours, quota windows that have closed and spent
/// launch-token ids past their token's expiry. Every
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
        match state.respondents.purge_spent_tokens().await {
            Ok(purged) if purged > 0 => tracing::info!(purged, "purged expired spent launch tokens"),
            Ok(_) => {}
            Err(error) => tracing::warn!(%error, "purging spent launch tokens failed"),
        }
    }
}
