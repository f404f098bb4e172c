//! Keys read recently, so that a busy partner's calls do not each read the store.
//!
//! A copy is served for at most [`KEY_CACHE_TTL`]: a key revoked on any replica, or by the
//! operator's command, stops working everywhere within that time. Workspaces added to a key
//! elsewhere are seen at once, because a copy that would refuse the workspace a call names is read
//! again before refusing (see `Tenancy::authenticate_for`).

use crate::tenancy::models::ApiKeyRecord;
use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use time::{Duration, OffsetDateTime};

/// How long a key read from the store is trusted.
pub const KEY_CACHE_TTL: Duration = Duration::seconds(1);

/// Only keys that exist are kept, so the map is as large as the keys in use; past this it starts
/// again rather than grow.
const MAX_CACHED_KEYS: usize = 10_000;

#[derive(Debug, Default)]
pub struct KeyCache {
    entries: Mutex<HashMap<String, (ApiKeyRecord, OffsetDateTime)>>,
}

impl KeyCache {
    /// The copy of the key with `prefix` read less than [`KEY_CACHE_TTL`] before `now`.
    pub fn get(&self, prefix: &str, now: OffsetDateTime) -> Option<ApiKeyRecord> {
        let entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        let (record, read_at) = entries.get(prefix)?;
        (*read_at <= now && now - *read_at < KEY_CACHE_TTL).then(|| record.clone())
    }

    pub fn put(&self, record: &ApiKeyRecord, read_at: OffsetDateTime) {
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        if entries.len() >= MAX_CACHED_KEYS && !entries.contains_key(&record.prefix) {
            entries.clear();
        }
        entries.insert(record.prefix.clone(), (record.clone(), read_at));
    }

    pub fn forget(&self, prefix: &str) {
        self.entries.lock().unwrap_or_else(PoisonError::into_inner).remove(prefix);
    }
}
