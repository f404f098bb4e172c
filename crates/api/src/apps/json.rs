//! The request and response bodies of the app routes, and their conversions to and from the
//! domain.

use pulse_domain::Error;
use pulse_domain::apps::models::{
    HEARTBEAT_INTERVAL, Heartbeat, HeartbeatInput, RegisterInput, Registration, UserInput,
};
use secrecy::ExposeSecret as _;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa::ToSchema;

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

impl From<RegisterUser> for UserInput {
    fn from(u: RegisterUser) -> Self {
        Self { external_id: u.external_id, email: u.email, phone: u.phone, user_hash: u.user_hash }
    }
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

impl From<RegisterRequest> for RegisterInput {
    fn from(r: RegisterRequest) -> Self {
        Self {
            campaign_code: r.campaign_code,
            app_id: r.app_id,
            platform: r.platform,
            app_version: r.app_version,
            device_model: r.device_model,
            os_version: r.os_version,
            locale: r.locale,
            language: r.language,
            device_id: r.device_id,
            refresh_token: r.refresh_token,
            vendor_device_id: r.vendor_device_id,
            user: r.user.map(UserInput::from),
            metadata: r.metadata,
        }
    }
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

impl TryFrom<Registration> for RegisterBody {
    type Error = Error;

    fn try_from(registration: Registration) -> Result<Self, Error> {
        let tokens = registration.tokens;
        let (Some(install_id), Some(expires_at), Some(access_token), Some(access_expires_at)) =
            (tokens.install_id, tokens.install_expires_at, tokens.access_token, tokens.access_expires_at)
        else {
            return Err(Error::internal("a register issued no install id or access token"));
        };
        Ok(Self {
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
        })
    }
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

impl From<HeartbeatRequest> for HeartbeatInput {
    fn from(r: HeartbeatRequest) -> Self {
        Self {
            device_id: r.device_id,
            refresh_token: r.refresh_token,
            install_id: r.install_id,
            app_version: r.app_version,
            os_version: r.os_version,
            locale: r.locale,
        }
    }
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

impl From<Heartbeat> for HeartbeatBody {
    fn from(beat: Heartbeat) -> Self {
        Self {
            ok: true,
            heartbeat_interval_secs: HEARTBEAT_INTERVAL.whole_seconds(),
            access_token: beat.tokens.access_token.map(|t| t.expose_secret().to_owned()),
            access_token_expires_at: beat.tokens.access_expires_at,
            refresh_token_expires_at: beat.refresh_expires_at,
            install_id: beat.tokens.install_id.map(|i| i.expose_secret().to_owned()),
            expires_at: beat.install_expires_at,
        }
    }
}
