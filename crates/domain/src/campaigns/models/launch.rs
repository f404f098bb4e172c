//! Launching respondents: minted single-use links (`POST /launch`), launch keys, and the signed
//! launch tokens partners make with them.

use crate::campaigns::models::{LanguageTag, checked_text};
use crate::error::{Error, ErrorCode, Result};
use crate::ids::{CampaignId, LaunchKeyId, LaunchLinkId, RespondentId};
use serde_json::{Map, Value};
use time::{Duration, OffsetDateTime};

/// How long a minted link stays usable.
pub const LINK_LIFETIME: Duration = Duration::minutes(10);

/// How far ahead a partner-signed token's `exp` may lie.
pub const MAX_TOKEN_LIFETIME: Duration = Duration::minutes(30);

pub const LAUNCH_KEY_SLOTS: u8 = 2;

/// Launch-key secrets: 48 base62 characters (about 285 bits).
pub const LAUNCH_KEY_SECRET_LEN: usize = 48;

/// Nonces of `/s/<code>/<nonce>` links: 32 base62 characters (about 190 bits).
pub const NONCE_LEN: usize = 32;

/// The `kid` of tokens the service signs itself for minted links.
pub const SERVER_KID: &str = "pulse-link";

pub const DEVICE_KEYS: [&str; 14] = [
    "platform",
    "osName",
    "osVersion",
    "deviceVendor",
    "deviceModel",
    "browserName",
    "browserVersion",
    "appId",
    "appVersion",
    "appBuild",
    "sdkVersion",
    "locale",
    "timezone",
    "networkType",
];

pub const MAX_ATTRIBUTES: usize = 64;

pub const MAX_ATTRIBUTES_BYTES: usize = 8 * 1024;

/// `POST /launch` as sent.
#[derive(Clone, Debug, PartialEq)]
pub struct LaunchInput {
    pub campaign_id: CampaignId,
    pub external_user_ref: Option<String>,
    pub language: Option<String>,
    pub device: Option<Map<String, Value>>,
    pub attributes: Option<Map<String, Value>>,
}

/// The context a link carries to the session it starts.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LaunchContext {
    pub device: Map<String, Value>,
    pub attributes: Map<String, Value>,
}

/// A validated launch request.
#[derive(Clone, Debug, PartialEq)]
pub struct LaunchRequest {
    pub campaign_id: CampaignId,
    pub external_user_ref: Option<String>,
    pub language: Option<String>,
    pub context: LaunchContext,
}

impl LaunchRequest {
    /// # Errors
    /// `ValidationFailed` naming the field: `externalUserRef` over 200, `language` outside 2 to
    /// 24 characters, a `device` key outside the allow-list or a value that is not a string of at
    /// most 64 characters, `attributes` over 64 keys or 8 KB of JSON or with a non-primitive value.
    pub fn parse(input: LaunchInput) -> Result<Self> {
        let external_user_ref =
            input.external_user_ref.map(|r| checked_text("externalUserRef", &r, 0, 200, false)).transpose()?;
        if let Some(language) = &input.language
            && !(2..=24).contains(&language.chars().count())
        {
            return Err(Error::validation("language", "must be 2 to 24 characters"));
        }
        let device = input.device.unwrap_or_default();
        for (key, value) in &device {
            if !DEVICE_KEYS.contains(&key.as_str()) {
                // The refusal lists what is allowed, never the key sent (docs/errors.md).
                return Err(Error::validation(
                    "device",
                    format!("holds a key that is not one of: {}", DEVICE_KEYS.join(", ")),
                ));
            }
            match value {
                Value::String(s) if s.chars().count() <= 64 && !s.chars().any(char::is_control) => {}
                _ => {
                    return Err(Error::validation(
                        &format!("device.{key}"),
                        "must be a string of at most 64 characters without control characters",
                    ));
                }
            }
        }
        let attributes = input.attributes.unwrap_or_default();
        if attributes.len() > MAX_ATTRIBUTES {
            return Err(Error::validation("attributes", format!("at most {MAX_ATTRIBUTES} keys")));
        }
        for (key, value) in &attributes {
            let control = |s: &str| s.chars().any(char::is_control);
            if control(key) || matches!(value, Value::String(s) if control(s)) {
                return Err(Error::validation("attributes", "keys and values must not contain control characters"));
            }
            if !matches!(value, Value::String(_) | Value::Number(_) | Value::Bool(_)) {
                return Err(Error::validation(
                    &format!("attributes.{}", printable(key)),
                    "must be a string, number or boolean (no objects, arrays or null)",
                ));
            }
        }
        let size = serde_json::to_vec(&attributes).map_err(Error::internal)?.len();
        if size > MAX_ATTRIBUTES_BYTES {
            return Err(Error::validation("attributes", format!("at most {MAX_ATTRIBUTES_BYTES} bytes of JSON")));
        }
        Ok(Self {
            campaign_id: input.campaign_id,
            external_user_ref,
            language: input.language,
            context: LaunchContext { device, attributes },
        })
    }
}

