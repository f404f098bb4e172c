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
use futures_util::{FutureExt as _, Stream};
use pulse_domain::ErrorCode;
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
    let mut response = response?.map_into_boxed_body();
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
    let method = crate::metrics::method_label(method);
    metrics::counter!(crate::metrics::REQUESTS, "route" => route.clone(), "method" => method, "status" => status.to_string())
        .increment(1);
    metrics::histogram!(crate::metrics::REQUEST_DURATION, "route" => route, "method" => method)
        .record(started.elapsed().as_secs_f64());
}

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

/// How long a request's body may take to arrive, counted from when its head was read.
#[derive(Clone, Copy, Debug)]
pub struct BodyTimeout(pub Duration);

/// Cuts off a body that trickles: once [`BodyTimeout`] has passed, the body stream ends with an
/// error, and the answer is the `408 REQUEST_TIMEOUT` envelope whatever the handler made of it.
///
/// # Errors
/// Those of the inner service, unchanged.
pub async fn body_deadline(
    mut req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    let limit = req.app_data::<Data<BodyTimeout>>().map(|t| t.0);
    let Some(limit) = limit else { return Ok(next.call(req).await?.map_into_boxed_body()) };
    let timed_out = Arc::new(AtomicBool::new(false));
    let payload =
        TimedPayload { inner: req.take_payload(), deadline: Box::pin(sleep(limit)), timed_out: Arc::clone(&timed_out) };
    req.set_payload(Payload::from(Box::pin(payload) as Pin<Box<dyn Stream<Item = Result<Bytes, PayloadError>>>>));
    let response = next.call(req).await?;
    if timed_out.load(Ordering::Acquire) {
        let (request, _) = response.into_parts();
        let answer = envelope(ErrorCode::RequestTimeout, "the request body did not arrive in time; send it again");
        return Ok(ServiceResponse::new(request, answer));
    }
    Ok(response.map_into_boxed_body())
}

/// A request body that fails once its deadline passes.
struct TimedPayload {
    inner: Payload,
    deadline: Pin<Box<Sleep>>,
    timed_out: Arc<AtomicBool>,
}

impl Stream for TimedPayload {
    type Item = Result<Bytes, PayloadError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        if let Poll::Ready(item) = Pin::new(&mut self.inner).poll_next(cx) {
            return Poll::Ready(item);
        }
        if self.deadline.as_mut().poll(cx).is_ready() {
            self.timed_out.store(true, Ordering::Release);
            let cut = std::io::Error::new(std::io::ErrorKind::TimedOut, "the request body did not arrive in time");
            return Poll::Ready(Some(Err(PayloadError::Io(cut))));
        }
        Poll::Pending
    }
}
