//! Launch keys (two slots per campaign) and the campaign's signing setting.

pub mod create;
pub mod json;
pub mod list;
pub mod revoke;
pub mod set_access;

use actix_web::web;

use crate::state::Platform;

pub fn configure<P: Platform>(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::resource("/{campaign_id}/launch-keys")
            .route(web::get().to(list::list::<P>))
            .route(web::post().to(create::create::<P>)),
    )
    .service(web::resource("/{campaign_id}/launch-keys/{key_id}").route(web::delete().to(revoke::revoke::<P>)))
    .service(web::resource("/{campaign_id}/launch-access").route(web::put().to(set_access::set_access::<P>)));
}
