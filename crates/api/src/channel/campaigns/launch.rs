//! `POST /campaigns/{id}/launch`.

use actix_web::http::StatusCode;
use actix_web::web::{Data, Path};
use actix_web::{HttpRequest, HttpResponse};
use pulse_domain::outreach::models::OutreachCounts;
use pulse_domain::quota::models::QuotaFamily;
use pulse_domain::tenancy::models::Scope;

use super::campaign_id;
use super::json::{CampaignBody, to_value};
use crate::channel::{Admitted, admit};
use crate::error::{ApiError, ErrorBody};
use crate::request::{Reply, idempotent, workspace_header};
use crate::state::{AppState, Platform};

/// Launch a campaign: it starts collecting (`ACTIVE`). Launching a live campaign again answers 200.
#[utoipa::path(
    post, path = "/api/v1/channel/campaigns/{id}/launch", operation_id = "launchCampaign", tag = "campaigns",
    security(("apiKey" = []), ("bearer" = [])),
    params(("id" = Uuid, Path), ("X-SVC-Workspace" = Option<Uuid>, Header), ("Idempotency-Key" = Option<String>, Header)),
    responses(
        (status = 200, description = "The campaign, now ACTIVE", body = CampaignBody),
        (status = 400, description = "NOT_LAUNCH_READY: the description names the blocker (such as WORKSPACE_NOT_APPROVED); WORKSPACE_REQUIRED", body = ErrorBody),
        (status = 401, description = "UNAUTHENTICATED", body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSION (channel:provision) or NO_ORG", body = ErrorBody),
        (status = 404, description = "NOT_FOUND", body = ErrorBody),
        (status = 409, description = "CONFLICT: the campaign is PAUSED (resume it) or CLOSED (closing is final), or an Idempotency-Key in flight", body = ErrorBody),
        (status = 429, description = "RATE_LIMITED: hourly `provision` quota", body = ErrorBody),
    )
)]
pub async fn launch_campaign<P: Platform>(
    state: Data<AppState<P>>,
    req: HttpRequest,
    id: Path<String>,
) -> Result<HttpResponse, ApiError> {
    let Admitted { principal, subject, rate } =
        admit(&state, &req, &[Scope::PROVISION], QuotaFamily::Provision).await?;
    let id = campaign_id(&id)?;
    let workspace = workspace_header(&req).map(str::to_owned);
    idempotent(&state, &req, &subject, &serde_json::json!({ "id": id }), rate, || async {
        let overview = state.campaigns.launch(&principal, workspace.as_deref(), id).await?;
        let body = to_value(&CampaignBody::new(
            overview,
            &OutreachCounts::default(),
            state.campaigns.survey_url(),
            state.campaigns.message_channels(),
        ))?;
        Ok(Reply { status: StatusCode::OK, replay_body: body.clone(), body })
    })
    .await
}
