//! What the service measures, and under which names. Requests by route pattern, method and status
//! and their latency are recorded by [`crate::middleware::request_context`], quota refusals by the
//! error mapping, webhook attempts by the delivery worker. No label carries an id, a token or a
//! person's data: routes are patterns, methods and statuses come from fixed sets.

use metrics_exporter_prometheus::PrometheusHandle;

/// The request metrics' names, for the exporter's bucket settings.
pub const REQUEST_DURATION: &str = "pulse_http_request_duration_seconds";
pub const REQUESTS: &str = "pulse_http_requests_total";
pub const QUOTA_REFUSALS: &str = "pulse_quota_refusals_total";
pub const READINESS_REFUSALS: &str = "pulse_readiness_refusals_total";
pub const REPLICA_LAG: &str = "pulse_db_replica_lag_seconds";
pub const WEBHOOK_ATTEMPTS: &str = "pulse_webhook_attempts_total";

/// The outcomes a webhook attempt is counted under.
pub const WEBHOOK_OUTCOMES: [&str; 4] = ["DELIVERED", "FAILED", "DEAD", "unrecorded"];

/// Why `/readyz` answered not ready.
pub const READINESS_REASONS: [&str; 2] = ["database", "draining"];

/// A business's workspace count, a limit no window resets.
pub const WORKSPACE_LIMIT: &str = "workspaces_per_business";

/// The limits a refusal is counted under besides the quota families: they have no window of
/// their own in the quota table.
pub const OTHER_LIMITS: [&str; 4] = ["heartbeat", "download_fetch", "max_responses", WORKSPACE_LIMIT];

/// Every counter whose labels come from a fixed list, at zero, so that the first event of each
/// is an increase a rate can see rather than a series that appears at one.
pub fn register_counters() {
    let families = pulse_domain::quota::models::QuotaFamily::ALL.map(|family| family.as_str());
    for family in families.into_iter().chain(OTHER_LIMITS) {
        metrics::counter!(QUOTA_REFUSALS, "family" => family).absolute(0);
    }
    for outcome in WEBHOOK_OUTCOMES {
        metrics::counter!(WEBHOOK_ATTEMPTS, "outcome" => outcome).absolute(0);
    }
    for reason in READINESS_REASONS {
        metrics::counter!(READINESS_REFUSALS, "reason" => reason).absolute(0);
    }
}

/// Where `/metrics` is served: by the main listener, or only by a listener of its own
/// (`PULSE_METRICS_BIND`), which then is the only one that answers it.
#[derive(Clone)]
pub struct MetricsExport {
    pub handle: PrometheusHandle,
    pub on_main_listener: bool,
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
