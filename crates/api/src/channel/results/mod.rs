//! `GET CH/campaigns/{id}/results`, its breakdown and its trend: aggregates only, behind the
//! campaign's anonymity floor.

pub mod breakdown;
pub mod get;
pub mod json;
pub mod trend;

use actix_web::web;

use crate::state::Platform;

pub fn configure<P: Platform>(cfg: &mut web::ServiceConfig) {
    cfg.service(web::resource("/campaigns/{id}/results").route(web::get().to(get::get_results::<P>)))
        .service(web::resource("/campaigns/{id}/results/breakdown").route(web::get().to(breakdown::get_breakdown::<P>)))
        .service(web::resource("/campaigns/{id}/results/trend").route(web::get().to(trend::get_trend::<P>)));
}
