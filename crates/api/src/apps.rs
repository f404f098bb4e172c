//! The app routes, `/api/v1/apps`: mobile apps with no secret register an install against a
//! campaign's public code and keep their device alive with heartbeats.

use actix_web::http::StatusCode;
use actix_web::web::{self, Bytes, Data};
use actix_web::{HttpRequest, HttpResponse};
use pulse_domain::Error;
use pulse_domain::apps::models::{HEARTBEAT_INTERVAL, HeartbeatInput, RegisterInput, UserInput};
use pulse_domain::quota::models::QuotaFamily;
use secrecy::ExposeSecret as _;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa::ToSchema;

use crate::error::{ApiError, ErrorBody};
use crate::request::{Reply, idempotent, json_response, network_subject, no_store, parse_json};
use crate::state::{AppState, Platform};

pub const PREFIX: &str = "/api/v1/apps";

pub fn configure<P: Platform>(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::scope(PREFIX)
            .service(web::resource("/register").route(web::post().to(register::<P>)))
            .service(web::resource("/heartbeat").route(web::post().to(heartbeat::<P>))),
    );
}

/// The person using the app. Without it the device is `anonymous`; with it `self_declared`, or
/// `verified` with a valid `userHash`.
// No `Debug`: contact details ride in it.
#[derive(Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RegisterUser {
    /// The partner's id of the person.
    #[schema(max_length = 128)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub external_id: Option<String>,
    /// Stored encrypted, never returned.
    #[schema(format = "email")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
    /// E.164; stored encrypted, never returned.
    #[schema(example = "+14155550123")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phone: Option<String>,
    /// Hex HMAC-SHA256 of `externalId`, keyed with an active launch-key secret of the campaign;
    /// computed on the partner's server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_hash: Option<String>,
}

/// Unknown fields are ignored, so older and newer SDKs keep working.
// No `Debug`: the refresh token and contact details ride in it.
#[derive(Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RegisterRequest {
    /// The campaign's public code.
    pub campaign_code: String,
    /// Bundle id or package name.
    #[schema(max_length = 128)]
    pub app_id: String,
    /// `ios`, `android`, `web` or `other`.
    #[schema(example = "ios")]
    pub platform: String,
    #[schema(max_length = 32)]
    pub app_version: String,
    #[schema(max_length = 64)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_model: Option<String>,
    #[schema(max_length = 32)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub os_version: Option<String>,
    /// BCP-47 tag of the app UI language (`en_US` is read as `en-US`).
    #[schema(max_length = 24)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub locale: Option<String>,
    /// The session language, used when `locale` is not sent.
    #[schema(max_length = 24)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    /// Honoured only together with a valid `refreshToken`; an id alone is ignored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_id: Option<String>,
    /// Proves ownership of `deviceId`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_token: Option<String>,
    /// Persisted across re-installs (IDFV, Android ID); finds the same device again.
    #[schema(max_length = 128)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vendor_device_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user: Option<RegisterUser>,
    /// Flat string labels: at most 32 keys, values at most 256 characters, 2 KB in all.
    #[schema(value_type = Option<Object>)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<serde_json::Map<String, serde_json::Value>>,
}

/// A registered device. Store `deviceId` and `refreshToken`; keep `accessToken` in memory.
// No `Debug`: it holds tokens.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RegisterBody {
    pub device_id: uuid::Uuid,
    /// Null for an anonymous device.
    pub user_id: Option<uuid::Uuid>,
    /// `anonymous`, `self_declared` or `verified`.
    #[schema(example = "verified")]
    pub identity: &'static str,
    /// Short-lived; send it to the page as `#dt=<accessToken>`.
    pub access_token: String,
    #[serde(with = "time::serde::rfc3339")]
    pub access_token_expires_at: OffsetDateTime,
    /// Secret; every register issues a new one and the previous one stops working.
    pub refresh_token: String,
    #[serde(with = "time::serde::rfc3339")]
    pub refresh_token_expires_at: OffsetDateTime,
    /// v1: signed and opaque; sent as `?inst=` on the link and on v1 heartbeats.
    pub install_id: String,
    pub heartbeat_interval_secs: i64,
    /// When `installId` expires.
    #[serde(with = "time::serde::rfc3339")]
    pub expires_at: OffsetDateTime,
}

