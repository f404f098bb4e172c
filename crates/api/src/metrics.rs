//! `/metrics`: the Prometheus text format. Requests by route pattern, method and status and their
//! latency are recorded by [`crate::middleware::request_context`], quota refusals by the error
//! mapping, webhook attempts by the delivery worker; the pool and the worker queues are read at
//! each scrape. No label carries an id, a token or a person's data: routes are patterns, methods
//! and statuses come from fixed sets.

use actix_web::http::header;
use actix_web::web::Data;
use actix_web::{HttpResponse, web};
use metrics::gauge;
use metrics_exporter_prometheus::PrometheusHandle;
use pulse_domain::shared::clock::Clock as _;
use pulse_domain::shared::health::Backlogs as _;

use crate::state::{AppState, Platform};

/// The request metrics' names, for the exporter's bucket settings.
pub const REQUEST_DURATION: &str = "pulse_http_request_duration_seconds";
pub const REQUESTS: &str = "pulse_http_requests_total";
pub const QUOTA_REFUSALS: &str = "pulse_quota_refusals_total";

/// Where `/metrics` is served: by the main listener, or only by a listener of its own
/// (`PULSE_METRICS_BIND`), which then is the only one that answers it.
#[derive(Clone)]
pub struct MetricsExport {
    pub handle: PrometheusHandle,
    pub on_main_listener: bool,
}

pub fn configure<P: Platform>(cfg: &mut web::ServiceConfig) {
    cfg.service(web::resource("/metrics").route(web::get().to(metrics::<P>)));
}

/// The process's metrics in the Prometheus text format. Served even when the database is down:
/// the queue gauges then keep their last values and the pool shows the waiting callers.
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
    HttpResponse::Ok()
        .insert_header((header::CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8"))
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .body(state.metrics.handle.render())
}

/// The method as a label: one of the methods routes answer, else `OTHER`, so a client cannot
/// mint new series by inventing methods.
pub(crate) fn method_label(method: &actix_web::http::Method) -> &'static str {
    use actix_web::http::Method;
    match *method {
        Method::GET => "GET",
        Method::POST => "POST",
        Method::PUT => "PUT",
        Method::PATCH => "PATCH",
        Method::DELETE => "DELETE",
        Method::HEAD => "HEAD",
        Method::OPTIONS => "OPTIONS",
        _ => "OTHER",
    }
}
