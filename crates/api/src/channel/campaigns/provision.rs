//! `POST /campaigns`.

use actix_web::http::StatusCode;
use actix_web::web::{Bytes, Data};
use actix_web::{HttpRequest, HttpResponse};
use pulse_domain::outreach::models::OutreachCounts;
use pulse_domain::quota::models::QuotaFamily;
use pulse_domain::tenancy::models::Scope;

use super::json::{CampaignBody, ProvisionRequest, ProvisionResponse, to_value};
use crate::channel::{Admitted, admit};
use crate::error::{ApiError, ErrorBody};
use crate::request::{Reply, idempotent, parse_json, workspace_header};
use crate::state::{AppState, Platform};

/// Provision a campaign: generate a survey from a brief (or reuse one), publish it and create
/// the campaign as a `DRAFT`, in one transaction.
#[utoipa::path(
    post, path = "/api/v1/channel/campaigns", operation_id = "provisionCampaign", tag = "campaigns",
    security(("apiKey" = []), ("bearer" = [])),
    params(
        ("X-SVC-Workspace" = Option<Uuid>, Header, description = "Required when the key reaches more than one workspace"),
        ("Idempotency-Key" = Option<String>, Header, description = "Makes the POST replay-safe for 24 hours"),
    ),
    request_body = ProvisionRequest,
    responses(
        (status = 201, description = "Provisioned", body = ProvisionResponse),
        (status = 200, description = "Idempotent replay (`Idempotency-Replayed: true`, `created: false`)", body = ProvisionResponse),
        (status = 400, description = "VALIDATION_FAILED naming the field (also neither or both of brief and surveyId, or a language the generator cannot write); WORKSPACE_REQUIRED", body = ErrorBody),
        (status = 401, description = "UNAUTHENTICATED", body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSION (channel:provision) or NO_ORG", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: unknown or foreign workspace, or a survey of another workspace", body = ErrorBody),
        (status = 409, description = "CONFLICT: Idempotency-Key reused with another body or in flight", body = ErrorBody),
        (status = 429, description = "RATE_LIMITED: hourly `provision` quota", body = ErrorBody),
    )
)]
pub async fn provision<P: Platform>(
    state: Data<AppState<P>>,
    req: HttpRequest,
    body: Bytes,
) -> Result<HttpResponse, ApiError> {
    let Admitted { principal, subject, rate } =
        admit(&state, &req, &[Scope::PROVISION], QuotaFamily::Provision).await?;
    let request: ProvisionRequest = parse_json(&req, &body)?;
    let canonical = to_value(&request)?;
    let workspace = workspace_header(&req).map(str::to_owned);
    idempotent(&state, &req, &subject, &canonical, rate, || async {
        let overview = state.campaigns.provision(&principal, workspace.as_deref(), request.into()).await?;
        let campaign = to_value(&CampaignBody::new(
            overview,
            &OutreachCounts::default(),
            state.campaigns.survey_url(),
            state.campaigns.message_channels(),
        ))?;
        Ok(Reply {
            status: StatusCode::CREATED,
            body: serde_json::json!({ "campaign": campaign, "created": true }),
            replay_body: serde_json::json!({ "campaign": campaign, "created": false }),
        })
    })
    .await
}
