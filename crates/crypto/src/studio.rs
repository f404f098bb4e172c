use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use pulse_domain::ids::BusinessId;
use pulse_domain::studio::models::StudioClaims;
use pulse_domain::studio::ports::StudioTokens;
use pulse_domain::{Error, Result};
use secrecy::{ExposeSecret, SecretString};
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use uuid::Uuid;

pub const STUDIO_AUDIENCE: &str = "pulse-studio";

#[derive(Debug, Serialize, Deserialize)]
struct Claims {
    sub: Uuid,
    business: Uuid,
    perms: Vec<String>,
    aud: String,
    iat: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    nbf: Option<i64>,
    exp: i64,
}

/// Studio session tokens: HS256 JWTs under `PULSE_STUDIO_JWT_SECRET`, audience `pulse-studio`.
pub struct JwtStudioTokens {
    encoding: EncodingKey,
    decoding: DecodingKey,
}

impl JwtStudioTokens {
    pub fn new(secret: &SecretString) -> Self {
        let bytes = secret.expose_secret().as_bytes();
        Self { encoding: EncodingKey::from_secret(bytes), decoding: DecodingKey::from_secret(bytes) }
    }
}

impl StudioTokens for JwtStudioTokens {
    async fn issue(&self, claims: &StudioClaims) -> Result<String> {
        let claims = Claims {
            sub: claims.user_id,
            business: claims.business_id.0,
            perms: claims.permissions.clone(),
            aud: STUDIO_AUDIENCE.to_owned(),
            iat: claims.issued_at.unix_timestamp(),
            nbf: claims.not_before.map(OffsetDateTime::unix_timestamp),
            exp: claims.expires_at.unix_timestamp(),
        };
        jsonwebtoken::encode(&Header::new(Algorithm::HS256), &claims, &self.encoding).map_err(Error::internal)
    }

    fn verify(&self, token: &str) -> Option<StudioClaims> {
        let mut validation = Validation::new(Algorithm::HS256);
        validation.set_audience(&[STUDIO_AUDIENCE]);
        // Expiry, `nbf` and the lifetime are checked against the service's clock by the domain.
        validation.validate_exp = false;
        validation.validate_nbf = false;
        validation.set_required_spec_claims(&["exp", "aud"]);
        let claims = jsonwebtoken::decode::<Claims>(token, &self.decoding, &validation).ok()?.claims;
        Some(StudioClaims {
            user_id: claims.sub,
            business_id: BusinessId(claims.business),
            permissions: claims.perms,
            issued_at: OffsetDateTime::from_unix_timestamp(claims.iat).ok()?,
            not_before: claims.nbf.map(OffsetDateTime::from_unix_timestamp).transpose().ok()?,
            expires_at: OffsetDateTime::from_unix_timestamp(claims.exp).ok()?,
        })
    }
}

#[cfg(test)]
mod tests {
    use jsonwebtoken::{DecodingKey, Validation};
    use pulse_domain::ids::BusinessId;
    use time::OffsetDateTime;

    use super::*;

    #[test]
    fn tokens_are_hs256_with_the_documented_claims() {
        let secret = SecretString::from("studio-secret-for-tests");
        let now = OffsetDateTime::now_utc().replace_nanosecond(0).expect("whole seconds");
        let claims = StudioClaims {
            user_id: Uuid::new_v4(),
            business_id: BusinessId::new_random(),
            permissions: vec!["campaign:view".into()],
            issued_at: now,
            not_before: None,
            expires_at: now + time::Duration::HOUR,
        };
        let token = futures_lite_block_on(JwtStudioTokens::new(&secret).issue(&claims)).expect("token");
        let mut validation = Validation::new(Algorithm::HS256);
        validation.set_audience(&[STUDIO_AUDIENCE]);
        let decoded =
            jsonwebtoken::decode::<Claims>(&token, &DecodingKey::from_secret(b"studio-secret-for-tests"), &validation)
                .expect("valid");
        assert_eq!(decoded.claims.sub, claims.user_id);
        assert_eq!(decoded.claims.business, claims.business_id.0);
        assert_eq!(decoded.claims.perms, vec!["campaign:view".to_owned()]);
        assert_eq!(decoded.claims.exp, (now + time::Duration::HOUR).unix_timestamp());
    }

    fn futures_lite_block_on<F: std::future::Future>(future: F) -> F::Output {
        // `issue` never awaits anything, so one poll finishes it.
        let mut future = std::pin::pin!(future);
        let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
        match future.as_mut().poll(&mut cx) {
            std::task::Poll::Ready(out) => out,
            std::task::Poll::Pending => unreachable!("issue does not wait"),
        }
    }
}
