//! `GET CH/devices` and `GET CH/campaigns/{id}/installs`: what apps registered, never an email or
//! a phone.

pub mod json;
pub mod list_devices;
pub mod list_installs;

use actix_web::web;

use crate::state::Platform;

pub fn configure<P: Platform>(cfg: &mut web::ServiceConfig) {
    cfg.service(web::resource("/campaigns/{id}/installs").route(web::get().to(list_installs::list_installs::<P>)))
        .service(web::resource("/devices").route(web::get().to(list_devices::list_devices::<P>)));
}
