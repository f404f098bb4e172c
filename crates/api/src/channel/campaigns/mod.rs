//! `POST /campaigns`, `GET /campaigns`, `GET /campaigns/{id}`, `POST /campaigns/{id}/respondents`,
//! `POST /campaigns/{id}/launch`, `.../pause`, `.../resume`, `.../close` and `POST /launch`.

pub mod close;
pub mod get;
pub mod json;
pub mod launch;
pub mod launch_link;
pub mod list;
pub mod pause;
pub mod provision;
pub mod respondents;
pub mod resume;

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use pulse_domain::Error;
use pulse_domain::campaigns::models::Transition;
use pulse_domain::ids::CampaignId;
use pulse_domain::quota::models::QuotaFamily;
use pulse_domain::tenancy::models::Scope;

use crate::channel::{Admitted, admit};
use crate::error::ApiError;
use crate::request::{Reply, idempotent, workspace_header};
use crate::state::{AppState, Platform};
use json::{CampaignBody, to_value};

pub fn configure<P: Platform>(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::resource("/campaigns")
            .route(web::post().to(provision::provision::<P>))
            .route(web::get().to(list::list_campaigns::<P>)),
    )
    .service(web::resource("/campaigns/{id}").route(web::get().to(get::get_campaign::<P>)))
    .service(
        web::resource("/campaigns/{id}/respondents")
            // Up to 1000 rows of contact details.
            .app_data(web::PayloadConfig::new(1024 * 1024))
            .route(web::post().to(respondents::attach_respondents::<P>)),
    )
    .service(web::resource("/campaigns/{id}/launch").route(web::post().to(launch::launch_campaign::<P>)))
    .service(web::resource("/campaigns/{id}/pause").route(web::post().to(pause::pause_campaign::<P>)))
    .service(web::resource("/campaigns/{id}/resume").route(web::post().to(resume::resume_campaign::<P>)))
    .service(web::resource("/campaigns/{id}/close").route(web::post().to(close::close_campaign::<P>)))
    .service(web::resource("/launch").route(web::post().to(launch_link::mint_launch_link::<P>)));
}

/// A path id that is not a uuid names no campaign: the same 404 as an unknown one.
pub(crate) fn campaign_id(text: &str) -> Result<CampaignId, ApiError> {
    text.parse().map_err(|_| ApiError(Error::not_found("campaign")))
}

/// Pause, resume and close: one domain call each, idempotent as launch is.
async fn change_status<P: Platform>(
    state: &AppState<P>,
    req: &HttpRequest,
    id: &str,
    transition: Transition,
) -> Result<HttpResponse, ApiError> {
    let Admitted { principal, subject, rate } = admit(state, req, &[Scope::PROVISION], QuotaFamily::Provision).await?;
    let id = campaign_id(id)?;
    let workspace = workspace_header(req).map(str::to_owned);
    let request = serde_json::json!({ "id": id, "change": transition.as_str() });
    idempotent(state, req, &subject, &request, rate, || async {
        let view = state.campaigns.change_status(&principal, workspace.as_deref(), id, transition).await?;
        let body = to_value(&CampaignBody::new(
            view.overview,
            &view.messages,
            state.campaigns.survey_url(),
            state.campaigns.message_channels(),
        ))?;
        Ok(Reply { status: StatusCode::OK, replay_body: body.clone(), body })
    })
    .await
}