/// Register an install of an app against a campaign, or register the same device again. A
/// replay of the same `Idempotency-Key` and body answers 200 with the original body, tokens
/// included (use a random UUID as the key).
#[utoipa::path(
    post, path = "/api/v1/apps/register", tag = "apps",
    params(("Idempotency-Key" = Option<String>, Header, description = "Replays the same answer for 24 hours (keys are per campaign code)")),
    request_body = RegisterRequest,
    responses(
        (status = 201, description = "Registered", body = RegisterBody),
        (status = 200, description = "Replay of the same Idempotency-Key and body (header `Idempotency-Replayed: true`)", body = RegisterBody),
        (status = 400, description = "VALIDATION_FAILED naming the field", body = ErrorBody),
        (status = 401, description = "USER_HASH_INVALID: userHash did not verify, or a verified person was sent without one", body = ErrorBody),
        (status = 403, description = "INSTALL_BLOCKED: the device is blocked by the workspace", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: unknown campaign code", body = ErrorBody),
        (status = 409, description = "CAMPAIGN_NOT_COLLECTING, or CONFLICT (Idempotency-Key reused with another body or in flight; a concurrent register of the same device)", body = ErrorBody),
        (status = 429, description = "RATE_LIMITED: too many installs from this network this hour (`install`)", body = ErrorBody),
    )
)]
pub async fn register<P: Platform>(
    state: Data<AppState<P>>,
    req: HttpRequest,
    body: Bytes,
) -> Result<HttpResponse, ApiError> {
    let rate = state.quotas.hit(&network_subject(&req, &state.network), QuotaFamily::Install).await?;
    let request: RegisterRequest = parse_json(&req, &body)?;
    // The code names the idempotency scope, so one that names no campaign stops here.
    if !(1..=64).contains(&request.campaign_code.len()) || request.campaign_code.chars().any(char::is_control) {
        return Err(ApiError(Error::not_found("campaign")));
    }
    let canonical = serde_json::to_value(&request).map_err(|e| ApiError(Error::internal(e)))?;
    let scope = format!("register:{}", request.campaign_code);
    let input = RegisterInput {
        campaign_code: request.campaign_code,
        app_id: request.app_id,
        platform: request.platform,
        app_version: request.app_version,
        device_model: request.device_model,
        os_version: request.os_version,
        locale: request.locale,
        language: request.language,
        device_id: request.device_id,
        refresh_token: request.refresh_token,
        vendor_device_id: request.vendor_device_id,
        user: request.user.map(|u| UserInput {
            external_id: u.external_id,
            email: u.email,
            phone: u.phone,
            user_hash: u.user_hash,
        }),
        metadata: request.metadata,
    };
    let response = idempotent(&state, &req, &scope, &canonical, rate, || async {
        let registration = state.apps.register(input).await?;
        let tokens = registration.tokens;
        let (Some(install_id), Some(expires_at), Some(access_token), Some(access_expires_at)) =
            (tokens.install_id, tokens.install_expires_at, tokens.access_token, tokens.access_expires_at)
        else {
            return Err(Error::internal("a register issued no install id or access token"));
        };
        let body = RegisterBody {
            device_id: registration.device_id.0,
            user_id: registration.user_id.map(|u| u.0),
            identity: registration.identity.as_str(),
            access_token: access_token.expose_secret().to_owned(),
            access_token_expires_at: access_expires_at,
            refresh_token: registration.refresh_token.expose_secret().to_owned(),
            refresh_token_expires_at: registration.refresh_expires_at,
            install_id: install_id.expose_secret().to_owned(),
            heartbeat_interval_secs: HEARTBEAT_INTERVAL.whole_seconds(),
            expires_at,
        };
        let body = serde_json::to_value(body).map_err(Error::internal)?;
        Ok(Reply { status: StatusCode::CREATED, replay_body: body.clone(), body })
    })
    .await?;
    Ok(no_store(response))
}

