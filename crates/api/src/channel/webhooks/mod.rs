//! The webhook routes (scope `channel:webhooks`): endpoints, secret rotation, `simulate`, the
//! delivery trail and redelivery.
//! They ignore `Idempotency-Key`: a repeated create makes a second endpoint with its own secret.

pub mod create;
pub mod delete;
pub mod deliveries;
pub mod get;
pub mod json;
pub mod list;
pub mod redeliver;
pub mod redeliver_range;
pub mod rotate_secret;
pub mod simulate;
pub mod update;

use actix_web::{HttpRequest, web};
use pulse_domain::Error;
use pulse_domain::ids::WebhookId;
use pulse_domain::quota::models::QuotaFamily;
use pulse_domain::tenancy::models::Scope;

use crate::channel::{Admitted, admit};
use crate::error::ApiError;
use crate::state::{AppState, Platform};

pub fn configure<P: Platform>(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::resource("/webhooks").route(web::get().to(list::list::<P>)).route(web::post().to(create::create::<P>)),
    )
    .service(
        web::resource("/webhooks/{id}")
            .route(web::get().to(get::get::<P>))
            .route(web::patch().to(update::update::<P>))
            .route(web::delete().to(delete::delete::<P>)),
    )
    .service(web::resource("/webhooks/{id}/rotate-secret").route(web::post().to(rotate_secret::rotate_secret::<P>)))
    .service(web::resource("/webhooks/{id}/simulate").route(web::post().to(simulate::simulate::<P>)))
    .service(web::resource("/webhooks/{id}/deliveries").route(web::get().to(deliveries::deliveries::<P>)))
    .service(
        web::resource("/webhooks/{id}/deliveries/{deliveryId}/redeliver")
            .route(web::post().to(redeliver::redeliver::<P>)),
    )
    .service(web::resource("/webhooks/{id}/redeliver").route(web::post().to(redeliver_range::redeliver_range::<P>)));
}

fn webhook_id(text: &str) -> Result<WebhookId, ApiError> {
    text.parse().map_err(|_| ApiError(Error::not_found("webhook")))
}

async fn admitted<P: Platform>(state: &AppState<P>, req: &HttpRequest) -> Result<Admitted, ApiError> {
    admitted_in(state, req, QuotaFamily::Webhook).await
}

/// As [`admitted`], counted in `family`: redeliveries have quotas of their own.
async fn admitted_in<P: Platform>(
    state: &AppState<P>,
    req: &HttpRequest,
    family: QuotaFamily,
) -> Result<Admitted, ApiError> {
    admit(state, req, &[Scope::WEBHOOKS], family).await
}
