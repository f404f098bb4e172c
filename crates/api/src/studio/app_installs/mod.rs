//! `GET /api/v1/campaigns/{campaignId}/app-installs`: the Studio's view of a campaign's installs,
//! in the bodies of the channel's installs route.

pub mod list;

use actix_web::web;

use crate::state::Platform;

pub fn configure<P: Platform>(cfg: &mut web::ServiceConfig) {
    cfg.service(web::resource("/{campaign_id}/app-installs").route(web::get().to(list::list::<P>)));
}
