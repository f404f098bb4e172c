//! The system clock adapter. Tests use [`pulse_domain::shared::clock::SettableClock`] instead.

use pulse_domain::shared::clock::Clock;
use time::OffsetDateTime;

#[derive(Clone, Copy, Debug, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    /// Now, to the microsecond: PostgreSQL keeps microseconds, so a time answered when a row is
    /// written reads the same when the row is read back.
    fn now(&self) -> OffsetDateTime {
        let now = OffsetDateTime::now_utc();
        now.replace_microsecond(now.microsecond()).unwrap_or(now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn now_has_no_finer_part_than_microseconds() {
        assert_eq!(SystemClock.now().nanosecond() % 1000, 0);
    }
}
