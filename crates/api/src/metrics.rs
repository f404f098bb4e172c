//! `/metrics`: the Prometheus text format of what [`crate::telemetry`] names and records, with
//! the pool and the worker queues read at each scrape.

use actix_web::http::header;
use actix_web::web::Data;
use actix_web::{HttpResponse, web};
use metrics::gauge;
use pulse_domain::shared::clock::Clock as _;
use pulse_domain::shared::health::Backlogs as _;

use crate::state::{AppState, Platform};
use crate::telemetry::REPLICA_LAG;

pub fn configure<P: Platform>(cfg: &mut web::ServiceConfig) {
    cfg.service(web::resource("/metrics").route(web::get().to(metrics::<P>)));
}

/// The process's metrics in the Prometheus text format. Served even when the database is down:
/// the queue and replica-lag gauges then keep their last values and the pool shows the waiting
/// callers.
#[utoipa::path(
    get, path = "/metrics", operation_id = "getMetrics", tag = "operations",
    responses(
        (status = 200, description = "Prometheus text exposition format 0.0.4", content_type = "text/plain", body = String),
        (status = 404, description = "NOT_FOUND: metrics are served on their own listener (`PULSE_METRICS_BIND`)", body = crate::error::ErrorBody),
    )
)]
pub async fn metrics<P: Platform>(state: Data<AppState<P>>) -> HttpResponse {
    let pool = state.health.pool_state();
    gauge!("pulse_db_pool_connections").set(pool.size as f64);
    gauge!("pulse_db_pool_in_use").set(pool.in_use as f64);
    gauge!("pulse_db_pool_waiting").set(pool.waiting as f64);
    match state.health.backlog(state.clock.now()).await {
        Ok(backlog) => {
            for (queue, depth) in [
                ("webhook_deliveries", backlog.webhook_deliveries),
                ("analyses", backlog.analyses),
                ("exports", backlog.exports),
                ("outreach_messages", backlog.outreach_messages),
            ] {
                gauge!("pulse_queue_due", "queue" => queue).set(depth.due as f64);
                gauge!("pulse_queue_oldest_seconds", "queue" => queue).set(depth.oldest_secs);
            }
        }
        Err(error) => tracing::warn!(%error, "reading the worker queues for /metrics failed"),
    }
    match state.health.replica_lag().await {
        Ok(Some(seconds)) => gauge!(REPLICA_LAG).set(seconds),
        Ok(None) => {}
        Err(error) => tracing::warn!(%error, "reading the read replica's lag for /metrics failed"),
    }
    HttpResponse::Ok()
        .insert_header((header::CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8"))
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .body(state.metrics.handle.render())
}
