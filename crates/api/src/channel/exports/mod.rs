//! `POST CH/campaigns/{id}/exports`, `GET CH/exports/{id}` (scope `channel:export`) and the
//! keyless `GET CH/downloads/{token}/{filename}`, whose signed link is the capability.

pub mod download;
pub mod get;
pub mod json;
pub mod request;

use actix_web::web;
use pulse_domain::Error;
use pulse_domain::ids::ExportId;

use crate::error::ApiError;
use crate::state::Platform;

pub fn configure<P: Platform>(cfg: &mut web::ServiceConfig) {
    cfg.service(web::resource("/campaigns/{id}/exports").route(web::post().to(request::request_export::<P>)))
        .service(web::resource("/exports/{id}").route(web::get().to(get::get_export::<P>)))
        .service(web::resource("/downloads/{token}/{filename}").route(web::get().to(download::download_export::<P>)));
}

/// A path id that is not a uuid names no export: the same 404 as an unknown one.
fn export_id(text: &str) -> Result<ExportId, ApiError> {
    text.parse().map_err(|_| ApiError(Error::not_found("export")))
}
