//! `POST /campaigns/{id}/close`.

use actix_web::web::{Data, Path};
use actix_web::{HttpRequest, HttpResponse};
use pulse_domain::campaigns::models::Transition;

use super::change_status;
use super::json::CampaignBody;
use crate::error::{ApiError, ErrorBody};
use crate::state::{AppState, Platform};

/// Close a campaign for good: it collects nothing again (links, starts and app registers are
/// refused as when paused); sessions started before may still finish, and results and exports stay
/// readable. Closing a closed campaign answers it as it is.
#[utoipa::path(
    post, path = "/api/v1/channel/campaigns/{id}/close", operation_id = "closeCampaign", tag = "campaigns",
    security(("apiKey" = []), ("bearer" = [])),
    params(("id" = Uuid, Path), ("X-SVC-Workspace" = Option<Uuid>, Header), ("Idempotency-Key" = Option<String>, Header)),
    responses(
        (status = 200, description = "The campaign, now CLOSED", body = CampaignBody),
        (status = 400, description = "WORKSPACE_REQUIRED", body = ErrorBody),
        (status = 401, description = "UNAUTHENTICATED", body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSION (channel:provision) or NO_ORG", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: unknown campaign or another workspace's", body = ErrorBody),
        (status = 409, description = "CONFLICT: a concurrent change of its status, or an Idempotency-Key in flight", body = ErrorBody),
        (status = 429, description = "RATE_LIMITED: hourly `provision` quota", body = ErrorBody),
    )
)]
pub async fn close_campaign<P: Platform>(
    state: Data<AppState<P>>,
    req: HttpRequest,
    id: Path<String>,
) -> Result<HttpResponse, ApiError> {
    change_status(&state, &req, &id, Transition::Close).await
}
