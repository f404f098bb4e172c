//! What wraps every request: a request id, one log line, its metrics, and a 500 envelope instead
//! of a panic.

use std::future::Future as _;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{Payload, ServiceRequest, ServiceResponse};
use actix_web::error::PayloadError;
use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::middleware::Next;
use actix_web::rt::time::{Sleep, sleep};
use actix_web::web::{Bytes, Data};
use actix_web::{HttpMessage as _, HttpResponse, ResponseError};
use futures_util::future::Either;
use futures_util::{FutureExt as _, Stream};
use pulse_domain::ErrorCode;
use tokio::sync::oneshot;
use tracing::Instrument as _;
use uuid::Uuid;

use crate::error::envelope;

pub const REQUEST_ID: &str = "x-request-id";

/// Gives the request an id (in its span, its log line and the `X-Request-Id` response header),
/// logs one line when it ends, and turns a panic into the 500 envelope.
///
/// Only the route pattern is logged, never the path or query: paths and queries may carry
/// tokens (download links, launch tokens).
///
/// # Errors
/// Those of the inner service, unchanged.
pub async fn request_context(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    let request_id = Uuid::new_v4();
    let route = req.match_pattern().unwrap_or_else(|| "unmatched".to_owned());
    let method = req.method().clone();
    let span = tracing::info_span!("request", %request_id, %method, %route);
    let started = Instant::now();
    req.extensions_mut().insert(RequestId(request_id));
    let outcome = AssertUnwindSafe(next.call(req)).catch_unwind().instrument(span.clone()).await;
    let elapsed_ms = || u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    let Ok(response) = outcome else {
        span.in_scope(|| {
            tracing::error!("handler panicked");
            tracing::info!(status = 500, elapsed_ms = elapsed_ms(), "request finished");
        });
        record(route, &method, 500, started);
        // The request went down with the handler, so the answer travels as an error.
        return Err(Panicked { request_id }.into());
    };
    let mut response = match response {
        Ok(response) => response.map_into_boxed_body(),
        Err(error) => {
            let status = error.as_response_error().status_code().as_u16();
            span.in_scope(|| tracing::info!(status, elapsed_ms = elapsed_ms(), "request finished"));
            record(route, &method, status, started);
            return Err(error);
        }
    };
    if let Ok(value) = HeaderValue::from_str(&request_id.to_string()) {
        response.headers_mut().insert(HeaderName::from_static(REQUEST_ID), value);
    }
    let status = response.status().as_u16();
    span.in_scope(|| tracing::info!(status, elapsed_ms = elapsed_ms(), "request finished"));
    record(route, &method, status, started);
    Ok(response)
}

/// Counts the request and its latency under its route pattern (never its path), method and status.
fn record(route: String, method: &actix_web::http::Method, status: u16, started: Instant) {
    let method = crate::telemetry::method_label(method);
    metrics::counter!(crate::telemetry::REQUESTS, "route" => route.clone(), "method" => method, "status" => status.to_string())
        .increment(1);
    metrics::histogram!(crate::telemetry::REQUEST_DURATION, "route" => route, "method" => method)
        .record(started.elapsed().as_secs_f64());
}

/// The id [`request_context`] gave the request, for answers made without its response.
#[derive(Clone, Copy, Debug)]
struct RequestId(Uuid);

/// The answer to a request whose handler panicked: the 500 envelope, with the request id.
#[derive(Debug)]
struct Panicked {
    request_id: Uuid,
}

impl std::fmt::Display for Panicked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "request {} panicked", self.request_id)
    }
}

impl ResponseError for Panicked {
    fn error_response(&self) -> HttpResponse {
        let mut response = envelope(ErrorCode::Internal, "an unexpected error occurred");
        if let Ok(value) = HeaderValue::from_str(&self.request_id.to_string()) {
            response.headers_mut().insert(HeaderName::from_static(REQUEST_ID), value);
        }
        response
    }
}

/// The two limits on a request's time: its body's arrival, and the work done once it has arrived.
#[derive(Clone, Copy, Debug)]
pub struct Deadlines {
    /// How long a body may take to arrive, counted from when its head was read
    /// (`PULSE_BODY_TIMEOUT_SECS`).
    pub body: Duration,
    /// How long the work may take once the body has arrived (`PULSE_REQUEST_TIMEOUT_SECS`).
    pub work: Duration,
}

