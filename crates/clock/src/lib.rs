//! The system clock adapter. Tests use [`pulse_domain::clock::SettableClock`] instead.

use pulse_domain::clock::Clock;
use time::OffsetDateTime;

#[derive(Clone, Copy, Debug, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> OffsetDateTime {
        OffsetDateTime::now_utc()
    }
}
