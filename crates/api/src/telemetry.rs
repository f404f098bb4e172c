//! What the service measures, and under which names. Requests by route pattern, method and status
//! and their latency are recorded by [`crate::middleware::request_context`], quota refusals by the
//! error mapping, webhook attempts by the delivery worker. No label carries an id, a token or a
//! person's data: routes are patterns, methods and statuses come from fixed sets.

use metrics_exporter_prometheus::PrometheusHandle;

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
