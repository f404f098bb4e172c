//! Launch keys (two slots per campaign) and the campaign's signing setting.

use actix_web::http::StatusCode;
use actix_web::web::{Bytes, Data, Path};
use actix_web::{HttpRequest, HttpResponse};
use pulse_domain::Error;
use pulse_domain::campaigns::models::LaunchKey;
use pulse_domain::ids::LaunchKeyId;
use pulse_domain::quota::models::QuotaFamily;
use pulse_domain::studio::models::{PERMISSION_BUILD, PERMISSION_VIEW};
use secrecy::ExposeSecret as _;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa::ToSchema;
use uuid::Uuid;

use super::{authenticate, user_subject};
use crate::channel::campaigns::campaign_id;
use crate::error::{ApiError, ErrorBody};
use crate::request::{Reply, idempotent, json_response, no_store, parse_json};
use crate::state::{AppState, Platform};

/// A launch key. Its secret is returned once, on creation; never on a replay or a read.
// No `Debug`: the body may hold the secret.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LaunchKeyBody {
    /// Also the JWT header `kid` of tokens signed with it.
    pub id: Uuid,
    /// 1 or 2.
    pub slot: u8,
    /// The first 8 hex characters of the SHA-256 of the secret.
    pub fingerprint: String,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339::option")]
    pub last_used_at: Option<OffsetDateTime>,
    /// The HMAC secret as an ASCII string; sign with its UTF-8 bytes. Only in the 201 answer.
    pub secret: Option<String>,
    /// The same as `id`.
    pub kid: String,
}

impl LaunchKeyBody {
    fn new(key: &LaunchKey, secret: Option<String>) -> Self {
        Self {
            id: key.id.0,
            slot: key.slot,
            fingerprint: key.fingerprint.clone(),
            created_at: key.created_at,
            last_used_at: key.last_used_at,
            secret,
            kid: key.id.to_string(),
        }
    }
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LaunchKeyListBody {
    pub items: Vec<LaunchKeyBody>,
    pub require_signed: bool,
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LaunchAccessBody {
    /// When true, public starts need a signed launch token (or a minted link).
    pub require_signed: bool,
}

/// The campaign's active launch keys (never their secrets) and its signing setting.
#[utoipa::path(
    get, path = "/api/v1/campaigns/{campaignId}/launch-keys", tag = "studio",
    security(("studio" = [])),
    params(("campaignId" = Uuid, Path)),
    responses(
        (status = 200, body = LaunchKeyListBody),
        (status = 401, description = "UNAUTHENTICATED: no, invalid or expired Studio token", body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSION (campaign:view)", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: unknown campaign or another business's", body = ErrorBody),
        (status = 429, description = "RATE_LIMITED: hourly `studio` quota", body = ErrorBody),
    )
)]
pub async fn list<P: Platform>(
    state: Data<AppState<P>>,
    req: HttpRequest,
    path: Path<String>,
) -> Result<HttpResponse, ApiError> {
    let session = authenticate(&state, &req)?;
    session.require_permission(PERMISSION_VIEW)?;
    let rate = state.quotas.hit(&user_subject(&session), QuotaFamily::Studio).await?;
    let list = state.launch_keys.list(&session, campaign_id(&path)?).await?;
    let body = LaunchKeyListBody {
        items: list.keys.iter().map(|k| LaunchKeyBody::new(k, None)).collect(),
        require_signed: list.require_signed,
    };
    Ok(json_response(StatusCode::OK, &body, rate))
}

/// Create a launch key in a free slot. The secret is in this answer only; a replay with the same
/// `Idempotency-Key` answers 200 with the same key and `secret: null`.
#[utoipa::path(
    post, path = "/api/v1/campaigns/{campaignId}/launch-keys", tag = "studio",
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

/// Revoke a launch key; tokens signed with it stop working at once.
#[utoipa::path(
    delete, path = "/api/v1/campaigns/{campaignId}/launch-keys/{keyId}", tag = "studio",
    security(("studio" = [])),
    params(("campaignId" = Uuid, Path), ("keyId" = Uuid, Path)),
    responses(
        (status = 204, description = "Revoked"),
        (status = 401, description = "UNAUTHENTICATED", body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSION (campaign:build)", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: unknown campaign or key, or a key already revoked", body = ErrorBody),
        (status = 429, description = "RATE_LIMITED: hourly `studio` quota", body = ErrorBody),
    )
)]
pub async fn revoke<P: Platform>(
    state: Data<AppState<P>>,
    req: HttpRequest,
    path: Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let session = authenticate(&state, &req)?;
    session.require_permission(PERMISSION_BUILD)?;
    state.quotas.hit(&user_subject(&session), QuotaFamily::Studio).await?;
    let (campaign, key) = path.into_inner();
    let campaign = campaign_id(&campaign)?;
    let key: LaunchKeyId = key.parse().map_err(|_| ApiError(Error::not_found("launch key")))?;
    state.launch_keys.revoke(&session, campaign, key).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Require (or stop requiring) signed launches for the campaign's public starts.
#[utoipa::path(
    put, path = "/api/v1/campaigns/{campaignId}/launch-access", tag = "studio",
    security(("studio" = [])),
    params(("campaignId" = Uuid, Path)),
    request_body = LaunchAccessBody,
    responses(
        (status = 200, description = "The setting now in force", body = LaunchAccessBody),
        (status = 400, description = "VALIDATION_FAILED: requireSigned missing or not a boolean", body = ErrorBody),
        (status = 401, description = "UNAUTHENTICATED", body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSION (campaign:build)", body = ErrorBody),
        (status = 404, description = "NOT_FOUND", body = ErrorBody),
        (status = 429, description = "RATE_LIMITED: hourly `studio` quota", body = ErrorBody),
    )
)]
pub async fn set_access<P: Platform>(
    state: Data<AppState<P>>,
    req: HttpRequest,
    path: Path<String>,
    body: Bytes,
) -> Result<HttpResponse, ApiError> {
    let session = authenticate(&state, &req)?;
    session.require_permission(PERMISSION_BUILD)?;
    let rate = state.quotas.hit(&user_subject(&session), QuotaFamily::Studio).await?;
    let campaign = campaign_id(&path)?;
    let request: LaunchAccessBody = parse_json(&req, &body)?;
    let require_signed = state.launch_keys.set_require_signed(&session, campaign, request.require_signed).await?;
    Ok(json_response(StatusCode::OK, &LaunchAccessBody { require_signed }, rate))
}
