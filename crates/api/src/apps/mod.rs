//! The app routes, `/api/v1/apps`: mobile apps with no secret register an install against a
//! campaign's public code and keep their device alive with heartbeats.

pub mod heartbeat;
pub mod json;
pub mod register;

use actix_web::web;

use crate::state::Platform;

pub const PREFIX: &str = "/api/v1/apps";

pub fn configure<P: Platform>(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::scope(PREFIX)
            .service(web::resource("/register").route(web::post().to(register::register::<P>)))
            .service(web::resource("/heartbeat").route(web::post().to(heartbeat::heartbeat::<P>))),
    );
}
