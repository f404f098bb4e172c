//! `GET CH/campaigns/{id}/results`: aggregates only, behind the campaign's anonymity floor.

pub mod get;
pub mod json;

use actix_web::web;

use crate::state::Platform;

pub fn configure<P: Platform>(cfg: &mut web::ServiceConfig) {
    cfg.service(web::resource("/campaigns/{id}/results").route(web::get().to(get::get_results::<P>)));
}