/// Bounds a request's time. A body that trickles is cut off once [`Deadlines::body`] has passed:
/// the body stream ends with an error, and the answer is the `408 REQUEST_TIMEOUT` envelope
/// whatever the handler made of it. Work still running [`Deadlines::work`] after the body arrived
/// (a slow database link) is answered with the `503 UNAVAILABLE` envelope, and goes on in the
/// background rather than being cut: cutting it could stop a write between its commit and the
/// record of its `Idempotency-Key`, so that a retry would repeat it.
///
/// # Errors
/// The 503 answer of work past its deadline; otherwise those of the inner service, unchanged.
pub async fn deadlines(
    mut req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    let limits = req.app_data::<Data<Deadlines>>().map(|d| *d.get_ref());
    let Some(limits) = limits else { return Ok(next.call(req).await?.map_into_boxed_body()) };
    let timed_out = Arc::new(AtomicBool::new(false));
    let payload = req.take_payload();
    let (arrived, body_arrived) = oneshot::channel();
    let arrived = if matches!(payload, Payload::None) {
        let _nothing_to_wait_for = arrived.send(());
        None
    } else {
        Some(arrived)
    };
    let payload = TimedPayload {
        inner: payload,
        deadline: Box::pin(sleep(limits.body)),
        timed_out: Arc::clone(&timed_out),
        arrived,
    };
    req.set_payload(Payload::from(Box::pin(payload) as Pin<Box<dyn Stream<Item = Result<Bytes, PayloadError>>>>));
    let request_id = req.extensions().get::<RequestId>().map(|id| id.0);
    // The work's time counts from the body's end, or from the body deadline when the handler
    // never reads to the end (a trickling body fails there anyway).
    let work_deadline = async move {
        let _read_or_dropped = actix_web::rt::time::timeout(limits.body, body_arrived).await;
        sleep(limits.work).await;
    };
    let handler = Box::pin(next.call(req));
    let response = match futures_util::future::select(handler, Box::pin(work_deadline)).await {
        Either::Left((response, _)) => response?,
        Either::Right(((), still_running)) => {
            let span = tracing::Span::current();
            actix_web::rt::spawn(
                async move {
                    let status = match AssertUnwindSafe(still_running).catch_unwind().await {
                        Ok(Ok(response)) => response.status().as_u16(),
                        Ok(Err(error)) => error.as_response_error().status_code().as_u16(),
                        Err(_) => {
                            tracing::error!("handler panicked");
                            500
                        }
                    };
                    tracing::info!(status, "request finished after its answer was given");
                }
                .instrument(span),
            );
            // The request travels with the work, so the answer goes out as an error.
            return Err(TimedOut { request_id, retry_after: limits.work }.into());
        }
    };
    if timed_out.load(Ordering::Acquire) {
        let (request, _) = response.into_parts();
        let answer = envelope(ErrorCode::RequestTimeout, "the request body did not arrive in time; send it again");
        return Ok(ServiceResponse::new(request, answer));
    }
    Ok(response.map_into_boxed_body())
}

/// The answer to a request whose work ran past [`Deadlines::work`]: the 503 envelope.
#[derive(Debug)]
struct TimedOut {
    request_id: Option<Uuid>,
    retry_after: Duration,
}

impl std::fmt::Display for TimedOut {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the request's work ran past {} s", self.retry_after.as_secs())
    }
}

impl ResponseError for TimedOut {
    fn status_code(&self) -> actix_web::http::StatusCode {
        actix_web::http::StatusCode::SERVICE_UNAVAILABLE
    }

    fn error_response(&self) -> HttpResponse {
        let mut response = envelope(
            ErrorCode::Unavailable,
            "the request did not finish in time and goes on; it may still take effect: repeat it with the same \
             Idempotency-Key, or read the resource before sending it again",
        );
        let headers = response.headers_mut();
        headers.insert(actix_web::http::header::RETRY_AFTER, HeaderValue::from(self.retry_after.as_secs()));
        if let Some(Ok(value)) = self.request_id.map(|id| HeaderValue::from_str(&id.to_string())) {
            headers.insert(HeaderName::from_static(REQUEST_ID), value);
        }
        response
    }
}

/// A request body that fails once its deadline passes, and says when it has arrived.
struct TimedPayload {
    inner: Payload,
    deadline: Pin<Box<Sleep>>,
    timed_out: Arc<AtomicBool>,
    arrived: Option<oneshot::Sender<()>>,
}

impl Stream for TimedPayload {
    type Item = Result<Bytes, PayloadError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        if let Poll::Ready(item) = Pin::new(&mut self.inner).poll_next(cx) {
            if !matches!(item, Some(Ok(_))) {
                self.body_ended();
            }
            return Poll::Ready(item);
        }
        if self.deadline.as_mut().poll(cx).is_ready() {
            self.timed_out.store(true, Ordering::Release);
            self.body_ended();
            let cut = std::io::Error::new(std::io::ErrorKind::TimedOut, "the request body did not arrive in time");
            return Poll::Ready(Some(Err(PayloadError::Io(cut))));
        }
        Poll::Pending
    }
}

impl TimedPayload {
    fn body_ended(&mut self) {
        if let Some(arrived) = self.arrived.take() {
            let _deadline_may_have_passed = arrived.send(());
        }
    }
}
