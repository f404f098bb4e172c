//! The Studio routes, `/api/v1/campaigns/{campaignId}/...`: signed-in Studio users, with a
//! bearer Studio JWT carrying permissions.

pub mod app_installs;
pub mod launch_keys;

use actix_web::{HttpRequest, web};
use pulse_domain::studio::models::StudioClaims;
use pulse_domain::studio::service::authenticate_studio;

use crate::error::ApiError;
use crate::request::bearer_token;
use crate::state::{AppState, Platform};

pub const PREFIX: &str = "/api/v1/campaigns";

pub fn configure<P: Platform>(cfg: &mut web::ServiceConfig) {
    cfg.service(web::scope(PREFIX).configure(launch_keys::configure::<P>).configure(app_installs::configure::<P>));
}

/// # Errors
/// `Unauthenticated` for a missing, invalid or expired Studio token.
pub(crate) fn authenticate<P: Platform>(state: &AppState<P>, req: &HttpRequest) -> Result<StudioClaims, ApiError> {
    Ok(authenticate_studio(&state.studio_tokens, &state.clock, bearer_token(req)?)?)
}

/// The quota subject of a Studio user.
pub(crate) fn user_subject(session: &StudioClaims) -> String {
    format!("studio:{}", session.user_id)
}
