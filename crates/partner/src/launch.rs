use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde::Serialize;

/// How far ahead a launch token's `exp` may be; Pulse refuses a token that lives longer.
pub const MAX_LAUNCH_TOKEN_LIFETIME_SECS: i64 = 30 * 60;

/// The claims of a launch token (`docs/signed-launches.md`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LaunchClaims {
    /// The campaign's public code or its id.
    pub campaign: String,
    /// Expiry, in Unix seconds: in the future, at most 30 minutes ahead.
    pub exp: i64,
    /// A unique id of 8 to 64 characters; each token opens one session.
    pub jti: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lang: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub app: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub app_version: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub device: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub os: Option<String>,
    /// Your user id; Pulse keeps only a keyed digest of it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uid: Option<String>,
    /// Up to 8 tags, to filter results by.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
}

/// Why a token was not signed: Pulse would refuse it.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum LaunchTokenError {
    #[error("jti must be 8 to 64 characters without control characters")]
    Jti,
    #[error("at most 8 tags")]
    Tags,
    #[error("exp must be after now and at most {MAX_LAUNCH_TOKEN_LIFETIME_SECS} seconds ahead")]
    Expiry,
    #[error("campaign must name the campaign's code or id")]
    Campaign,
    #[error("the token could not be signed: {0}")]
    Signing(String),
}

/// Signs `claims` as Pulse checks a launch token: HS256, `kid` = the launch key's id, keyed with
/// the UTF-8 bytes of its secret. `now` (Unix seconds) checks `exp`; append the token to the
/// campaign's link as `?lt=`.
///
/// # Errors
/// A claim Pulse would refuse ([`LaunchTokenError`]), so a bad token never reaches an app.
pub fn sign_launch_token(
    launch_key_id: &str,
    launch_key_secret: &str,
    claims: &LaunchClaims,
    now: i64,
) -> Result<String, LaunchTokenError> {
    let jti_chars = claims.jti.chars().count();
    if !(8..=64).contains(&jti_chars) || claims.jti.chars().any(char::is_control) {
        return Err(LaunchTokenError::Jti);
    }
    if claims.tags.len() > 8 {
        return Err(LaunchTokenError::Tags);
    }
    if claims.exp <= now || claims.exp > now + MAX_LAUNCH_TOKEN_LIFETIME_SECS {
        return Err(LaunchTokenError::Expiry);
    }
    if claims.campaign.is_empty() {
        return Err(LaunchTokenError::Campaign);
    }
    let mut header = Header::new(Algorithm::HS256);
    header.kid = Some(launch_key_id.to_owned());
    jsonwebtoken::encode(&header, claims, &EncodingKey::from_secret(launch_key_secret.as_bytes()))
        .map_err(|e| LaunchTokenError::Signing(e.to_string()))
}
