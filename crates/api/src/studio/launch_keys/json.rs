//! The request and response bodies of the launch-key routes, and their conversion from the domain.

use pulse_domain::campaigns::models::LaunchKey;
use pulse_domain::campaigns::service::LaunchKeyList;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa::ToSchema;
use uuid::Uuid;

/// A launch key. Its secret is returned once, on creation; never on a replay or a read.
// No `Debug`: the body may hold the secret.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LaunchKeyBody {
    /// Also the JWT header `kid` of tokens signed with it.
    pub id: Uuid,
    /// 1 or 2.
    pub slot: u8,
    /// The first 8 hex characters of the SHA-256 of the secret.
    pub fingerprint: String,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339::option")]
    pub last_used_at: Option<OffsetDateTime>,
    /// The HMAC secret as an ASCII string; sign with its UTF-8 bytes. Only in the 201 answer.
    pub secret: Option<String>,
    /// The same as `id`.
    pub kid: String,
}

impl LaunchKeyBody {
    pub(super) fn new(key: &LaunchKey, secret: Option<String>) -> Self {
        Self {
            id: key.id.0,
            slot: key.slot,
            fingerprint: key.fingerprint.clone(),
            created_at: key.created_at,
            last_used_at: key.last_used_at,
            secret,
            kid: key.id.to_string(),
        }
    }
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LaunchKeyListBody {
    pub items: Vec<LaunchKeyBody>,
    pub require_signed: bool,
}

impl From<LaunchKeyList> for LaunchKeyListBody {
    fn from(list: LaunchKeyList) -> Self {
        Self {
            items: list.keys.iter().map(|k| LaunchKeyBody::new(k, None)).collect(),
            require_signed: list.require_signed,
        }
    }
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LaunchAccessBody {
    /// When true, public starts need a signed launch token (or a minted link).
    pub require_signed: bool,
}
