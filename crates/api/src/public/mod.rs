//! The public respondent routes, `/api/v1/public/pulse/{code}/...`: no secret; the campaign code
//! is public, single-use links and tokens gate starts, and a session token gates answers.

pub mod access;
pub mod answer;
pub mod calls;
pub mod complete;
pub mod json;
pub mod replies;
pub mod start;

use actix_web::HttpRequest;
use actix_web::web::{self, Bytes};
use pulse_domain::Error;
use pulse_domain::ids::SessionId;

use crate::error::ApiError;
use crate::state::Platform;

pub const PREFIX: &str = "/api/v1/public/pulse";

pub fn configure<P: Platform>(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::scope(PREFIX)
            .service(web::resource("/{code}/access").route(web::get().to(access::access::<P>)))
            .service(web::resource("/{code}/start").route(web::post().to(start::start::<P>)))
            .service(web::resource("/{code}/sessions/{session_id}/answers").route(web::post().to(answer::answer::<P>)))
            .service(
                web::resource("/{code}/sessions/{session_id}/complete").route(web::post().to(complete::complete::<P>)),
            ),
    )
    .service(web::resource("/api/v1/public/messages/replies").route(web::post().to(replies::reply::<P>)))
    // `status` before `{step}`: a step is never named so.
    .service(web::resource("/api/v1/public/calls/{message_id}/status").route(web::post().to(calls::ended::<P>)))
    .service(web::resource("/api/v1/public/calls/{message_id}/recording").route(web::post().to(calls::recorded::<P>)))
    .service(web::resource("/api/v1/public/calls/{message_id}/{step}").route(web::post().to(calls::turn::<P>)));
}

/// The provider's signature of a webhook request (Twilio's name for it).
const SIGNATURE: &str = "x-twilio-signature";

/// A provider's webhook request as its signature covers it: the form, the full public URL it
/// requested (`base_url` and the path), and the signature.
fn signed(req: &HttpRequest, base_url: &str, body: &Bytes) -> (Vec<(String, String)>, String, Option<String>) {
    let params =
        url::form_urlencoded::parse(body).map(|(name, value)| (name.into_owned(), value.into_owned())).collect();
    let path = req.uri().path_and_query().map_or_else(|| req.path().to_owned(), ToString::to_string);
    let signature = req.headers().get(SIGNATURE).and_then(|v| v.to_str().ok()).map(str::to_owned);
    (params, format!("{base_url}{path}"), signature)
}

fn session_id(text: &str) -> Result<SessionId, ApiError> {
    text.parse().map_err(|_| ApiError(Error::not_found("session")))
}
