//! Liveness and readiness probes.

use actix_web::http::StatusCode;
use actix_web::web::Data;
use actix_web::{HttpResponse, web};
use pulse_domain::ErrorCode;
use pulse_domain::shared::health::HealthCheck as _;
use serde::Serialize;
use utoipa::ToSchema;

use crate::error::{ApiError, ErrorBody};
use crate::request::json_response;
use crate::state::{AppState, Platform};
use crate::telemetry::READINESS_REFUSALS;

#[derive(Debug, Serialize, ToSchema)]
pub struct HealthBody {
    #[schema(example = "ok")]
    pub status: &'static str,
}

pub fn configure<P: Platform>(cfg: &mut web::ServiceConfig) {
    cfg.service(web::resource("/healthz").route(web::get().to(healthz)))
        .service(web::resource("/readyz").route(web::get().to(readyz::<P>)));
}

/// The process is up.
#[utoipa::path(
    get, path = "/healthz",
    operation_id = "healthz",
    tag = "operations",
    responses((status = 200, body = HealthBody))
)]
pub async fn healthz() -> HttpResponse {
    json_response(StatusCode::OK, &HealthBody { status: "ok" }, None)
}

/// The service can reach its database.
#[utoipa::path(
    get, path = "/readyz", operation_id = "readyz", tag = "operations",
    responses(
        (status = 200, body = HealthBody),
        (status = 503, description = "UNAVAILABLE: the database does not answer, or this replica is shutting down", body = ErrorBody),
    )
)]
pub async fn readyz<P: Platform>(state: Data<AppState<P>>) -> Result<HttpResponse, ApiError> {
    if state.draining.load(std::sync::atomic::Ordering::Acquire) {
        metrics::counter!(READINESS_REFUSALS, "reason" => "draining").increment(1);
        let mut response = crate::error::envelope(ErrorCode::Unavailable, "this replica is shutting down");
        response
            .headers_mut()
            .insert(actix_web::http::header::RETRY_AFTER, actix_web::http::header::HeaderValue::from_static("5"));
        return Ok(response);
    }
    if let Err(error) = state.health.ping().await {
        metrics::counter!(READINESS_REFUSALS, "reason" => "database").increment(1);
        return Err(error.into());
    }
    Ok(json_response(StatusCode::OK, &HealthBody { status: "ready" }, None))
}
