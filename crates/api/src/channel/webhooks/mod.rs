//! The webhook routes (scope `channel:webhooks`): endpoints, `simulate` and the delivery trail.
//! They ignore `Idempotency-Key`: a repeated create makes a second endpoint with its own secret.

pub mod create;
pub mod delete;
pub mod deliveries;
pub mod get;
pub mod json;
pub mod list;
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
    .service(web::resource("/webhooks/{id}/simulate").route(web::post().to(simulate::simulate::<P>)))
    .service(web::resource("/webhooks/{id}/deliveries").route(web::get().to(deliveries::deliveries::<P>)));
}

fn webhook_id(text: &str) -> Result<WebhookId, ApiError> {
    text.parse().map_err(|_| ApiError(Error::not_found("webhook")))
}

async fn admitted<P: Platform>(state: &AppState<P>, req: &HttpRequest) -> Result<Admitted, ApiError> {
    admit(state, req, &[Scope::WEBHOOKS], QuotaFamily::Webhook).await
}
