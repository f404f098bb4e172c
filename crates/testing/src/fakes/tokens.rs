//! A launch-token codec without cryptography: a token reads `<kid>|<secret>|<claims as JSON>` and
//! "verifying" compares the embedded secret, so tests can forge any token they need.

use pulse_domain::Result;
use pulse_domain::campaigns::models::{LaunchClaims, SERVER_KID};
use pulse_domain::campaigns::ports::LaunchTokenCodec;
use serde_json::{Value, json};

/// The secret of the service's own links.
pub const SERVER_SECRET: &str = "server-secret";

#[derive(Clone, Copy, Debug, Default)]
pub struct FakeTokens;

/// A token for `claims` under launch key `kid` with `secret`.
pub fn fake_token(kid: &str, secret: &str, claims: &LaunchClaims) -> String {
    let body = json!({"campaign": claims.campaign, "exp": claims.exp, "jti": claims.jti, "lang": claims.lang});
    format!("{kid}|{secret}|{body}")
}

fn parse_token(token: &str) -> Option<(&str, &str, LaunchClaims)> {
    let mut parts = token.splitn(3, '|');
    let (kid, secret) = (parts.next()?, parts.next()?);
    let body: Value = serde_json::from_str(parts.next()?).ok()?;
    let text = |name: &str| body.get(name).and_then(Value::as_str).map(str::to_owned);
    let claims = LaunchClaims {
        campaign: text("campaign")?,
        exp: body.get("exp")?.as_i64()?,
        jti: text("jti")?,
        lang: text("lang"),
        ..LaunchClaims::default()
    };
    Some((kid, secret, claims))
}

impl LaunchTokenCodec for FakeTokens {
    fn key_id(&self, token: &str) -> Option<String> {
        parse_token(token).map(|(kid, _, _)| kid.to_owned()).filter(|kid| !kid.is_empty())
    }

    fn verify(&self, token: &str, secret: &[u8]) -> Option<LaunchClaims> {
        parse_token(token).filter(|(_, s, _)| s.as_bytes() == secret).map(|(_, _, claims)| claims)
    }

    fn sign_link(&self, claims: &LaunchClaims) -> Result<String> {
        Ok(fake_token(SERVER_KID, SERVER_SECRET, claims))
    }

    fn verify_link(&self, token: &str) -> Option<LaunchClaims> {
        parse_token(token).filter(|(kid, s, _)| *kid == SERVER_KID && *s == SERVER_SECRET).map(|(_, _, claims)| claims)
    }
}
