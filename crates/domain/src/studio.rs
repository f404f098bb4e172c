//! Studio sessions: signed-in Studio/Admin users, carried as a bearer JWT.

use std::future::Future;

use time::{Duration, OffsetDateTime};
use uuid::Uuid;

use crate::clock::Clock;
use crate::error::{Error, ErrorCode, Result};
use crate::ids::BusinessId;

pub const PERMISSION_VIEW: &str = "campaign:view";
pub const PERMISSION_BUILD: &str = "campaign:build";
pub const DEFAULT_TTL: Duration = Duration::HOUR;
pub const MAX_TTL: Duration = Duration::DAY;

/// What a Studio token asserts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StudioClaims {
    pub user_id: Uuid,
    pub business_id: BusinessId,
    pub permissions: Vec<String>,
    pub issued_at: OffsetDateTime,
    pub expires_at: OffsetDateTime,
}

impl StudioClaims {
    /// # Errors
    /// `InsufficientPermission` naming the permission when the session lacks it.
    pub fn require_permission(&self, permission: &str) -> Result<()> {
        if self.permissions.iter().any(|p| p == permission) {
            Ok(())
        } else {
            Err(Error::refused(
                ErrorCode::InsufficientPermission,
                format!("this Studio session lacks the permission `{permission}`"),
            ))
        }
    }
}

/// Signs and verifies Studio tokens.
pub trait StudioTokens: Send + Sync + 'static {
    /// # Errors
    /// `Internal` when signing fails.
    fn issue(&self, claims: &StudioClaims) -> impl Future<Output = Result<String>> + Send;

    /// The claims of a token this service signed for the Studio audience; `None` for any other
    /// token. Expiry is the caller's to check, against its clock.
    fn verify(&self, token: &str) -> Option<StudioClaims>;
}

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
    if claims.expires_at <= clock.now() {
        return Err(unauthenticated("the Studio session has expired; sign in again"));
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
    let claims = StudioClaims { user_id, business_id, permissions, issued_at, expires_at: issued_at + ttl };
    tokens.issue(&claims).await
}
