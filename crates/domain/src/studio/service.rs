//! Authenticating Studio sessions and issuing their tokens.

use crate::error::{Error, ErrorCode, Result};
use crate::ids::BusinessId;
use crate::shared::clock::Clock;
use crate::studio::models::{DEFAULT_TTL, MAX_TTL, StudioClaims};
use crate::studio::ports::StudioTokens;
use time::Duration;
use uuid::Uuid;

/// The signed-in Studio user behind a bearer token.
///
/// # Errors
/// `Unauthenticated` for a missing, invalid or expired token.
pub fn authenticate_studio<T: StudioTokens, K: Clock>(
    tokens: &T,
    clock: &K,
    presented: Option<&str>,
) -> Result<StudioClaims> {
    let unauthenticated = |why: &str| Error::refused(ErrorCode::Unauthenticated, why);
    let token = presented.ok_or_else(|| unauthenticated("no Studio session token was sent"))?;
    let claims = tokens.verify(token).ok_or_else(|| unauthenticated("the Studio session token is not valid"))?;
    let now = clock.now();
    if claims.expires_at <= now {
        return Err(unauthenticated("the Studio session has expired; sign in again"));
    }
    // Tokens come from a signing service whose clock may run a little ahead of ours.
    let skew = Duration::minutes(1);
    if claims.issued_at > now + skew || claims.not_before.is_some_and(|nbf| nbf > now + skew) {
        return Err(unauthenticated("the Studio session token is not valid yet"));
    }
    // The cap the issuing command applies holds for every token, whoever signed it.
    if claims.expires_at - claims.issued_at > MAX_TTL {
        return Err(unauthenticated("the Studio session token lives longer than 24 hours; sign in again"));
    }
    Ok(claims)
}

/// Builds and signs a Studio token for an operator.
///
/// # Errors
/// `ValidationFailed` for no permission, a permission not of the form `resource:action`, or a
/// lifetime outside 1 second to 24 hours; signing errors.
pub async fn issue_studio_token<T: StudioTokens, K: Clock>(
    tokens: &T,
    clock: &K,
    business_id: BusinessId,
    user_id: Uuid,
    permissions: Vec<String>,
    ttl: Option<Duration>,
) -> Result<String> {
    if permissions.is_empty() {
        return Err(Error::validation("perm", "name at least one permission"));
    }
    if let Some(bad) = permissions.iter().find(|p| {
        !p.split_once(':').is_some_and(|(r, a)| {
            !r.is_empty() && !a.is_empty() && p.bytes().all(|b| b.is_ascii_lowercase() || b == b':' || b == b'_')
        })
    }) {
        return Err(Error::validation("perm", format!("`{bad}` is not a permission of the form resource:action")));
    }
    let ttl = ttl.unwrap_or(DEFAULT_TTL);
    if ttl < Duration::SECOND || ttl > MAX_TTL {
        return Err(Error::validation("ttl", "must be 1 second to 24 hours"));
    }
    let issued_at = clock.now().replace_nanosecond(0).unwrap_or_else(|_| clock.now());
    let claims =
        StudioClaims { user_id, business_id, permissions, issued_at, not_before: None, expires_at: issued_at + ttl };
    tokens.issue(&claims).await
}
