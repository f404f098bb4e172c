//! `GET /whoami`, `GET /orgs`, `POST /orgs`.

pub mod create_org;
pub mod json;
pub mod list_orgs;
pub mod whoami;

use actix_web::web;

use crate::state::Platform;

pub fn configure<P: Platform>(cfg: &mut web::ServiceConfig) {
    cfg.service(web::resource("/whoami").route(web::get().to(whoami::whoami::<P>))).service(
        web::resource("/orgs")
            .route(web::get().to(list_orgs::list_orgs::<P>))
            .route(web::post().to(create_org::create_org::<P>)),
    );
}
