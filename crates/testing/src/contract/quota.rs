//! `QuotaCounter`: exact counts per subject, family and window, shared by every replica.

use pulse_domain::quota::models::{QuotaFamily, window_start};
use pulse_domain::quota::ports::QuotaCounter;
use time::Duration;
use time::macros::datetime;

pub async fn hits_count_per_subject_family_and_window<S: QuotaCounter>(store: S) {
    let window = window_start(datetime!(2026-01-01 10:17:03 UTC));
    for expected in 1..=3 {
        assert_eq!(store.hit("key-a", QuotaFamily::Launch, window).await.expect("hit"), expected);
    }
    assert_eq!(store.hit("key-b", QuotaFamily::Launch, window).await.expect("hit"), 1, "another subject");
    assert_eq!(store.hit("key-a", QuotaFamily::Provision, window).await.expect("hit"), 1, "another family");
    let next = window + Duration::HOUR;
    assert_eq!(store.hit("key-a", QuotaFamily::Launch, next).await.expect("hit"), 1, "another window");
    assert_eq!(store.count("key-a", QuotaFamily::Launch, window).await.expect("count"), 3, "read, not counted");
    assert_eq!(store.count("key-a", QuotaFamily::Launch, window).await.expect("count"), 3);
    assert_eq!(store.count("key-c", QuotaFamily::Launch, window).await.expect("count"), 0, "never counted");
}

pub async fn old_windows_are_purged<S: QuotaCounter>(store: S) {
    let window = window_start(datetime!(2026-01-01 10:00 UTC));
    store.hit("key", QuotaFamily::Launch, window).await.expect("hit");
    store.hit("key", QuotaFamily::Launch, window + Duration::HOUR).await.expect("hit");
    assert_eq!(store.purge_quota_windows(window).await.expect("purge"), 0, "a window starting then is kept");
    assert_eq!(store.purge_quota_windows(window + Duration::HOUR).await.expect("purge"), 1);
    assert_eq!(store.hit("key", QuotaFamily::Launch, window + Duration::HOUR).await.expect("hit"), 2);
}
