//! `POST /campaigns/{campaignId}/launch-keys`: the secret is in this answer only.

use actix_web::http::StatusCode;
use actix_web::web::{Data, Path};
use actix_web::{HttpRequest, HttpResponse};
use pulse_domain::Error;
use pulse_domain::quota::models::QuotaFamily;
use pulse_domain::studio::models::PERMISSION_BUILD;
use secrecy::ExposeSecret as _;

use super::json::LaunchKeyBody;
use crate::channel::campaigns::campaign_id;
use crate::error::{ApiError, ErrorBody};
use crate::request::{Reply, idempotent, no_store};
use crate::state::{AppState, Platform};
use crate::studio::{authenticate, user_subject};

/// Create a launch key in a free slot. The secret is in this answer only; a replay with the same
/// `Idempotency-Key` answers 200 with the same key and `secret: null`.
#[utoipa::path(
    post, path = "/api/v1/campaigns/{campaignId}/launch-keys", operation_id = "createLaunchKey", tag = "studio",
    security(("studio" = [])),
    params(("campaignId" = Uuid, Path), ("Idempotency-Key" = Option<String>, Header)),
    responses(
        (status = 201, description = "Created, with its secret", body = LaunchKeyBody),
        (status = 200, description = "Replay of the same Idempotency-Key: the same key, `secret: null`", body = LaunchKeyBody),
        (status = 401, description = "UNAUTHENTICATED", body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSION (campaign:build)", body = ErrorBody),
        (status = 404, description = "NOT_FOUND", body = ErrorBody),
        (status = 409, description = "LAUNCH_KEY_SLOTS_FULL: both slots in use; CONFLICT: Idempotency-Key in flight", body = ErrorBody),
        (status = 429, description = "RATE_LIMITED: hourly `studio` quota", body = ErrorBody),
    )
)]
pub async fn create<P: Platform>(
    state: Data<AppState<P>>,
    req: HttpRequest,
    path: Path<String>,
) -> Result<HttpResponse, ApiError> {
    let session = authenticate(&state, &req)?;
    session.require_permission(PERMISSION_BUILD)?;
    let rate = state.quotas.hit(&user_subject(&session), QuotaFamily::Studio).await?;
    let campaign = campaign_id(&path)?;
    // Keys are scoped per campaign and Studio user (decisions §5).
    let scope = format!("studio:{}:{campaign}", session.user_id);
    let response = idempotent(&state, &req, &scope, &serde_json::Value::Null, rate, || async {
        let (key, secret) = state.launch_keys.create(&session, campaign).await?;
        let body = serde_json::to_value(LaunchKeyBody::new(&key, Some(secret.expose_secret().to_owned())))
            .map_err(Error::internal)?;
        let replay_body = serde_json::to_value(LaunchKeyBody::new(&key, None)).map_err(Error::internal)?;
        Ok(Reply { status: StatusCode::CREATED, body, replay_body })
    })
    .await?;
    Ok(no_store(response))
}
