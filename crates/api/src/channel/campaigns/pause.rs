//! `POST /campaigns/{id}/pause`.

use actix_web::web::{Data, Path};
use actix_web::{HttpRequest, HttpResponse};
use pulse_domain::campaigns::models::Transition;

use super::change_status;
use super::json::CampaignBody;
use crate::error::{ApiError, ErrorBody};
use crate::state::{AppState, Platform};

/// Pause a collecting campaign: while `PAUSED` no link is minted (409 CAMPAIGN_NOT_COLLECTING), no
/// session starts (the page says it is not collecting) and no app registers (409); sessions
/// started before may still finish. Pausing a paused campaign answers it as it is.
#[utoipa::path(
    post, path = "/api/v1/channel/campaigns/{id}/pause", operation_id = "pauseCampaign", tag = "campaigns",
    security(("apiKey" = []), ("bearer" = [])),
    params(("id" = Uuid, Path), ("X-SVC-Workspace" = Option<Uuid>, Header), ("Idempotency-Key" = Option<String>, Header)),
    responses(
        (status = 200, description = "The campaign, now PAUSED", body = CampaignBody),
        (status = 400, description = "WORKSPACE_REQUIRED", body = ErrorBody),
        (status = 401, description = "UNAUTHENTICATED", body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSION (channel:provision) or NO_ORG", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: unknown campaign or another workspace's", body = ErrorBody),
        (status = 409, description = "CONFLICT: a DRAFT campaign (launch it) or a CLOSED one (closing is final); a concurrent change of its status; or an Idempotency-Key in flight", body = ErrorBody),
        (status = 429, description = "RATE_LIMITED: hourly `provision` quota", body = ErrorBody),
    )
)]
pub async fn pause_campaign<P: Platform>(
    state: Data<AppState<P>>,
    req: HttpRequest,
    id: Path<String>,
) -> Result<HttpResponse, ApiError> {
    change_status(&state, &req, &id, Transition::Pause).await
}
