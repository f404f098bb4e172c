//! Hourly quotas per key (and, later, per network), counted in fixed windows that every replica
//! shares through the [`QuotaCounter`] port.

use std::collections::HashMap;

use time::{Duration, OffsetDateTime};

use crate::clock::Clock;
use crate::error::{Error, ErrorCode, RateLimitState, Refusal, Result};
use crate::ports::QuotaCounter;

/// A family of routes that shares one hourly quota.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum QuotaFamily {
    /// `GET /whoami`.
    Identity,
    /// `GET /orgs`.
    WorkspaceRead,
    /// `POST /orgs`.
    WorkspaceCreate,
    /// `GET /campaigns/{id}`.
    CampaignRead,
    /// `POST /campaigns` and `POST /campaigns/{id}/launch`.
    Provision,
    /// `POST /campaigns/{id}/respondents`.
    Audience,
    /// `POST /launch`.
    Launch,
    /// Studio launch-key routes, per Studio user.
    Studio,
    /// `GET /public/pulse/{code}/access`, per network.
    AccessCheck,
    /// `POST /public/pulse/{code}/start`, per network.
    StartAttempt,
    /// Answers and completion of a respondent session, per session.
    SessionWrite,
    /// `POST /apps/register`, per network.
    Install,
    /// `GET /devices` and the install lists, per key.
    DeviceRead,
    /// The webhook routes, per key.
    Webhook,
}

impl QuotaFamily {
    pub const ALL: [QuotaFamily; 14] = [
        QuotaFamily::Identity,
        QuotaFamily::WorkspaceRead,
        QuotaFamily::WorkspaceCreate,
        QuotaFamily::CampaignRead,
        QuotaFamily::Provision,
        QuotaFamily::Audience,
        QuotaFamily::Launch,
        QuotaFamily::Studio,
        QuotaFamily::AccessCheck,
        QuotaFamily::StartAttempt,
        QuotaFamily::SessionWrite,
        QuotaFamily::Install,
        QuotaFamily::DeviceRead,
        QuotaFamily::Webhook,
    ];

    /// The name used in storage, configuration and documentation.
    pub const fn as_str(self) -> &'static str {
        match self {
            QuotaFamily::Identity => "identity",
            QuotaFamily::WorkspaceRead => "workspace_read",
            QuotaFamily::WorkspaceCreate => "workspace_create",
            QuotaFamily::CampaignRead => "campaign_read",
            QuotaFamily::Provision => "provision",
            QuotaFamily::Audience => "audience",
            QuotaFamily::Launch => "launch",
            QuotaFamily::Studio => "studio",
            QuotaFamily::AccessCheck => "access_check",
            QuotaFamily::StartAttempt => "start_attempt",
            QuotaFamily::SessionWrite => "session_write",
            QuotaFamily::Install => "install",
            QuotaFamily::DeviceRead => "device_read",
            QuotaFamily::Webhook => "webhook",
        }
    }

    pub const fn default_hourly_limit(self) -> u32 {
        match self {
            QuotaFamily::Identity
            | QuotaFamily::WorkspaceRead
            | QuotaFamily::CampaignRead
            | QuotaFamily::Studio
            | QuotaFamily::DeviceRead => 3600,
            QuotaFamily::WorkspaceCreate => 100,
            QuotaFamily::Webhook => 1000,
            QuotaFamily::Provision | QuotaFamily::Audience => 500,
            QuotaFamily::Launch => 20_000,
            QuotaFamily::AccessCheck => 2000,
            QuotaFamily::Install => 200,
            QuotaFamily::StartAttempt => 1000,
            // A survey of 50 questions answered one at a time, with retries.
            QuotaFamily::SessionWrite => 300,
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|f| f.as_str() == text)
    }
}

