//! Counting calls against hourly quotas.

use crate::error::{Error, ErrorCode, RateLimitState, Refusal, Result};
use crate::quota::models::{QuotaFamily, QuotaPolicy, WINDOW, window_start};
use crate::quota::ports::QuotaCounter;
use crate::shared::clock::Clock;

pub struct Quotas<Q, K> {
    counter: Q,
    clock: K,
    policy: QuotaPolicy,
}

impl<Q: QuotaCounter, K: Clock> Quotas<Q, K> {
    pub fn new(counter: Q, clock: K, policy: QuotaPolicy) -> Self {
        Self { counter, clock, policy }
    }

    pub fn policy(&self) -> &QuotaPolicy {
        &self.policy
    }

    /// Counts one call of `subject` in `family`; `None` when quotas are lifted.
    ///
    /// # Errors
    /// `RateLimited` (with the window state) once the hourly limit is used up; port errors as they are.
    pub async fn hit(&self, subject: &str, family: QuotaFamily) -> Result<Option<RateLimitState>> {
        if !self.policy.enabled {
            return Ok(None);
        }
        let now = self.clock.now();
        let start = window_start(now);
        let count = self.counter.hit(subject, family, start).await?;
        let limit = self.policy.hourly(family);
        let reset_secs = u64::try_from((start + WINDOW - now).whole_seconds()).unwrap_or(0).max(1);
        let state =
            RateLimitState { family: family.as_str(), limit, remaining: limit.saturating_sub(count), reset_secs };
        if count > limit {
            return Err(Error::Refused(Refusal {
                code: ErrorCode::RateLimited,
                description: format!("the hourly `{}` quota of {limit} calls is used up", family.as_str()),
                rate_limit: Some(state),
            }));
        }
        Ok(Some(state))
    }

    /// Deletes windows that ended more than an hour ago.
    ///
    /// # Errors
    /// Port errors as they are.
    pub async fn purge_old_windows(&self) -> Result<u64> {
        self.counter.purge_quota_windows(window_start(self.clock.now()) - WINDOW).await
    }
}