/// A key named in an error: at most 64 printable characters, so a message never carries a blob.
fn printable(key: &str) -> String {
    key.chars().filter(|c| !c.is_control()).take(64).collect()
}

/// A single-use link: minted by `POST /launch` (`lt` token or `/s/` nonce) or an audience
/// invitation (`/s/` nonce, no expiry).
#[derive(Clone, Debug, PartialEq)]
pub struct LaunchLink {
    pub id: LaunchLinkId,
    pub campaign_id: CampaignId,
    /// Keyed digest of the `/s/` nonce; `None` for `lt` links.
    pub nonce_digest: Option<Vec<u8>>,
    pub respondent_id: Option<RespondentId>,
    pub language: Option<LanguageTag>,
    /// Keyed digest of the partner's `externalUserRef`.
    pub external_user_digest: Option<Vec<u8>>,
    pub context: LaunchContext,
    pub expires_at: Option<OffsetDateTime>,
    pub spent_at: Option<OffsetDateTime>,
    pub created_at: OffsetDateTime,
}

impl LaunchLink {
    pub fn usable_at(&self, now: OffsetDateTime) -> bool {
        self.spent_at.is_none() && self.expires_at.is_none_or(|at| now < at)
    }
}

/// A launch key as stored: the secret sealed, never readable through the API after creation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LaunchKey {
    pub id: LaunchKeyId,
    pub campaign_id: CampaignId,
    pub slot: u8,
    pub fingerprint: String,
    pub secret_sealed: Vec<u8>,
    pub created_at: OffsetDateTime,
    pub last_used_at: Option<OffsetDateTime>,
    pub revoked_at: Option<OffsetDateTime>,
}

/// The associated data binding a sealed launch-key secret to its key.
pub fn launch_key_seal_context(id: LaunchKeyId) -> Vec<u8> {
    format!("launch-key\0{id}").into_bytes()
}

/// The claims of a launch token, as decoded (unchecked beyond the signature).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LaunchClaims {
    pub campaign: String,
    pub exp: i64,
    pub jti: String,
    pub lang: Option<String>,
    pub app: Option<String>,
    pub app_version: Option<String>,
    pub device: Option<String>,
    pub os: Option<String>,
    pub uid: Option<String>,
    pub tags: Vec<String>,
}

impl LaunchClaims {
    /// The rules of the contract beyond the signature: `exp` in the future and at most 30
    /// minutes ahead, `jti` 8 to 64 characters, at most 8 tags, `campaign` naming this campaign.
    pub fn acceptable(&self, now: OffsetDateTime, campaign_id: CampaignId, code: &str) -> bool {
        let now = now.unix_timestamp();
        let jti_len = self.jti.chars().count();
        self.exp > now
            && self.exp <= now + MAX_TOKEN_LIFETIME.whole_seconds()
            && (8..=64).contains(&jti_len)
            && !self.jti.chars().any(char::is_control)
            && self.tags.len() <= 8
            && (self.campaign == code || self.campaign == campaign_id.to_string())
    }
}

/// The one refusal every launch-token failure gets: it never says which check failed.
pub fn signature_required() -> Error {
    Error::refused(
        ErrorCode::LaunchSignatureRequired,
        "this survey can only be opened from the app that invited you (a signed launch is required)",
    )
}

