//! Copies of rows read recently, so that hot paths do not read the same row on every request.
//!
//! A copy is served for less than its time to live after it was read, by the clock port, so a
//! change made elsewhere (another replica, the operator's command) reaches every reader within
//! that time. Callers keep exactness where it matters by reading again before a copy makes them
//! refuse, or by checking again when they write.

use std::borrow::Borrow;
use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Mutex, PoisonError};
use time::{Duration, OffsetDateTime};

#[derive(Debug)]
pub struct RecentCopies<K, V> {
    ttl: Duration,
    /// Only rows that exist are kept, so the map is as large as the rows in use; past this it
    /// starts again rather than grow.
    max_entries: usize,
    entries: Mutex<HashMap<K, (V, OffsetDateTime)>>,
}

impl<K: Eq + Hash, V: Clone> RecentCopies<K, V> {
    pub fn new(ttl: Duration, max_entries: usize) -> Self {
        Self { ttl, max_entries, entries: Mutex::new(HashMap::new()) }
    }

    /// The copy of `key` read less than the time to live before `now`.
    pub fn get<Q>(&self, key: &Q, now: OffsetDateTime) -> Option<V>
    where
        K: Borrow<Q>,
        Q: Eq + Hash + ?Sized,
    {
        let entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        let (value, read_at) = entries.get(key)?;
        (*read_at <= now && now - *read_at < self.ttl).then(|| value.clone())
    }

    pub fn put(&self, key: K, value: V, read_at: OffsetDateTime) {
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        if entries.len() >= self.max_entries && !entries.contains_key(&key) {
            entries.clear();
        }
        entries.insert(key, (value, read_at));
    }

    pub fn forget<Q>(&self, key: &Q)
    where
        K: Borrow<Q>,
        Q: Eq + Hash + ?Sized,
    {
        self.entries.lock().unwrap_or_else(PoisonError::into_inner).remove(key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::datetime;

    #[test]
    fn a_copy_serves_until_its_time_to_live_and_never_before_it_was_read() {
        let copies = RecentCopies::new(Duration::seconds(1), 10);
        let read_at = datetime!(2026-11-23 12:00 UTC);
        copies.put("a", 1, read_at);
        assert_eq!(copies.get(&"a", read_at), Some(1));
        assert_eq!(copies.get(&"a", read_at + Duration::milliseconds(999)), Some(1));
        assert_eq!(copies.get(&"a", read_at + Duration::seconds(1)), None);
        assert_eq!(copies.get(&"a", read_at - Duration::milliseconds(1)), None, "a clock set back reads again");
        copies.forget(&"a");
        assert_eq!(copies.get(&"a", read_at), None);
    }

    #[test]
    fn a_full_map_starts_again_instead_of_growing() {
        let copies = RecentCopies::new(Duration::seconds(1), 2);
        let now = datetime!(2026-11-23 12:00 UTC);
        copies.put(1, "one", now);
        copies.put(2, "two", now);
        copies.put(2, "two again", now);
        assert_eq!(copies.get(&1, now), Some("one"), "replacing a copy does not count as growing");
        copies.put(3, "three", now);
        assert_eq!((copies.get(&1, now), copies.get(&3, now)), (None, Some("three")));
    }
}