/// The limits in force.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QuotaPolicy {
    /// `false` lifts every quota (load tests only).
    pub enabled: bool,
    hourly: HashMap<QuotaFamily, u32>,
    /// How many workspaces one business may hold.
    pub workspaces_per_business: u32,
}

impl Default for QuotaPolicy {
    fn default() -> Self {
        Self {
            enabled: true,
            hourly: QuotaFamily::ALL.into_iter().map(|f| (f, f.default_hourly_limit())).collect(),
            workspaces_per_business: 1000,
        }
    }
}

impl QuotaPolicy {
    pub fn with_hourly(mut self, family: QuotaFamily, limit: u32) -> Self {
        self.hourly.insert(family, limit);
        self
    }

    /// The workspace limit in force: none while quotas are lifted.
    pub fn workspace_limit(&self) -> u32 {
        if self.enabled { self.workspaces_per_business } else { u32::MAX }
    }

    pub fn hourly(&self, family: QuotaFamily) -> u32 {
        self.hourly.get(&family).copied().unwrap_or_else(|| family.default_hourly_limit())
    }
}

const WINDOW: Duration = Duration::HOUR;

fn window_start(now: OffsetDateTime) -> OffsetDateTime {
    let into_window = i64::from(now.minute()) * 60 + i64::from(now.second());
    now.replace_nanosecond(0).unwrap_or(now) - Duration::seconds(into_window)
}

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
        let state = RateLimitState { limit, remaining: limit.saturating_sub(count), reset_secs };
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

#[cfg(test)]
mod tests {
    use futures_executor::block_on;
    use time::macros::datetime;

    use super::*;
    use crate::clock::SettableClock;
    use crate::memory::MemoryStore;

    #[test]
    fn windows_start_on_the_hour() {
        assert_eq!(window_start(datetime!(2026-01-01 10:59:59.5 UTC)), datetime!(2026-01-01 10:00 UTC));
        assert_eq!(window_start(datetime!(2026-01-01 11:00 UTC)), datetime!(2026-01-01 11:00 UTC));
    }

    #[test]
    fn the_limit_refuses_then_resets_with_the_next_window() {
        let clock = SettableClock::new(datetime!(2026-01-01 10:59:00 UTC));
        let policy = QuotaPolicy::default().with_hourly(QuotaFamily::WorkspaceCreate, 2);
        let quotas = Quotas::new(MemoryStore::default(), clock.clone(), policy);
        let first = block_on(quotas.hit("k", QuotaFamily::WorkspaceCreate)).expect("ok").expect("state");
        assert_eq!((first.limit, first.remaining, first.reset_secs), (2, 1, 60));
        block_on(quotas.hit("k", QuotaFamily::WorkspaceCreate)).expect("second is allowed");
        let refused = block_on(quotas.hit("k", QuotaFamily::WorkspaceCreate)).expect_err("third is refused");
        match refused {
            Error::Refused(r) => {
                assert_eq!(r.code, ErrorCode::RateLimited);
                assert_eq!(r.rate_limit.map(|s| s.reset_secs), Some(60));
            }
            other => panic!("unexpected {other:?}"),
        }
        // Another key and another family are counted apart.
        block_on(quotas.hit("other", QuotaFamily::WorkspaceCreate)).expect("other key");
        block_on(quotas.hit("k", QuotaFamily::WorkspaceRead)).expect("other family");
        clock.advance(Duration::minutes(1));
        block_on(quotas.hit("k", QuotaFamily::WorkspaceCreate)).expect("new window");
    }

    #[test]
    fn lifted_quotas_never_count() {
        let clock = SettableClock::new(datetime!(2026-01-01 10:00 UTC));
        let policy = QuotaPolicy { enabled: false, ..QuotaPolicy::default() }.with_hourly(QuotaFamily::Identity, 0);
        let quotas = Quotas::new(MemoryStore::default(), clock, policy);
        assert_eq!(block_on(quotas.hit("k", QuotaFamily::Identity)).expect("lifted"), None);
    }
}
