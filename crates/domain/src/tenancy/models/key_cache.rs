//! Keys read recently, so that a busy partner's calls do not each read the store.
//!
//! A copy is served for at most [`KEY_CACHE_TTL`]: a key revoked on any replica, or by the
//! operator's command, stops working everywhere within that time. Workspaces added to a key
//! elsewhere are seen at once, because a copy that would refuse the workspace a call names is read
//! again before refusing (see `Tenancy::authenticate_for`).

use crate::shared::recent::RecentCopies;
use crate::tenancy::models::ApiKeyRecord;
use time::Duration;

/// How long a key read from the store is trusted.
pub const KEY_CACHE_TTL: Duration = Duration::seconds(1);

/// Unknown prefixes are never kept, so this bounds the keys in use, not what callers send.
const MAX_CACHED_KEYS: usize = 10_000;

/// Copies by key prefix.
pub type KeyCache = RecentCopies<String, ApiKeyRecord>;

pub fn key_cache() -> KeyCache {
    RecentCopies::new(KEY_CACHE_TTL, MAX_CACHED_KEYS)
}
