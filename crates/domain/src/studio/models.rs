//! Studio sessions: signed-in Studio/Admin users, carried as a bearer JWT.

use crate::error::{Error, ErrorCode, Result};
use crate::ids::BusinessId;
use time::{Duration, OffsetDateTime};
use uuid::Uuid;

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
    /// The token's `nbf`, when it has one: it is refused before then.
    pub not_before: Option<OffsetDateTime>,
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
