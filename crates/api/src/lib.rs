//! The HTTP layer: it parses, calls one domain service, and maps the result. It knows the domain's
//! ports only through [`Platform`], never which adapters stand behind them.

pub mod apps;
pub mod channel;
pub mod error;
pub mod health;
pub mod metrics;
pub mod middleware;
pub mod openapi;
pub mod page;
pub mod public;
pub mod request;
mod state;
pub mod studio;
pub mod telemetry;

use actix_web::middleware::{ErrorHandlers, from_fn};
use actix_web::{App, HttpResponse, web};
use pulse_domain::ErrorCode;

pub use state::{AppState, NetworkPolicy, Platform};

/// Request bodies larger than this are refused with 413 (routes that take more set their own).
pub const DEFAULT_BODY_LIMIT: usize = 64 * 1024;

/// Mounts every route family and the framework-level error handling on an `App`.
pub fn configure<P: Platform>(state: web::Data<AppState<P>>) -> impl FnOnce(&mut web::ServiceConfig) {
    let serve_metrics = state.metrics.on_main_listener;
    move |cfg| {
        cfg.app_data(state)
            .app_data(web::PayloadConfig::new(DEFAULT_BODY_LIMIT))
            .configure(health::configure::<P>)
            .configure(channel::configure::<P>)
            .configure(studio::configure::<P>)
            .configure(public::configure::<P>)
            .configure(apps::configure::<P>)
            .configure(page::configure::<P>)
            .configure(|cfg| {
                if serve_metrics {
                    metrics::configure::<P>(cfg);
                }
            })
            .default_service(web::to(unknown_route));
    }
}

/// The listener of `PULSE_METRICS_BIND`: `/metrics` only, with the same middleware.
pub fn metrics_app<P: Platform>(
    state: web::Data<AppState<P>>,
) -> App<
    impl actix_web::dev::ServiceFactory<
        actix_web::dev::ServiceRequest,
        Config = (),
        Response = actix_web::dev::ServiceResponse<impl actix_web::body::MessageBody>,
        Error = actix_web::Error,
        InitError = (),
    >,
> {
    App::new()
        .app_data(state)
        .configure(metrics::configure::<P>)
        .default_service(web::to(unknown_route))
        .wrap(ErrorHandlers::new().default_handler(error::envelope_framework_errors))
        .wrap(from_fn(middleware::request_context))
}

/// The application with its middleware, ready for `HttpServer::new`.
pub fn app<P: Platform>(
    state: web::Data<AppState<P>>,
) -> App<
    impl actix_web::dev::ServiceFactory<
        actix_web::dev::ServiceRequest,
        Config = (),
        Response = actix_web::dev::ServiceResponse<impl actix_web::body::MessageBody>,
        Error = actix_web::Error,
        InitError = (),
    >,
> {
    let deadlines = web::Data::new(state.deadlines);
    App::new()
        .app_data(deadlines)
        .configure(configure(state))
        .wrap(from_fn(middleware::deadlines))
        .wrap(ErrorHandlers::new().default_handler(error::envelope_framework_errors))
        .wrap(from_fn(middleware::request_context))
}

async fn unknown_route() -> HttpResponse {
    error::envelope(ErrorCode::NotFound, "no route matches this path")
}