pub fn token_invalid() -> Error {
    Error::refused(
        ErrorCode::LaunchTokenInvalid,
        "the launch token is invalid, expired or already used; ask for a fresh link",
    )
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use time::macros::datetime;

    use super::*;

    fn object(value: Value) -> Map<String, Value> {
        value.as_object().cloned().expect("object")
    }

    fn input() -> LaunchInput {
        LaunchInput {
            campaign_id: CampaignId::new_random(),
            external_user_ref: None,
            language: None,
            device: None,
            attributes: None,
        }
    }

    fn launch(device: Value, attributes: Value) -> Result<LaunchRequest> {
        LaunchRequest::parse(LaunchInput {
            device: Some(object(device)),
            attributes: Some(object(attributes)),
            ..input()
        })
    }

    #[test]
    fn device_labels_follow_the_allow_list() {
        assert!(launch(json!({"platform": "ios", "networkType": "wifi"}), json!({})).is_ok());
        let unknown = launch(json!({"imei": "1"}), json!({})).expect_err("unknown").to_string();
        assert!(
            unknown.contains("device") && !unknown.contains("imei"),
            "names the field, not the key sent: {unknown}"
        );
        assert!(launch(json!({"platform": "x".repeat(65)}), json!({})).is_err());
        assert!(launch(json!({"platform": 1}), json!({})).is_err());
    }

    #[test]
    fn attributes_are_flat_primitives_within_bounds() {
        assert!(launch(json!({}), json!({"plan": "gold", "visits": 3, "vip": true})).is_ok());
        assert!(launch(json!({}), json!({"nested": {"a": 1}})).expect_err("nested").to_string().contains("nested"));
        assert!(launch(json!({}), json!({"list": [1]})).is_err());
        assert!(launch(json!({}), json!({"nothing": null})).is_err());
        let many: Map<String, Value> = (0..65).map(|i| (format!("k{i}"), json!(i))).collect();
        assert!(launch(json!({}), Value::Object(many)).is_err());
        let big: Map<String, Value> = (0..9).map(|i| (format!("k{i}"), json!("x".repeat(1000)))).collect();
        assert!(launch(json!({}), Value::Object(big)).expect_err("big").to_string().contains("8192"));
        let sixty_four: Map<String, Value> = (0..64).map(|i| (format!("k{i}"), json!(i))).collect();
        assert!(launch(json!({}), Value::Object(sixty_four)).is_ok());
    }

    #[test]
    fn user_ref_and_language_lengths() {
        let with = |r: Option<&str>, l: Option<&str>| {
            LaunchRequest::parse(LaunchInput {
                external_user_ref: r.map(str::to_owned),
                language: l.map(str::to_owned),
                ..input()
            })
        };
        assert!(with(Some(&"u".repeat(200)), Some("pt-BR")).is_ok());
        assert!(with(Some(&"u".repeat(201)), None).is_err());
        assert!(with(None, Some("e")).is_err());
        assert!(with(None, Some(&"e".repeat(25))).is_err());
        assert!(with(None, Some("xx")).is_ok(), "an unoffered language is not an error");
    }

    #[test]
    fn claims_rules() {
        let now = datetime!(2026-01-01 10:00 UTC);
        let id = CampaignId::new_random();
        let good = LaunchClaims {
            campaign: "code1".into(),
            exp: now.unix_timestamp() + 600,
            jti: "12345678".into(),
            ..LaunchClaims::default()
        };
        assert!(good.acceptable(now, id, "code1"));
        assert!(LaunchClaims { campaign: id.to_string(), ..good.clone() }.acceptable(now, id, "code1"));
        assert!(!good.acceptable(now, id, "other"));
        assert!(!LaunchClaims { exp: now.unix_timestamp(), ..good.clone() }.acceptable(now, id, "code1"));
        assert!(LaunchClaims { exp: now.unix_timestamp() + 1800, ..good.clone() }.acceptable(now, id, "code1"));
        assert!(!LaunchClaims { exp: now.unix_timestamp() + 1801, ..good.clone() }.acceptable(now, id, "code1"));
        assert!(!LaunchClaims { jti: "1234567".into(), ..good.clone() }.acceptable(now, id, "code1"));
        assert!(!LaunchClaims { jti: "j".repeat(65), ..good.clone() }.acceptable(now, id, "code1"));
        assert!(LaunchClaims { tags: vec!["t".into(); 8], ..good.clone() }.acceptable(now, id, "code1"));
        assert!(!LaunchClaims { tags: vec!["t".into(); 9], ..good }.acceptable(now, id, "code1"));
    }
}