/// v2: `deviceId` + `refreshToken`. v1: `installId` + `appVersion`.
// No `Debug`: the refresh token rides in it.
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct HeartbeatRequest {
    /// v2.
    #[serde(default)]
    pub device_id: Option<String>,
    /// v2; works even when the access token has expired.
    #[serde(default)]
    pub refresh_token: Option<String>,
    /// v1: the signed install id.
    #[serde(default)]
    pub install_id: Option<String>,
    /// Required with `installId` (v1); optional with v2.
    #[schema(max_length = 32)]
    #[serde(default)]
    pub app_version: Option<String>,
    #[schema(max_length = 32)]
    #[serde(default)]
    pub os_version: Option<String>,
    #[schema(max_length = 24)]
    #[serde(default)]
    pub locale: Option<String>,
}

// No `Debug`: it holds tokens.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct HeartbeatBody {
    /// Always true.
    pub ok: bool,
    pub heartbeat_interval_secs: i64,
    /// v2 only: fresh on every call. A v1 install id never mints one (it travels in URLs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub access_token: Option<String>,
    #[serde(with = "time::serde::rfc3339::option", skip_serializing_if = "Option::is_none")]
    pub access_token_expires_at: Option<OffsetDateTime>,
    /// v2 only: the refresh token's expiry, moved forward by this heartbeat.
    #[serde(with = "time::serde::rfc3339::option", skip_serializing_if = "Option::is_none")]
    pub refresh_token_expires_at: Option<OffsetDateTime>,
    /// v1: present only when the install id was close to expiry; the new one replaces the old.
    /// v2: the install id of the device's latest register.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub install_id: Option<String>,
    /// When the install id in force expires.
    #[serde(with = "time::serde::rfc3339::option", skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<OffsetDateTime>,
}

/// Keep a device alive: on every app start and every `heartbeatIntervalSecs` while open.
#[utoipa::path(
    post, path = "/api/v1/apps/heartbeat", tag = "apps",
    request_body = HeartbeatRequest,
    responses(
        (status = 200, body = HeartbeatBody),
        (status = 400, description = "VALIDATION_FAILED: neither (or both) of v1 and v2, or a field rule", body = ErrorBody),
        (status = 401, description = "INSTALL_INVALID (v1: install id forged, expired, another campaign's, unknown or blocked) or DEVICE_AUTH_INVALID (v2: unknown device, wrong, expired or replaced refresh token, or blocked); register again", body = ErrorBody),
        (status = 429, description = "RATE_LIMITED: this device (v2) or install (v1) beats more than once every 10 s beyond a burst of 3", body = ErrorBody),
    )
)]
pub async fn heartbeat<P: Platform>(
    state: Data<AppState<P>>,
    req: HttpRequest,
    body: Bytes,
) -> Result<HttpResponse, ApiError> {
    let request: HeartbeatRequest = parse_json(&req, &body)?;
    let input = HeartbeatInput {
        device_id: request.device_id,
        refresh_token: request.refresh_token,
        install_id: request.install_id,
        app_version: request.app_version,
        os_version: request.os_version,
        locale: request.locale,
    };
    let beat = state.apps.heartbeat(input).await?;
    let body = HeartbeatBody {
        ok: true,
        heartbeat_interval_secs: HEARTBEAT_INTERVAL.whole_seconds(),
        access_token: beat.tokens.access_token.map(|t| t.expose_secret().to_owned()),
        access_token_expires_at: beat.tokens.access_expires_at,
        refresh_token_expires_at: beat.refresh_expires_at,
        install_id: beat.tokens.install_id.map(|i| i.expose_secret().to_owned()),
        expires_at: beat.install_expires_at,
    };
    Ok(no_store(json_response(StatusCode::OK, &body, None)))
}
