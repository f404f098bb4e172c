//! `POST CH/webhooks/{id}/deliveries/{deliveryId}/redeliver`: one delivery sent again.

use actix_web::http::StatusCode;
use actix_web::web::{Data, Path};
use actix_web::{HttpRequest, HttpResponse};
use pulse_domain::Error;
use pulse_domain::ids::DeliveryId;
use pulse_domain::quota::models::QuotaFamily;

use super::json::DeliveryBody;
use super::{admitted_in, webhook_id};
use crate::channel::Admitted;
use crate::error::{ApiError, ErrorBody};
use crate::request::{json_response, workspace_header};
use crate::state::{AppState, Platform};

/// Send a delivery again, with the same event id and delivery id. A DEAD or DELIVERED one becomes
/// PENDING, due now, with a fresh retry schedule, and the request joins its `redeliveries`; a
/// PENDING or FAILED one is made due now (unless it is being sent). No body.
#[utoipa::path(
    post, path = "/api/v1/channel/webhooks/{id}/deliveries/{deliveryId}/redeliver",
    operation_id = "redeliverWebhookDelivery", tag = "webhooks",
    security(("apiKey" = []), ("bearer" = [])),
    params(("id" = Uuid, Path), ("deliveryId" = Uuid, Path), ("X-SVC-Workspace" = Option<Uuid>, Header)),
    responses(
        (status = 202, description = "The delivery, queued to be sent again", body = DeliveryBody),
        (status = 400, description = "WORKSPACE_REQUIRED", body = ErrorBody),
        (status = 401, description = "UNAUTHENTICATED", body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSION (channel:webhooks) or NO_ORG", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: unknown endpoint or delivery (one whose event is past its 30 days may have been purged), or another workspace's", body = ErrorBody),
        (status = 409, description = "CONFLICT: the endpoint is inactive; re-enable it with PATCH isActive true first", body = ErrorBody),
        (status = 429, description = "RATE_LIMITED: `webhook_redelivery`", body = ErrorBody),
    )
)]
pub async fn redeliver<P: Platform>(
    state: Data<AppState<P>>,
    req: HttpRequest,
    path: Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let Admitted { principal, rate, .. } = admitted_in(&state, &req, QuotaFamily::WebhookRedelivery).await?;
    let (id, delivery) = path.into_inner();
    let id = webhook_id(&id)?;
    let delivery: DeliveryId = delivery.parse().map_err(|_| ApiError(Error::not_found("delivery")))?;
    let delivery = state.webhooks.redeliver(&principal, workspace_header(&req), id, delivery).await?;
    Ok(json_response(StatusCode::ACCEPTED, &DeliveryBody::from(delivery), rate))
}
