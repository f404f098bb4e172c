//! Hourly quota windows.
use futures_executor::block_on;
use pulse_domain::error::{Error, ErrorCode};
use pulse_domain::quota::models::*;
use pulse_domain::quota::models::{QuotaFamily, QuotaPolicy};
use pulse_domain::quota::service::*;
use pulse_domain::shared::clock::SettableClock;
use pulse_testing::MemoryStore;
use time::Duration;
use time::macros::datetime;

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
    let mut policy = QuotaPolicy::default().with_hourly(QuotaFamily::Identity, 0);
    policy.enabled = false;
    let quotas = Quotas::new(MemoryStore::default(), clock, policy);
    assert_eq!(block_on(quotas.hit("k", QuotaFamily::Identity)).expect("lifted"), None);
}
