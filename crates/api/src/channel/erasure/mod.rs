//! Erasure (GDPR Article 17): `POST CH/users/erase`, `DELETE CH/devices/{deviceId}` and
//! `POST CH/campaigns/{id}/respondents/erase`. A personal reference travels in a body, never in a
//! path, so no access log holds it.

pub mod erase_device;
pub mod erase_respondent;
pub mod erase_user;
pub mod json;

use actix_web::web;

use crate::state::Platform;

pub fn configure<P: Platform>(cfg: &mut web::ServiceConfig) {
    cfg.service(web::resource("/users/erase").route(web::post().to(erase_user::erase_user::<P>)))
        .service(web::resource("/devices/{deviceId}").route(web::delete().to(erase_device::erase_device::<P>)))
        .service(
            web::resource("/campaigns/{id}/respondents/erase")
                .route(web::post().to(erase_respondent::erase_respondent::<P>)),
        );
}
