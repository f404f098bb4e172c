//! The channel routes, `/api/v1/channel`: partners' servers, authenticated by API key.

pub mod audit;
pub mod campaigns;
pub mod devices;
pub mod erasure;
pub mod exports;
pub mod identity;
pub mod results;
pub mod webhooks;

use actix_web::{HttpRequest, web};
use pulse_domain::RateLimitState;
use pulse_domain::audit::models::truncated_network;
use pulse_domain::quota::models::QuotaFamily;
use pulse_domain::tenancy::models::Principal;

use crate::error::ApiError;
use crate::request::{client_address, presented_api_key, workspace_header};
use crate::state::{AppState, Platform};

pub const PREFIX: &str = "/api/v1/channel";

pub fn configure<P: Platform>(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::scope(PREFIX)
            .configure(identity::configure::<P>)
            .configure(campaigns::configure::<P>)
            .configure(results::configure::<P>)
            .configure(exports::configure::<P>)
            .configure(devices::configure::<P>)
            .configure(erasure::configure::<P>)
            .configure(webhooks::configure::<P>)
            .configure(audit::configure::<P>)
            .service(web::resource("/openapi.json").route(web::get().to(crate::openapi::openapi_json))),
    );
}

/// The key as the store holds it now, for routes that show what it reaches.
///
/// # Errors
/// `Unauthenticated` for a missing or bad key.
pub(crate) async fn authenticate<P: Platform>(state: &AppState<P>, req: &HttpRequest) -> Result<Principal, ApiError> {
    let principal = state.tenancy.authenticate(presented_api_key(req)?).await?;
    Ok(from_network(principal, state, req))
}

/// The principal with the network its call came from, for the audit trail.
fn from_network<P: Platform>(principal: Principal, state: &AppState<P>, req: &HttpRequest) -> Principal {
    let network = client_address(req, &state.network).map(truncated_network);
    Principal { network, ..principal }
}

/// A workspace-scoped channel call that was let in: its key, quota subject and window state.
pub(crate) struct Admitted {
    pub principal: Principal,
    pub subject: String,
    pub rate: Option<RateLimitState>,
}

/// Lets a workspace-scoped call in: the key (401), one of `scopes` (403 naming them), a business
/// (403 `NO_ORG`), then the quota of `family` (429). A call the key may not make is refused as
/// such, never counted against its quota.
///
/// # Errors
/// As listed, in that order.
pub(crate) async fn admit<P: Platform>(
    state: &AppState<P>,
    req: &HttpRequest,
    scopes: &[&str],
    family: QuotaFamily,
) -> Result<Admitted, ApiError> {
    let principal = state.tenancy.authenticate_for(presented_api_key(req)?, workspace_header(req)).await?;
    let principal = from_network(principal, state, req);
    principal.require_any_scope(scopes)?;
    principal.require_business()?;
    let subject = key_subject(&principal);
    let rate = state.quotas.hit(&subject, family).await?;
    Ok(Admitted { principal, subject, rate })
}

/// The quota subject of a key.
pub(crate) fn key_subject(principal: &Principal) -> String {
    format!("key:{}", principal.key_id)
}
