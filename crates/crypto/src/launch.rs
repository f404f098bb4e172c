use std::collections::HashSet;

use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use pulse_domain::campaigns::models::{LaunchClaims, SERVER_KID};
use pulse_domain::campaigns::ports::LaunchTokenCodec;
use pulse_domain::{Error, Result};
use serde::{Deserialize, Serialize};

use crate::MasterKey;

const LINK_SIGNING_LABEL: &str = "pulse/launch-link-signing/v1";

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Claims {
    campaign: String,
    exp: i64,
    jti: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    lang: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    app: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    app_version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    device: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    os: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    uid: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    tags: Vec<String>,
}

impl From<Claims> for LaunchClaims {
    fn from(c: Claims) -> Self {
        Self {
            campaign: c.campaign,
            exp: c.exp,
            jti: c.jti,
            lang: c.lang,
            app: c.app,
            app_version: c.app_version,
            device: c.device,
            os: c.os,
            uid: c.uid,
            tags: c.tags,
        }
    }
}

impl From<&LaunchClaims> for Claims {
    fn from(c: &LaunchClaims) -> Self {
        Self {
            campaign: c.campaign.clone(),
            exp: c.exp,
            jti: c.jti.clone(),
            lang: c.lang.clone(),
            app: c.app.clone(),
            app_version: c.app_version.clone(),
            device: c.device.clone(),
            os: c.os.clone(),
            uid: c.uid.clone(),
            tags: c.tags.clone(),
        }
    }
}

/// Launch tokens: HS256 JWTs. Partners sign with a launch-key secret (`kid` = key id); the
/// service signs minted links with a key derived from the master key (`kid` = `pulse-link`).
pub struct JwtLaunchTokens {
    link_encoding: EncodingKey,
    link_decoding: DecodingKey,
}

impl JwtLaunchTokens {
    pub fn new(master: &MasterKey) -> Self {
        let key = master.derive(LINK_SIGNING_LABEL);
        Self { link_encoding: EncodingKey::from_secret(&key), link_decoding: DecodingKey::from_secret(&key) }
    }
}

/// HS256 only; expiry is checked by the domain against its clock, so the library's own
/// wall-clock checks are off.
fn validation() -> Validation {
    let mut validation = Validation::new(Algorithm::HS256);
    validation.validate_exp = false;
    validation.validate_nbf = false;
    validation.validate_aud = false;
    validation.required_spec_claims = HashSet::new();
    validation
}

fn decode(token: &str, key: &DecodingKey) -> Option<LaunchClaims> {
    jsonwebtoken::decode::<Claims>(token, key, &validation()).ok().map(|data| data.claims.into())
}

impl LaunchTokenCodec for JwtLaunchTokens {
    fn key_id(&self, token: &str) -> Option<String> {
        let header = jsonwebtoken::decode_header(token).ok()?;
        let typ_ok = header.typ.as_deref().is_none_or(|t| t.eq_ignore_ascii_case("JWT"));
        (header.alg == Algorithm::HS256 && typ_ok).then_some(header.kid).flatten()
    }

    fn verify(&self, token: &str, secret: &[u8]) -> Option<LaunchClaims> {
        decode(token, &DecodingKey::from_secret(secret))
    }

    fn sign_link(&self, claims: &LaunchClaims) -> Result<String> {
        let mut header = Header::new(Algorithm::HS256);
        header.kid = Some(SERVER_KID.to_owned());
        jsonwebtoken::encode(&header, &Claims::from(claims), &self.link_encoding).map_err(Error::internal)
    }

    fn verify_link(&self, token: &str) -> Option<LaunchClaims> {
        if self.key_id(token).as_deref() != Some(SERVER_KID) {
            return None;
        }
        decode(token, &self.link_decoding)
    }
}

#[cfg(test)]
mod tests {
    use base64::Engine as _;
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;

    use super::*;

    fn codec() -> JwtLaunchTokens {
        JwtLaunchTokens::new(&MasterKey::from_base64(&MasterKey::generate_base64()).expect("key"))
    }

    fn claims() -> LaunchClaims {
        LaunchClaims { campaign: "abc".into(), exp: 2_000_000_000, jti: "jti-12345".into(), ..LaunchClaims::default() }
    }

    fn partner_token(alg: Algorithm, kid: Option<&str>, secret: &[u8]) -> String {
        let mut header = Header::new(alg);
        header.kid = kid.map(str::to_owned);
        jsonwebtoken::encode(&header, &Claims::from(&claims()), &EncodingKey::from_secret(secret)).expect("token")
    }

    #[test]
    fn partner_tokens_verify_only_under_their_secret_and_hs256() {
        let codec = codec();
        let token = partner_token(Algorithm::HS256, Some("kid-1"), b"secret-one");
        assert_eq!(codec.key_id(&token).as_deref(), Some("kid-1"));
        assert_eq!(codec.verify(&token, b"secret-one"), Some(claims()));
        assert_eq!(codec.verify(&token, b"secret-two"), None);
        let hs512 = partner_token(Algorithm::HS512, Some("kid-1"), b"secret-one");
        assert_eq!(codec.key_id(&hs512), None);
        assert_eq!(codec.verify(&hs512, b"secret-one"), None);
        assert_eq!(codec.key_id(&partner_token(Algorithm::HS256, None, b"s")), None);
        assert_eq!(codec.key_id("not a token"), None);
    }

    #[test]
    fn unsigned_tokens_are_refused() {
        let codec = codec();
        let header = URL_SAFE_NO_PAD.encode(br#"{"alg":"none","kid":"kid-1","typ":"JWT"}"#);
        let body = URL_SAFE_NO_PAD.encode(serde_json::to_vec(&Claims::from(&claims())).expect("json"));
        let token = format!("{header}.{body}.");
        assert_eq!(codec.key_id(&token), None);
        assert_eq!(codec.verify(&token, b""), None);
    }

    #[test]
    fn link_tokens_are_the_service_own() {
        let ours = codec();
        let token = ours.sign_link(&claims()).expect("signed");
        assert_eq!(ours.key_id(&token).as_deref(), Some(SERVER_KID));
        assert_eq!(ours.verify_link(&token), Some(claims()));
        assert_eq!(codec().verify_link(&token), None, "another master key");
        let forged = partner_token(Algorithm::HS256, Some(SERVER_KID), b"guess");
        assert_eq!(ours.verify_link(&forged), None);
    }
}
