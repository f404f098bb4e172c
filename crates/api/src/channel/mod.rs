//! The channel routes, `/api/v1/channel`: partners' servers, authenticated by API key.

pub mod campaigns;
pub mod identity;

use actix_web::{HttpRequest, web};
use pulse_domain::tenancy::Principal;

use crate::error::ApiError;
use crate::request::presented_api_key;
use crate::state::{AppState, Platform};

pub const PREFIX: &str = "/api/v1/channel";

pub fn configure<P: Platform>(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::scope(PREFIX)
            .service(web::resource("/whoami").route(web::get().to(identity::whoami::<P>)))
            .service(
                web::resource("/orgs")
                    .route(web::get().to(identity::list_orgs::<P>))
                    .route(web::post().to(identity::create_org::<P>)),
            )
            .service(web::resource("/campaigns").route(web::post().to(campaigns::provision::<P>)))
            .service(web::resource("/campaigns/{id}").route(web::get().to(campaigns::get_campaign::<P>)))
            .service(
                web::resource("/campaigns/{id}/respondents")
                    // Up to 1000 rows of contact details.
                    .app_data(web::PayloadConfig::new(1024 * 1024))
                    .route(web::post().to(campaigns::attach_respondents::<P>)),
            )
            .service(web::resource("/campaigns/{id}/launch").route(web::post().to(campaigns::launch_campaign::<P>)))
            .service(web::resource("/launch").route(web::post().to(campaigns::mint_launch_link::<P>)))
            .service(web::resource("/openapi.json").route(web::get().to(crate::openapi::openapi_json))),
    );
}

/// # Errors
/// `Unauthenticated` for a missing or bad key.
pub(crate) async fn authenticate<P: Platform>(state: &AppState<P>, req: &HttpRequest) -> Result<Principal, ApiError> {
    Ok(state.tenancy.authenticate(presented_api_key(req)).await?)
}

/// The quota subject of a key.
pub(crate) fn key_subject(principal: &Principal) -> String {
    format!("key:{}", principal.key_id)
}
