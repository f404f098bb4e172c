//! `GET CH/audit-events`: who did what to the workspace's data.

pub mod json;
pub mod list_audit_events;

use actix_web::web;

use crate::state::Platform;

pub fn configure<P: Platform>(cfg: &mut web::ServiceConfig) {
    cfg.service(web::resource("/audit-events").route(web::get().to(list_audit_events::list_audit_events::<P>)));
}
