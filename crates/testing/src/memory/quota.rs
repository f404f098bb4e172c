//! Quota windows in memory.
use super::*;
use pulse_domain::error::Result;
use pulse_domain::quota::models::QuotaFamily;
use pulse_domain::quota::ports::QuotaCounter;
use time::OffsetDateTime;

impl QuotaCounter for MemoryStore {
    async fn hit(&self, subject: &str, family: QuotaFamily, window_start: OffsetDateTime) -> Result<u32> {
        let mut state = self.state();
        let count = state.quota_windows.entry((subject.to_owned(), family, window_start)).or_insert(0);
        *count += 1;
        Ok(*count)
    }

    async fn count(&self, subject: &str, family: QuotaFamily, window_start: OffsetDateTime) -> Result<u32> {
        Ok(self.state().quota_windows.get(&(subject.to_owned(), family, window_start)).copied().unwrap_or(0))
    }

    async fn purge_quota_windows(&self, before: OffsetDateTime) -> Result<u64> {
        let mut state = self.state();
        let len = state.quota_windows.len();
        state.quota_windows.retain(|(_, _, start), _| *start >= before);
        Ok((len - state.quota_windows.len()) as u64)
    }
}
