//! `POST /campaigns`, `GET /campaigns/{id}`, `POST /campaigns/{id}/respondents`,
//! `POST /campaigns/{id}/launch` and `POST /launch`.

pub mod get;
pub mod json;
pub mod launch;
pub mod launch_link;
pub mod provision;
pub mod respondents;

use actix_web::web;
use pulse_domain::Error;
use pulse_domain::ids::CampaignId;

use crate::error::ApiError;
use crate::state::Platform;

pub fn configure<P: Platform>(cfg: &mut web::ServiceConfig) {
    cfg.service(web::resource("/campaigns").route(web::post().to(provision::provision::<P>)))
        .service(web::resource("/campaigns/{id}").route(web::get().to(get::get_campaign::<P>)))
        .service(
            web::resource("/campaigns/{id}/respondents")
                // Up to 1000 rows of contact details.
                .app_data(web::PayloadConfig::new(1024 * 1024))
                .route(web::post().to(respondents::attach_respondents::<P>)),
        )
        .service(web::resource("/campaigns/{id}/launch").route(web::post().to(launch::launch_campaign::<P>)))
        .service(web::resource("/launch").route(web::post().to(launch_link::mint_launch_link::<P>)));
}

/// A path id that is not a uuid names no campaign: the same 404 as an unknown one.
pub(crate) fn campaign_id(text: &str) -> Result<CampaignId, ApiError> {
    text.parse().map_err(|_| ApiError(Error::not_found("campaign")))
}
